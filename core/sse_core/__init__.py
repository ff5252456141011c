"""Framework-free streaming core for LLM gateways.

The data path runs one way, a folder per layer: body bytes -> the SSE parser -> the
protocol's payload decoder (each protocol registers its own) -> StreamEvents -> the
accumulator -> :class:`Completion` (:mod:`sse_core.pipeline`, no I/O at all); the transport
(:class:`ChatClient`, :class:`AsyncChatClient`, ``sse_core.transport``) feeds it over httpx or
httpx2; the adapters map its events and snapshots to framework objects. The shared vocabulary
(events, the Completion, errors) sits at this package's root.

What this package exports is what a user needs, and nothing more:

- to stream: :class:`ChatClient`, :class:`AsyncChatClient` (with :class:`ChatStream`,
  :class:`AsyncChatStream`), their settings (:class:`ClientConfig`, :class:`Timeouts`,
  :class:`RetryPolicy`);
- to decode bytes from anywhere (a file, a proxy, a test): :func:`decode` and
  :class:`StreamDecoder`, and the names ``protocol=`` takes (:func:`protocol_names`);
- what comes out: the events (:data:`StreamEvent` and each of its members) and the
  :class:`Completion` with its parts;
- every error of the tree (:mod:`sse_core.errors`), to catch by kind;
- recording for the emulator's replay (:func:`recording_client`,
  :func:`recording_async_client`).

Two packages are the extension API: :mod:`sse_core.protocols` (a protocol of one's own:
``register_protocol``, ``WireProtocol``, ``RequestShape``, ``PayloadDecoder``, the turns and
each protocol's request rules) and :mod:`sse_core.pipeline` (the pipeline's parts, to drive
by hand: the parser, the built-in payload decoders, the session, the accumulator and its
per-read delta). Their names were exported here before 0.1, as were the pool an adapter keeps
(:class:`sse_core.transport.pool.ClientPool`) and the recording transport under the recording
clients (:class:`sse_core.transport.recording.RecordingTransport`); reading one from here
still works, with a DeprecationWarning naming its home.
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
from sse_core.pipeline.decoder import StreamDecoder
from sse_core.pipeline.session import decode
from sse_core.protocols import protocol_names

# The pool registers its fast path: sse_core.fast_paths lists every path once sse_core is in.
from sse_core.transport import pool as _pool
from sse_core.transport.client import AsyncChatClient, ChatClient
from sse_core.transport.config import ClientConfig, Timeouts
from sse_core.transport.recording import (
    recording_async_client,
    recording_client,
)
from sse_core.transport.retry import RetryPolicy
from sse_core.transport.streams import AsyncChatStream, ChatStream

del _pool


__version__ = "0.1.0"

__all__ = [
    "AsyncChatClient",
    "AsyncChatStream",
    "AuthenticationError",
    "BadRequestError",
    "ChatClient",
    "ChatStream",
    "Choice",
    "Citation",
    "ClientConfig",
    "Completion",
    "ConfigurationError",
    "ErrorFrame",
    "Finish",
    "GatewayConnectionError",
    "GatewayEvent",
    "GatewayHTTPError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "Metadata",
    "NotImplementedByServerError",
    "RateLimitError",
    "ReasoningBlock",
    "ReasoningDelta",
    "ReasoningSignature",
    "RedactedReasoning",
    "RedirectError",
    "RefusalDelta",
    "RetryPolicy",
    "RetryableRequestError",
    "SSEConnectorError",
    "ServerError",
    "StreamDecoder",
    "StreamEnd",
    "StreamError",
    "StreamEvent",
    "StreamProtocolError",
    "StreamTimeoutError",
    "TextDelta",
    "Timeouts",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallDelta",
    "UnexpectedResponseError",
    "Usage",
    "UsageUpdate",
    "decode",
    "protocol_names",
    "recording_async_client",
    "recording_client",
]

#: Names exported here before 0.1, and the package each lives in now.
_MOVED = {
    **dict.fromkeys(
        ("Accumulator", "ChunkDecoder", "MessagesDecoder", "ReadDelta", "ResponsesDecoder",
         "SSEParser", "ServerSentEvent", "StreamSession"),
        "sse_core.pipeline",
    ),
    **dict.fromkeys(
        ("PayloadDecoder", "RequestShape", "WireProtocol", "register_protocol"),
        "sse_core.protocols",
    ),
    "ClientPool": "sse_core.transport.pool",
    "RecordingTransport": "sse_core.transport.recording",
}  # fmt: skip


def __getattr__(name: str) -> object:
    """A name that moved to :mod:`sse_core.pipeline`, :mod:`sse_core.protocols` or a module of
    :mod:`sse_core.transport`, with a DeprecationWarning naming its home."""
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module 'sse_core' has no attribute {name!r}")
    import importlib
    import warnings

    warnings.warn(
        f"sse_core.{name} moved to {home}.{name} (import it from there)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(home), name)
