"""After ``[DONE]`` the end of the body is read when it is already here, so the next request
reuses the connection; a server that keeps the body open after ``[DONE]`` is never waited for.

Over real loopback HTTP/1.1 (a small threaded server that counts the connections it accepts):
httpx's MockTransport has no connections to reuse.
"""

from __future__ import annotations

import asyncio
import json
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
import pytest

from sse_core import AsyncChatClient, ChatClient
from sse_core.transport.keepalive import end_is_here, find_h11_state

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
FRAMES = (
    b"".join(
        b"data: " + json.dumps(chunk).encode() + b"\n\n"
        for chunk in (
            {"choices": [{"index": 0, "delta": {"content": "hello"}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        )
    )
    + b"data: [DONE]\n\n"
)


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


@dataclass
class Behaviour:
    """How the server answers: ``framing`` ``chunked`` or ``length``; ``after``: bytes sent
    after the frames (before the end of the body); ``hold``: seconds the body stays open
    after ``[DONE]`` (chunked only)."""

    framing: str = "chunked"
    after: bytes = b""
    hold: float = 0.0
    connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _answer(behaviour: Behaviour) -> tuple[bytes, bytes]:
    """The head and body up to the end, and the end."""
    if behaviour.framing == "length":
        body = FRAMES + behaviour.after
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n"
        return head % len(body) + body, b""
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    after = chunk(behaviour.after) if behaviour.after else b""
    return head + chunk(FRAMES) + after, b"0\r\n\r\n"


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        behaviour: Behaviour = self.server.behaviour  # type: ignore[attr-defined]
        with behaviour.lock:
            behaviour.connections += 1
        while True:
            length = 0
            line = self.rfile.readline()
            if not line:
                return
            while line not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                line = self.rfile.readline()
            self.rfile.read(length)
            body, end = _answer(behaviour)
            if behaviour.hold:
                self.wfile.write(body)
                self.wfile.flush()
                time.sleep(behaviour.hold)
                return
            self.wfile.write(body + end)
            self.wfile.flush()


@contextmanager
def serving(behaviour: Behaviour) -> Iterator[str]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.behaviour = behaviour  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("framing", ["chunked", "length"])
def test_the_next_request_reuses_the_connection(framing: str) -> None:
    behaviour = Behaviour(framing=framing)
    with serving(behaviour) as url, ChatClient(base_url=url, api_key="k") as client:
        for _ in range(3):
            assert client.complete(PAYLOAD).content == "hello"
    assert behaviour.connections == 1


@pytest.mark.parametrize("framing", ["chunked", "length"])
def test_the_next_async_request_reuses_the_connection(framing: str) -> None:
    behaviour = Behaviour(framing=framing)

    async def run(url: str) -> None:
        async with AsyncChatClient(base_url=url, api_key="k") as client:
            for _ in range(3):
                assert (await client.complete(PAYLOAD)).content == "hello"

    with serving(behaviour) as url:
        asyncio.run(run(url))
    assert behaviour.connections == 1


def test_bytes_after_done_are_not_read() -> None:
    """Whatever follows [DONE] is not the answer: the response is closed, with its connection.
    (With a length, bytes that came in the read of [DONE] are read already: nothing is left.)"""
    behaviour = Behaviour(after=b"data: junk\n\n" * 100)
    with serving(behaviour) as url, ChatClient(base_url=url, api_key="k") as client:
        for _ in range(2):
            assert client.complete(PAYLOAD).content == "hello"
    assert behaviour.connections == 2


def test_a_body_held_open_after_done_is_not_waited_for() -> None:
    behaviour = Behaviour(hold=5.0)
    with serving(behaviour) as url, ChatClient(base_url=url, api_key="k") as client:
        started = time.monotonic()
        assert client.complete(PAYLOAD).content == "hello"
        assert time.monotonic() - started < 2.0


def test_an_async_body_held_open_after_done_is_not_waited_for() -> None:
    behaviour = Behaviour(hold=5.0)

    async def run(url: str) -> float:
        async with AsyncChatClient(base_url=url, api_key="k") as client:
            started = time.monotonic()
            assert (await client.complete(PAYLOAD)).content == "hello"
            return time.monotonic() - started

    with serving(behaviour) as url:
        assert asyncio.run(run(url)) < 2.0


def test_httpcore_h11_state_is_found() -> None:
    """If this fails, httpx or httpcore moved the attributes of ``H11_CHAIN``: connections are
    then reused only when the end of the body is on the socket or its length is known. Fix
    ``sse_core/transport/keepalive.py``."""
    behaviour = Behaviour()
    with (
        serving(behaviour) as url,
        httpx.Client() as http,
        http.stream("POST", url + "/chat/completions", json=PAYLOAD) as response,
    ):
        state = find_h11_state(response)
        assert state is not None
        pieces = response.iter_raw()
        next(pieces)
        time.sleep(0.05)  # the rest of the answer is on the socket
        assert end_is_here(response)


def test_no_h11_state_on_a_mock_transport() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=FRAMES))
    with httpx.Client(transport=transport) as http:
        response = http.post("http://gateway.test/v1/chat/completions")
        assert find_h11_state(response) is None


def test_a_socket_without_data_is_not_ready() -> None:
    left, right = socket.socketpair()
    try:

        class Stream:
            def get_extra_info(self, name: str) -> object:
                return left if name == "socket" else None

        response = httpx.Response(200, extensions={"network_stream": Stream()})
        response.headers.pop("content-length", None)
        assert not end_is_here(response)
        right.sendall(b"0\r\n\r\n")
        time.sleep(0.01)
        assert end_is_here(response)
    finally:
        left.close()
        right.close()
