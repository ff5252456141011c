"""LangChain adapter: ``ChatSSE``, a ``BaseChatModel`` over :mod:`sse_core`.

``from langchain_sse import ChatSSE``. The error classes are sse_core's, each also a
langchain-core ``Model*Error`` (see :mod:`langchain_sse._errors`), so code catching either
keeps working. Names load on first use: importing the package needs no langchain-core
(the wheel installs it only with the ``langchain`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.exceptions import ModelRefusalError

    from langchain_sse._errors import (
        AuthenticationError,
        BadRequestError,
        ContextOverflowError,
        GatewayConnectionError,
        GatewayStreamError,
        IncompleteStreamError,
        NotFoundError,
        NotImplementedByServerError,
        PermissionDeniedError,
        RateLimitError,
        RedirectError,
        RetryableRequestError,
        ServerError,
        StreamProtocolError,
        StreamTimeoutError,
        ToolArgumentsError,
        UnexpectedResponseError,
    )
    from langchain_sse._inbound import PROVIDER
    from langchain_sse.model import ChatSSE
    from sse_core import (
        ConfigurationError,
        GatewayHTTPError,
        SSEConnectorError,
        StreamError,
        Timeouts,
    )

__all__ = [
    "PROVIDER",
    "AuthenticationError",
    "BadRequestError",
    "ChatSSE",
    "ConfigurationError",
    "ContextOverflowError",
    "GatewayConnectionError",
    "GatewayHTTPError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "ModelRefusalError",
    "NotFoundError",
    "NotImplementedByServerError",
    "PermissionDeniedError",
    "RateLimitError",
    "RedirectError",
    "RetryableRequestError",
    "SSEConnectorError",
    "ServerError",
    "StreamError",
    "StreamProtocolError",
    "StreamTimeoutError",
    "Timeouts",
    "ToolArgumentsError",
    "UnexpectedResponseError",
]

_HOMES = {
    "ChatSSE": "langchain_sse.model",
    "PROVIDER": "langchain_sse._inbound",
    "ModelRefusalError": "langchain_core.exceptions",
    **dict.fromkeys(
        ("ConfigurationError", "GatewayHTTPError", "SSEConnectorError", "StreamError", "Timeouts"),
        "sse_core",
    ),
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'langchain_sse' has no attribute {name!r}")
    from sse_core._extras import load_lazy

    value = load_lazy(
        "langchain_sse",
        name,
        _HOMES.get(name, "langchain_sse._errors"),
        framework="langchain_core",
        needs="langchain-core >= 1.8 (Python 3.11+)",
        extra="langchain",
    )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
