"""What the pipeline needs of a protocol, and how it finds one by name.

The pipeline (parser, decoder, session) is given a protocol: an object with a payload decoder
per stream, its end markers and the name of its endpoint (:class:`Decodable`, which
:class:`~sse_core.protocols.WireProtocol` is), or its name. A name is resolved by the lookup the
registry installs when it is imported (:mod:`sse_core.protocols.registry`), so the pipeline
never imports the registry: the registry and the protocols depend on the pipeline, not the
other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

from sse_core.errors import ConfigurationError
from sse_core.events import StreamEvent
from sse_core.pipeline.parser import ServerSentEvent

__all__ = ["Decodable", "PayloadDecoder", "install_lookup", "resolve"]


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
        with :class:`~sse_core.events.StreamEnd` (a whole answer is complete by nature)
        unless it was an error."""
        ...

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one parsed SSE event (:meth:`data_into` or :meth:`named_into`)."""
        ...


class Decodable(Protocol):
    """A protocol as the pipeline takes it (:class:`~sse_core.protocols.WireProtocol` is one)."""

    @property
    def name(self) -> str:
        """What ``protocol=`` says."""
        ...

    @property
    def api(self) -> str:
        """What the endpoint is called, for messages."""
        ...

    @property
    def ends(self) -> str:
        """The end markers, as an IncompleteStreamError names them."""
        ...

    def new_decoder(self, accelerator: str | None = None) -> PayloadDecoder:
        """A payload decoder for one stream."""
        ...


#: How a name is resolved: the registry's lookup, once installed (a list of at most one).
_LOOKUP: list[Callable[[object], Decodable]] = []


def install_lookup(lookup: Callable[[object], Decodable]) -> None:
    """Set how a protocol's name is resolved (the registry's, installed on its import)."""
    _LOOKUP[:] = [lookup]


def resolve(protocol: str | Decodable | object) -> Decodable:
    """``protocol`` as the pipeline takes it: a name resolved by the registry, or the
    protocol itself.

    Raises:
        ConfigurationError: A name no protocol is registered by, or neither a name nor a
            protocol (the registry names the protocols there are).
    """
    if not isinstance(protocol, str) and callable(getattr(protocol, "new_decoder", None)):
        return cast("Decodable", protocol)
    if not _LOOKUP:  # pragma: no cover - sse_core imports the registry on its import
        raise ConfigurationError("no protocol registry is loaded (import sse_core)")
    return _LOOKUP[0](protocol)
