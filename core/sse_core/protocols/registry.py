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

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sse_core.errors import ConfigurationError
from sse_core.pipeline._accel import check_accelerator
from sse_core.pipeline.protocol import PayloadDecoder, install_lookup
from sse_core.protocols.answer import AnswerShape
from sse_core.protocols.prompt import PromptReader

if TYPE_CHECKING:
    from sse_core.protocols.turns import Turn

__all__ = [
    "AUTH_MODES",
    "BEARER",
    "REGISTRY",
    "BodyBuilder",
    "PayloadDecoder",
    "RequestShape",
    "TurnsBody",
    "WireProtocol",
    "always",
    "check_auth_mode",
    "check_protocol",
    "no_max_tokens",
    "payload_decoder",
    "plain_body",
    "protocol_names",
    "register_protocol",
    "request_shape",
    "unregister_protocol",
    "wire_protocol",
    "with_not_taken",
]

#: ``auth="bearer"``: the key is sent as ``Authorization: Bearer <key>``.
BEARER = "bearer"
#: The common ways a key is sent: ``bearer``, or the header ``x-api-key: <key>``. ``auth`` also
#: takes any other header name, which then carries the key as it is (Gemini's
#: ``x-goog-api-key``).
AUTH_MODES: tuple[str, ...] = (BEARER, "x-api-key")
#: An HTTP header name (RFC 9110's token).
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: Headers the request itself sets or that name another credential scheme: never the key's.
_NOT_FOR_KEYS = frozenset(
    {"accept", "accept-encoding", "connection", "content-length", "content-type", "host",
     "transfer-encoding", "user-agent", "authorization", "proxy-authorization", "cookie"}
)  # fmt: skip


#: HTTP authentication schemes other than Bearer: words a caller may mean as ``auth``, but
#: never the name of a header carrying a key.
_SCHEMES = frozenset({"basic", "digest", "negotiate", "ntlm", "oauth", "token"})


def check_auth_mode(auth: object) -> str:
    """``auth`` as a request sends the key by it: ``"bearer"``, or the (lower-cased) name of
    the header that carries the key as it is.

    Raises:
        ConfigurationError: Not a string, not a header name, or a header the request sets
            itself (``content-type``, ...) or ``authorization`` (that is ``"bearer"``).
    """
    if type(auth) is not str or not _HEADER_NAME.fullmatch(auth) or auth.lower() in _SCHEMES:
        raise ConfigurationError(
            "auth must be 'bearer' or the name of the header that carries the key ('x-api-key', "
            f"'x-goog-api-key', ...), got {auth!r}"
        )
    name = auth.lower()
    if name in _NOT_FOR_KEYS:
        raise ConfigurationError(
            f"auth={auth!r} names a header the request sets itself or another credential "
            "scheme: use 'bearer' for Authorization: Bearer <key>, or the gateway's key header"
        )
    return name


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


#: Makes a request body from a conversation: ``(model, turns, params)`` to the JSON body, with
#: the protocol's rules (``params``: the common request settings by their OpenAI names,
#: ``max_tokens``, ``temperature``, ``stop``, ``tools``, ``tool_choice``, ``response_format``,
#: ``reasoning_effort``, then the protocol's own fields as given). Raises ConfigurationError for
#: a turn or setting the protocol cannot carry.
TurnsBody = Callable[[str, "Sequence[Turn]", Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestShape:
    """How one protocol's request looks.

    Attributes:
        path: The path joined onto a base URL when none is given, from the base URL
            (checked, without a trailing ``/``).
        route: The request's path from the configured one, the model and whether the answer
            streams, with its query: ``(path, model, streaming)`` to ``path?query`` (Gemini's
            ``/v1beta/models/{model}:streamGenerateContent?alt=sse``). None: the configured
            path for every request (the model goes in the body).
        auth: How the key is sent unless ``auth`` says otherwise: ``"bearer"``, or the name
            of the header that carries it (:func:`check_auth_mode`).
        headers: Headers the protocol requires on every request (the caller's replace them).
        body: Builds the JSON body (:class:`BodyBuilder`); :func:`plain_body` by default.
            It owns ``stream``: a protocol that says streaming by its route leaves it out.
    """

    path: Callable[[str], str]
    route: Callable[[str, str, bool], str] | None = None
    auth: str = BEARER
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
        turns_body: Makes the body of a request from a conversation (:data:`TurnsBody`), the
            one way both adapters and the app build a request in this protocol; None for a
            protocol whose adapters build their own.
        json_mode: The protocol has a JSON mode of its own (OpenAI's ``response_format``
            ``json_object``); else JSON mode asks for a schema as structured output does.
        settings: The request settings only this protocol takes, by the adapters' common
            names (``"thinking"``: Anthropic's ``thinking``): an adapter refuses them, named,
            on the other protocols.
        sends_reasoning_back: The protocol sends an earlier answer's reasoning back itself, as
            the API requires it (signed, byte-exact): chat completions'
            ``reasoning_passback`` does not apply to it.
        how_it_ended: The protocol's own words for how an answer ended, from the stop reason
            its decoder gave (the Responses API's ``status`` and ``incomplete_details``), for
            the frameworks' response metadata; None: the stop reason says it.
        provider: The API's name in OpenTelemetry's ``gen_ai.provider.name`` (``openai``,
            ``anthropic``, ``gcp.gemini``); "": the protocol's own name.
        answer: The protocol's own answer object, whole and while it streams
            (:class:`~sse_core.protocols.answer.AnswerShape`: the Messages API's message);
            None: chat completions' chunk and completion dicts stand for it.
        prompt: Reads a request body into OpenTelemetry's GenAI message shape
            (:class:`~sse_core.protocols.prompt.Prompt`), for telemetry's content capture;
            None: a request's content is not recorded (the answer's still is).
        sampling: The request's sampling settings under chat completions' names
            (``max_tokens``, ``temperature``, ``top_p``, ``stop``), for telemetry's
            ``gen_ai.request.*``; None: the body holds them under those names at its top.
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
    turns_body: TurnsBody | None = None
    json_mode: bool = False
    settings: tuple[str, ...] = ()
    sends_reasoning_back: bool = False
    how_it_ended: Callable[[str], Mapping[str, Any]] | None = None
    answer: AnswerShape | None = None
    provider: str = ""
    prompt: PromptReader | None = None
    sampling: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None

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
            ``"bearer"`` or a header name (:func:`check_auth_mode`).
    """
    if not protocol.name or protocol.name in REGISTRY:
        raise ConfigurationError(f"protocol {protocol.name!r} is already registered (or empty)")
    if protocol.request is not None:
        check_auth_mode(protocol.request.auth)
    REGISTRY[protocol.name] = protocol
    return protocol


def unregister_protocol(name: str) -> None:
    """Forget the protocol ``name`` (a test's own, registered for a while); the built-in ones
    stay.

    Raises:
        ConfigurationError: ``name`` is a built-in protocol, or not registered.
    """
    if name not in REGISTRY or name in _BUILT_IN:
        raise ConfigurationError(f"protocol {name!r} is not a registered protocol of one's own")
    del REGISTRY[name]


#: The names of the protocols the core registers itself (set when the package is imported).
_BUILT_IN: set[str] = set()


def built_in(names: Sequence[str]) -> None:
    """Mark ``names`` as the core's own protocols (:func:`unregister_protocol` keeps them)."""
    _BUILT_IN.update(names)


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


install_lookup(wire_protocol)  # the pipeline resolves a protocol's name by the registry


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
