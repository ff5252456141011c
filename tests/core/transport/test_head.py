"""The head watch (``first_byte`` as a deadline for the whole head) finds the connection of a
request in flight through httpx's and httpcore's internals; if these tests fail, the chain in
``sse_core/transport/head.py`` moved and only the per-read timeout bounds the head."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import httpx
import pytest

from sse_core import fast_paths
from sse_core.transport import head
from sse_core.transport.head import HEAD, HeadWatch, find_network_stream, probe_pool
from tests.raw_server import response, serving


def _late(conn: socket.socket) -> None:
    time.sleep(0.5)
    conn.sendall(response(b"data: [DONE]\n\n"))


def test_the_network_stream_of_a_request_in_flight_is_found() -> None:
    found: list[object] = []
    with serving(lambda n, request: _late) as served, httpx.Client() as http:
        request = http.build_request("POST", served.url, content=b"{}")
        timer = threading.Timer(0.25, lambda: found.append(find_network_stream(http, request)))
        timer.start()
        http.send(request).close()
        timer.join()
    assert found and found[0] is not None
    assert isinstance(found[0].get_extra_info("socket"), socket.socket)  # type: ignore[attr-defined]


def test_the_network_stream_of_an_async_request_in_flight_is_found() -> None:
    async def main(url: str) -> object:
        async with httpx.AsyncClient() as http:
            request = http.build_request("POST", url, content=b"{}")
            sending = asyncio.create_task(http.send(request))
            await asyncio.sleep(0.25)
            stream = find_network_stream(http, request)
            await (await sending).aclose()
            return stream

    with serving(lambda n, request: _late) as served:
        stream = asyncio.run(main(served.url))
    assert stream is not None
    assert stream.get_extra_info("socket") is not None  # type: ignore[attr-defined]


def test_a_watch_fires_once_and_only_while_armed() -> None:
    with serving(lambda n, request: _late) as served, httpx.Client() as http:
        request = http.build_request("POST", served.url, content=b"{}")
        watch = HeadWatch(0.1, "first_byte (0.1 s)")
        watch.attach(http, request, asynchronous=False, fast=True)
        assert request.extensions["trace"] is watch
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout, match=r"first_byte \(0\.1 s\)"):
            http.send(request)
        assert time.monotonic() - started < 0.45
        assert watch.fired and watch.disarm()
        watch.fire()  # disarmed: nothing to do, no error


def test_a_request_answered_in_time_disarms_its_watch() -> None:
    with serving(lambda n, request: response(b"data: [DONE]\n\n")) as served:
        with httpx.Client() as http:
            request = http.build_request("POST", served.url, content=b"{}")
            watch = HeadWatch(0.2, "first_byte (0.2 s)")
            watch.attach(http, request, asynchronous=False, fast=True)
            with http.stream("POST", served.url, content=b"{}") as _:
                pass
            http.send(request).close()
        time.sleep(0.3)
        assert watch.armed and not watch.fired and not watch.disarm()


def test_the_private_chain_is_probed() -> None:
    assert probe_pool() is None


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_faithful_the_watch_fires_on_the_traced_connection(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the fast path off, the deadline still shuts the connection the request opened,
    found through httpcore's public trace extension: no pool internals read."""

    def private(*args: object) -> None:
        raise AssertionError("the pool internals were read")

    monkeypatch.setattr(head, "find_network_stream", private)

    async def send_async(url: str, watch: HeadWatch) -> None:
        async with httpx.AsyncClient() as http:
            request = http.build_request("POST", url, content=b"{}")
            watch.attach(http, request, asynchronous=True, fast=True)
            await http.send(request)

    def later(conn: socket.socket) -> None:
        time.sleep(3.0)
        conn.sendall(response(b"data: [DONE]\n\n"))

    with serving(lambda n, request: later) as served, fast_paths.forced(HEAD.name, False):
        watch = HeadWatch(0.1, "first_byte (0.1 s)")
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout, match=r"first_byte \(0\.1 s\)"):
            if mode == "sync":
                with httpx.Client() as http:
                    request = http.build_request("POST", served.url, content=b"{}")
                    watch.attach(http, request, asynchronous=False, fast=True)
                    http.send(request)
            else:
                asyncio.run(send_async(served.url, watch))
        assert time.monotonic() - started < 2.0  # not the server's answer, 3 s late
        assert watch.fired
