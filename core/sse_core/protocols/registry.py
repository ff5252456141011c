"""The registry of protocols: what a protocol is to the core, and where each is found by name.

A protocol (:class:`WireProtocol`) is registered once by its ``protocol=`` name, by the module
that defines it (:mod:`sse_core.protocols.chat_completions`,
:mod:`sse_core.protocols.anthropic`), with everything about it that no framework needs to
know:

- its payload decoder (:class:`PayloadDecoder`): each parsed SSE event to StreamEvents, and
  when the stream is over (the parser, :mod:`sse_core.pipeline.parser`, is the one place
  bytes become events);
- its request shape (:class:`RequestShape`): the default path, how the key is sent, the
  headers it requires, the JSON body;
- its request rules: the ``max_tokens`` it needs when none is set, and, in the protocol's own
  module, how a conversation (:mod:`sse_core.protocols.turns`) and its settings become a body.

:class:`~sse_core.StreamDecoder`, the session, :class:`~sse_core.ClientConfig` and both
adapters look a protocol up here (:func:`wire_protocol`); nothing else names one. Another
protocol is one module with one :func:`register_protocol` call; no other protocol's code
changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from sse_core.errors import ConfigurationError
from sse_core.events import StreamEvent
from sse_core.pipeline._accel import check_accelerator
from sse_core.pipeline.parser import ServerSentEvent

__all__ = [
    "AUTH_MODES",
    "REGISTRY",
    "BodyBuilder",
    "PayloadDecoder",
    "RequestShape",
    "WireProtocol",
    "always",
    "check_protocol",
    "no_max_tokens",
    "payload_decoder",
    "plain_body",
    "protocol_names",
    "register_protocol",
    "request_shape",
    "wire_protocol",
    "with_not_taken",
]

#: How the key can be sent: ``Authorization: Bearer <key>``, or ``x-api-key: <key>``.
AUTH_MODES: tuple[str, ...] = ("bearer", "x-api-key")


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


class BodyBuilder(Protocol):
    """Builds a request's JSON body."""

    def __call__(
        self,
        payload: Mapping[str, Any],
        extra_body: Mapping[str, Any] | None,
        /,
        *,
        streaming: bool,
        include_usage: bool,
    ) -> dict[str, Any]:
        """The body from the caller's payload and ``extra_body`` (merged over it), for a
        streamed answer or a whole one (``streaming``), asking for usage or not
        (``include_usage``, for a protocol that must ask).

        Raises:
            ConfigurationError: The payload cannot be sent in this protocol.
        """
        ...


def plain_body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """The payload, ``extra_body`` merged, and ``stream``; OpenAI's ``stream_options`` is
    dropped (a protocol that does not name it should not get it). ``include_usage`` is not
    used: such a protocol reports usage unasked."""
    body = {**payload, **(extra_body or {}), "stream": streaming}
    body.pop("stream_options", None)
    return body


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestShape:
    """How one protocol's request looks.

    Attributes:
        path: The path joined onto a base URL when none is given, from the base URL
            (checked, without a trailing ``/``).
        auth: How the key is sent unless ``auth`` says otherwise (one of :data:`AUTH_MODES`).
        headers: Headers the protocol requires on every request (the caller's replace them).
        body: Builds the JSON body (:class:`BodyBuilder`); :func:`plain_body` by default.
    """

    path: Callable[[str], str]
    auth: str = "bearer"
    headers: Mapping[str, str] = field(default_factory=dict)
    body: BodyBuilder = plain_body


def no_max_tokens(thinking: Mapping[str, Any] | None) -> int | None:
    """The rule of a protocol that needs no ``max_tokens``: none is sent unless set."""
    return None


