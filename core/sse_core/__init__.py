"""Framework-free streaming core for OpenAI-compatible gateways.

The data path runs one way, a folder per layer: body bytes -> :class:`SSEParser` -> the
protocol's payload decoder (:class:`ChunkDecoder` for the default one; each protocol's
registers its own, and :class:`StreamDecoder` holds the one asked for) -> StreamEvents ->
:class:`Accumulator` -> :class:`Completion` (``sse_core.pipeline``, no I/O at all); the
transport (:class:`ChatClient`, :class:`AsyncChatClient`, ``sse_core.transport``) feeds it
over httpx; the adapters map its events and snapshots to framework objects. The shared
vocabulary (events, the Completion, errors) sits at this package's root.

What this package exports, and why (everything else is importable from its module, for
the adapters and the tests, and may change):

- to stream: :class:`ChatClient`, :class:`AsyncChatClient` (with :class:`ChatStream`,
  :class:`AsyncChatStream`), their settings (:class:`ClientConfig`, :class:`Timeouts`,
  :class:`RetryPolicy`) and the pool an adapter keeps (:class:`ClientPool`);
- to decode bytes from anywhere (a file, a proxy, a test): :func:`decode`,
  :class:`StreamDecoder`, :class:`StreamSession`, :class:`SSEParser` and
  :class:`ServerSentEvent`, and the three built-in payload decoders;
- what comes out: the events (:data:`StreamEvent` and each of its members), the
  :class:`Accumulator` that assembles them with its per-read :class:`ReadDelta`, and the
  :class:`Completion` with its parts;
- every error of the tree (:mod:`sse_core.errors`), to catch by kind;
- recording for the emulator's replay (:class:`RecordingTransport`, :func:`recording_client`,
  :func:`recording_async_client`);
- what a third protocol needs (:func:`register_protocol`, :class:`WireProtocol`,
  :class:`RequestShape`, :class:`PayloadDecoder`) and the names ``protocol=`` takes
  (:func:`protocol_names`); a protocol's own request rules are in its module,
  :mod:`sse_core.protocols`.
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
from sse_core.pipeline.reads import ReadDelta
from sse_core.pipeline.responses_events import ResponsesDecoder
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
from sse_core.transport.retry import RetryPolicy
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
    "ResponsesDecoder",
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
    "protocol_names",
    "recording_async_client",
    "recording_client",
    "register_protocol",
]
