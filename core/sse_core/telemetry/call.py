"""``Call``: one call's CLIENT span and measures, from its request to its end, ended once.

The transport opens it when the request is made (the stream's first read), hands it the
first batches of events until the first content chunk arrived (text, reasoning or a tool
call: keep-alives and empty frames are no chunk), tells it of each retry before the first
byte, and ends it where the stream ends (:mod:`sse_core.transport.traced`). Only what the
gateway sent is recorded: usage as reported so far (``sse.usage.partial`` where the stream
did not end well), never a message, a key or a header value.

Telemetry never breaks a call: an error inside the OpenTelemetry SDK is logged, not raised.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sse_core.completion import Completion, Usage
from sse_core.errors import SSEConnectorError
from sse_core.events import ReasoningDelta, StreamEvent, TextDelta, ToolCallDelta
from sse_core.telemetry import names
from sse_core.telemetry.content import input_content, output_content

if TYPE_CHECKING:
    from sse_core.pipeline.accumulator import Accumulator
    from sse_core.protocols.prompt import Prompt
    from sse_core.protocols.registry import WireProtocol
    from sse_core.telemetry.content import Capture
    from sse_core.telemetry.setting import Instruments

__all__ = ["Call", "Content", "error_type", "request_attributes"]

logger: logging.Logger = logging.getLogger("sse_core.telemetry")

#: Request fields of the common request shapes, by attribute.
_REQUEST_FIELDS = (
    (names.REQUEST_MAX_TOKENS, ("max_tokens", "max_completion_tokens", "max_output_tokens")),
    (names.REQUEST_TEMPERATURE, ("temperature",)),
    (names.REQUEST_TOP_P, ("top_p",)),
    (names.REQUEST_STOP_SEQUENCES, ("stop", "stop_sequences")),
)
_SCALARS = (bool, int, float, str)


def error_type(exc: BaseException) -> str:
    """``error.type`` of ``exc``: the class of :mod:`sse_core.errors` it is (an adapter's
    subclass by the library's class it derives from), else ``_OTHER``."""
    for kind in type(exc).__mro__:
        if kind.__module__ == SSEConnectorError.__module__:
            return kind.__name__
    return names.OTHER


def request_attributes(
    payload: Mapping[str, Any], *, model: object, wire: WireProtocol, url: str, streaming: bool
) -> dict[str, Any]:
    """The span's request attributes: the model asked, the sampling settings the body holds
    (never its messages; where the protocol keeps them: its ``sampling`` fact), the
    protocol, and the gateway's host and port."""
    protocol = wire.name
    found: dict[str, Any] = {
        names.OPERATION_NAME: names.OPERATION_CHAT,
        names.PROVIDER_NAME: wire.provider or protocol,
        names.REQUEST_STREAM: streaming,
        names.SSE_PROTOCOL: protocol,
    }
    if isinstance(model, str) and model:
        found[names.REQUEST_MODEL] = model
    settings = payload if wire.sampling is None else wire.sampling(payload)
    for name, keys in _REQUEST_FIELDS:
        value = next((settings[key] for key in keys if settings.get(key) is not None), None)
        if isinstance(value, str) and name == names.REQUEST_STOP_SEQUENCES:
            value = [value]
        if isinstance(value, _SCALARS) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            found[name] = value
    parts = urlsplit(url)
    if parts.hostname:
        found[names.SERVER_ADDRESS] = parts.hostname
        found[names.SERVER_PORT] = parts.port or (443 if parts.scheme == "https" else 80)
    return found


class Content:
    """What a call's content capture asked for, and the request's content attributes."""

    __slots__ = ("capture", "cut", "found", "limit", "secrets")

    def __init__(
        self, capture: Capture, prompt: Prompt | None, limit: int, secrets: tuple[str, ...]
    ) -> None:
        self.capture: Capture = capture
        self.limit: int = limit
        self.secrets: tuple[str, ...] = secrets
        self.found: dict[str, Any] = {}
        self.cut: bool = False
        if prompt is not None:
            self.found, self.cut = input_content(prompt, limit=limit, secrets=secrets)

    def attributes(self, answer: Completion | None) -> dict[str, Any]:
        """The content attributes: the request's, and the answer's where one arrived."""
        found = dict(self.found)
        cut = self.cut
        if answer is not None and answer.choices:
            found[names.OUTPUT_MESSAGES], shortened = output_content(
                answer, limit=self.limit, secrets=self.secrets
            )
            cut = cut or shortened
        if cut:
            found[names.SSE_CONTENT_TRUNCATED] = True
        return found


class Call:
    """One call: its span (None without a tracer), its start and its first chunks."""

    __slots__ = (
        "_answer",
        "_content",
        "_ended",
        "_first",
        "_inst",
        "_reasoning",
        "_request",
        "_retries",
        "_span",
        "_start",
    )

    def __init__(
        self, instruments: Instruments, request: dict[str, Any], content: Content | None = None
    ) -> None:
        self._inst = instruments
        self._request = request
        self._content = content  # None unless asked for, and only with a tracer
        self._span: Any = None
        self._start = 0.0
        self._first: float | None = None
        self._reasoning: float | None = None
        self._answer: float | None = None
        self._retries = 0
        self._ended = False

    def begin(self) -> None:
        """The request is being made: open the span, under the current context."""
        self._start = time.monotonic()
        tracer = self._inst.tracer
        if tracer is None:
            return
        from opentelemetry.trace import SpanKind

        model = self._request.get(names.REQUEST_MODEL)
        name = f"{names.OPERATION_CHAT} {model}" if model else names.OPERATION_CHAT
        try:
            self._span = tracer.start_span(name, kind=SpanKind.CLIENT, attributes=self._request)
        except Exception:  # telemetry never breaks a call: this one goes without its span
            logger.warning("opening the call's span failed", exc_info=True)

    def carry(self, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` with the span's trace context (``traceparent``, as the application's
        propagator writes it: W3C trace context by default, nothing where
        ``OTEL_PROPAGATORS=none``), so the gateway's spans join the trace; a header the
        caller set of that name is kept. Unchanged without a span."""
        if self._span is None:
            return headers
        from opentelemetry import propagate, trace

        carrier: dict[str, str] = {}
        try:
            propagate.inject(carrier, context=trace.set_span_in_context(self._span))
        except Exception:  # telemetry never breaks a call
            logger.warning("writing the trace context failed", exc_info=True)
            return headers
        have = {name.lower() for name in headers}
        fresh = {name: value for name, value in carrier.items() if name.lower() not in have}
        return {**headers, **fresh} if fresh else headers

    def scan(self, batch: list[StreamEvent]) -> bool:
        """Note the first content chunks in ``batch``; True once the first answer chunk
        (text or a tool call) arrived, after which no batch needs scanning."""
        for event in batch:
            if isinstance(event, (TextDelta, ToolCallDelta)):
                if isinstance(event, TextDelta) and not event.text:
                    continue
                now = time.monotonic() - self._start
                self._answer = now
                if self._first is None:
                    self._first = now
                return True
            if isinstance(event, ReasoningDelta) and event.text and self._reasoning is None:
                self._reasoning = self._first = time.monotonic() - self._start
        return False

    def retried(self, error: BaseException, delay: float) -> None:
        """A failed attempt before the first byte, sent again after ``delay`` seconds: an
        event on the call's span (retries belong to the call: no span of their own)."""
        self._retries += 1
        if self._span is not None:
            attributes = {names.ERROR_TYPE: error_type(error), names.SSE_RETRY_DELAY: delay}
            try:
                self._span.add_event(names.SSE_RETRY_EVENT, attributes)
            except Exception:  # telemetry never breaks a call
                logger.warning("recording a retry failed", exc_info=True)

    def end(
        self,
        answer: Accumulator | None,
        done: Completion | None,
        kind: str | None = None,
        exc: BaseException | None = None,
        keepalives: int = 0,
        dialect: tuple[str, ...] = (),
    ) -> None:
        """End the call (only the first end counts): ``done`` the whole answer, else ``kind``
        its ``error.type``, ``exc`` the error that ended it; ``answer`` what arrived;
        ``keepalives`` how many keep-alives did; ``dialect`` what the stream showed of its
        gateway's dialect."""
        if self._ended:
            return
        self._ended = True
        try:
            self._record(answer, done, kind, exc, keepalives, dialect)
        except Exception:  # telemetry never breaks a call
            logger.warning("recording the call's telemetry failed", exc_info=True)

    def _record(
        self,
        answer: Accumulator | None,
        done: Completion | None,
        kind: str | None,
        exc: BaseException | None,
        keepalives: int,
        dialect: tuple[str, ...] = (),
    ) -> None:
        duration = time.monotonic() - self._start
        found = _response(answer, done)
        if kind is not None:
            found[names.ERROR_TYPE] = kind
        if answer is not None and answer.usage is not None:
            found.update(_usage(answer.usage, partial=done is None))
        found.update(self._timing(answer))
        if keepalives:
            found[names.SSE_KEEPALIVES] = keepalives
        if dialect:
            found[names.SSE_DIALECT] = list(dialect)
        if self._span is not None:
            if self._content is not None:
                self._record_content(answer, done)
            self._end_span(found, kind, exc)
        self._measure(found, duration, answer)

    def _record_content(self, answer: Accumulator | None, done: Completion | None) -> None:
        content = self._content
        assert content is not None
        arrived = done if done is not None or answer is None else answer.completion()
        found = content.attributes(arrived)
        if content.capture.span:
            self._span.set_attributes(found)
        if content.capture.event:
            self._span.add_event(names.CONTENT_EVENT, found)

    def _timing(self, answer: Accumulator | None) -> dict[str, Any]:
        found: dict[str, Any] = {names.SSE_RETRIES: self._retries}
        if answer is not None and answer.gateway_events:
            found[names.SSE_GATEWAY_EVENTS] = len(answer.gateway_events)
        for name, value in (
            (names.RESPONSE_TIME_TO_FIRST_CHUNK, self._first),
            (names.SSE_TIME_TO_FIRST_REASONING_CHUNK, self._reasoning),
            (names.SSE_TIME_TO_FIRST_ANSWER_CHUNK, self._answer),
        ):
            if value is not None:
                found[name] = value
        return found

    def _end_span(self, found: dict[str, Any], kind: str | None, exc: BaseException | None) -> None:
        from opentelemetry.trace import Status, StatusCode

        span = self._span
        span.set_attributes(found)
        if kind is not None:
            if exc is not None:
                span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, kind))
        span.end()

    def _measure(self, found: dict[str, Any], duration: float, answer: Accumulator | None) -> None:
        inst = self._inst
        if inst.duration is None:
            return
        keys = _METRIC_KEYS
        common = {k: v for k, v in {**self._request, **found}.items() if k in keys}
        inst.duration.record(duration, common)
        if self._first is not None and inst.first_chunk is not None:
            inst.first_chunk.record(self._first, common)
        for token_type, name in (
            (names.TOKEN_INPUT, names.USAGE_INPUT_TOKENS),
            (names.TOKEN_OUTPUT, names.USAGE_OUTPUT_TOKENS),
        ):
            if name in found and inst.tokens is not None:
                inst.tokens.record(found[name], {**common, names.TOKEN_TYPE: token_type})
        chunks = _chunks(answer)
        if self._first is not None and chunks > 1 and inst.per_chunk is not None:
            inst.per_chunk.record((duration - self._first) / (chunks - 1), common)


#: The attributes metrics carry (the conventions' metric attributes: no id, no usage).
_METRIC_KEYS = frozenset(
    {
        names.OPERATION_NAME,
        names.PROVIDER_NAME,
        names.REQUEST_MODEL,
        names.RESPONSE_MODEL,
        names.SERVER_ADDRESS,
        names.SERVER_PORT,
        names.ERROR_TYPE,
        names.SSE_PROTOCOL,
    }
)


def _response(answer: Accumulator | None, done: Completion | None) -> dict[str, Any]:
    """The response attributes: id, model and finish reasons, as far as they arrived."""
    if answer is None:
        return {}
    found: dict[str, Any] = {}
    meta = answer.metadata
    if meta.id:
        found[names.RESPONSE_ID] = meta.id
    if meta.model:
        found[names.RESPONSE_MODEL] = meta.model
    if done is not None:
        reasons = [c.finish_reason for c in done.choices if c.finish_reason]
    else:
        reason = answer.finish_reason()
        reasons = [reason] if reason else []
    if reasons:
        found[names.RESPONSE_FINISH_REASONS] = reasons
    return found


def _usage(usage: Usage, *, partial: bool) -> dict[str, Any]:
    """The usage attributes of what the gateway reported (nothing it did not say)."""
    found: dict[str, Any] = {names.SSE_USAGE_PARTIAL: partial}
    for name, value in (
        (names.USAGE_INPUT_TOKENS, usage.prompt_tokens),
        (names.USAGE_OUTPUT_TOKENS, usage.completion_tokens),
        (names.USAGE_REASONING_OUTPUT_TOKENS, usage.reasoning_tokens),
        (names.USAGE_CACHE_READ_INPUT_TOKENS, usage.cached_tokens),
        (names.USAGE_CACHE_CREATION_INPUT_TOKENS, usage.cache_write_tokens),
    ):
        if value is not None:
            found[name] = value
    return found


def _chunks(answer: Accumulator | None) -> int:
    """How many output chunks the followed choice received (text, reasoning, tool-call
    fragments), from the accumulator's mark: nothing was counted per chunk."""
    mark = None if answer is None else answer.mark()
    return 0 if mark is None else mark[1] + mark[2] + mark[4]
