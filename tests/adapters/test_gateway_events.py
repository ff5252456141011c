"""Named gateway SSE events reach the framework's observer, in order and under the call's own
run or span, whichever way the call was made, and leave the answer's text whole (LangChain:
custom events on the chat model's run; LlamaIndex: SSEGatewayEvent instrumentation events
under the call span). (Each framework's event payloads, chains and ``astream_events``:
tests/langchain/test_callbacks_and_custom_events.py and
tests/llamaindex/test_instrumentation_events.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from tests.adapters.conftest import HOWS, Driver

FAULT = "named-event; name=spass.tool-cap; after=1, named-event; name=acme.notice; after=3"
ANSWER = " ".join(str(n) for n in range(1, 13))


@pytest.mark.parametrize("dialect", ["spass", "openai"])
@pytest.mark.parametrize("how", HOWS)
async def test_named_events_reach_the_observer_under_the_call(
    driver: Driver, on_emulator: Any, how: str, dialect: str
) -> None:
    headers = {"SPASS-User-Id": "u", "X-Emulator-Fault": FAULT}
    model = on_emulator(dialect, default_headers=headers)
    texts, names, under_the_call = await driver.gateway_events(model, how, "count to 12")
    assert "".join(texts) == ANSWER
    trailer = ["spass.cost"] if dialect == "spass" else []  # SPASS's usage trailer is one too
    assert names == ["spass.tool-cap", "acme.notice", *trailer]
    assert under_the_call


@pytest.mark.parametrize("how", HOWS)
async def test_an_answer_without_named_events_sends_none(
    driver: Driver, on_emulator: Any, how: str
) -> None:
    texts, names, under_the_call = await driver.gateway_events(on_emulator(), how, "count to 3")
    assert "".join(texts) == "1 2 3"
    assert names == []
    assert under_the_call
