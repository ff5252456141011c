"""Wire helpers for the core tests: chunks and SSE bodies written by hand, never by the decoder.

``sse(*payloads)`` frames payloads as ``data:`` events (``[DONE]`` last unless ``done=False``);
``delta(...)`` is one chat chunk for one choice; ``tool(...)`` one ``tool_calls`` entry;
``outcome(...)`` what a body decodes to (the Completion, or the error class and partial).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import Any

from sse_core import Completion, StreamError, decode

FINISH = b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'


def sse(*payloads: Any, done: bool = True) -> bytes:
    """Frame payloads as ``data:`` events (dicts become JSON, strings are sent as they are)."""
    frames = [
        b"data: " + (json.dumps(p) if not isinstance(p, str) else p).encode() + b"\n\n"
        for p in payloads
    ]
    if done:
        frames.append(b"data: [DONE]\n\n")
    return b"".join(frames)


def delta(choice: int | None = 0, finish: str | None = None, **fields: Any) -> dict[str, Any]:
    """One chat chunk whose one choice carries ``fields`` as its delta."""
    entry: dict[str, Any] = {"delta": fields, "finish_reason": finish}
    if choice is not None:
        entry["index"] = choice
    return {"id": "c1", "object": "chat.completion.chunk", "choices": [entry]}


def tool(index: int | None = None, **fields: Any) -> dict[str, Any]:
    """One ``tool_calls`` entry: ``name``/``arguments`` go under ``function``, the rest on top."""
    call: dict[str, Any] = {}
    if index is not None:
        call["index"] = index
    function = {k: fields.pop(k) for k in ("name", "arguments") if k in fields}
    call.update(fields)
    if function:
        call["function"] = function
    return call


Outcome = tuple[str, Completion]


def outcome(pieces: Iterable[bytes], **kw: Any) -> Outcome:
    """What a body decodes to: ("ok", completion) or (error class name, partial)."""
    try:
        return "ok", decode(pieces, **kw)
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def chop(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    """``body`` cut at ``cuts`` (out-of-range and repeated cuts ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(body)})
    edges = [0, *points, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges)]
