"""Both adapters' answers on ``protocol="anthropic"`` against the emulator's Messages dialect,
read the four ways: thinking with its signature (the core's answer to the same request is the
reference), passed back byte-exact on the next turn, redacted thinking kept opaque and passed
back, usage with cache reads and writes, the stop reason and sequence, tool calls (parallel,
or one when parallel calls are off), the typed errors of a broken stream with the answer so
far, a socket held open after message_stop, gateway variants giving the clean answer and a
whole JSON answer mapping as a streamed one. (How each framework shows them:
tests/langchain/test_anthropic_chatsse.py, tests/llamaindex/test_anthropic_responses.py.)"""

from __future__ import annotations

import time
from typing import Any

import pytest

from sse_core import ChatClient, Completion, GatewayStreamError
from sse_emulator import Emulator
from tests.adapters.answers import Answer
from tests.adapters.conftest import HOWS, Driver

pytestmark = [pytest.mark.timeout(60), pytest.mark.parametrize("protocol", ["anthropic"])]

THINK = {"type": "enabled", "budget_tokens": 1024}
REDACT = "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING"


def reference(emulator: Emulator) -> Completion:
    """What the core decodes of the emulator's answer to the last request sent again."""
    record = emulator.last_request
    assert record is not None and record.status == 200
    body = {k: v for k, v in record.json().items() if k != "stream"}
    with ChatClient(protocol="anthropic", base_url=emulator.base_url("anthropic"), api_key="k",
                    timeout=10, max_retries=0) as client:  # fmt: skip
        return client.complete(body)


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """Get the time in a time zone."""
    return f"noon in {zone}"


