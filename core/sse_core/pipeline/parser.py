"""A sans-IO Server-Sent Events parser (WHATWG "event stream interpretation").

Feed it bytes as they arrive; it returns the events completed by those bytes::

    parser = SSEParser()
    for piece in body_pieces:
        for event in parser.feed(piece):
            ...
    events = parser.finish()

Rules followed (https://html.spec.whatwg.org/multipage/server-sent-events.html):

- lines end with CRLF, LF or a lone CR, also when the ending is split across two reads;
- a UTF-8 BOM at the very start is ignored;
- lines starting with ``:`` are comments;
- ``field: value`` with one optional space after the colon; ``data`` lines are joined with
  ``\\n``; ``event``, ``id`` (ignored when it holds NUL) and ``retry`` (digits only; more
  digits than Python reads into an int are no time);
- a blank line dispatches the event; a block without any ``data`` line dispatches nothing.

Leniencies real gateways need:

- single-newline framing: a ``data:`` line that follows a ``data:`` payload which is already a
  complete JSON value dispatches that payload first (some gateways, and the aivene client
  example, write ``data: {...}\\n`` with no blank line);
- a final event without its blank line is dispatched by :meth:`SSEParser.finish`.

The size bound ``max_event_bytes`` (M) counts two things, the same way however the body is
split into reads: every line, of any kind, without its line ending, must be at most M bytes;
and an event's data (its ``data`` values joined with ``\\n``) must be at most M bytes. A line
that breaks the bound raises :class:`~sse_core.errors.StreamProtocolError` as soon as it is
known to (a line still arriving is refused once M of its bytes are held), so memory stays
bounded. Events completed before the offending line are not lost: see :meth:`SSEParser.feed_raw`.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from typing import TypeAlias

from pydantic_core import from_json

from sse_core.errors import ConfigurationError, StreamProtocolError

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "RawEvent", "SSEParser", "ServerSentEvent", "as_bytes"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_COLON = 0x3A
# Byte values: ``13 in chunk`` is a memchr, several times cheaper than ``b"\r" in chunk``.
_CR = 0x0D
_LF = 0x0A

# (event name, data bytes, last event id, retry): what the decoder reads, without building a
# ServerSentEvent (and decoding its text) for every frame.
RawEvent: TypeAlias = tuple[str, bytes, str, "int | None"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerSentEvent:
    """One dispatched event. ``event`` is ``"message"`` unless the block named it."""

    data: str
    event: str = "message"
    id: str = ""
    retry: int | None = None


def as_bytes(data: object) -> bytes:
    """``data`` as ``bytes``: bytes-like values are copied, anything else is a TypeError."""
    if type(data) is bytes:
        return data
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"expected bytes, bytearray or memoryview, got {type(data).__name__}")


def check_bound(max_event_bytes: object) -> int:
    """``max_event_bytes`` if it is a positive int, else a ConfigurationError naming it."""
    if type(max_event_bytes) is not int or max_event_bytes <= 0:
        raise ConfigurationError(
            f"max_event_bytes must be a positive integer, got {max_event_bytes!r}"
        )
    return max_event_bytes


def _is_complete_json(data: bytes) -> bool:
    """Whether ``data`` is one whole JSON object or array (cheap check first)."""
    if data.lstrip()[:1] not in (b"{", b"["):
        return False
    try:
        from_json(data)
    except ValueError:
        return False
    return True


def _named_frame(block: bytes) -> tuple[str, bytes] | None:
    """``(name, data)`` of a block (a frame without its blank line, starting ``event:``) made
    of an ``event`` line and one ``data: `` line, as the parser would dispatch it; else None."""
    head, _, line = block.partition(b"\n")
    if line[:6] != b"data: " or _LF in line:
        return None
    value = head[7:] if head[6:7] == b" " else head[6:]
    return value.decode("utf-8", "replace") or "message", line[6:]


def _too_large(limit: int, what: str) -> StreamProtocolError:
    return StreamProtocolError(
        f"{what} exceeded {limit} bytes: raise max_event_bytes if the gateway really sends "
        "events this large"
    )


class SSEParser:
    """Incremental WHATWG event-stream parser over bytes.

    Args:
        max_event_bytes: Upper bound on one line and on one event's data (see the module).
    """

    __slots__ = (
        "_bom_checked",
        "_data",
        "_data_len",
        "_error",
        "_event",
        "_idle",
        "_last_id",
        "_max",
        "_pending",
        "_pending_len",
        "_retry",
        "_skip_lf",
        "comments",
    )

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._max = check_bound(max_event_bytes)
        self._pending: list[bytes] = []
        self._pending_len = 0
        self._skip_lf = False
        self._bom_checked = False
        self._data: list[bytes] = []
        self._data_len = 0
        self._event = ""
        self._last_id = ""
        self._retry: int | None = None
        self._error: StreamProtocolError | None = None
        #: How many comment lines arrived (``: ping``, ``: OPENROUTER PROCESSING``): the
        #: keep-alives of a gateway that sends them so.
        self.comments: int = 0
        # At a frame boundary with nothing held (the BOM check done, no error): the next
        # read may take the speed path (see feed_raw).
        self._idle = False

    @property
    def last_event_id(self) -> str:
        """The last ``id`` field seen (persists across events, as the spec says)."""
        return self._last_id

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Take the next bytes of the body; return the events they complete.

        Raises:
            StreamProtocolError: A line or an event broke the size bound (then and on every
                later call).
            TypeError: ``chunk`` is not bytes-like.
        """
        out: list[RawEvent] = []
        error = self.feed_raw(as_bytes(chunk), out)
        if error is not None:
            raise error
        return [_event(raw) for raw in out]

    def finish(self) -> list[ServerSentEvent]:
        """Signal the end of the body; dispatch a last event left without its blank line."""
        out: list[RawEvent] = []
        error = self.finish_raw(out)
        if error is not None:
            raise error
        return [_event(raw) for raw in out]

    # --- raw entry points (what StreamDecoder drives: tuples, errors returned) ---

    def feed_raw(self, chunk: bytes, out: list[RawEvent]) -> StreamProtocolError | None:
        """:meth:`feed` for a decoder: append the events ``chunk`` completes to ``out`` as
        :data:`RawEvent` tuples (no text decoded); return a size-bound error, if any.

        The events completed before the offending line are in ``out`` all the same, so the
        caller keeps what arrived before it (and an error frame among them still wins). Once
        an error is returned, every later call returns it again.

        The speed path: a read that starts at a frame boundary, holds no CR and is within the
        bound is split on blank lines once, and each leading block that is one ``data: `` line
        (or an ``event:`` line and one ``data: `` line) is dispatched as it is, which is what
        the line rules would make of it. From the first block that is anything else (comments,
        ``id:``/``retry:``, several data lines, empty blocks) and for the unfinished last
        frame, the line rules take the rest of the read. A read that completes a held frame
        has that frame parsed by the line rules and the rest by the speed path.
        """
        if self._error is not None:
            return self._error
        if not self._bom_checked:
            self._settle_bom(chunk)
        try:
            if self._idle and len(chunk) <= self._max and _CR not in chunk:
                self._frames(chunk, out)  # the common read, without a call more
            else:
                self._feed(chunk, out)
        except StreamProtocolError as exc:
            self._error = exc
            self._idle = False
            return exc
        self._idle = self._bom_checked and not (
            self._pending or self._data or self._event or self._skip_lf
        )
        return None

    def finish_raw(self, out: list[RawEvent]) -> StreamProtocolError | None:
        """:meth:`finish` into ``out``, returning a bound error as :meth:`feed_raw` does."""
        self._idle = False  # the body ended: a later read goes through the line rules
        if self._error is not None:
            return self._error
        if self._pending:
            line = b"".join(self._pending)
            self._pending.clear()
            self._pending_len = 0
            try:
                self._lines([line], out)
            except StreamProtocolError as exc:
                self._error = exc
                return exc
        if self._data:
            self._dispatch(out)
        return None

    def single_frame(self, chunk: bytes) -> RawEvent | None:
        """The event of ``chunk`` when it is exactly one plain frame arriving at a frame
        boundary: ``data: <data>\\n\\n``, or ``event: <name>\\ndata: <data>\\n\\n``; None
        otherwise (then nothing was consumed: use :meth:`feed_raw`).

        The common read of a stream that arrives as it is generated: one frame per read.
        When it returns the event, the frame is consumed, as :meth:`feed_raw` would have.
        """
        if not self._idle:
            if self._bom_checked:
                return None
            self._settle_bom(chunk)
            if not self._idle:
                return None
        end = len(chunk) - 2  # where the blank line starts
        if not 0 <= end <= self._max or chunk[-1] != _LF or _CR in chunk:
            return None
        first = chunk.find(b"\n")
        if first == end:
            if chunk[:6] == b"data: ":
                return ("message", chunk[6:end], self._last_id, self._retry)
        elif chunk[:6] == b"event:" and chunk.find(b"\n", first + 1) == end:
            named = _named_frame(chunk[:end])
            if named is not None:
                return (named[0], named[1], self._last_id, self._retry)
        return None

    def _settle_bom(self, chunk: bytes) -> None:
        """At the start of the body: a first read that cannot begin with a BOM settles the
        check, so that read may take the speed path too."""
        held = self._pending or self._data or self._event or self._skip_lf
        if chunk and not _BOM.startswith(chunk[:3]) and self._error is None and not held:
            self._bom_checked = True
            self._idle = True

    def _at_boundary(self) -> bool:
        """Whether the parser stands between frames, holding nothing (the BOM check done)."""
        return self._bom_checked and not (
            self._pending or self._data or self._event or self._skip_lf
        )

    # --- the speed path ---

    def _feed(self, chunk: bytes, out: list[RawEvent]) -> None:
        """:meth:`feed_raw` of a read the speed path cannot take whole."""
        if not chunk:
            return
        plain = len(chunk) <= self._max and _CR not in chunk
        end = chunk.find(b"\n\n") if plain and self._bom_checked and not self._skip_lf else -1
        if end < 0:
            self._feed_lines(chunk, out)
            return
        end += 2  # the line rules finish the held frame; the speed path may take the rest
        self._feed_lines(chunk[:end], out)
        if self._at_boundary():
            self._frames(chunk[end:], out)
        else:
            self._feed_lines(chunk[end:], out)

    def _frames(self, chunk: bytes, out: list[RawEvent]) -> None:
        """Parse ``chunk``, a read that starts at a frame boundary (no CR, within the bound)."""
        blocks = chunk.split(b"\n\n")
        tail = blocks.pop()
        last_id, retry = self._last_id, self._retry
        append = out.append
        taken = 0
        for block in blocks:
            if block[:6] == b"data: " and _LF not in block:
                append(("message", block[6:], last_id, retry))
            elif block[:6] == b"event:" and (named := _named_frame(block)) is not None:
                append((named[0], named[1], last_id, retry))
            else:
                break
            taken += 1
        if taken < len(blocks):
            tail = b"\n\n".join([*blocks[taken:], tail])
        if tail:
            self._feed_lines(tail, out)

    # --- lines ---

    def _feed_lines(self, chunk: bytes, out: list[RawEvent]) -> None:
        if self._skip_lf:
            # A CR ended the previous read; a LF starting this one belongs to that CRLF.
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if _CR in chunk:
            self._skip_lf = chunk[-1:] == b"\r"
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if lines:
            if self._pending:
                self._pending.append(lines[0])
                lines[0] = b"".join(self._pending)
                self._pending.clear()
                self._pending_len = 0
            if len(chunk) > self._max or len(lines[0]) > self._max:
                lines = self._upto_long_line(lines, out)
            self._lines(lines, out)
        if tail:
            self._hold(tail)

    def _upto_long_line(self, lines: list[bytes], out: list[RawEvent]) -> list[bytes]:
        """``lines`` if none is over the bound; else parse those before it, then raise.

        Only a read larger than the bound (or a line joined with held bytes) can hold such a
        line, so the common read skips this check.
        """
        limit = self._max
        for at, line in enumerate(lines):
            if len(line) > limit:
                self._lines(lines[:at], out)
                raise _too_large(limit, "a line of the event stream")
        return lines

    def _hold(self, piece: bytes) -> None:
        self._pending_len += len(piece)
        if self._pending_len > self._max:
            raise _too_large(self._max, "a line of the event stream")
        self._pending.append(piece)

    def _lines(self, lines: list[bytes], out: list[RawEvent]) -> None:
        if not self._bom_checked:
            self._bom_checked = True
            if lines and lines[0].startswith(_BOM):
                lines[0] = lines[0][3:]
        for line in lines:
            if not line:
                if self._data:
                    self._dispatch(out)
                else:
                    self._event = ""
            elif line.startswith(b"data:"):
                self._data_line(line[6:] if line[5:6] == b" " else line[5:], out)
            elif line[0] != _COLON:  # ":" starts a comment
                if line.startswith(b"event:") and self._whole_payload_pending():
                    # Single-newline framing: an event line after a whole payload starts
                    # the next event (producers write "event:" before "data:").
                    self._dispatch(out)
                self._field(line)
            else:
                self.comments += 1

    def _data_line(self, value: bytes, out: list[RawEvent]) -> None:
        if self._data and self._whole_payload_pending():
            # Single-newline framing: the previous payload is already whole.
            self._dispatch(out)
        self._append_data(value)

    def _append_data(self, value: bytes) -> None:
        data = self._data
        self._data_len += len(value) + (1 if data else 0)  # the size of the joined data
        if self._data_len > self._max:
            raise _too_large(self._max, "an event's data")
        data.append(value)

    def _whole_payload_pending(self) -> bool:
        data = self._data
        return len(data) == 1 and _is_complete_json(data[0])

    def _field(self, line: bytes) -> None:
        name, colon, raw = line.partition(b":")
        value = raw[1:] if raw[:1] == b" " else raw
        if name == b"event":
            self._event = value.decode("utf-8", "replace")
        elif name == b"id":
            if b"\x00" not in value:
                self._last_id = value.decode("utf-8", "replace")
        elif name == b"retry":
            if value.isdigit():
                # More digits than Python reads into an int (sys.get_int_max_str_digits,
                # a ValueError): no reconnection time.
                with suppress(ValueError):
                    self._retry = int(value)
        elif name == b"data" and not colon:
            # "data" with no colon is a data line with an empty value.
            self._append_data(b"")
        # Other field names are ignored, as the spec says.

    def _dispatch(self, out: list[RawEvent]) -> None:
        data = self._data
        out.append(
            (
                self._event or "message",
                data[0] if len(data) == 1 else b"\n".join(data),
                self._last_id,
                self._retry,
            )
        )
        self._data = []
        self._data_len = 0
        self._event = ""


def _event(raw: RawEvent) -> ServerSentEvent:
    name, data, last_id, retry = raw
    return ServerSentEvent(
        data=data.decode("utf-8", "replace"), event=name, id=last_id, retry=retry
    )
