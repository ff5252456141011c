"""Two relays as deployments run them, in front of the emulator: run one per process.

``python relay_app.py starlette|aiohttp UPSTREAM`` listens on a free port of 127.0.0.1,
prints ``listening <port>`` and relays every ``POST <path>`` to ``UPSTREAM + <path>``
until SIGTERM:

- ``starlette``: FastAPI + sse-starlette's ``EventSourceResponse`` (CRLF line ends, its
  ``: ping`` comments every :data:`PING` seconds), upstream read with httpx;
- ``aiohttp``: aiohttp + aiohttp-sse's ``sse_response`` (its own CRLF and pings), upstream
  read with aiohttp's client.

Both parse the upstream stream with :mod:`relay_sse` (their own reader, not sse_core's) and
re-emit each event, its name and data, as their library writes events. They are faithful:
a non-2xx answer (or a 2xx one that is not a stream, e.g. a ``stream: false`` JSON answer)
passes through with its status, body and content type; an upstream that ends cleanly ends
the relayed stream cleanly, adding nothing (no ``[DONE]``, no finish); an upstream that
breaks breaks the relayed response; a client that leaves closes the upstream request. They
forward the headers the emulator reads (``X-Emulator-Fault``, ``SPASS-User-Id``,
``Authorization``) and pass ``Retry-After`` and ``X-Request-Id`` back.

A process of its own keeps sse-starlette's patch of uvicorn's signal handling (and its
process-wide shutdown flag) out of the test process; it ends itself if that process dies.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Mapping

import aiohttp
import anyio
import httpx
import uvicorn
from aiohttp import web
from aiohttp_sse import sse_response
from fastapi import FastAPI, Request
from fastapi.responses import Response
from relay_sse import EventReader
from sse_starlette import EventSourceResponse, ServerSentEvent

__all__ = ["PING", "aiohttp_app", "main", "starlette_app"]

#: Seconds between the relays' keep-alive comments (sse-starlette's default is 15).
PING = 0.2
#: How long a relay waits for the upstream's next bytes before it gives up.
UPSTREAM_IDLE = 30.0
FORWARDED = ("authorization", "content-type", "x-emulator-fault", "spass-user-id")
RETURNED = ("retry-after", "retry-after-ms", "x-request-id")


def _pick(headers: Mapping[str, str], names: tuple[str, ...]) -> dict[str, str]:
    return {name: headers[name] for name in names if name in headers}


def _is_stream(status: int, content_type: str) -> bool:
    return 200 <= status < 300 and "event-stream" in content_type


# --- FastAPI + sse-starlette ---


async def _reemit(upstream: httpx.Response) -> AsyncIterator[ServerSentEvent]:
    """The upstream's events, as sse-starlette events; the upstream closed in the end."""
    reader = EventReader()
    try:
        async for piece in upstream.aiter_raw():
            for event in reader.feed(piece):
                yield ServerSentEvent(data=event.data, event=event.event, id=event.id)
    finally:
        with anyio.CancelScope(shield=True):  # a client that left cancels us: close anyway
            await upstream.aclose()


def starlette_app(upstream_url: str) -> FastAPI:
    """The FastAPI relay to ``upstream_url``."""
    client = httpx.AsyncClient(timeout=httpx.Timeout(10.0, read=UPSTREAM_IDLE))
    app = FastAPI()

    @app.post("/{path:path}")
    async def relay(path: str, request: Request) -> Response:
        sent = client.build_request(
            "POST",
            f"{upstream_url}/{path}",
            content=await request.body(),
            headers=_pick(request.headers, FORWARDED),
        )
        upstream = await client.send(sent, stream=True)
        kind = upstream.headers.get("content-type", "")
        back = _pick(upstream.headers, RETURNED)
        if not _is_stream(upstream.status_code, kind):
            body = await upstream.aread()
            await upstream.aclose()
            return Response(body, status_code=upstream.status_code, media_type=kind, headers=back)
        return EventSourceResponse(_reemit(upstream), ping=PING, sep="\r\n", headers=back)

    return app


# --- aiohttp + aiohttp-sse ---

_SESSION = web.AppKey("session", aiohttp.ClientSession)


async def _relay_stream(
    request: web.Request, upstream: aiohttp.ClientResponse
) -> web.StreamResponse:
    back = _pick(upstream.headers, RETURNED)
    reader = EventReader()
    async with sse_response(
        request, headers=back, allow_all_methods=True, ping_interval=PING
    ) as relayed:
        async for piece in upstream.content.iter_any():
            for event in reader.feed(piece):
                await relayed.send(event.data, id=event.id, event=event.event)
    return relayed


def aiohttp_app(upstream_url: str) -> web.Application:
    """The aiohttp relay to ``upstream_url``."""

    async def relay(request: web.Request) -> web.StreamResponse:
        session = request.app[_SESSION]
        headers = _pick(request.headers, FORWARDED)
        body = await request.read()
        async with session.post(upstream_url + request.path, data=body, headers=headers) as up:
            try:
                kind = up.headers.get("content-type", "")
                if not _is_stream(up.status, kind):
                    back = {**_pick(up.headers, RETURNED), "content-type": kind}
                    return web.Response(body=await up.read(), status=up.status, headers=back)
                return await _relay_stream(request, up)
            except BaseException:
                up.close()  # a client that left (the handler is cancelled), or a broken upstream
                raise

    async def session(app: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=None, connect=10.0, sock_read=UPSTREAM_IDLE)
        async with aiohttp.ClientSession(timeout=timeout, auto_decompress=False) as opened:
            app[_SESSION] = opened
            yield

    app = web.Application()
    app.cleanup_ctx.append(session)
    app.router.add_post("/{path:.*}", relay)
    return app


# --- the process ---


def _bind() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


def _exit_with_parent() -> None:
    """End this process if the test run that started it is gone (killed, not stopped)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main(argv: list[str]) -> None:
    """Serve the relay ``argv[0]`` to the upstream ``argv[1]`` until SIGTERM."""
    kind, upstream_url = argv
    _exit_with_parent()
    sock = _bind()
    print(f"listening {sock.getsockname()[1]}", flush=True)
    if kind == "starlette":
        config = uvicorn.Config(
            starlette_app(upstream_url.rstrip("/")),
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        uvicorn.Server(config).run(sockets=[sock])
    elif kind == "aiohttp":
        web.run_app(
            aiohttp_app(upstream_url.rstrip("/")),
            sock=sock,
            handler_cancellation=True,
            shutdown_timeout=1.0,
            print=None,
            access_log=None,
        )
    else:
        raise SystemExit(f"unknown relay {kind!r}: expected starlette or aiohttp")


if __name__ == "__main__":
    main(sys.argv[1:])
