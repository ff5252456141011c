"""The emulator's raw ASGI application: routing, recording, and executing a response.

No web framework: ``__call__`` reads the body, serves the ``/_emulator/`` control
endpoints, records every other request, and routes it to the models list or a chat
dialect. A chat request gets an HTTP error, a JSON completion, or a planned stream
whose writes are executed while a :class:`DisconnectWatcher` listens for the client
leaving.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from sse_core.emulator.assistant.reply import Reply
from sse_core.emulator.assistant.respond import respond
from sse_core.emulator.server.checks import fault_problem, parse_request
from sse_core.emulator.server.control import control, lifespan, models
from sse_core.emulator.server.record import Recorder, mask
from sse_core.emulator.server.responses import (
    BodyTooLarge,
    Headers,
    Message,
    Problem,
    Receive,
    Scope,
    Send,
    read_body,
    send_json,
    send_problem,
    start_stream,
)
from sse_core.emulator.server.state import EmulatorState
from sse_core.emulator.server.watcher import DisconnectWatcher
from sse_core.emulator.wire.dialects import DIALECTS, OPENAI, Dialect, route
from sse_core.emulator.wire.faults import Fault, first
from sse_core.emulator.wire.plan import Abort, Op, Sleep, Write, plan_stream
from sse_core.emulator.wire.render import ChunkWriter, completion_body

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10
    from typing_extensions import assert_never

#: The largest request body accepted (bytes).
MAX_BODY = 8 << 20


class ConnectionAbort(Exception):
    """Raised by the app to drop a connection mid-body (the ``reset`` fault)."""


class EmulatorApp:
    """The ASGI application serving every dialect."""

    def __init__(
        self,
        state: EmulatorState | None = None,
        *,
        default_dialect: str = "openai",
        api_key: str | None = None,
    ) -> None:
        """Create the app.

        Args:
            state: Shared state; a fresh one by default.
            default_dialect: The dialect of the unprefixed ``/v1/chat/completions``.
            api_key: When set, chat requests must send ``Authorization: Bearer <key>``.
        """
        self.state = state or EmulatorState()
        self.default = DIALECTS[default_dialect]
        self.api_key = api_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope (``http``; ``lifespan`` is acknowledged)."""
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            raw = await read_body(receive, MAX_BODY)
        except BodyTooLarge as error:
            await send_problem(
                send, OPENAI, Problem(status=413, message=str(error), kind="invalid_request_error")
            )
            return
        if raw is not None:
            await self._route(scope, receive, send, raw)

    async def _route(self, scope: Scope, receive: Receive, send: Send, raw: bytes) -> None:
        """Serve the control endpoints unrecorded; record everything else, then answer it."""
        path, method = scope["path"], scope["method"]
        if path.startswith("/_emulator/"):
            await control(send, path, method, self.state)
            return
        dialect = route(path, default=self.default)
        headers = _headers(scope)
        recorder = self.state.recorder
        index = recorder.add(
            method=method,
            path=path,
            query=scope.get("query_string", b"").decode("latin-1"),
            headers=tuple((key, mask(key, value)) for key, value in headers),
            body=raw,
            dialect=dialect.name if dialect else None,
            received_at=time.monotonic(),
        )
        send = _recording(send, recorder, index)
        if path.rstrip("/").endswith("/models") and method == "GET":
            await send_json(send, 200, models())
        elif dialect is None or method != "POST":
            status, what = (404, "no such path") if dialect is None else (405, "use POST")
            problem = Problem(
                status=status,
                message=f"{what}: {method} {path}",
                kind="invalid_request_error",
                code="not_found" if dialect is None else "method_not_allowed",
            )
            await send_problem(send, dialect or OPENAI, problem)
        else:

            def on_disconnect() -> None:
                recorder.mark_disconnected(index)

            async with DisconnectWatcher(receive, on_disconnect, self.state.stopping) as watcher:
                await self._chat(scope, send, dialect, dict(headers), raw, watcher)

    async def _chat(
        self,
        scope: Scope,
        send: Send,
        dialect: Dialect,
        headers: dict[str, str],
        raw: bytes,
        watcher: DisconnectWatcher,
    ) -> None:
        """Answer a chat request: an HTTP error, a JSON completion, or a stream."""
        query = scope.get("query_string", b"").decode("latin-1")
        parsed = parse_request(dialect, headers, query, raw, self.api_key)
        if isinstance(parsed, Problem):
            await send_problem(send, dialect, parsed)
            return
        body, faults = parsed
        counted = fault_problem(faults, self.state.counters, f"{scope['path']}\n{raw!r}")
        if counted is not None:
            await send_problem(send, dialect, counted)
            return
        reply = respond(body)
        extra = _extra_headers(dialect, scope["path"], reply)
        streaming = body.get("stream") is True
        if streaming and dialect.mid_stream_error == "http502" and first(faults, "error-frame"):
            problem = Problem(
                status=502,
                message=str((dialect.stream_error or {})["message"]),
                kind="upstream_error",
                code="upstream_unavailable",
                headers=extra,
            )
            await send_problem(send, dialect, problem)
        elif not streaming or first(faults, "json-body") is not None:
            think = first(faults, "think-tags") is not None
            await send_json(send, 200, completion_body(dialect, reply, think_tags=think), extra)
        else:
            await self._stream(send, dialect, reply, body, faults, extra, watcher)

    async def _stream(
        self,
        send: Send,
        dialect: Dialect,
        reply: Reply,
        body: dict[str, Any],
        faults: tuple[Fault, ...],
        extra: Headers,
        watcher: DisconnectWatcher,
    ) -> None:
        """Stream the planned writes."""
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and options.get("include_usage") is True
        ops = plan_stream(ChunkWriter(dialect, reply, include_usage=include_usage), faults)
        await start_stream(send, 200, dialect.headers + extra)
        await _execute(ops, send, watcher)


async def _execute(ops: list[Op], send: Send, watcher: DisconnectWatcher) -> None:
    """Run a stream plan; stop writing as soon as the client is gone."""
    for op in ops:
        if watcher.gone:
            return
        match op:
            case Write(data=data):
                await send({"type": "http.response.body", "body": data, "more_body": True})
            case Sleep(seconds=seconds):
                await watcher.sleep(seconds)
            case Abort():
                raise ConnectionAbort("reset fault: dropping the connection mid-event")
            case _:
                assert_never(op)
    if watcher.gone:
        return
    watcher.end()
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def _recording(send: Send, recorder: Recorder, index: int) -> Send:
    """Wrap ``send`` to note the status and the end of the response in the record.

    The record is updated before the bytes leave, so a client that has the whole
    response always finds it complete in the record.
    """

    async def recording_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            recorder.update(index, status=message["status"])
        elif not message.get("more_body", False):
            recorder.update(index, completed=True)
        await send(message)

    return recording_send


def _headers(scope: Scope) -> list[tuple[str, str]]:
    return [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]


def _extra_headers(dialect: Dialect, path: str, reply: Reply) -> Headers:
    """Per-response headers: SPASS's markers and conversation id, OpenAI's request id."""
    if dialect.name == "spass":
        applied = ("x-rust-api-applied", "true")
        if path.rstrip("/").endswith("/c1/chat"):
            return (applied, ("x-conversation-id", f"conv_{reply.digest[:24]}"))
        return (applied,)
    if dialect.name == "openai":
        return (("x-request-id", f"req_{reply.digest[:24]}"),)
    return ()