@pytest.mark.parametrize("how", HOWS)
def test_thinking_keeps_its_signature(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    answer = driver.answer(on_protocol(thinking=THINK), how, "echo: the answer")
    (block,) = reference(emulator).reasoning_blocks
    assert block.signature and block.text
    assert answer.reasoning_blocks == [
        {"type": "thinking", "thinking": block.text, "signature": block.signature}
    ]
    assert (answer.text, answer.reasoning) == ("the answer", block.text)
    assert (answer.stop_reason, answer.stop_sequence, answer.finish_reason) == (
        "end_turn",
        None,
        "stop",
    )
    if how.endswith("stream"):
        assert (answer.deltas, answer.thought) == ("the answer", block.text)


@pytest.mark.parametrize("how", HOWS)
def test_the_signature_goes_back_byte_exact_on_the_next_turn(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    model = on_protocol(thinking=THINK)
    first = driver.answer(model, how, "echo: one")
    driver.answer(model, how, ["echo: one", first.native, "echo: two"])
    record = emulator.last_request
    assert record is not None and record.status == 200
    (block,) = first.reasoning_blocks
    assert block["signature"]
    assert record.json()["messages"][1] == {
        "role": "assistant",
        "content": [block, {"type": "text", "text": "one"}],
    }


@pytest.mark.parametrize("how", HOWS)
def test_redacted_thinking_is_kept_opaque_and_passed_back(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    model = on_protocol(thinking=THINK)
    first = driver.answer(model, how, f"{REDACT} please")
    (expected,) = reference(emulator).reasoning_blocks
    assert expected.redacted
    assert first.reasoning_blocks == [{"type": "redacted_thinking", "data": expected.redacted}]
    driver.answer(model, how, [f"{REDACT} please", first.native, "echo: go on"])
    record = emulator.last_request
    assert record is not None and record.status == 200
    assert record.json()["messages"][1]["content"][0] == first.reasoning_blocks[0]


HISTORY = [
    {"role": "system", "text": "Be terse.", "cache": {"type": "ephemeral"}},
    "hello there, how are you today?",
    {"role": "assistant", "text": "Fine, thanks for asking."},
    "count to 9",
]


@pytest.mark.parametrize("how", HOWS)
def test_usage_with_cache_reads_and_writes_and_a_stop_sequence(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    answer = driver.answer(on_protocol(stop=["5"]), how, HISTORY)
    record = emulator.last_request
    assert record is not None
    assert record.json()["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert answer.text == "1 2 3 4 "
    assert (answer.stop_reason, answer.stop_sequence, answer.finish_reason) == (
        "stop_sequence",
        "5",
        "stop",
    )
    usage = answer.usage
    assert usage is not None and usage.prompt and usage.completion
    assert usage.cached and usage.cache_write
    assert usage.prompt > usage.cached + usage.cache_write  # prompt tokens count them too
    assert usage.total == usage.prompt + usage.completion
    assert answer.id and answer.model


@pytest.mark.parametrize("how", HOWS)
def test_an_answer_cut_at_max_tokens_says_so(driver: Driver, on_protocol: Any, how: str) -> None:
    answer = driver.answer(on_protocol(max_tokens=3), how, "count to 50")
    assert (answer.stop_reason, answer.finish_reason) == ("max_tokens", "length")


@pytest.mark.parametrize("how", HOWS)
def test_parallel_tool_calls_with_thinking(driver: Driver, on_protocol: Any, how: str) -> None:
    model = on_protocol(thinking=THINK)
    answer = driver.answer(model, how, "weather in Paris and Tokyo", [get_weather], parallel=True)
    assert [(name, args) for _, name, args in answer.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tokyo"}),
    ]
    assert all(call_id.startswith("toolu_01") for call_id, _, _ in answer.tool_calls)
    assert (answer.stop_reason, answer.finish_reason) == ("tool_use", "tool_calls")
    assert answer.reasoning_blocks[0]["signature"]


@pytest.mark.parametrize("how", HOWS)
def test_two_tools_called_in_parallel(driver: Driver, on_protocol: Any, how: str) -> None:
    prompt = "What is the weather in Paris and the time in UTC?"
    answer = driver.answer(on_protocol(), how, prompt, [get_weather, get_time], parallel=True)
    assert [(name, args) for _, name, args in answer.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {"zone": "UTC"}),
    ]
    assert len({call_id for call_id, _, _ in answer.tool_calls}) == 2


def test_a_forced_tool_without_parallel_calls_is_called_once(
    driver: Driver, on_protocol: Any
) -> None:
    answer = driver.answer(on_protocol(), "ask", "weather in Paris and Tokyo",
                           [get_weather, get_time], tool_choice="get_weather",
                           parallel=False)  # fmt: skip
    assert [(name, args) for _, name, args in answer.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert answer.stop_reason == "tool_use"


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("fault", ["error-frame; after=6", "event-error; after=6"])
def test_an_error_event_after_a_200_keeps_the_answer_so_far(
    driver: Driver, on_protocol: Any, how: str, fault: str
) -> None:
    model = on_protocol(fault, thinking=THINK)
    with pytest.raises(driver.error("GatewayStreamError")) as caught:
        driver.answer(model, how, "count to 5")
    error = caught.value
    assert isinstance(error, GatewayStreamError) and error.type == "overloaded_error"
    assert error.partial is not None and error.partial.reasoning
    partial = driver.partial_answer(model, error)
    assert partial.reasoning == error.partial.reasoning
    assert partial.text == error.partial.content


@pytest.mark.parametrize("how", HOWS)
def test_a_truncated_stream_is_incomplete(driver: Driver, on_protocol: Any, how: str) -> None:
    model = on_protocol("truncate; after=999")
    with pytest.raises(driver.error("IncompleteStreamError")) as caught:
        driver.answer(model, how, "count to 5")
    assert driver.partial_answer(model, caught.value).text == "1 2 3 4 5"


@pytest.mark.parametrize("how", HOWS)
def test_the_answer_ends_at_message_stop_on_a_socket_held_open(
    driver: Driver, on_protocol: Any, how: str
) -> None:
    model = on_protocol("hold-open; seconds=30", timeout=30.0)
    started = time.monotonic()
    assert driver.answer(model, how, "count to 5").text == "1 2 3 4 5"
    assert time.monotonic() - started < 5


def _shown(answer: Answer) -> tuple[Any, ...]:
    """What an answer shows that no gateway variant may change."""
    return (answer.text, answer.reasoning_blocks, answer.tool_calls, answer.usage,
            answer.stop_reason, answer.finish_reason)  # fmt: skip


@pytest.mark.parametrize(
    "fault", ["data-only", "prefilled", "usage-late", "usage-twice", "crlf, keepalive"]
)
def test_gateway_variants_give_the_clean_answer(
    driver: Driver, on_protocol: Any, fault: str
) -> None:
    clean = driver.answer(on_protocol(thinking=THINK), "ask", "echo: grüße")
    varied = driver.answer(on_protocol(fault, thinking=THINK), "stream", "echo: grüße")
    assert _shown(varied) == _shown(clean)


@pytest.mark.parametrize("how", ["ask", "aask"])
def test_a_whole_json_answer_maps_as_a_streamed_one(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    whole = driver.answer(on_protocol(thinking=THINK, invoke_streaming=False), how, "echo: hi")
    record = emulator.last_request
    assert record is not None and record.json()["stream"] is False
    streamed = driver.answer(on_protocol(thinking=THINK), how, "echo: hi")
    assert emulator.last_request is not None and emulator.last_request.json()["stream"] is True
    assert _shown(whole) == _shown(streamed)
