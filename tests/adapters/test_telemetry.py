"""ChatSSE and SSELLM record one span per call through the core (their ``telemetry`` field, as
``ChatClient``'s): on every protocol, sync and async, a whole answer, a cut one, and a stream
left early, each exactly one ended span with its status and ``error.type``, under the
application's ambient span."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from opentelemetry.trace import StatusCode

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ConfigurationError, IncompleteStreamError
from sse_core.protocols import protocol_names
from sse_core.telemetry import names
from sse_emulator import Emulator
from tests.core.telemetry.conftest import Recorded, recorded

ASK = [ChatMessage(role=MessageRole.USER, content="count to 5")]


@pytest.fixture
def otel() -> Iterator[Recorded]:
    """Local tracer and meter providers recording in memory (tests/core/telemetry's)."""
    yield from recorded()


def _base(emulator: Emulator, protocol: str) -> str:
    own = protocol in ("anthropic", "gemini")  # the emulator's dialects of their own
    return emulator.base_url(protocol) if own else emulator.base_url()


def _model(protocol: str) -> str:
    return "gemini-2.5-flash" if protocol == "gemini" else "demo"


def _lc(emulator: Emulator, protocol: str, otel: Recorded, **fields: Any) -> ChatSSE:
    return ChatSSE(model=_model(protocol), protocol=protocol, base_url=_base(emulator, protocol),
                   api_key="k", max_retries=0, telemetry=otel.telemetry, **fields)  # fmt: skip


def _li(emulator: Emulator, protocol: str, otel: Recorded, **fields: Any) -> SSELLM:
    return SSELLM(model=_model(protocol), protocol=protocol, base_url=_base(emulator, protocol),
                  api_key="k", max_retries=0, telemetry=otel.telemetry, **fields)  # fmt: skip


@pytest.mark.parametrize("protocol", protocol_names())
def test_a_whole_answer_is_one_ok_span_in_both_adapters(
    emulator: Emulator, otel: Recorded, protocol: str
) -> None:
    assert "".join(c.text for c in _lc(emulator, protocol, otel).stream("count to 5"))
    assert _li(emulator, protocol, otel).chat(ASK).message.content
    spans = otel.spans()
    assert len(spans) == 2
    for span in spans:
        assert span.status.status_code is not StatusCode.ERROR
        attributes = span.attributes or {}
        assert attributes[names.SSE_PROTOCOL] == protocol
        assert names.ERROR_TYPE not in attributes
        assert attributes[names.RESPONSE_TIME_TO_FIRST_CHUNK] >= 0
    assert len(otel.points(names.METRIC_OPERATION_DURATION)) == 1  # one series, two calls
    assert otel.points(names.METRIC_OPERATION_DURATION)[0].count == 2


@pytest.mark.parametrize("protocol", protocol_names())
def test_a_cut_answer_is_one_error_span_with_partial_usage(
    emulator: Emulator, otel: Recorded, protocol: str
) -> None:
    fault = {"X-Emulator-Fault": "truncate; after=3"}
    with pytest.raises(IncompleteStreamError):
        list(_lc(emulator, protocol, otel, default_headers=fault).stream("count to 5"))
    attributes = otel.span().attributes or {}
    assert attributes[names.ERROR_TYPE] == "IncompleteStreamError"
    assert otel.span().status.status_code is StatusCode.ERROR


async def test_an_async_stream_left_early_is_cancelled_and_a_dropped_one_other(
    emulator: Emulator, otel: Recorded
) -> None:
    llm = _li(emulator, "chat_completions", otel)
    stream = await llm.astream_chat(ASK)
    async for _ in stream:
        break
    await stream.aclose()  # closed by its caller
    model = _lc(emulator, "chat_completions", otel)
    gc.disable()
    try:
        async for _ in model.astream("count to 5"):
            break  # dropped: the loop's finalizer closes it
        await asyncio.sleep(0)
    finally:
        gc.enable()
    for _ in range(200):
        if len(otel.spans()) == 2:
            break
        await asyncio.sleep(0.01)
    kinds = sorted((s.attributes or {})[names.ERROR_TYPE] for s in otel.spans())
    assert kinds in (["_OTHER", "cancelled"], ["cancelled", "cancelled"])


def test_the_span_is_a_child_of_the_applications_span(emulator: Emulator, otel: Recorded) -> None:
    tracer = otel.telemetry.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("agent step") as parent:
        _lc(emulator, "chat_completions", otel).invoke([HumanMessage("hi")])
        _li(emulator, "chat_completions", otel).chat(ASK)
    ours = [span for span in otel.spans() if span.name != "agent step"]
    assert len(ours) == 2
    assert all(s.parent is not None and s.parent.span_id == parent.get_span_context().span_id
               for s in ours)  # fmt: skip


def test_telemetry_off_records_nothing_and_a_wrong_value_is_refused(
    emulator: Emulator, otel: Recorded
) -> None:
    ChatSSE(model="demo", base_url=emulator.base_url(), api_key="k", telemetry=False).invoke("hi")
    assert otel.spans() == ()
    for cls in (ChatSSE, SSELLM):
        with pytest.raises(ConfigurationError, match="telemetry must be"):
            cls(model="demo", base_url=emulator.base_url(), telemetry="yes")
