"""The seam between the SSE parser and a protocol: one payload decoder per protocol, one
interface for all of them.

The parser (:mod:`.parser`) is the one place bytes become events; a payload decoder turns
each event (its name and data) into the shared StreamEvents and says when the stream is
over (``done``). :class:`~sse_core.StreamDecoder` drives whichever the ``protocol`` names:
``"chat_completions"`` (:class:`~sse_core.ChunkDecoder`) or ``"anthropic"``
(:class:`~sse_core.MessagesDecoder`). Another protocol is another decoder with this
interface and one more name here; the others do not change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from sse_core.errors import ConfigurationError
from sse_core.events import StreamEvent
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.pipeline.messages import MessagesDecoder
from sse_core.pipeline.parser import ServerSentEvent

__all__ = ["PROTOCOLS", "PayloadDecoder", "check_protocol", "payload_decoder"]

#: The protocols a stream can be decoded as; the first is the default.
PROTOCOLS: tuple[str, ...] = ("chat_completions", "anthropic")


class PayloadDecoder(Protocol):
    """What :class:`~sse_core.StreamDecoder` needs of a protocol's payload decoder."""

    #: True once the stream is over (its end marker, or an error): stop reading.
    done: bool

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one parsed SSE event."""
        ...

    def flush(self) -> list[StreamEvent]:
        """The body ended: the events still held."""
        ...

    def _decode_raw(self, name: str, data: bytes) -> list[StreamEvent]:
        """Decode one event given as its name and data bytes (the parser's raw form)."""
        ...

    def _named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        """:meth:`_decode_raw` of a named event, appending to ``events``."""
        ...

    def _decode_into(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """Decode the JSON object of an unnamed event, appending to ``events``."""
        ...


def check_protocol(protocol: object) -> str:
    """``protocol`` if it is one of :data:`PROTOCOLS`, else a ConfigurationError naming them."""
    if type(protocol) is not str or protocol not in PROTOCOLS:
        choices = ", ".join(repr(name) for name in PROTOCOLS)
        raise ConfigurationError(f"protocol must be one of {choices}, got {protocol!r}")
    return protocol


def payload_decoder(protocol: str) -> ChunkDecoder | MessagesDecoder:
    """A new payload decoder for ``protocol`` (checked by :func:`check_protocol`)."""
    if check_protocol(protocol) == "anthropic":
        return MessagesDecoder()
    return ChunkDecoder()
