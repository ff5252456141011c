"""Gemini API wire helpers: frames and bodies written by hand, never by the decoder, and the
drivers that decode them without the protocol registry.

``body(*payloads)`` frames each ``GenerateContentResponse`` as ``data: <json>`` (Gemini names no
events); the builders (``chunk``, ``text``, ``thought``, ``call``, ``usage``, ...) are one frame or
one part each. ``outcome(pieces)`` is what a body decodes to through the SSE parser, a
:class:`GenerateContentDecoder` and the core's Accumulator: ("ok", Completion) or (error class,
partial); ``events(pieces)`` the StreamEvents alone.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sse_core import Completion, StreamError
from sse_core.events import StreamEvent
from sse_core.pipeline import Accumulator, SSEParser
from sse_core.protocols.gemini import GenerateContentDecoder

Payload = dict[str, Any]
Outcome = tuple[str, Completion | None]

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MODEL = "gemini-2.5-flash"
RESPONSE_ID = "resp_1"


def frame(payload: Payload | str, *, name: str | None = None) -> bytes:
    """One SSE frame; a str payload is sent as it is."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    head = b"" if name is None else b"event: " + name.encode() + b"\n"
    return head + b"data: " + data.encode() + b"\n\n"


def encoded(payload: Any) -> bytes:
    """A payload as JSON bytes (a frame's data, or a whole body)."""
    return json.dumps(payload).encode()


def body(*payloads: Payload | str) -> bytes:
    return b"".join(frame(payload) for payload in payloads)


def text(value: str, **fields: Any) -> Payload:
    return {"text": value, **fields}


def thought(value: str, **fields: Any) -> Payload:
    return {"text": value, "thought": True, **fields}


def call(name: str | None, args: Any = None, **fields: Any) -> Payload:
    """A ``functionCall`` part (``args`` left out when None); ``fields`` go on the part."""
    function: Payload = {} if name is None else {"name": name}
    if args is not None:
        function["args"] = args
    call_id = fields.pop("id", None)
    if call_id is not None:
        function["id"] = call_id
    return {"functionCall": function, **fields}


def usage(prompt: int = 10, answer: int | None = 5, **more: int) -> Payload:
    counts: Payload = {"promptTokenCount": prompt}
    if answer is not None:
        counts["candidatesTokenCount"] = answer
    counts.update(more)
    counts["totalTokenCount"] = prompt + (answer or 0) + sum(more.values())
    return counts


def candidate(
    parts: list[Any], finish: str | None = None, index: int | None = None, **more: Any
) -> Payload:
    """One candidate object: its ``parts``, ``finishReason`` and ``index`` when given."""
    found: Payload = {"content": {"parts": parts, "role": "model"}, **more}
    if finish is not None:
        found["finishReason"] = finish
    if index is not None:
        found["index"] = index
    return found


def chunk(
    *parts: Any,
    finish: str | None = None,
    index: int | None = 0,
    counts: Payload | None = None,
    **more: Any,
) -> Payload:
    """One ``GenerateContentResponse`` of one candidate, as the API streams it."""
    found: Payload = {"candidates": [candidate(list(parts), finish, index)]}
    if counts is not None:
        found["usageMetadata"] = counts
    found["modelVersion"] = MODEL
    found["responseId"] = RESPONSE_ID
    found.update(more)
    return found


def error(code: int = 429, status: str = "RESOURCE_EXHAUSTED", message: str = "Quota") -> Payload:
    """Google's error object."""
    return {"error": {"code": code, "message": message, "status": status, "details": []}}


# --- drivers ---


def events(pieces: Iterable[bytes]) -> list[StreamEvent]:
    """The StreamEvents of a body fed in ``pieces``, its flush included (an error raises)."""
    parser, decoder = SSEParser(), GenerateContentDecoder()
    found: list[StreamEvent] = []
    for piece in pieces:
        for sse in parser.feed(piece):
            found += decoder.decode(sse)
            if decoder.done:
                return found
    for sse in parser.finish():
        found += decoder.decode(sse)
        if decoder.done:
            return found
    return found + decoder.flush()


def outcome(pieces: Iterable[bytes]) -> Outcome:
    """What a body decodes to: ("ok", completion) or (error class name, partial)."""
    answer = Accumulator()
    try:
        answer.extend(events(pieces))
        return "ok", answer.finish()
    except StreamError as exc:
        return type(exc).__name__, exc.partial if exc.has_partial else answer.completion()


def decoded(data: bytes) -> Completion:
    """The Completion of a whole body (any error raises)."""
    verdict, completion = outcome([data])
    assert verdict == "ok" and completion is not None, verdict
    return completion


def chop(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    """``data`` cut at ``cuts`` (out-of-range and repeated cuts ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(data)})
    return [data[a:b] for a, b in itertools.pairwise([0, *points, len(data)])]


def capture(name: str) -> bytes:
    """A stored capture as wire bytes (a ``*.payloads.jsonl`` file's lines framed as
    ``data:`` events, as the API sent them)."""
    data = (FIXTURES / name).read_bytes()
    if name.endswith(".payloads.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in data.splitlines() if line.strip())
    return data


def captures() -> dict[str, bytes]:
    """Every stored stream capture, by file name."""
    return {
        path.name: capture(path.name)
        for path in sorted(FIXTURES.iterdir())
        if path.name.endswith((".sse", ".payloads.jsonl"))
    }
