"""The seam between the SSE parser and a protocol: one payload decoder per protocol, one
interface for all of them, one registry naming them.

The parser (:mod:`.parser`) is the one place bytes become events. A payload decoder
(:class:`PayloadDecoder`) turns each event, its name and data, into the shared StreamEvents
and says when the stream is over (``done``). :class:`~sse_core.StreamDecoder` and the session
look a protocol up here by its ``protocol=`` name (:data:`REGISTRY`):

- ``"chat_completions"``: :class:`~sse_core.ChunkDecoder` (the default);
- ``"anthropic"``: :class:`~sse_core.MessagesDecoder` (Anthropic Messages events).

Another protocol is one module with its payload decoder and one :func:`register_protocol`
call (below, for a built-in one); the decoders of the others do not change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from sse_core.errors import ConfigurationError
from sse_core.events import StreamEvent
from sse_core.pipeline._accel import check_accelerator
from sse_core.pipeline.anthropic_events import MessagesDecoder
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.pipeline.parser import ServerSentEvent

__all__ = [
    "PROTOCOLS",
    "REGISTRY",
    "PayloadDecoder",
    "WireProtocol",
    "check_protocol",
    "payload_decoder",
    "register_protocol",
    "wire_protocol",
]


class PayloadDecoder(Protocol):
    """What :class:`~sse_core.StreamDecoder` needs of a protocol's payload decoder.

    One instance per stream; it keeps whatever state the protocol needs. The ``*_into``
    methods append to ``events`` (no list per event on the hot path) and raise
    :class:`~sse_core.errors.StreamError` subclasses only (a bad payload is a
    :class:`~sse_core.errors.StreamProtocolError`).
    """

    #: True once the stream is over (its end marker, or an error): stop reading.
    done: bool

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode the data of an unnamed event (``event: message`` or no ``event:`` line)."""
        ...

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        """Decode an event named ``name`` (any name but ``message``) with its data."""
        ...

    def flush(self) -> list[StreamEvent]:
        """The body ended: the events still held (text held back, blocks left open)."""
        ...

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole JSON answer (a gateway that answered without SSE); the events end
        with :class:`~sse_core.events.StreamEnd` (a whole answer is complete by nature) unless it
        was an error."""
        ...

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one parsed SSE event (:meth:`data_into` or :meth:`named_into`)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class WireProtocol:
    """One protocol a stream can be decoded as.

    Attributes:
        name: What ``protocol=`` says.
        decoder: A new payload decoder, for one stream.
        accelerated: A new payload decoder using the named accelerator (the name is checked
            before), for a protocol that has one; None: the accelerator is not used.
        api: What the endpoint is called, for messages ("check base_url: does it point at the
            gateway's <api>?").
        ends: The end markers, as an IncompleteStreamError names them ("the gateway closed the
            stream ... without <ends>"). A stream is complete when its decoder gave a
            :class:`~sse_core.events.Finish` or :class:`~sse_core.events.StreamEnd`.
    """

    name: str
    decoder: Callable[[], PayloadDecoder]
    accelerated: Callable[[str], PayloadDecoder] | None = None
    api: str
    ends: str

    def new_decoder(self, accelerator: str | None = None) -> PayloadDecoder:
        """A payload decoder for one stream (``accelerator``: see :class:`StreamDecoder`).

        Raises:
            ConfigurationError: An unknown accelerator, or one whose package is missing
                (refused whatever the protocol).
        """
        if accelerator is None:
            return self.decoder()
        check_accelerator(accelerator)
        if self.accelerated is None:
            return self.decoder()  # this protocol takes the pure path
        return self.accelerated(accelerator)


#: Every protocol a stream can be decoded as, by name.
REGISTRY: dict[str, WireProtocol] = {}


def register_protocol(protocol: WireProtocol) -> WireProtocol:
    """Make ``protocol`` known by its name to ``protocol=`` everywhere; return it.

    Raises:
        ConfigurationError: The name is taken (or empty).
    """
    if not protocol.name or protocol.name in REGISTRY:
        raise ConfigurationError(f"protocol {protocol.name!r} is already registered (or empty)")
    REGISTRY[protocol.name] = protocol
    return protocol


def wire_protocol(protocol: object) -> WireProtocol:
    """The registered protocol named ``protocol``, else a ConfigurationError naming them."""
    found = REGISTRY.get(protocol) if type(protocol) is str else None
    if found is None:
        choices = ", ".join(repr(name) for name in REGISTRY)
        raise ConfigurationError(f"protocol must be one of {choices}, got {protocol!r}")
    return found


def check_protocol(protocol: object) -> str:
    """``protocol`` if it names a registered protocol, else a ConfigurationError naming them."""
    return wire_protocol(protocol).name


def payload_decoder(protocol: str) -> PayloadDecoder:
    """A new payload decoder for ``protocol`` (checked by :func:`check_protocol`)."""
    return wire_protocol(protocol).new_decoder()


register_protocol(
    WireProtocol(
        name="chat_completions",
        decoder=ChunkDecoder,
        accelerated=lambda name: ChunkDecoder(accelerator=name),
        api="chat completions",
        ends="a finish_reason and without [DONE]",
    )
)
register_protocol(
    WireProtocol(
        name="anthropic",
        decoder=MessagesDecoder,
        api="Messages API (/v1/messages)",
        ends="a stop_reason and without message_stop",
    )
)

#: The built-in protocols; the first is the default (:data:`REGISTRY` holds every one).
PROTOCOLS: tuple[str, ...] = tuple(REGISTRY)
