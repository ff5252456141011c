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
  ``\\n``; ``event``, ``id`` (ignored when it holds NUL) and ``retry`` (digits only);
- a blank line dispatches the event; a block without any ``data`` line dispatches nothing.

Leniencies real gateways need:

- single-newline framing: a ``data:`` line that follows a ``data:`` payload which is already a
  complete JSON value dispatches that payload first (some gateways, and the aivene client
  example, write ``data: {...}\\n`` with no blank line);
- a final event without its blank line is dispatched by :meth:`SSEParser.finish`.

Size bounds: a line or an event larger than ``max_event_bytes`` raises
:class:`~sse_core.errors.StreamProtocolError` at once, so memory stays bounded.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic_core import from_json

from sse_core.errors import StreamProtocolError

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SSEParser", "ServerSentEvent"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerSentEvent:
    """One dispatched event. ``event`` is ``"message"`` unless the block named it."""

    data: str
    event: str = "message"
    id: str = ""
    retry: int | None = None


def _is_complete_json(text: str) -> bool:
    """Whether ``text`` is one whole JSON object or array (cheap check first)."""
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return False
    try:
        from_json(text)
    except ValueError:
        return False
    return True


class SSEParser:
    """Incremental WHATWG event-stream parser over bytes.

    Args:
        max_event_bytes: Upper bound on one line and on one event's data.
    """

    __slots__ = (
        "_bom_checked",
        "_data",
        "_data_len",
        "_event",
        "_last_id",
        "_max",
        "_pending",
        "_pending_len",
        "_retry",
        "_skip_lf",
    )

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        if max_event_bytes <= 0:
            raise ValueError(f"max_event_bytes must be positive, got {max_event_bytes!r}")
        self._max = max_event_bytes
        self._pending: list[bytes] = []
        self._pending_len = 0
        self._skip_lf = False
        self._bom_checked = False
        self._data: list[str] = []
        self._data_len = 0
        self._event = ""
        self._last_id = ""
        self._retry: int | None = None

    @property
    def last_event_id(self) -> str:
        """The last ``id`` field seen (persists across events, as the spec says)."""
        return self._last_id

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Take the next bytes of the body; return the events they complete."""
        if not chunk:
            return []
        if self._skip_lf:
            # A CR ended the previous read; a LF starting this one belongs to that CRLF.
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                if not chunk:
                    return []
        if b"\r" in chunk:
            self._skip_lf = chunk[-1:] == b"\r"
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if b"\n" not in chunk:
            self._hold(chunk)
            return []
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if self._pending:
            self._pending.append(lines[0])
            lines[0] = b"".join(self._pending)
            self._pending.clear()
            self._pending_len = 0
        events: list[ServerSentEvent] = []
        self._lines(lines, events)
        if tail:
            self._hold(tail)
        return events

    def finish(self) -> list[ServerSentEvent]:
        """Signal the end of the body; dispatch a last event left without its blank line."""
        events: list[ServerSentEvent] = []
        if self._pending:
            line = b"".join(self._pending)
            self._pending.clear()
            self._pending_len = 0
            self._lines([line], events)
        self._dispatch(events)
        return events

    def _hold(self, piece: bytes) -> None:
        self._pending_len += len(piece)
        if self._pending_len > self._max:
            raise StreamProtocolError(
                f"a line of the event stream exceeded {self._max} bytes without a line end; "
                "raise max_event_bytes if the gateway really sends events this large"
            )
        self._pending.append(piece)

    def _lines(self, lines: list[bytes], events: list[ServerSentEvent]) -> None:
        if not self._bom_checked:
            self._bom_checked = True
            if lines[0].startswith(_BOM):
                lines[0] = lines[0][3:]
        for line in lines:
            if not line:
                if self._data:
                    self._dispatch(events)
                else:
                    self._event = ""
            elif line.startswith(b"data:"):
                value = line[6:] if line[5:6] == b" " else line[5:]
                self._add_data(value, events)
            elif line[0] != 0x3A:  # ":" starts a comment
                self._field(line)

    def _add_data(self, value: bytes, events: list[ServerSentEvent]) -> None:
        if self._data and _is_complete_json(self._data[-1]) and len(self._data) == 1:
            # Single-newline framing: the previous payload is already whole.
            self._dispatch(events)
        size = self._data_len + len(value) + 1
        if size > self._max:
            raise StreamProtocolError(
                f"an event's data exceeded {self._max} bytes; "
                "raise max_event_bytes if the gateway really sends events this large"
            )
        self._data_len = size
        self._data.append(value.decode("utf-8", "replace"))

    def _field(self, line: bytes) -> None:
        if len(line) > self._max:
            raise StreamProtocolError(f"a field line exceeded {self._max} bytes")
        name, colon, raw = line.partition(b":")
        value = raw[1:] if raw[:1] == b" " else raw
        if name == b"event":
            self._event = value.decode("utf-8", "replace")
        elif name == b"id":
            if b"\x00" not in value:
                self._last_id = value.decode("utf-8", "replace")
        elif name == b"retry":
            if value.isdigit():
                self._retry = int(value)
        elif name == b"data" and not colon:
            # "data" with no colon is a data line with an empty value.
            self._data.append("")
            self._data_len += 1
        # Other field names are ignored, as the spec says.

    def _dispatch(self, events: list[ServerSentEvent]) -> None:
        if not self._data:
            self._event = ""
            return
        data = self._data[0] if len(self._data) == 1 else "\n".join(self._data)
        events.append(
            ServerSentEvent(
                data=data,
                event=self._event or "message",
                id=self._last_id,
                retry=self._retry,
            )
        )
        self._data = []
        self._data_len = 0
        self._event = ""
