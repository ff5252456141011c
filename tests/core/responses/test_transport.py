"""The responses protocol over HTTP, against a loopback server that writes scripted bytes:
the request as the API wants it (``POST {base_url}/responses``, bearer key, the body), a
stream that the client stops reading at its terminal event while the server keeps the socket
open, a stream cut before its terminal event, a whole JSON answer, and an HTTP error in
OpenAI's shape."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import pytest

from sse_core import (
    AsyncChatClient,
    BadRequestError,
    ChatClient,
    Completion,
    IncompleteStreamError,
    RateLimitError,
)
from tests.core.responses.responses_wire import (
    added,
    body,
    completed,
    created,
    message_item,
    text,
)
from tests.raw_server import response, serving

KEY = "sk-test-responses-0123456789"
PAYLOAD = {"model": "gpt-5", "input": "hi", "stream_options": {"include_usage": True}}
STREAM = body(created(), added(0, message_item()), text(0, "Hello"), completed())
HOLD = 8.0  # how long the server keeps the socket open after the terminal event


def _held(conn: socket.socket) -> None:
    """A chunked stream whose last chunk never comes: the socket stays open after the
    terminal event, as some gateways keep it."""
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    conn.sendall(head + f"{len(STREAM):x}\r\n".encode() + STREAM + b"\r\n")
    time.sleep(HOLD)


def _complete(mode: str, url: str, **settings: Any) -> Completion:
    settings = {"base_url": url, "api_key": KEY, "protocol": "responses", **settings}
    streaming = settings.pop("streaming", True)
    if mode == "sync":
        with ChatClient(**settings) as client:
            return client.complete(PAYLOAD, streaming=streaming)

    async def run() -> Completion:
        async with AsyncChatClient(**settings) as client:
            return await client.complete(PAYLOAD, streaming=streaming)

    return asyncio.run(run())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_client_stops_at_the_terminal_event_without_waiting_for_eof(mode: str) -> None:
    with serving(lambda n, request: _held) as served:
        started = time.monotonic()
        result = _complete(mode, served.url)
        took = time.monotonic() - started
    assert result.content == "Hello" and result.done and result.finish_reason == "stop"
    assert took < HOLD / 2, f"waited {took:.1f} s for a socket kept open"
    head, _, sent = served.requests[0].partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/responses HTTP/1.1"
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    assert headers["authorization"] == f"Bearer {KEY}"
    # Chat's include_usage is not the Responses API's: it is not sent.
    assert json.loads(sent) == {"model": "gpt-5", "input": "hi", "stream": True}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_stream_closed_before_its_terminal_event_is_incomplete(mode: str) -> None:
    cut = body(created(), added(0, message_item()), text(0, "Hel"))
    with (
        serving(lambda n, request: response(cut)) as served,
        pytest.raises(IncompleteStreamError) as info,
    ):
        _complete(mode, served.url)
    assert info.value.partial.content == "Hel"
    assert "response.completed" in str(info.value)


def test_a_whole_json_answer_is_decoded_whole() -> None:
    whole = completed([message_item(text="Whole")])["response"]
    json_head = ("content-type: application/json",)
    with serving(
        lambda n, request: response(json.dumps(whole).encode(), headers=json_head)
    ) as served:
        result = _complete("sync", served.url, streaming=False)
    assert result.content == "Whole" and result.done
    assert b'"stream":false' in served.requests[0] or b'"stream": false' in served.requests[0]
    assert b"stream_options" not in served.requests[0]  # the API refuses it without stream (R5)


@pytest.mark.parametrize(
    ("status", "cls"),
    [("400 Bad Request", BadRequestError), ("429 Too Many Requests", RateLimitError)],
)
def test_an_http_error_in_openais_shape_is_typed_with_its_fields(status: str, cls: type) -> None:
    error = {
        "error": {
            "message": "Unknown parameter: 'stop'. Did you mean 'store'?",
            "type": "invalid_request_error",
            "param": "stop",
            "code": "unknown_parameter",
        }
    }
    answer = response(
        json.dumps(error).encode(), status=status, headers=("content-type: application/json",)
    )
    with serving(lambda n, request: answer) as served, pytest.raises(cls) as info:
        _complete("sync", served.url, max_retries=0)
    assert info.value.error_message == "Unknown parameter: 'stop'. Did you mean 'store'?"
    assert info.value.code == "unknown_parameter" and info.value.type == "invalid_request_error"
    assert KEY not in str(info.value)