def always(thinking: Mapping[str, Any] | None) -> bool:
    """The rule of a protocol that takes a forced tool choice whatever the thinking."""
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class WireProtocol:
    """One protocol: how its streams are decoded, and how its requests look.

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
        request: How a request looks; None for a protocol that is only decoded (its streams
            come from elsewhere: :class:`~sse_core.ClientConfig` refuses it).
        default_max_tokens: The ``max_tokens`` sent when none is set, from the request's
            ``thinking`` setting (None: none is sent; a protocol that requires one gives it).
        key_env: Environment variables the protocol's own clients read the key from, read
            after ``SSE_API_KEY`` when no ``api_key`` is given (Anthropic's
            ``ANTHROPIC_API_KEY``).
        forced_tools: Whether a forced tool choice may be sent with the request's
            ``thinking`` setting (Anthropic's API refuses it with thinking on): structured
            output that forces its tool asks for it freely where not.
        not_taken: Request fields of other protocols this one has no parameter for, each
            with what to do instead (the Responses API's ``seed``): an adapter refusing such
            a setting says so at once, rather than pointing it at a field the request would
            carry to a refusal.
    """

    name: str
    decoder: Callable[[], PayloadDecoder]
    accelerated: Callable[[str], PayloadDecoder] | None = None
    api: str
    ends: str
    request: RequestShape | None = None
    default_max_tokens: Callable[[Mapping[str, Any] | None], int | None] = no_max_tokens
    forced_tools: Callable[[Mapping[str, Any] | None], bool] = always
    key_env: tuple[str, ...] = ()
    not_taken: Mapping[str, str] = field(default_factory=dict)

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


#: Every protocol, by name, in the order registered (the first is the default).
REGISTRY: dict[str, WireProtocol] = {}


def register_protocol(protocol: WireProtocol) -> WireProtocol:
    """Make ``protocol`` known by its name to ``protocol=`` everywhere; return it.

    Raises:
        ConfigurationError: The name is taken (or empty), or its request's ``auth`` is not
            one of :data:`AUTH_MODES`.
    """
    if not protocol.name or protocol.name in REGISTRY:
        raise ConfigurationError(f"protocol {protocol.name!r} is already registered (or empty)")
    if protocol.request is not None and protocol.request.auth not in AUTH_MODES:
        raise ConfigurationError(f"auth must be one of {AUTH_MODES}, got {protocol.request.auth!r}")
    REGISTRY[protocol.name] = protocol
    return protocol


def protocol_names() -> tuple[str, ...]:
    """The names ``protocol=`` takes, the default first."""
    return tuple(REGISTRY)


def wire_protocol(protocol: object) -> WireProtocol:
    """The registered protocol named ``protocol``, else a ConfigurationError naming them."""
    found = REGISTRY.get(protocol) if type(protocol) is str else None
    if found is None:
        choices = ", ".join(repr(name) for name in REGISTRY)
        raise ConfigurationError(f"protocol must be one of {choices}, got {protocol!r}")
    return found


def with_not_taken(protocol: object, hints: Mapping[str, str]) -> dict[str, str]:
    """``hints`` (an adapter's: an argument name -> what to use instead) with what
    ``protocol`` says of the fields it has no parameter for (:attr:`WireProtocol.not_taken`,
    named with the protocol), over the adapter's own where both have a name; ``hints`` alone
    for a protocol not registered (refused elsewhere)."""
    found = REGISTRY.get(protocol) if type(protocol) is str else None
    if found is None or not found.not_taken:
        return dict(hints)
    said = {name: f"{why} (protocol={found.name!r})" for name, why in found.not_taken.items()}
    return {**hints, **said}


def check_protocol(protocol: object) -> str:
    """``protocol`` if it names a registered protocol, else a ConfigurationError naming them."""
    return wire_protocol(protocol).name


def payload_decoder(protocol: str) -> PayloadDecoder:
    """A new payload decoder for ``protocol`` (checked by :func:`check_protocol`)."""
    return wire_protocol(protocol).new_decoder()


def request_shape(protocol: object) -> RequestShape:
    """The request shape of ``protocol`` (a registered one), else a ConfigurationError."""
    found = wire_protocol(protocol)
    if found.request is None:
        raise ConfigurationError(
            f"protocol {found.name!r} decodes streams but has no request shape: register it "
            "with a RequestShape (sse_core.protocols.register_protocol)"
        )
    return found.request
