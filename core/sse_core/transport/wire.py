"""What a request looks like in each protocol (:class:`RequestShape`): the default path, how
the key is sent, the headers the protocol requires, the JSON body; and where the gateway's
request id is.

The shapes are registered by protocol name, beside the payload decoders of
:mod:`sse_core.pipeline.protocols`: another protocol is its decoder's registration there and
its :func:`register_request` here, and the two built-in shapes do not change.

- ``"chat_completions"``: ``POST {base_url}/chat/completions`` with ``Authorization: Bearer``;
  the body asks for ``stream_options.include_usage`` when usage is wanted, and more than one
  choice is refused.
- ``"anthropic"`` (Anthropic Messages): ``POST {base_url}/v1/messages`` (``/messages`` when
  ``base_url`` already ends in ``/v1``, so the roots that Anthropic-compatible gateways
  document, ``https://api.anthropic.com`` or ``http://localhost:4000``, and their ``/v1``
  forms, both work), with ``x-api-key`` and ``anthropic-version``; the body is the payload
  with ``stream`` (its API refuses fields it does not know, so ``stream_options``, an OpenAI
  extension, is never added and is dropped from the payload).

``auth`` overrides how the key is sent, for gateways that want the other header.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from sse_core._choices import check_choices
from sse_core.errors import ConfigurationError
from sse_core.pipeline.protocols import check_protocol

__all__ = [
    "ANTHROPIC_VERSION",
    "AUTH_MODES",
    "REQUESTS",
    "REQUEST_ID_HEADERS",
    "BodyBuilder",
    "RequestShape",
    "auth_header",
    "check_auth",
    "default_path",
    "plain_body",
    "protocol_headers",
    "register_request",
    "request_id",
    "request_shape",
]

#: How the key can be sent: ``Authorization: Bearer <key>``, or ``x-api-key: <key>``.
AUTH_MODES: tuple[str, ...] = ("bearer", "x-api-key")
#: The ``anthropic-version`` sent by default (``default_headers`` may replace it).
ANTHROPIC_VERSION = "2023-06-01"
#: Response headers that carry the gateway's id of a request, in the order they are read
#: (Anthropic sends ``request-id``; OpenAI, vLLM and most proxies ``x-request-id``).
REQUEST_ID_HEADERS: tuple[str, ...] = ("request-id", "x-request-id")


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


def _chat_body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """Chat completions: one choice at most; ``stream_options.include_usage`` when asked."""
    check_choices(payload, extra_body)
    body = {**payload, **(extra_body or {}), "stream": streaming}
    if not streaming:
        body.pop("stream_options", None)
    elif include_usage:
        options = body.get("stream_options")
        body["stream_options"] = {
            **(options if isinstance(options, dict) else {}),
            "include_usage": True,
        }
    return body


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestShape:
    """How one protocol's request looks.

    Attributes:
        protocol: The protocol's name, as registered with its payload decoder.
        path: The path joined onto a base URL when none is given, from the base URL
            (checked, without a trailing ``/``).
        auth: How the key is sent unless ``auth`` says otherwise (one of :data:`AUTH_MODES`).
        headers: Headers the protocol requires on every request (the caller's replace them).
        body: Builds the JSON body (:data:`BodyBuilder`); :func:`plain_body` by default.
    """

    protocol: str
    path: Callable[[str], str]
    auth: str = "bearer"
    headers: Mapping[str, str] = field(default_factory=dict)
    body: BodyBuilder = plain_body


#: Every protocol's request shape, by protocol name.
REQUESTS: dict[str, RequestShape] = {}


def register_request(shape: RequestShape) -> RequestShape:
    """Make ``shape`` how requests of its protocol look; return it.

    Raises:
        ConfigurationError: The protocol has no registered payload decoder, already has a
            shape, or ``shape.auth`` is not one of :data:`AUTH_MODES`.
    """
    name = check_protocol(shape.protocol)
    if name in REQUESTS:
        raise ConfigurationError(f"protocol {name!r} already has a request shape")
    if shape.auth not in AUTH_MODES:
        raise ConfigurationError(f"auth must be one of {AUTH_MODES}, got {shape.auth!r}")
    REQUESTS[name] = shape
    return shape


def request_shape(protocol: object) -> RequestShape:
    """The request shape of ``protocol`` (a registered one), else a ConfigurationError."""
    name = check_protocol(protocol)
    shape = REQUESTS.get(name)
    if shape is None:
        raise ConfigurationError(
            f"protocol {name!r} decodes streams but has no request shape: "
            "register one with sse_core.transport.wire.register_request"
        )
    return shape


def default_path(protocol: str, base_url: str) -> str:
    """The path joined onto ``base_url`` when none is given (``base_url`` checked, without
    a trailing ``/``)."""
    return request_shape(protocol).path(base_url)


def check_auth(auth: object, protocol: str) -> str:
    """How the key is sent: ``auth`` if one of :data:`AUTH_MODES`, the protocol's own way
    when None (``x-api-key`` for Anthropic, ``bearer`` otherwise)."""
    if auth is None:
        return request_shape(protocol).auth
    if type(auth) is not str or auth not in AUTH_MODES:
        choices = ", ".join(repr(mode) for mode in AUTH_MODES)
        raise ConfigurationError(f"auth must be one of {choices} or None, got {auth!r}")
    return auth


def auth_header(auth: str, key: str) -> tuple[str, str]:
    """The header that carries ``key``."""
    return ("x-api-key", key) if auth == "x-api-key" else ("authorization", f"Bearer {key}")


def protocol_headers(protocol: str) -> Mapping[str, str]:
    """The headers the protocol requires on every request (before the caller's)."""
    return request_shape(protocol).headers


def request_id(headers: Mapping[str, str]) -> str | None:
    """The gateway's request id from response ``headers``, or None."""
    for name in REQUEST_ID_HEADERS:
        value = headers.get(name)
        if value:
            return value
    return None


def _messages_path(base_url: str) -> str:
    return "/messages" if urlsplit(base_url).path.endswith("/v1") else "/v1/messages"


register_request(
    RequestShape(
        protocol="chat_completions", path=lambda base_url: "/chat/completions", body=_chat_body
    )
)
register_request(
    RequestShape(
        protocol="anthropic",
        path=_messages_path,
        auth="x-api-key",
        headers={"anthropic-version": ANTHROPIC_VERSION},
    )
)
