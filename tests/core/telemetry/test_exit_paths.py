"""One CLIENT span per call, ended exactly once on every exit path of a stream, against the
emulator: read to its end, cut, a gateway error frame, an HTTP error, a timeout, closed by its
caller, a cancelled task, and dropped unclosed; with the duration recorded once, and no
message content anywhere."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from sse_core import (
    AsyncChatClient,
    ChatClient,
    GatewayStreamError,
    IncompleteStreamError,
    ServerError,
    StreamTimeoutError,
    TextDelta,
    Timeouts,
)
from sse_core.telemetry import names

from .conftest import Recorded

pytestmark = pytest.mark.timeout(60)

PROMPT = "telemetry-private-words"
PAYLOAD = {
    "model": "emulator-model",
    "messages": [{"role": "user", "content": f"echo: {PROMPT}"}],
    "max_tokens": 64,
    "temperature": 0.5,
}
FAULT = "X-Emulator-Fault"


def sync_client(emulator: Any, otel: Recorded, **settings: Any) -> ChatClient:
    settings.setdefault("telemetry", otel.telemetry)
    return ChatClient(base_url=emulator.base_url(), api_key="k", **settings)


def async_client(emulator: Any, otel: Recorded, **settings: Any) -> AsyncChatClient:
    return AsyncChatClient(
        base_url=emulator.base_url(), api_key="k", telemetry=otel.telemetry, **settings
    )


def ended(otel: Recorded, error: str | None) -> ReadableSpan:
    """The call's one span, checked: a CLIENT span named after the model, with the request's
    attributes, OK or ERROR with ``error``; the duration recorded once; no content."""
    span = otel.span()
    attributes = dict(span.attributes or {})
    assert span.kind is SpanKind.CLIENT
    assert span.name == "chat emulator-model"
    assert attributes[names.OPERATION_NAME] == "chat"
    assert attributes[names.REQUEST_MODEL] == "emulator-model"
    assert attributes[names.REQUEST_MAX_TOKENS] == 64
    assert attributes[names.REQUEST_TEMPERATURE] == 0.5
    assert attributes[names.SERVER_ADDRESS] == "127.0.0.1"
    if error is None:
        assert span.status.status_code is StatusCode.UNSET  # the conventions' OK
        assert names.ERROR_TYPE not in attributes
    else:
        assert span.status.status_code is StatusCode.ERROR
        assert attributes[names.ERROR_TYPE] == error
    durations = otel.points(names.METRIC_OPERATION_DURATION)
    assert [point.count for point in durations] == [1]
    assert durations[0].attributes.get(names.ERROR_TYPE) == error
    assert PROMPT not in span.to_json()
    return span


def answer_started(span: ReadableSpan) -> None:
    """The span says when the first chunk came, and that it was an answer chunk."""
    attributes = span.attributes or {}
    first = attributes[names.RESPONSE_TIME_TO_FIRST_CHUNK]
    assert isinstance(first, float) and 0 < first < 30
    assert attributes[names.SSE_TIME_TO_FIRST_ANSWER_CHUNK] == first


def wait_for(found: Callable[[], bool], seconds: float = 5.0) -> None:
    stop = time.monotonic() + seconds
    while not found() and time.monotonic() < stop:
        time.sleep(0.01)


# -- read to its end -------------------------------------------------------------------------


def test_a_whole_answer_ends_its_span_ok_with_usage_and_finish_reasons(
    emulator: Any, otel: Recorded
) -> None:
    with sync_client(emulator, otel) as client:
        completion = client.complete(PAYLOAD)
    span = ended(otel, None)
    attributes = span.attributes or {}
    assert attributes[names.RESPONSE_FINISH_REASONS] == ("stop",)
    assert attributes[names.REQUEST_STREAM] is True
    assert attributes[names.RESPONSE_MODEL] == completion.model
    assert completion.usage is not None
    assert attributes[names.USAGE_INPUT_TOKENS] == completion.usage.prompt_tokens
    assert attributes[names.USAGE_OUTPUT_TOKENS] == completion.usage.completion_tokens
    assert attributes[names.SSE_USAGE_PARTIAL] is False
    assert attributes[names.SSE_RETRIES] == 0
    answer_started(span)
    assert completion.content[:30] not in span.to_json()
    tokens = otel.points(names.METRIC_TOKEN_USAGE)
    assert sorted(p.attributes[names.TOKEN_TYPE] for p in tokens) == ["input", "output"]
    assert [p.count for p in otel.points(names.METRIC_TIME_TO_FIRST_CHUNK)] == [1]


async def test_a_whole_async_answer_ends_its_span_ok(emulator: Any, otel: Recorded) -> None:
    async with async_client(emulator, otel) as client:
        completion = await client.complete(PAYLOAD)
    span = ended(otel, None)
    assert (span.attributes or {})[names.RESPONSE_FINISH_REASONS] == ("stop",)
    assert completion.content[:30] not in span.to_json()
    answer_started(span)


def test_a_whole_answer_not_streamed_says_so(emulator: Any, otel: Recorded) -> None:
    with sync_client(emulator, otel) as client:
        client.complete(PAYLOAD, streaming=False)
    span = ended(otel, None)
    assert (span.attributes or {})[names.REQUEST_STREAM] is False


# -- failed ----------------------------------------------------------------------------------


def test_a_cut_stream_ends_its_span_as_incomplete(emulator: Any, otel: Recorded) -> None:
    with sync_client(emulator, otel) as client, pytest.raises(IncompleteStreamError):
        client.complete(PAYLOAD, headers={FAULT: "truncate; after=3"})
    answer_started(ended(otel, "IncompleteStreamError"))


async def test_a_cut_async_stream_ends_its_span_as_incomplete(
    emulator: Any, otel: Recorded
) -> None:
    async with async_client(emulator, otel) as client:
        with pytest.raises(IncompleteStreamError):
            await client.complete(PAYLOAD, headers={FAULT: "truncate; after=3"})
    ended(otel, "IncompleteStreamError")


def test_a_gateway_error_frame_ends_its_span_with_the_error(emulator: Any, otel: Recorded) -> None:
    with sync_client(emulator, otel) as client, pytest.raises(GatewayStreamError):
        client.complete(PAYLOAD, headers={FAULT: "error-frame; after=3"})
    span = ended(otel, "GatewayStreamError")
    assert [event.name for event in span.events] == ["exception"]


async def test_an_async_gateway_error_frame_ends_its_span_with_the_error(
    emulator: Any, otel: Recorded
) -> None:
    async with async_client(emulator, otel) as client:
        with pytest.raises(GatewayStreamError):
            await client.complete(PAYLOAD, headers={FAULT: "event-error; after=3"})
    ended(otel, "GatewayStreamError")


def test_an_http_error_ends_its_span_with_the_error_and_no_chunk(
    emulator: Any, otel: Recorded
) -> None:
    with sync_client(emulator, otel, max_retries=0) as client, pytest.raises(ServerError):
        client.complete(PAYLOAD, headers={FAULT: "server-error"})
    span = ended(otel, "ServerError")
    assert names.RESPONSE_TIME_TO_FIRST_CHUNK not in (span.attributes or {})
    assert otel.points(names.METRIC_TIME_TO_FIRST_CHUNK) == []


async def test_an_async_http_error_ends_its_span_with_the_error(
    emulator: Any, otel: Recorded
) -> None:
    async with async_client(emulator, otel, max_retries=0) as client:
        with pytest.raises(ServerError):
            await client.complete(PAYLOAD, headers={FAULT: "server-error"})
    ended(otel, "ServerError")


def test_retries_before_the_first_byte_are_events_of_the_one_span(
    emulator: Any, otel: Recorded
) -> None:
    fault = {FAULT: "rate-limit; count=1; retry-after=0"}
    with sync_client(emulator, otel) as client:
        client.complete(PAYLOAD, headers=fault)
    span = ended(otel, None)
    assert (span.attributes or {})[names.SSE_RETRIES] == 1
    (retry,) = span.events
    assert retry.name == names.SSE_RETRY_EVENT
    assert (retry.attributes or {})[names.ERROR_TYPE] == "RateLimitError"


async def test_async_retries_are_events_of_the_one_span(emulator: Any, otel: Recorded) -> None:
    fault = {FAULT: "rate-limit; count=1; retry-after=0"}
    async with async_client(emulator, otel) as client:
        await client.complete(PAYLOAD, headers=fault)
    span = ended(otel, None)
    assert [event.name for event in span.events] == [names.SSE_RETRY_EVENT]


def test_a_timeout_ends_its_span_with_the_timeout(emulator: Any, otel: Recorded) -> None:
    fault = {FAULT: "stall; after=3; seconds=10"}
    client = sync_client(emulator, otel, timeout=Timeouts(idle=0.3))
    with client, pytest.raises(StreamTimeoutError):
        client.complete(PAYLOAD, headers=fault)
    ended(otel, "StreamTimeoutError")


async def test_an_async_timeout_ends_its_span_with_the_timeout(
    emulator: Any, otel: Recorded
) -> None:
    fault = {FAULT: "stall; after=3; seconds=10"}
    async with async_client(emulator, otel, timeout=Timeouts(idle=0.3)) as client:
        with pytest.raises(StreamTimeoutError):
            await client.complete(PAYLOAD, headers=fault)
    ended(otel, "StreamTimeoutError")


# -- left early ------------------------------------------------------------------------------

SLOW = {FAULT: "slow; delay=0.05"}


def test_close_mid_stream_ends_its_span_as_cancelled(emulator: Any, otel: Recorded) -> None:
    with sync_client(emulator, otel) as client:
        stream = client.stream(PAYLOAD, headers=SLOW)
        for _ in stream:
            break
        assert otel.spans() == ()  # not ended while the caller may read on
        stream.close()
        stream.close()
    ended(otel, names.CANCELLED)


def test_leaving_the_with_block_ends_its_span_as_cancelled(emulator: Any, otel: Recorded) -> None:
    with sync_client(emulator, otel) as client, client.stream(PAYLOAD, headers=SLOW) as stream:
        next(iter(stream))
    ended(otel, names.CANCELLED)


async def test_aclose_mid_stream_ends_its_span_as_cancelled(emulator: Any, otel: Recorded) -> None:
    async with async_client(emulator, otel) as client:
        stream = client.stream(PAYLOAD, headers=SLOW)
        async for _ in stream:
            break
        await stream.aclose()
    ended(otel, names.CANCELLED)


async def test_a_cancelled_task_ends_its_span_as_cancelled(emulator: Any, otel: Recorded) -> None:
    started = asyncio.Event()

    async def read(client: AsyncChatClient) -> None:
        async with client.stream(PAYLOAD, headers=SLOW) as stream:
            async for _ in stream:
                started.set()

    async with async_client(emulator, otel) as client:
        task = asyncio.create_task(read(client))
        await asyncio.wait_for(started.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    ended(otel, names.CANCELLED)


def test_a_stream_dropped_after_a_break_ends_its_span_as_other(
    emulator: Any, otel: Recorded
) -> None:
    with sync_client(emulator, otel) as client:
        stream = client.stream(PAYLOAD, headers=SLOW)
        for event in stream:
            if isinstance(event, TextDelta):
                break
        del stream
        gc.collect()
        wait_for(lambda: bool(otel.spans()))
    span = ended(otel, names.OTHER)
    answer_started(span)


def test_a_stream_dropped_in_a_reference_cycle_ends_its_span_on_the_closer_thread(
    emulator: Any, otel: Recorded
) -> None:
    with sync_client(emulator, otel) as client:
        stream = client.stream(PAYLOAD, headers=SLOW)
        next(iter(stream))
        cycle: dict[str, Any] = {"stream": stream}
        cycle["self"] = cycle
        del stream, cycle
        assert otel.spans() == ()  # only the collector can reach it now
        gc.collect()
        wait_for(lambda: bool(otel.spans()))
    ended(otel, names.OTHER)


async def test_an_async_stream_dropped_after_a_break_ends_its_span_as_other(
    emulator: Any, otel: Recorded
) -> None:
    async with async_client(emulator, otel) as client:
        stream = client.stream(PAYLOAD, headers=SLOW)
        async for _ in stream:
            break
        del stream
        gc.collect()
        for _ in range(500):  # the loop finalizes the dropped generators in a task of its own
            if otel.spans():
                break
            await asyncio.sleep(0.01)
    ended(otel, names.OTHER)


def test_a_stream_never_read_opens_no_span(emulator: Any, otel: Recorded) -> None:
    with sync_client(emulator, otel) as client, client.stream(PAYLOAD):
        pass
    assert otel.spans() == ()
    assert otel.points(names.METRIC_OPERATION_DURATION) == []


@pytest.mark.parametrize("on", [False, True])
def test_a_failed_stream_is_freed_without_the_cycle_collector(
    emulator: Any, otel: Recorded, on: bool
) -> None:
    """The span's end keeps no reference cycle through the error: a failed stream is freed
    as soon as its last reference goes, as with telemetry off."""
    gc.collect()
    gc.disable()
    try:
        with sync_client(emulator, otel, telemetry=otel.telemetry if on else False) as client:
            stream = client.stream(PAYLOAD, headers={FAULT: "truncate; after=3"})
            with contextlib.suppress(IncompleteStreamError):
                stream.until_done()
            alive = weakref.ref(stream)
            del stream
        assert alive() is None
    finally:
        gc.enable()
    assert len(otel.spans()) == (1 if on else 0)
