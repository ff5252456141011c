"""On when the application asks, off with one setting: the environment variable, the client's
``telemetry=False``, the API's own no-op and proxy providers; spans parent under the ambient
context; usage on a cut stream is what the gateway sent, marked partial; ``error.type`` values
are the documented ones."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from opentelemetry import metrics, trace

import sse_core.errors
from sse_core import AsyncChatClient, ChatClient, ConfigurationError, IncompleteStreamError
from sse_core.telemetry import ENV, ERROR_TYPES, Telemetry, names
from sse_core.telemetry.setting import records, resolve

from .conftest import Recorded

pytestmark = pytest.mark.timeout(60)

PAYLOAD = {"model": "emulator-model", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("value", ["0", "false", "off", "No"])
def test_the_variable_turns_it_off_whatever_the_code_says(
    emulator: Any, otel: Recorded, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(ENV, value)
    with ChatClient(base_url=emulator.base_url(), telemetry=otel.telemetry) as client:
        assert client.telemetry is None
        client.complete(PAYLOAD)
    assert otel.spans() == ()
    assert otel.points(names.METRIC_OPERATION_DURATION) == []


def test_the_client_setting_turns_it_off(emulator: Any) -> None:
    with ChatClient(base_url=emulator.base_url(), telemetry=False) as client:
        assert client.telemetry is None
        assert client._call(client._prepare(PAYLOAD, None, True), PAYLOAD, True) is None


def test_a_wrong_setting_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="telemetry must be"):
        resolve("yes", {})  # type: ignore[arg-type]


def test_on_by_default_and_recording_only_where_a_provider_records() -> None:
    assert resolve(None, {}) == Telemetry()
    assert not records(trace.ProxyTracerProvider(), "opentelemetry.trace")
    assert not records(trace.NoOpTracerProvider(), "opentelemetry.trace")
    assert not records(metrics.NoOpMeterProvider(), "opentelemetry.metrics")
    # No test sets a global provider (they record to local ones): the globals are the API's.
    assert not records(trace.get_tracer_provider(), "opentelemetry.trace")
    assert not records(metrics.get_meter_provider(), "opentelemetry.metrics")
    assert Telemetry().instruments() is None  # nothing is made per call without a provider


def test_only_a_tracer_provider_gives_spans_without_metrics(emulator: Any, otel: Recorded) -> None:
    tracing = otel.telemetry.tracer_provider
    with ChatClient(
        base_url=emulator.base_url(), telemetry=Telemetry(tracer_provider=tracing)
    ) as client:
        assert not records(metrics.get_meter_provider(), "opentelemetry.metrics")
        client.complete(PAYLOAD)
    assert len(otel.spans()) == 1


def test_the_span_is_a_child_of_the_ambient_span(emulator: Any, otel: Recorded) -> None:
    tracer = otel.telemetry.tracer_provider.get_tracer("app")
    client = ChatClient(base_url=emulator.base_url(), telemetry=otel.telemetry)
    with client, tracer.start_as_current_span("app") as parent:
        client.complete(PAYLOAD)
    (ours,) = [span for span in otel.spans() if span.name != "app"]
    assert ours.parent is not None
    assert ours.parent.span_id == parent.get_span_context().span_id


async def test_an_async_span_is_a_child_of_the_ambient_span(emulator: Any, otel: Recorded) -> None:
    tracer = otel.telemetry.tracer_provider.get_tracer("app")
    async with AsyncChatClient(base_url=emulator.base_url(), telemetry=otel.telemetry) as client:
        with tracer.start_as_current_span("app") as parent:
            await client.complete(PAYLOAD)
    (ours,) = [span for span in otel.spans() if span.name != "app"]
    assert ours.parent is not None
    assert ours.parent.span_id == parent.get_span_context().span_id


def test_a_cut_anthropic_stream_keeps_the_usage_sent_marked_partial(
    emulator: Any, otel: Recorded
) -> None:
    payload = {**PAYLOAD, "max_tokens": 100}
    with (
        ChatClient(
            base_url=emulator.base_url("anthropic"), protocol="anthropic", telemetry=otel.telemetry
        ) as client,
        pytest.raises(IncompleteStreamError) as caught,
    ):
        client.complete(payload, headers={"X-Emulator-Fault": "truncate; after=4"})
    usage = caught.value.partial.usage
    assert usage is not None and usage.prompt_tokens
    attributes = otel.span().attributes or {}
    assert attributes[names.PROVIDER_NAME] == "anthropic"
    assert attributes[names.USAGE_INPUT_TOKENS] == usage.prompt_tokens
    assert attributes[names.SSE_USAGE_PARTIAL] is True
    assert attributes[names.ERROR_TYPE] == "IncompleteStreamError"
    tokens = otel.points(names.METRIC_TOKEN_USAGE)
    assert {p.attributes[names.TOKEN_TYPE]: p.sum for p in tokens}["input"] == usage.prompt_tokens


def test_reasoning_first_is_timed_apart_from_the_answer(emulator: Any, otel: Recorded) -> None:
    payload = {**PAYLOAD, "model": "emulator-reasoner", "reasoning_effort": "low"}
    with ChatClient(base_url=emulator.base_url(), telemetry=otel.telemetry) as client:
        completion = client.complete(payload)
    attributes = otel.span().attributes or {}
    assert completion.reasoning  # the emulator's reasoner reasons before it answers
    first = attributes[names.RESPONSE_TIME_TO_FIRST_CHUNK]
    assert attributes[names.SSE_TIME_TO_FIRST_REASONING_CHUNK] == first
    assert attributes[names.SSE_TIME_TO_FIRST_ANSWER_CHUNK] >= first
    assert attributes[names.USAGE_REASONING_OUTPUT_TOKENS] >= 0


def test_every_error_class_is_a_documented_error_type() -> None:
    classes = {
        name
        for name, value in inspect.getmembers(sse_core.errors, inspect.isclass)
        if issubclass(value, sse_core.errors.SSEConnectorError)
    }
    assert classes | {names.CANCELLED, names.OTHER} == set(ERROR_TYPES)


class _Broken:
    """A tracer provider whose tracer fails at every call (a broken SDK or exporter)."""

    def get_tracer(self, *args: Any, **kwargs: Any) -> _Broken:
        return self

    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the SDK failed")


def test_a_failing_sdk_never_breaks_a_call(emulator: Any, caplog: pytest.LogCaptureFixture) -> None:
    telemetry = Telemetry(tracer_provider=_Broken())
    with ChatClient(base_url=emulator.base_url(), telemetry=telemetry) as client:
        assert client.complete(PAYLOAD).content
    assert "opening the call's span failed" in caplog.text
