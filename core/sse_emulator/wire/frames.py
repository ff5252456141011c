"""SSE frames and their bytes: the emulator's own event-stream writer.

Written from the WHATWG event-stream format and the seed documents, never with the
decoder's code: each field is one ``name: value`` line, a blank line ends the event,
and a comment is a line starting with ``:``. The line terminator is a parameter so
faults can send CRLF, lone CR, or events separated by a single newline; ``verbatim`` writes
a frame's data as it is, for a body that is not an event stream (Gemini's JSON array).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

FrameKind = Literal["chunk", "finish", "usage", "done", "event", "error", "comment"]
Newline = Literal["lf", "crlf", "cr", "single", "verbatim"]

_TERMINATORS: dict[str, str] = {"lf": "\n", "crlf": "\r\n", "cr": "\r", "single": "\n"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """One SSE event (or comment) before it is encoded.

    Attributes:
        kind: What the frame carries; faults position themselves by it.
        data: The ``data:`` payload (JSON text or ``[DONE]``), if any.
        event: The ``event:`` name, if any.
        comment: The comment text, for ``kind == "comment"``.
    """

    kind: FrameKind
    data: str | None = None
    event: str | None = None
    comment: str | None = None


def dumps(value: Any) -> str:
    """Encode JSON compactly, as the seeds show it, keeping non-ASCII characters raw."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def data_frame(kind: FrameKind, value: Any) -> Frame:
    """A frame whose data is ``value`` encoded as compact JSON."""
    return Frame(kind=kind, data=dumps(value))


def encode(frame: Frame, newline: Newline = "lf") -> bytes:
    """Encode a frame into its wire bytes.

    Args:
        frame: The frame.
        newline: ``lf`` (``\\n`` lines, blank line after the event), ``crlf``, ``cr``,
            ``single`` (``\\n`` lines and no blank line between events), or ``verbatim``
            (the data alone, as it is).

    Returns:
        The UTF-8 bytes of the event, terminator included.
    """
    if newline == "verbatim":
        return (frame.data or "").encode("utf-8")
    end = _TERMINATORS[newline]
    lines: list[str] = []
    if frame.comment is not None:
        lines.append(f": {frame.comment}")
    if frame.event is not None:
        lines.append(f"event: {frame.event}")
    if frame.data is not None:
        lines.extend(f"data: {line}" for line in frame.data.split("\n"))
    text = "".join(line + end for line in lines)
    if newline != "single":
        text += end
    return text.encode("utf-8")
