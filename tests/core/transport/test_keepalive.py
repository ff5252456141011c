"""After ``[DONE]`` the end of the body is read when it is already here, so the next request
reuses the connection; a server that keeps the body open after ``[DONE]`` is never waited for.

Over real loopback HTTP/1.1 (a small threaded server that counts the connections it accepts):
httpx's MockTransport has no connections to reuse.
"""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import pytest

from sse_core import AsyncChatClient, ChatClient, fast_paths
from sse_core.transport.keepalive import REUSE, end_is_here, find_h11_state, probe_chain
from sse_core.transport.packages import ENV
from tests.counting_server import FRAMES, PAYLOAD, Behaviour, serving


@pytest.mark.parametrize("package", ["httpx", "httpx2"])
@pytest.mark.parametrize("reuse", [True, False], ids=["fast", "faithful"])
@pytest.mark.parametrize("framing", ["chunked", "length"])
def test_the_next_request_reuses_the_connection(
    framing: str, reuse: bool, package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fast path: one connection for every answer. Faithful (httpx's public API only): each
    stream's connection is shut down at its close, the answers the same. A client of httpx2
    takes the faithful path whatever the registry says: the fast path was probed on httpx."""
    monkeypatch.setenv(ENV, package)
    behaviour = Behaviour(framing=framing)
    with (
        fast_paths.forced(REUSE.name, reuse),
        serving(behaviour) as url,
        ChatClient(base_url=url, api_key="k") as client,
    ):
        assert client.package.name == package
        for _ in range(3):
            assert client.complete(PAYLOAD).content == "hello"
    assert behaviour.connections == (1 if reuse and package == "httpx" else 3)


@pytest.mark.parametrize("package", ["httpx", "httpx2"])
@pytest.mark.parametrize("reuse", [True, False], ids=["fast", "faithful"])
@pytest.mark.parametrize("framing", ["chunked", "length"])
def test_the_next_async_request_reuses_the_connection(
    framing: str, reuse: bool, package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, package)
    behaviour = Behaviour(framing=framing)

    async def run(url: str) -> None:
        async with AsyncChatClient(base_url=url, api_key="k") as client:
            assert client.package.name == package
            for _ in range(3):
                assert (await client.complete(PAYLOAD)).content == "hello"

    with fast_paths.forced(REUSE.name, reuse), serving(behaviour) as url:
        asyncio.run(run(url))
    assert behaviour.connections == (1 if reuse and package == "httpx" else 3)


def test_the_private_chain_is_probed() -> None:
    """If this fails, httpx or httpcore moved an attribute connection reuse reads: the fast
    path is off (each stream then opens its own connection). Fix keepalive.py."""
    assert probe_chain() is None


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
