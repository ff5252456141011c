"""LlamaIndex adapter: ``SSELLM``, a ``FunctionCallingLLM`` over :mod:`sse_core`.

``from llamaindex_sse import SSELLM`` imports llama-index-core on first use only, so
``import llamaindex_sse`` (for the error classes) stays cheap. The errors are sse_core's:
the HTTP, connection and configuration errors are the very same classes; the four stream
errors SSELLM raises are subclasses that add ``partial_response`` (the answer so far as a
``ChatResponse``), so ``except sse_core.IncompleteStreamError`` still catches them; and
``get_tool_calls_from_response`` refuses cut tool input with ToolArgumentsError (both
sse_core's and a ``ValueError``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llamaindex_sse._errors import (
    GatewayStreamError,
    IncompleteStreamError,
    StreamProtocolError,
    StreamTimeoutError,
    ToolArgumentsError,
)
from sse_core.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    GatewayConnectionError,
    GatewayHTTPError,
    NotImplementedByServerError,
    RateLimitError,
    RedirectError,
    RetryableRequestError,
    ServerError,
    SSEConnectorError,
    StreamError,
    UnexpectedResponseError,
)

if TYPE_CHECKING:
    from llamaindex_sse._events import SSEGatewayEvent
    from llamaindex_sse.model import SSELLM

__all__ = [
    "SSELLM",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "GatewayConnectionError",
    "GatewayHTTPError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "NotImplementedByServerError",
    "RateLimitError",
    "RedirectError",
    "RetryableRequestError",
    "SSEConnectorError",
    "SSEGatewayEvent",
    "ServerError",
    "StreamError",
    "StreamProtocolError",
    "StreamTimeoutError",
    "ToolArgumentsError",
    "UnexpectedResponseError",
]

_LAZY = {"SSELLM": "llamaindex_sse.model", "SSEGatewayEvent": "llamaindex_sse._events"}


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'llamaindex_sse' has no attribute {name!r}")
    from sse_core._extras import load_lazy

    value = load_lazy(
        "llamaindex_sse",
        name,
        home,
        framework="llama_index",
        needs="llama-index-core 0.14",
        extra="llamaindex",
    )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
