"""Anthropic Messages wire helpers: events and bodies written by hand, never by the decoder.

``body(*payloads)`` frames payloads as the API does (``event: <type>`` then ``data:``), or
with ``named=False`` as ``data:`` lines only (the type inside the data); the builders
(``start``, ``block``, ``text``, ...) are one event each. ``outcome(pieces)`` is what a body
decodes to with ``protocol="anthropic"``: ("ok", Completion) or (error class, partial).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import Any

from sse_core import Completion, StreamError, decode

Payload = dict[str, Any]
Outcome = tuple[str, Completion]

STOP: Payload = {"type": "message_stop"}
PING: Payload = {"type": "ping"}


def frame(payload: Payload | str, *, named: bool = True, name: str | None = None) -> bytes:
    """One SSE frame; a str payload is sent as it is (its name must be given to be named)."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    head = b""
    if named:
        kind = name if name is not None else payload["type"]  # type: ignore[index]
        head = b"event: " + kind.encode() + b"\n"
    return head + b"data: " + data.encode() + b"\n\n"


def body(*payloads: Payload | str, named: bool = True) -> bytes:
    return b"".join(frame(p, named=named) for p in payloads)


def start(
    *,
    msg_id: str = "msg_1",
    model: str = "claude-test",
    usage: Payload | None = None,
    content: list[Payload] | None = None,
    stop_reason: str | None = None,
) -> Payload:
    return {
        "type": "message_start",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": content or [],
            "model": model,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage if usage is not None else {"input_tokens": 10, "output_tokens": 1},
        },
    }


def block(index: int, kind: str = "text", **fields: Any) -> Payload:
    content: Payload = {"type": kind, **fields}
    if kind == "text":
        content.setdefault("text", "")
    elif kind == "thinking":
        content.setdefault("thinking", "")
    elif kind == "tool_use":
        content.setdefault("input", {})
    return {"type": "content_block_start", "index": index, "content_block": content}


def delta(index: int, kind: str, **fields: Any) -> Payload:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, **fields}}


def text(index: int, piece: str) -> Payload:
    return delta(index, "text_delta", text=piece)


def thinking(index: int, piece: str) -> Payload:
    return delta(index, "thinking_delta", thinking=piece)


def signature(index: int, value: str) -> Payload:
    return delta(index, "signature_delta", signature=value)


def json_piece(index: int, piece: str) -> Payload:
    return delta(index, "input_json_delta", partial_json=piece)


def stop_block(index: int) -> Payload:
    return {"type": "content_block_stop", "index": index}


def message_delta(
    stop_reason: str | None = "end_turn",
    *,
    stop_sequence: str | None = None,
    usage: Payload | None = None,
) -> Payload:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": stop_sequence},
        "usage": usage if usage is not None else {"output_tokens": 5},
    }


def outcome(pieces: Iterable[bytes]) -> Outcome:
    """What a body decodes to: ("ok", completion) or (error class name, partial)."""
    try:
        return "ok", decode(pieces, protocol="anthropic")
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def chop(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    """``body`` cut at ``cuts`` (out-of-range and repeated cuts ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(body)})
    edges = [0, *points, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges)]
