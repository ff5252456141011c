"""Neither adapter sends a request the API refuses (issue 35): for each of the refusals the
strict emulator makes as the APIs make them, both adapters, asked for it, either refuse it
before sending (a ConfigurationError naming the field) or send what the API takes (saying
what they did not send); the two controls the API accepts are sent and answered."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from sse_core import ConfigurationError
from sse_emulator import Emulator
from tests.adapters.conftest import Driver
from tests.adapters.histories import get_weather, last_body, left_out

QUESTION = "What is the weather in Paris?"


def _untouched(emulator: Emulator, before: int) -> None:
    assert len(emulator.requests) == before, "a refused request reached the gateway"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"temperature": 1.5}, "temperature must be between 0 and 1"),
        ({"model_kwargs": {"top_p": 1.2}}, "top_p must be between 0 and 1"),
        ({"thinking": {"type": "enabled", "budget_tokens": 512}}, "budget_tokens"),
    ],
)
def test_messages_settings_the_api_refuses_are_refused_by_name(
    driver: Driver, on_protocol: Any, emulator: Emulator, fields: dict[str, Any], named: str
) -> None:
    model = on_protocol(protocol="anthropic", **fields)
    before = len(emulator.requests)
    with pytest.raises(ConfigurationError, match=named):
        driver.ask(model, QUESTION)
    _untouched(emulator, before)


@pytest.mark.parametrize("protocol", ["anthropic"])
def test_a_forced_tool_without_its_name_is_refused(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator
) -> None:
    before = len(emulator.requests)
    with pytest.raises(ConfigurationError, match="forces a tool but names none"):
        driver.answer(on_protocol(), "ask", QUESTION, [get_weather], tool_choice={"type": "tool"})
    _untouched(emulator, before)


@pytest.mark.parametrize("protocol", ["anthropic"])
def test_the_controls_are_sent_and_answered(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator
) -> None:
    """``tool_choice`` none, and ``max_tokens: 0`` (the API fills its prompt cache)."""
    answer = driver.answer(on_protocol(), "ask", QUESTION, [get_weather], tool_choice="none")
    assert answer.tool_calls == [] and last_body(emulator)["tool_choice"] == {"type": "none"}
    answer = driver.answer(on_protocol(max_tokens=0), "ask", QUESTION)
    assert last_body(emulator)["max_tokens"] == 0
    assert (answer.text, answer.stop_reason) == ("", "max_tokens")


@pytest.mark.parametrize("protocol", ["chat_completions", "responses"])
@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4.1", "gpt-5-chat-latest"])
def test_an_effort_for_a_model_that_does_not_reason_is_not_sent(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator, model: str
) -> None:
    with pytest.warns(UserWarning, match=f"reasoning_effort 'low' is not sent: {model}"):
        assert driver.ask(on_protocol(model=model, reasoning_effort="low"), QUESTION)
    assert not {"reasoning", "reasoning_effort"} & set(last_body(emulator))


@pytest.mark.parametrize("protocol", ["responses"])
@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"previous_response_id": "resp_1", "conversation": "conv_1"}, "conversation"),
        ({"include": ["reasoning.secret"]}, "include must list"),
        ({"max_output_tokens": 15}, "max_output_tokens"),
        ({"text": {"format": {"type": "json_schema", "schema": {}}}}, "needs its name"),
    ],
)
def test_responses_settings_the_api_refuses_are_refused_by_name(
    driver: Driver,
    on_protocol: Any,
    protocol: str,
    emulator: Emulator,
    extra: dict[str, Any],
    named: str,
) -> None:
    model = on_protocol(model_kwargs=extra)
    before = len(emulator.requests)
    with pytest.raises(ConfigurationError, match=named):
        driver.ask(model, QUESTION)
    _untouched(emulator, before)


@pytest.mark.parametrize("protocol", ["responses"])
def test_a_tool_result_for_no_call_is_refused(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator
) -> None:
    """An orphan ``function_call_output`` (R13): refused before it is sent."""
    orphan = {"role": "tool", "id": "call_9", "text": "Sunny"}
    before = len(emulator.requests)
    with pytest.raises(ConfigurationError, match="which no function_call"):
        driver.answer(on_protocol(), "ask", [QUESTION, orphan], [get_weather])
    _untouched(emulator, before)


def test_a_thinking_block_without_its_signature_is_not_sent(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator
) -> None:
    """Thinking cut before its signature (thinking off): the API refuses the block ("thinking.
    signature: Field required"); no API takes it back: not sent, and the rest is."""
    cut = {"role": "assistant", "thinking": [{"type": "thinking", "thinking": "Hm"}], "text": "Hi"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # unsigned reasoning: nothing lost, unsaid
        driver.answer(on_protocol(), "ask", [QUESTION, cut, "And now?"])
    assert "Hm" not in str(last_body(emulator))


def test_an_interrupted_answer_is_sent_as_the_api_takes_it(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator
) -> None:
    """Whitespace text, and a call without its result, then a new question: the whitespace
    is left out (nothing lost), the call too (said)."""
    call = ("call_1", "get_weather", {"city": "Paris"})
    cut = {"role": "assistant", "text": " \n", "calls": [call]}
    with left_out() as said:
        driver.answer(on_protocol(), "ask", [QUESTION, cut, "And now?"], [get_weather])
    assert any("the tool call 'call_1' (get_weather)" in warning for warning in said), said
    assert "call_1" not in str(last_body(emulator))
