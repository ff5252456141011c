"""Framework-free streaming core for OpenAI-compatible gateways.

The data path runs one way, a folder per layer: body bytes -> :class:`SSEParser` ->
:class:`ChunkDecoder` or, for Anthropic Messages, :class:`MessagesDecoder` (together:
:class:`StreamDecoder`) -> StreamEvents ->
:class:`Accumulator` -> :class:`Completion` (``sse_core.pipeline``, no I/O at all); the
transport (:class:`ChatClient`, :class:`AsyncChatClient`, ``sse_core.transport``) feeds it
over httpx; the adapters map its events and snapshots to framework objects. The shared
vocabulary (events, the Completion, errors) sits at this package's root.
"""

from sse_core.completion import Choice, Completion, ReasoningBlock, ToolCall, Usage
from sse_core.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    GatewayConnectionError,
    GatewayHTTPError,
    GatewayStreamError,
    IncompleteStreamError,
    NotImplementedByServerError,
    RateLimitError,
    RedirectError,
    RetryableRequestError,
    ServerError,
    SSEConnectorError,
    StreamError,
    StreamProtocolError,
    StreamTimeoutError,
    ToolArgumentsError,
    UnexpectedResponseError,
)
from sse_core.events import (
    Citation,
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    RefusalDelta,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    UsageUpdate,
)
from sse_core.pipeline.accumulator import Accumulator
from sse_core.pipeline.anthropic_events import MessagesDecoder
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.pipeline.decoder import StreamDecoder
from sse_core.pipeline.parser import ServerSentEvent, SSEParser
from sse_core.pipeline.payloads import parse_usage
from sse_core.pipeline.reads import ReadDelta, merge_read
from sse_core.pipeline.session import StreamSession, decode
from sse_core.protocols import (
    PayloadDecoder,
    RequestShape,
    WireProtocol,
    protocol_names,
    register_protocol,
)
from sse_core.transport.client import AsyncChatClient, ChatClient
from sse_core.transport.config import ClientConfig, Timeouts
from sse_core.transport.pool import ClientPool
from sse_core.transport.recording import (
    RecordingTransport,
    recording_async_client,
    recording_client,
)
from sse_core.transport.retry import RetryPolicy, parse_retry_after
from sse_core.transport.streams import AsyncChatStream, ChatStream

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
    "Citation",
    "ClientConfig",
    "ClientPool",
    "Completion",
    "ConfigurationError",
    "ErrorFrame",
    "Finish",
    "GatewayConnectionError",
    "GatewayEvent",
    "GatewayHTTPError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "MessagesDecoder",
    "Metadata",
    "NotImplementedByServerError",
    "PayloadDecoder",
    "RateLimitError",
    "ReadDelta",
    "ReasoningBlock",
    "ReasoningDelta",
    "ReasoningSignature",
    "RecordingTransport",
    "RedactedReasoning",
    "RedirectError",
    "RefusalDelta",
    "RequestShape",
    "RetryPolicy",
    "RetryableRequestError",
    "SSEConnectorError",
    "SSEParser",
    "ServerError",
    "ServerSentEvent",
    "StreamDecoder",
    "StreamEnd",
    "StreamError",
    "StreamEvent",
    "StreamProtocolError",
    "StreamSession",
    "StreamTimeoutError",
    "TextDelta",
    "Timeouts",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallDelta",
    "UnexpectedResponseError",
    "Usage",
    "UsageUpdate",
    "WireProtocol",
    "decode",
    "merge_read",
    "parse_retry_after",
    "parse_usage",
    "protocol_names",
    "recording_async_client",
    "recording_client",
    "register_protocol",
]
