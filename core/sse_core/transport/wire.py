"""What the transport reads of a protocol's request shape (:mod:`sse_core.protocols`): the
default path, how the key is sent and in which header, the headers the protocol requires; and
where the gateway's request id is in a response.

``auth`` overrides how the key is sent, for gateways that want the other header.
"""

from __future__ import annotations

from collections.abc import Mapping

from sse_core.protocols.anthropic import ANTHROPIC_VERSION
from sse_core.protocols.registry import BEARER, check_auth_mode, request_shape, wire_protocol

__all__ = [
    "ANTHROPIC_VERSION",
    "REQUEST_ID_HEADERS",
    "auth_header",
    "check_auth",
    "default_path",
    "no_key",
    "protocol_headers",
    "request_id",
]

#: Response headers that carry the gateway's id of a request, in the order they are read
#: (Anthropic sends ``request-id``; OpenAI, vLLM and most proxies ``x-request-id``).
REQUEST_ID_HEADERS: tuple[str, ...] = ("request-id", "x-request-id")


def default_path(protocol: str, base_url: str) -> str:
    """The path joined onto ``base_url`` when none is given (``base_url`` checked, without
    a trailing ``/``)."""
    return request_shape(protocol).path(base_url)


def check_auth(auth: object, protocol: str) -> str:
    """How the key is sent: ``auth`` (``"bearer"``, or the name of the header that carries
    the key, :func:`~sse_core.protocols.registry.check_auth_mode`), the protocol's own way
    when None (``x-api-key`` for Anthropic, ``bearer`` for OpenAI's)."""
    if auth is None:
        return request_shape(protocol).auth
    return check_auth_mode(auth)


def no_key(protocol: str) -> str:
    """What an authentication error says when no key was sent at all."""
    names = " or ".join(("SSE_API_KEY", *wire_protocol(protocol).key_env))
    return f"no API key was sent (none was configured): pass api_key, or set {names}"


def auth_header(auth: str, key: str) -> tuple[str, str]:
    """The header that carries ``key``: ``Authorization: Bearer`` for ``"bearer"``, else the
    header ``auth`` names, with the key as it is."""
    return ("authorization", f"Bearer {key}") if auth == BEARER else (auth, key)


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
