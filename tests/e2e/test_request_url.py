"""The request line a gateway sees: ``path`` joined onto ``base_url``'s path, the query of
``base_url`` kept after it and ``default_query`` added (Azure-style gateways take
``?api-version=...``), for the core clients and both adapters, sync and async; the query's
values are never shown in an error. Over real loopback HTTP, read by a raw socket server."""

from __future__ import annotations

import asyncio
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from llama_index.core.llms import ChatMessage

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import AsyncChatClient, ChatClient, GatewayHTTPError
from tests.counting_server import FRAMES, PAYLOAD, chunk

KINDS = ["core", "ChatSSE", "SSELLM"]
MODES = ["sync", "async"]
AZURE = "/openai/deployments/gpt4o"


class _Lines(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        server: Any = self.server
        while line := self.rfile.readline():
            server.lines.append(line.decode("latin-1").rstrip("\r\n"))
            length = 0
            while (header := self.rfile.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            self.rfile.read(length)
            if server.status == 200:
                head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                body = chunk(FRAMES) + b"0\r\n\r\n"
                self.wfile.write(head + b"transfer-encoding: chunked\r\n\r\n" + body)
            else:
                error = b'{"error": {"message": "no such deployment"}}'
                head = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\n"
                self.wfile.write(head + b"content-length: %d\r\n\r\n" % len(error) + error)
            self.wfile.flush()


@contextmanager
def gateway(status: int = 200) -> Iterator[tuple[str, list[str]]]:
    """A loopback server answering every POST; yields its origin and the request lines."""
    server: Any = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Lines)
    server.daemon_threads, server.lines, server.status = True, [], status
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.lines
    finally:
        server.shutdown()
        server.server_close()


def ask(kind: str, mode: str, base_url: str, **settings: Any) -> str:
    """One call of ``kind`` in ``mode``: the answer's text."""
    settings = {"base_url": base_url, "api_key": "sk-url-test", "max_retries": 0, **settings}
    if kind == "core":
        if mode == "sync":
            with ChatClient(**settings) as client:
                return client.complete(PAYLOAD).content

        async def core() -> str:
            async with AsyncChatClient(**settings) as client:
                return (await client.complete(PAYLOAD)).content

        return asyncio.run(core())
    if kind == "ChatSSE":
        model = ChatSSE(model="m", **settings)
        message = model.invoke("hi") if mode == "sync" else asyncio.run(model.ainvoke("hi"))
        return str(message.content)
    llm = SSELLM(model="m", **settings)
    messages = [ChatMessage(role="user", content="hi")]
    answer = llm.chat(messages) if mode == "sync" else asyncio.run(llm.achat(messages))
    return str(answer.message.content)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS)
def test_a_query_in_base_url_goes_after_the_path(kind: str, mode: str) -> None:
    with gateway() as (origin, lines):
        assert ask(kind, mode, f"{origin}{AZURE}?api-version=2024-10-21") == "hello"
    assert lines == [f"POST {AZURE}/chat/completions?api-version=2024-10-21 HTTP/1.1"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS)
def test_default_query_is_sent_with_base_urls_query(kind: str, mode: str) -> None:
    query = {"api-version": "2024-10-21", "key": "q-secret-7788"}
    with gateway() as (origin, lines):
        answer = ask(kind, mode, f"{origin}{AZURE}/?tenant=a&api-version=old", default_query=query)
        assert answer == "hello"
    expected = f"{AZURE}/chat/completions?tenant=a&api-version=2024-10-21&key=q-secret-7788"
    assert lines == [f"POST {expected} HTTP/1.1"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_error_shows_the_path_but_no_query_value(kind: str) -> None:
    with gateway(404) as (origin, lines), pytest.raises(GatewayHTTPError) as caught:
        ask(kind, "sync", f"{origin}{AZURE}?key=q-secret-1234", default_query={"sig": "s-4321"})
    assert lines == [f"POST {AZURE}/chat/completions?key=q-secret-1234&sig=s-4321 HTTP/1.1"]
    message = str(caught.value)
    assert f"{AZURE}/chat/completions" in message and "no such deployment" in message
    assert "q-secret-1234" not in message and "s-4321" not in message
