"""Turn a stream's frames and the requested faults into timed write operations.

The plan is pure: frames in, a list of :data:`Op` out (``Write`` some bytes,
``Sleep`` a bounded time, ``Abort`` the connection). The ASGI app only executes it, so
every wire fault is decided here, in one place, and is the same for the same request.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any, Protocol

from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.faults import TERMINAL_FAULTS, Fault, first
from sse_emulator.wire.frames import Frame, Newline, data_frame, dumps, encode

BOM = b"\xef\xbb\xbf"

#: The SPASS named events and the payloads its seed shows (anti-loop: same shape).
SPASS_EVENTS: dict[str, dict[str, Any]] = {
    "spass.tool-cap": {"code": "tool_loop_max_iterations", "iterations": 10, "synth_called": True},
    "spass.tool-anti-loop": {
        "code": "tool_loop_anti_loop_detected",
        "iterations": 3,
        "synth_called": True,
    },
    "spass.tool-stripped": {
        "code": "hallucinated_tool_stripped_all_unknown",
        "tool_names": ["translate_text"],
    },
    "spass.tool-feedback-recovery": {
        "code": "tool_feedback_recovery_after_all_unknown",
        "retries_used": 1,
        "stripped_names": ["translate_text"],
    },
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Write:
    """Send these bytes as one body message (one chunk on the wire)."""

    data: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Sleep:
    """Stay silent this many seconds (cut short if the client goes away)."""

    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort:
    """Drop the connection without ending the body, as a reset would."""


Op = Write | Sleep | Abort


class StreamWriter(Protocol):
    """What the plan needs of a response's writer (chat chunks or Anthropic messages)."""

    @property
    def dialect(self) -> Dialect:
        """The dialect being written."""
        ...

    def frames(self, *, think_tags: bool = False) -> list[Frame]:
        """Every frame of a successful stream, with exactly one of kind ``finish``."""
        ...

    def chunk(self, delta: dict[str, Any]) -> dict[str, Any]:
        """An output payload carrying ``delta["content"]`` as text."""
        ...

    def error_frames(self) -> list[Frame]:
        """The frames of a mid-stream failure in the dialect's shape."""
        ...


def plan_stream(
    writer: StreamWriter, faults: tuple[Fault, ...], *, framing: Newline | None = None
) -> list[Op]:
    """Plan every write of a streaming response.

    Args:
        writer: The response's chunk writer (dialect, reply, include_usage).
        faults: The requested faults.
        framing: How frames are written, whatever the faults ask (``verbatim`` for a body
            that is not an event stream); by default the newline fault's, else the dialect's.

    Returns:
        The operations, in order. A body that ends without ``Abort`` ends cleanly.
    """
    frames = writer.frames(think_tags=first(faults, "think-tags") is not None)
    finish = next(i for i, frame in enumerate(frames) if frame.kind == "finish")
    entries = sorted(
        [(i, 1, frame) for i, frame in enumerate(frames)] + _extras(writer, faults, finish),
        key=lambda entry: entry[:2],
    )
    terminal = [f for f in faults if f.name in TERMINAL_FAULTS]
    at = min((min(f.integer("after"), finish) for f in terminal), default=len(frames))
    kept = [frame for position, order, frame in entries if (position, order) < (at, 1)]
    newline = framing or _newline(faults, writer.dialect.newline)
    ending: list[Op] = []
    if terminal:
        fault = min(terminal, key=lambda f: min(f.integer("after"), finish))
        tail, ending = _ending(writer, fault, frames[at], newline)
        kept += tail
    if (keepalive := first(faults, "keepalive")) is not None:
        kept = _keepalives(kept, keepalive)
    if first(faults, "data-only") is not None:  # the type travels only inside the data
        kept = [dataclasses.replace(frame, event=None) for frame in kept]
    writes = [encode(frame, newline) for frame in kept]
    if first(faults, "bom") is not None:
        writes = [BOM + writes[0], *writes[1:]] if writes else [BOM]
    if (burst := first(faults, "burst")) is not None:
        writes = _bursts(writes, max(1, burst.integer("frames")))
    hold = first(faults, "hold-open")
    if hold is not None and not any(isinstance(op, Abort) for op in ending):
        ending = [*ending, Sleep(seconds=hold.number("seconds"))]  # no EOF after the end
    return _timed(writes, faults) + ending


