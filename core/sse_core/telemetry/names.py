"""Every telemetry name the library records, in one place.

The OpenTelemetry GenAI semantic conventions are at Development status and renames are
announced (``gen_ai.client.token.usage`` into per-type counters, ``cache_creation`` into
``cache_write``): the names below are the ones ``opentelemetry-util-genai`` and
``opentelemetry-semantic-conventions`` emit today, and a rename is made here alone. Our own
names, for what the conventions do not say, live under ``sse.``.

``error.type`` takes one of :data:`ERROR_TYPES`: the class name of the library's error that
ended the call (``IncompleteStreamError``, ``GatewayStreamError``, ``RateLimitError``, ...),
:data:`CANCELLED` for a stream its caller left before its end (``close()``, ``aclose()``,
leaving the ``with`` block, a cancelled task), or :data:`OTHER` for a stream dropped without a
close and finalized by the garbage collector or the event loop, and for any error that is not
the library's own.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "CANCELLED",
    "CAPTURE_CONTENT_ENV",
    "CONTENT_EVENT",
    "ERROR_TYPE",
    "ERROR_TYPES",
    "INPUT_MESSAGES",
    "METRIC_OPERATION_DURATION",
    "METRIC_TIME_PER_OUTPUT_CHUNK",
    "METRIC_TIME_TO_FIRST_CHUNK",
    "METRIC_TOKEN_USAGE",
    "OPERATION_CHAT",
    "OPERATION_NAME",
    "OTHER",
    "OUTPUT_MESSAGES",
    "PROVIDER_NAME",
    "REQUEST_MAX_TOKENS",
    "REQUEST_MODEL",
    "REQUEST_STOP_SEQUENCES",
    "REQUEST_STREAM",
    "REQUEST_TEMPERATURE",
    "REQUEST_TOP_P",
    "RESPONSE_FINISH_REASONS",
    "RESPONSE_ID",
    "RESPONSE_MODEL",
    "RESPONSE_TIME_TO_FIRST_CHUNK",
    "SERVER_ADDRESS",
    "SERVER_PORT",
    "SSE_CONTENT_TRUNCATED",
    "SSE_DIALECT",
    "SSE_GATEWAY_EVENTS",
    "SSE_KEEPALIVES",
    "SSE_PROTOCOL",
    "SSE_RETRIES",
    "SSE_RETRY_DELAY",
    "SSE_RETRY_EVENT",
    "SSE_TIME_TO_FIRST_ANSWER_CHUNK",
    "SSE_TIME_TO_FIRST_REASONING_CHUNK",
    "SSE_USAGE_PARTIAL",
    "SYSTEM_INSTRUCTIONS",
    "TOKEN_INPUT",
    "TOKEN_OUTPUT",
    "TOKEN_TYPE",
    "TOOL_DEFINITIONS",
    "USAGE_CACHE_CREATION_INPUT_TOKENS",
    "USAGE_CACHE_READ_INPUT_TOKENS",
    "USAGE_INPUT_TOKENS",
    "USAGE_OUTPUT_TOKENS",
    "USAGE_REASONING_OUTPUT_TOKENS",
]

# GenAI span attributes (semantic conventions, gen-ai-spans).
OPERATION_NAME: Final = "gen_ai.operation.name"
PROVIDER_NAME: Final = "gen_ai.provider.name"
REQUEST_MODEL: Final = "gen_ai.request.model"
REQUEST_STREAM: Final = "gen_ai.request.stream"
REQUEST_MAX_TOKENS: Final = "gen_ai.request.max_tokens"
REQUEST_TEMPERATURE: Final = "gen_ai.request.temperature"
REQUEST_TOP_P: Final = "gen_ai.request.top_p"
REQUEST_STOP_SEQUENCES: Final = "gen_ai.request.stop_sequences"
RESPONSE_ID: Final = "gen_ai.response.id"
RESPONSE_MODEL: Final = "gen_ai.response.model"
RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
RESPONSE_TIME_TO_FIRST_CHUNK: Final = "gen_ai.response.time_to_first_chunk"
USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
USAGE_REASONING_OUTPUT_TOKENS: Final = "gen_ai.usage.reasoning.output_tokens"
USAGE_CACHE_READ_INPUT_TOKENS: Final = "gen_ai.usage.cache_read.input_tokens"
USAGE_CACHE_CREATION_INPUT_TOKENS: Final = "gen_ai.usage.cache_creation.input_tokens"
# Content (only with content capture asked: :mod:`sse_core.telemetry.content`), each a JSON
# text in the conventions' message shape.
INPUT_MESSAGES: Final = "gen_ai.input.messages"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS: Final = "gen_ai.system_instructions"
TOOL_DEFINITIONS: Final = "gen_ai.tool.definitions"
#: The event that carries the content where capture asks for events.
CONTENT_EVENT: Final = "gen_ai.client.inference.operation.details"
#: The environment variable that asks for content (``NO_CONTENT``, ``SPAN_ONLY``,
#: ``EVENT_ONLY``, ``SPAN_AND_EVENT``; or the older ``true`` / ``false``).
CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
#: The metric attribute of ``gen_ai.client.token.usage``: ``input`` or ``output``.
TOKEN_TYPE: Final = "gen_ai.token.type"
TOKEN_INPUT: Final = "input"
TOKEN_OUTPUT: Final = "output"

# General attributes (semantic conventions, server and error).
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"
ERROR_TYPE: Final = "error.type"

# GenAI client metrics (semantic conventions, gen-ai-metrics); all histograms.
METRIC_OPERATION_DURATION: Final = "gen_ai.client.operation.duration"
METRIC_TOKEN_USAGE: Final = "gen_ai.client.token.usage"
METRIC_TIME_TO_FIRST_CHUNK: Final = "gen_ai.client.operation.time_to_first_chunk"
METRIC_TIME_PER_OUTPUT_CHUNK: Final = "gen_ai.client.operation.time_per_output_chunk"

# Ours (sse.*): what the conventions do not name.
SSE_PROTOCOL: Final = "sse.protocol"
#: What the stream showed of its gateway's dialect, sorted (chat completions: its reasoning's
#: spelling, ``<think>`` tags, ``[DONE]``; :data:`sse_core.pipeline.chunks.TRAITS`).
SSE_DIALECT: Final = "sse.dialect"
SSE_RETRIES: Final = "sse.retries"
#: Comment lines (``: ping``) and the protocol's own keep-alive events (Anthropic's ``ping``).
SSE_KEEPALIVES: Final = "sse.keepalives"
SSE_GATEWAY_EVENTS: Final = "sse.gateway_events"
SSE_TIME_TO_FIRST_REASONING_CHUNK: Final = "sse.time_to_first_reasoning_chunk"
SSE_TIME_TO_FIRST_ANSWER_CHUNK: Final = "sse.time_to_first_answer_chunk"
SSE_USAGE_PARTIAL: Final = "sse.usage.partial"
#: True where captured content was cut to the size cap (:class:`~sse_core.telemetry.Telemetry`'s
#: ``content_limit``).
SSE_CONTENT_TRUNCATED: Final = "sse.content.truncated"
#: The span event of a failed attempt retried before the first byte of the body.
SSE_RETRY_EVENT: Final = "sse.retry"
SSE_RETRY_DELAY: Final = "sse.retry.delay"

#: The value of ``gen_ai.operation.name`` (and the span name's first word).
OPERATION_CHAT: Final = "chat"

#: ``error.type`` of a stream its caller left before its end.
CANCELLED: Final = "cancelled"
#: ``error.type`` of a stream dropped unclosed and finalized, or of an error not ours
#: (the conventions' fallback value).
OTHER: Final = "_OTHER"
#: Every ``error.type`` a span or metric may carry: the classes of :mod:`sse_core.errors` (an
#: adapter's subclass of one is recorded by it), :data:`CANCELLED` and :data:`OTHER`.
ERROR_TYPES: Final = (
    "SSEConnectorError",
    "ConfigurationError",
    "GatewayConnectionError",
    "GatewayHTTPError",
    "AuthenticationError",
    "RateLimitError",
    "ServerError",
    "NotImplementedByServerError",
    "RetryableRequestError",
    "BadRequestError",
    "RedirectError",
    "UnexpectedResponseError",
    "StreamError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "StreamTimeoutError",
    "StreamProtocolError",
    "ToolArgumentsError",
    CANCELLED,
    OTHER,
)
