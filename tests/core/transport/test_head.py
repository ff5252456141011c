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
from raw_server import response, serving

from sse_core.transport.head import HeadWatch, find_network_stream


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
        watch.attach(http, request)
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
            watch.attach(http, request)
            with http.stream("POST", served.url, content=b"{}") as _:
                pass
            http.send(request).close()
        time.sleep(0.3)
        assert watch.armed and not watch.fired and not watch.disarm()
