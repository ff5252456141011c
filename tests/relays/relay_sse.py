"""The relays' own minimal SSE reader: upstream bytes in, whole events out.

Deliberately not sse_core's decoder: a relay that parsed with the code under test would
share its bugs, and a shared bug cancels out. It follows the WHATWG rules a relay needs:
lines end with CRLF, LF or CR (a CR that ends a piece waits for the next one, which may
start with its LF); lines starting with ``:`` are comments (a relay sends its own pings);
``data`` lines join with LF; ``event`` names the event; a blank line dispatches an event
that has data; a leading BOM is skipped; UTF-8 may be cut anywhere; an unfinished event at
the end of the body is dropped (so a cut upstream never yields half an event).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

__all__ = ["Event", "EventReader"]

_LINE_END = re.compile(r"\r\n|\r|\n")
_BOM = "\ufeff"


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One dispatched event: its data (lines joined with LF), name and id."""

    data: str
    event: str | None = None
    id: str | None = None


class EventReader:
    """Feed it the body's pieces; it returns the events each piece completed."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail = ""  # the unfinished line
        self._started = False
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None

    def feed(self, piece: bytes) -> list[Event]:
        """The events that ``piece`` completes."""
        text = self._decoder.decode(piece)
        if not self._started and text:
            self._started = True
            text = text.removeprefix(_BOM)
        buffer = self._tail + text
        held = ""
        if buffer.endswith("\r"):  # maybe half of a CRLF: decide with the next piece
            buffer, held = buffer[:-1], "\r"
        lines = _LINE_END.split(buffer)
        self._tail = lines.pop() + held
        events = []
        for line in lines:
            event = self._take(line)
            if event is not None:
                events.append(event)
        return events

    def _take(self, line: str) -> Event | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return None

    def _dispatch(self) -> Event | None:
        data, name = self._data, self._event
        self._data, self._event = [], None
        if not data:
            return None
        return Event(data="\n".join(data), event=name or None, id=self._id)
