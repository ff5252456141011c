"""Named gateway SSE events as SSEGatewayEvent instrumentation events, under the call span.
(The events' names, order and span for every call way, for both adapters:
tests/adapters/test_gateway_events.py.)"""

from __future__ import annotations

import pytest
from llama_index.core.llms import ChatMessage

from llamaindex_sse import SSEGatewayEvent
from llamaindex_sse._events import dispatch_gateway_events
from sse_core import GatewayEvent
from tests.llamaindex.li_support import LLMFactory, collect_events

ASK = [ChatMessage(role="user", content="count to 12")]
ANSWER = " ".join(str(n) for n in range(1, 13))


def test_dispatch_sends_each_event_in_order_under_the_span() -> None:
    events = [GatewayEvent(name="a", data={"n": 1}), GatewayEvent(name="b", data="text")]
    with collect_events() as seen:
        dispatch_gateway_events(events, "span-1")
    sent = [e for e in seen.events if isinstance(e, SSEGatewayEvent)]
    assert [(e.name, e.data, e.span_id) for e in sent] == [
        ("a", {"n": 1}, "span-1"),
        ("b", "text", "span-1"),
    ]
    assert SSEGatewayEvent.class_name() == "SSEGatewayEvent"
    assert sent[0].model_dump()["class_name"] == "SSEGatewayEvent"


@pytest.mark.parametrize("dialect", ["spass", "openai"])
def test_named_events_are_dispatched_under_the_call_span(
    make_llm: LLMFactory, dialect: str
) -> None:
    fault = "named-event; name=spass.tool-cap; after=1, named-event; name=acme.notice; after=3"
    with collect_events() as seen:
        responses = list(make_llm(dialect, fault=fault).stream_chat(ASK))
    assert "".join(r.delta or "" for r in responses) == ANSWER
    gateway = [e for e in seen.events if isinstance(e, SSEGatewayEvent)]
    trailer = ["spass.cost"] if dialect == "spass" else []  # SPASS's usage trailer is one too
    assert [e.name for e in gateway] == ["spass.tool-cap", "acme.notice", *trailer]
    assert all(isinstance(e.data, dict) for e in gateway)
    (start,) = seen.named("LLMChatStartEvent")
    assert {e.span_id for e in gateway} == {start.span_id}
    assert gateway[0].model_dump()["class_name"] == "SSEGatewayEvent"
