"""What a request looks like in each protocol: the default path, how the key is sent, the
headers the protocol requires, and where the gateway's request id is.

``"chat_completions"``: ``POST {base_url}/chat/completions`` with ``Authorization: Bearer``.
``"anthropic"`` (Anthropic Messages): ``POST {base_url}/v1/messages`` (``/messages`` when
``base_url`` already ends in ``/v1``, so the roots that Anthropic-compatible gateways document,
``https://api.anthropic.com`` or ``http://localhost:4000``, and their ``/v1`` forms, both
work), with ``x-api-key`` and ``anthropic-version``. ``auth`` overrides how the key is sent,
for gateways that want the other header.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from sse_core.errors import ConfigurationError
from sse_core.pipeline.protocols import check_protocol

__all__ = [
    "ANTHROPIC_VERSION",
    "AUTH_MODES",
    "REQUEST_ID_HEADERS",
    "auth_header",
    "check_auth",
    "default_path",
    "protocol_headers",
    "request_id",
]

#: How the key can be sent: ``Authorization: Bearer <key>``, or ``x-api-key: <key>``.
AUTH_MODES: tuple[str, ...] = ("bearer", "x-api-key")
#: The ``anthropic-version`` sent by default (``default_headers`` may replace it).
ANTHROPIC_VERSION = "2023-06-01"
#: Response headers that carry the gateway's id of a request, in the order they are read
#: (Anthropic sends ``request-id``; OpenAI, vLLM and most proxies ``x-request-id``).
REQUEST_ID_HEADERS: tuple[str, ...] = ("request-id", "x-request-id")


def default_path(protocol: str, base_url: str) -> str:
    """The path joined onto ``base_url`` when none is given (``base_url`` checked, without
    a trailing ``/``)."""
    if check_protocol(protocol) == "anthropic":
        return "/messages" if urlsplit(base_url).path.endswith("/v1") else "/v1/messages"
    return "/chat/completions"


def check_auth(auth: object, protocol: str) -> str:
    """How the key is sent: ``auth`` if one of :data:`AUTH_MODES`, the protocol's own way
    when None (``x-api-key`` for Anthropic, ``bearer`` otherwise)."""
    if auth is None:
        return "x-api-key" if protocol == "anthropic" else "bearer"
    if type(auth) is not str or auth not in AUTH_MODES:
        choices = ", ".join(repr(mode) for mode in AUTH_MODES)
        raise ConfigurationError(f"auth must be one of {choices} or None, got {auth!r}")
    return auth


def auth_header(auth: str, key: str) -> tuple[str, str]:
    """The header that carries ``key``."""
    return ("x-api-key", key) if auth == "x-api-key" else ("authorization", f"Bearer {key}")


def protocol_headers(protocol: str) -> dict[str, str]:
    """The headers the protocol requires on every request (before the caller's)."""
    return {"anthropic-version": ANTHROPIC_VERSION} if protocol == "anthropic" else {}


def request_id(headers: Mapping[str, str]) -> str | None:
    """The gateway's request id from response ``headers``, or None."""
    for name in REQUEST_ID_HEADERS:
        value = headers.get(name)
        if value:
            return value
    return None
