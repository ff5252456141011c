"""Framework-free streaming core for OpenAI-compatible gateways.

The pipeline runs one way: body bytes -> :class:`SSEParser` -> :class:`ChunkDecoder`
(together: :class:`StreamDecoder`) -> StreamEvents -> :class:`Accumulator` -> :class:`Completion`.
None of these modules does I/O; the transport (:class:`ChatClient`, :class:`AsyncChatClient`)
feeds them.
"""

from sse_core._http import Timeouts
from sse_core.accumulator import Accumulator
from sse_core.api import decode
from sse_core.chunks import ChunkDecoder, parse_usage
from sse_core.client import AsyncChatClient, AsyncChatStream, ChatClient, ChatStream
from sse_core.completion import Choice, Completion, ToolCall, Usage
from sse_core.decoder import StreamDecoder
from sse_core.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    GatewayConnectionError,
    GatewayHTTPError,
    GatewayStreamError,
    IncompleteStreamError,
    RateLimitError,
    RetryableRequestError,
    ServerError,
    SSEConnectorError,
    StreamError,
    StreamProtocolError,
    StreamTimeoutError,
)
from sse_core.events import (
    Done,
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    UsageUpdate,
)
from sse_core.retry import RetryPolicy, parse_retry_after
from sse_core.session import StreamSession
from sse_core.sse import ServerSentEvent, SSEParser

__version__ = "0.1.0"

__all__ = [
    "Accumulator",
    "AsyncChatClient",
    "AsyncChatStream",
    "AuthenticationError",
    "BadRequestError",
    "ChatClient",
    "ChatStream",
    "Choice",
    "ChunkDecoder",
    "Completion",
    "ConfigurationError",
    "Done",
    "ErrorFrame",
    "Finish",
    "GatewayConnectionError",
    "GatewayEvent",
    "GatewayHTTPError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "Metadata",
    "RateLimitError",
    "ReasoningDelta",
    "RefusalDelta",
    "RetryPolicy",
    "RetryableRequestError",
    "SSEConnectorError",
    "SSEParser",
    "ServerError",
    "ServerSentEvent",
    "StreamDecoder",
    "StreamError",
    "StreamEvent",
    "StreamProtocolError",
    "StreamSession",
    "StreamTimeoutError",
    "TextDelta",
    "Timeouts",
    "ToolCall",
    "ToolCallDelta",
    "Usage",
    "UsageUpdate",
    "decode",
    "parse_retry_after",
    "parse_usage",
]
