"""Anthropic Messages answers as raw HTTP/1.1 bytes, for the loopback servers of
``tests/raw_server.py``; and ``call``, one request through the core client, sync or async.

Bodies are written by hand as the API sends them (``event: <type>`` then ``data:``), never by
the decoder; the real captures are read from ``tests/fixtures/real/anthropic/``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sse_core import AsyncChatClient, ChatClient, Completion, RetryPolicy

__all__ = [
    "CAPTURES",
    "KEY",
    "PAYLOAD",
    "call",
    "chunk",
    "error_body",
    "frames",
    "head_of",
    "headers_of",
    "hold_open",
    "json_of",
    "message",
    "start",
    "stream_answer",
    "text_stream",
]

KEY = "sk-ant-canary-4b1d9e7f0a2c"
PAYLOAD: dict[str, Any] = {
    "model": "claude-test",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "hi"}],
}
FAST_RETRY = RetryPolicy(max_retries=2, initial_delay=0.01, max_delay=0.02)
CAPTURES = Path(__file__).resolve().parent / "fixtures" / "real" / "anthropic"


def frames(*payloads: dict[str, Any]) -> bytes:
    """Each payload as one named SSE frame, as Anthropic sends it."""
    return b"".join(
        b"event: " + p["type"].encode() + b"\ndata: " + json.dumps(p).encode() + b"\n\n"
        for p in payloads
    )


def start(msg_id: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-test",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 1},
        },
    }


def text_stream(*pieces: str, stop_reason: str | None = "end_turn", stop: bool = True) -> bytes:
    """A text answer: message_start, one text block, then (if asked) the stop reason and
    ``message_stop``."""
    events: list[dict[str, Any]] = [
        start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    if stop_reason is not None:
        events += [
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 7},
            },
        ]
    if stop:
        events.append({"type": "message_stop"})
    return frames(*events)


def message(text: str = "whole answer") -> dict[str, Any]:
    """A whole (``stream: false``) Messages answer with a text and a tool_use block."""
    return {
        "id": "msg_whole",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 9, "cache_read_input_tokens": 4},
    }


def error_body(kind: str, text: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": text}}).encode()


def head_of(status: str, *headers: str) -> bytes:
    return "\r\n".join((f"HTTP/1.1 {status}", *headers)).encode() + b"\r\n\r\n"


def stream_answer(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    """A whole event-stream response with a content-length."""
    return (
        head_of(status, "content-type: text/event-stream", *headers, f"content-length: {len(body)}")
        + body
    )


def json_of(status: str, body: bytes, *headers: str) -> bytes:
    return (
        head_of(status, "content-type: application/json", *headers, f"content-length: {len(body)}")
        + body
    )


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def hold_open(head: bytes, data: bytes, seconds: float) -> Callable[[socket.socket], None]:
    """A writer that sends ``head`` and ``data`` and then keeps the socket open (no end of
    body) until the client hangs up or ``seconds`` pass."""

    def write(conn: socket.socket) -> None:
        conn.sendall(head + data)
        conn.settimeout(0.05)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if conn.recv(65536) == b"":
                    return
            except TimeoutError:
                continue
            except OSError:
                return

    return write


def headers_of(request: bytes) -> dict[str, str]:
    """The request's headers, names lower-cased."""
    lines = request.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")[1:]
    return {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}


def call(
    mode: str,
    payload: dict[str, Any] | None = None,
    *,
    streaming: bool = True,
    headers: dict[str, str] | None = None,
    **settings: Any,
) -> Completion:
    """One request through ChatClient (``mode="sync"``) or AsyncChatClient (``"async"``)."""
    settings = {"api_key": KEY, "protocol": "anthropic", **settings}
    if "max_retries" not in settings:
        settings.setdefault("retry", FAST_RETRY)
    body = PAYLOAD if payload is None else payload
    if mode == "sync":
        with ChatClient(**settings) as client:
            return client.complete(body, headers=headers, streaming=streaming)

    async def run() -> Completion:
        async with AsyncChatClient(**settings) as client:
            return await client.complete(body, headers=headers, streaming=streaming)

    return asyncio.run(run())