def _ending(
    writer: StreamWriter, fault: Fault, cut: Frame, newline: Newline
) -> tuple[list[Frame], list[Op]]:
    """The frames and operations that end a stream cut short by ``fault``.

    Args:
        writer: The response's chunk writer.
        fault: The terminal fault (error-frame, event-error, truncate, reset, stall).
        cut: The first frame that will not be sent whole.
        newline: The framing in use (a reset cuts the encoded frame in half).
    """
    if fault.name == "error-frame":
        return writer.error_frames(), []
    if fault.name == "event-error":
        error = {"error": writer.dialect.stream_error}
        return [Frame(kind="error", event="error", data=dumps(error))], []
    if fault.name == "stall":
        return [], [Sleep(seconds=fault.number("seconds"))]
    if fault.name == "reset":
        half = encode(cut, newline)
        return [], [Write(data=half[: len(half) // 2]), Abort()]
    return [], []  # truncate: a clean close with no finish_reason and no [DONE]


def _extras(
    writer: StreamWriter, faults: tuple[Fault, ...], finish: int
) -> list[tuple[int, int, Frame]]:
    """The extra frames (named events, invalid JSON, oversized), each before frame ``after``.

    Positions past the finish chunk are placed right after it, before any trailer.
    """
    extra: list[tuple[int, int, Frame]] = []
    for fault in faults:
        frame: Frame | None = None
        if fault.name == "named-event":
            frame = _named_event(writer, fault.text("name"))
        elif fault.name == "invalid-json":
            text = dumps(writer.chunk({"content": "this frame is cut"}))
            frame = Frame(kind="chunk", data=text[: len(text) // 2])
        elif fault.name == "oversized":
            frame = data_frame("chunk", writer.chunk({"content": "x" * fault.integer("size")}))
        if frame is not None:
            extra.append((min(fault.integer("after"), finish + 1), 0, frame))
    return extra


def _named_event(writer: StreamWriter, name: str) -> Frame:
    """A named gateway event; SPASS names carry their seed payloads."""
    name = name or ("spass.tool-cap" if writer.dialect.name == "spass" else "emulator.notice")
    payload = SPASS_EVENTS.get(name, {"code": "emulated_event", "name": name})
    return Frame(kind="event", event=name, data=dumps(payload))


def _keepalives(frames: list[Frame], fault: Fault) -> list[Frame]:
    """A comment before the first frame and after every ``every`` frames."""
    ping = Frame(kind="comment", comment=fault.text("text"))
    every = max(1, fault.integer("every"))
    result = [ping]
    for i, frame in enumerate(frames, start=1):
        result.append(frame)
        if i % every == 0 and i < len(frames):
            result.append(ping)
    return result


def _newline(faults: tuple[Fault, ...], default: Newline) -> Newline:
    """The framing a newline fault asks for, else the dialect's own."""
    styles: tuple[tuple[str, Newline], ...] = (
        ("crlf", "crlf"),
        ("cr", "cr"),
        ("single-newline", "single"),
        ("lf", "lf"),
    )
    for name, style in styles:
        if first(faults, name) is not None:
            return style
    return default


def _timed(writes: list[bytes], faults: tuple[Fault, ...]) -> list[Op]:
    """Add per-write delays (``slow``) and UTF-8 splits (``split-utf8``)."""
    slow, split = first(faults, "slow"), first(faults, "split-utf8")
    ops: list[Op] = []
    for data in writes:
        if slow is not None:
            ops.append(Sleep(seconds=slow.number("delay")))
        pieces = _split_utf8(data) if split is not None else [data]
        for i, piece in enumerate(pieces):
            if i and split is not None:
                ops.append(Sleep(seconds=split.number("pause")))
            ops.append(Write(data=piece))
    return ops


def _bursts(writes: list[bytes], size: int) -> list[bytes]:
    """Group writes ``size`` to a body message, as a gateway that buffers its output does."""
    return [b"".join(writes[i : i + size]) for i in range(0, len(writes), size)]


def _split_utf8(data: bytes) -> list[bytes]:
    """Cut bytes after the first byte of every multi-byte UTF-8 character."""
    cuts = [i + 1 for i, byte in enumerate(data) if byte >= 0xC0]
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]
