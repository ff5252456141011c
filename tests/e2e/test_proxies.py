"""Every client takes the route the environment gives (``HTTP_PROXY``, ``NO_PROXY``), recording
or not, sync and async: recording never changes where a request goes.

A tiny loopback forward proxy answers the absolute-form requests it is sent (a chat stream)
and keeps their request lines; the gateway's own address is a loopback port where nothing
listens, so a request that skips the proxy fails to connect.
"""

from __future__ import annotations

import asyncio
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from langchain_sse import ChatSSE
from sse_chat.cli import main
from sse_core import AsyncChatClient, ChatClient, GatewayConnectionError
from sse_core.transport.recording import recording_async_client, recording_client
from tests.counting_server import FRAMES, PAYLOAD, chunk

pytestmark = pytest.mark.timeout(60)

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
WAYS = ["own", "recording"]
MODES = ["sync", "async"]


class _Relay(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        server: Any = self.server
        while line := self.rfile.readline():
            server.lines.append(line.decode("latin-1").rstrip("\r\n"))
            length = 0
            while (header := self.rfile.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            self.rfile.read(length)
            head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            body = chunk(FRAMES) + b"0\r\n\r\n"
            self.wfile.write(head + b"transfer-encoding: chunked\r\n\r\n" + body)
            self.wfile.flush()


@contextmanager
def forward_proxy() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP proxy; yields its URL and the request lines it was sent."""
    server: Any = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Relay)
    server.daemon_threads, server.lines = True, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.lines
    finally:
        server.shutdown()
        server.server_close()


def unreachable() -> str:
    """A loopback base URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No proxy variable but those a test sets (upper and lower case both count)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


def call(way: str, mode: str, base_url: str, directory: Path) -> str:
    """One chat through the core client's own httpx client or a recording one."""
    settings: dict[str, Any] = {"base_url": base_url, "max_retries": 0, "timeout": 5}
    if mode == "sync":
        http = recording_client(directory) if way == "recording" else None
        with ChatClient(http_client=http, **settings) as client:
            answer = client.complete(PAYLOAD).content
        if http is not None:
            http.close()
        return answer

    async def run() -> str:
        http = recording_async_client(directory) if way == "recording" else None
        async with AsyncChatClient(http_client=http, **settings) as client:
            answer = (await client.complete(PAYLOAD)).content
        if http is not None:
            await http.aclose()
        return answer

    return asyncio.run(run())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("way", WAYS)
def test_http_proxy_is_the_route_recording_or_not(
    way: str, mode: str, environment: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = unreachable()
    with forward_proxy() as (proxy, lines):
        environment.setenv("HTTP_PROXY", proxy)
        assert call(way, mode, target, tmp_path) == "hello"
    assert lines == [f"POST {target}/chat/completions HTTP/1.1"]  # absolute form: a proxy's
    if way == "recording":
        assert (tmp_path / "001.sse").read_bytes() == FRAMES


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("way", WAYS)
def test_no_proxy_is_honoured_recording_or_not(
    way: str, mode: str, environment: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = unreachable()
    with forward_proxy() as (proxy, lines):
        environment.setenv("HTTP_PROXY", proxy)
        environment.setenv("NO_PROXY", "127.0.0.1")
        with pytest.raises(GatewayConnectionError):  # straight to the port: nothing there
            call(way, mode, target, tmp_path)
    assert lines == []


def test_trust_env_false_leaves_the_environment_out(
    environment: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = unreachable()
    with forward_proxy() as (proxy, lines):
        environment.setenv("HTTP_PROXY", proxy)
        with recording_client(tmp_path, trust_env=False) as http:
            client = ChatClient(base_url=target, http_client=http, max_retries=0, timeout=5)
            with pytest.raises(GatewayConnectionError):
                client.complete(PAYLOAD)
        with recording_client(tmp_path, proxy=proxy, trust_env=False) as http:  # given: used
            client = ChatClient(base_url=target, http_client=http, max_retries=0, timeout=5)
            assert client.complete(PAYLOAD).content == "hello"
    assert lines == [f"POST {target}/chat/completions HTTP/1.1"]


def test_chat_sse_with_a_recording_client_goes_through_the_proxy(
    environment: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = unreachable()
    with forward_proxy() as (proxy, lines):
        environment.setenv("HTTP_PROXY", proxy)
        with recording_client(tmp_path) as http:
            model = ChatSSE(model="m", base_url=target, http_client=http, max_retries=0)
            assert model.invoke("hi").content == "hello"
        assert ChatSSE(model="m", base_url=target, max_retries=0).invoke("hi").content == "hello"
    assert lines == [f"POST {target}/chat/completions HTTP/1.1"] * 2


def test_sse_chat_record_goes_through_the_proxy(
    environment: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target, record = unreachable(), tmp_path / "session"
    with forward_proxy() as (proxy, lines):
        environment.setenv("HTTP_PROXY", proxy)
        argv = ["chat", "--base-url", target, "--model", "m", "--no-tools", "hi"]
        assert main([*argv, "--record", str(record)]) == 0
    assert "hello" in capsys.readouterr().out
    assert lines == [f"POST {target}/chat/completions HTTP/1.1"]
    assert (record / "001.sse").read_bytes() == FRAMES
