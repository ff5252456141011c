"""Responses stream wire helpers: events and bodies written by hand, never by the decoder.

``body(*payloads)`` frames payloads as the API does (``event: <type>`` then ``data:``), or
with ``named=False`` as ``data:`` lines only (the type inside the data); ``numbered`` adds a
``sequence_number`` from 0, as the API does. The builders (``created``, ``added``,
``text``, ...) are one event each. ``outcome(pieces)`` is what a body decodes to with
``protocol="responses"``: ("ok", Completion) or (error class, partial).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import Any

from sse_core import Completion, StreamError, decode

Payload = dict[str, Any]
Outcome = tuple[str, Completion]

RESPONSE_ID = "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b"
MODEL = "gpt-5-2025-08-07"


def frame(payload: Payload | str, *, named: bool = True, name: str | None = None) -> bytes:
    """One SSE frame; a str payload is sent as it is (its name must be given to be named)."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    head = b""
    if named:
        kind = name if name is not None else payload["type"]  # type: ignore[index]
        head = b"event: " + kind.encode() + b"\n"
    return head + b"data: " + data.encode() + b"\n\n"


def body(*payloads: Payload | str, named: bool = True, numbered: bool = True) -> bytes:
    frames = []
    for number, payload in enumerate(payloads):
        sent = payload
        if numbered and isinstance(payload, dict):
            sent = {**payload, "sequence_number": number}
        frames.append(frame(sent, named=named))
    return b"".join(frames)


def response(status: str = "in_progress", **fields: Any) -> Payload:
    """A response object as the API sends it in lifecycle and terminal events."""
    return {
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 1741476542,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "model": MODEL,
        "output": [],
        "parallel_tool_calls": True,
        "store": False,
        "usage": None,
        **fields,
    }


USAGE: Payload = {
    "input_tokens": 36,
    "input_tokens_details": {"cached_tokens": 8},
    "output_tokens": 87,
    "output_tokens_details": {"reasoning_tokens": 64},
    "total_tokens": 123,
}


def created() -> Payload:
    return {"type": "response.created", "response": response()}


def in_progress() -> Payload:
    return {"type": "response.in_progress", "response": response()}


def completed(output: list[Payload] | None = None, **fields: Any) -> Payload:
    fields.setdefault("usage", USAGE)
    return {
        "type": "response.completed",
        "response": response("completed", output=output or [], **fields),
    }


def incomplete(reason: str = "max_output_tokens", *, event: str = "response.incomplete") -> Payload:
    made = response("incomplete", incomplete_details={"reason": reason}, usage=USAGE)
    return {"type": event, "response": made}


def failed(code: str = "server_error", message: str = "The model failed.") -> Payload:
    made = response("failed", error={"code": code, "message": message})
    return {"type": "response.failed", "response": made}


def message_item(item_id: str = "msg_1", text: str | None = None) -> Payload:
    content = [] if text is None else [{"type": "output_text", "text": text, "annotations": []}]
    return {
        "type": "message",
        "id": item_id,
        "status": "in_progress",
        "role": "assistant",
        "content": content,
    }


def call_item(call_id: str, name: str, arguments: str = "", item_id: str | None = None) -> Payload:
    return {
        "type": "function_call",
        "id": item_id or f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "in_progress",
    }


def reasoning_item(
    item_id: str = "rs_1", summary: list[str] | None = None, encrypted: str | None = None
) -> Payload:
    item: Payload = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": text} for text in summary or []],
    }
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


def added(index: int, item: Payload) -> Payload:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def item_done(index: int, item: Payload) -> Payload:
    return {
        "type": "response.output_item.done",
        "output_index": index,
        "item": {**item, "status": "completed"},
    }


def part_added(index: int, item_id: str = "msg_1", content: int = 0) -> Payload:
    return {
        "type": "response.content_part.added",
        "item_id": item_id,
        "output_index": index,
        "content_index": content,
        "part": {"type": "output_text", "text": "", "annotations": []},
    }


def text(index: int, piece: str, item_id: str = "msg_1", content: int = 0) -> Payload:
    return {
        "type": "response.output_text.delta",
        "item_id": item_id,
        "output_index": index,
        "content_index": content,
        "delta": piece,
        "logprobs": [],
    }


def text_done(index: int, whole: str, item_id: str = "msg_1", content: int = 0) -> Payload:
    return {
        "type": "response.output_text.done",
        "item_id": item_id,
        "output_index": index,
        "content_index": content,
        "text": whole,
        "logprobs": [],
    }


def refusal(index: int, piece: str, item_id: str = "msg_1") -> Payload:
    return {
        "type": "response.refusal.delta",
        "item_id": item_id,
        "output_index": index,
        "content_index": 0,
        "delta": piece,
    }


def summary(index: int, piece: str, item_id: str = "rs_1", at: int = 0) -> Payload:
    return {
        "type": "response.reasoning_summary_text.delta",
        "item_id": item_id,
        "output_index": index,
        "summary_index": at,
        "delta": piece,
    }


def reasoning_text(index: int, piece: str, item_id: str = "rs_1") -> Payload:
    return {
        "type": "response.reasoning_text.delta",
        "item_id": item_id,
        "output_index": index,
        "content_index": 0,
        "delta": piece,
    }


def arguments(index: int, piece: str, item_id: str | None = None) -> Payload:
    payload: Payload = {
        "type": "response.function_call_arguments.delta",
        "output_index": index,
        "delta": piece,
    }
    if item_id is not None:
        payload["item_id"] = item_id
    return payload


def arguments_done(
    index: int, whole: str, item_id: str = "fc_1", name: str | None = None
) -> Payload:
    payload: Payload = {
        "type": "response.function_call_arguments.done",
        "item_id": item_id,
        "output_index": index,
        "arguments": whole,
    }
    if name is not None:
        payload["name"] = name
    return payload


def outcome(pieces: Iterable[bytes]) -> Outcome:
    """What a body decodes to: ("ok", completion) or (error class name, partial)."""
    try:
        return "ok", decode(pieces, protocol="responses")
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def chop(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    """``data`` cut at ``cuts`` (out-of-range and repeated cuts ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(data)})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]
