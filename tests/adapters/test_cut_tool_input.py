"""Tool input cut short (the answer stopped at max_tokens inside a call's arguments) is kept
as the model wrote it and flagged, never repaired into usable arguments: a tool would run
with arguments the model never finished. Both adapters, read the four ways, over the
emulator (which cuts a call's arguments at ``max_tokens``) and over exact bytes cut inside a
string, the case a repair hides best; whole calls are untouched. (How each framework flags
it: ChatSSE's ``invalid_tool_calls`` and ToolArgumentsError after a stream's last chunk,
tests/langchain/test_chatsse_cut_tool_input.py; SSELLM's ``get_tool_calls_from_response``
refusing, tests/llamaindex/test_anthropic_blocks.py.)"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.adapters.conftest import HOWS, Driver

pytestmark = pytest.mark.timeout(60)

WEATHER = "What is the weather in Paris?"


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """Get the time in a time zone."""
    return f"noon in {zone}"


@pytest.mark.parametrize("how", HOWS)
# The emulator's calls are a few tokens, and the Responses API takes no max_output_tokens
# below 16: a Responses call cut at its limit is CUT_RESPONSES below.
@pytest.mark.parametrize("protocol", ["chat_completions", "anthropic"])
def test_a_call_cut_at_max_tokens_is_flagged_as_written(
    driver: Driver, on_protocol: Any, protocol: str, how: str
) -> None:
    answer = driver.answer(on_protocol(max_tokens=1), how, WEATHER, [get_weather])
    assert answer.finish_reason == "length"
    assert answer.tool_calls == []
    ((_, name, arguments),) = answer.cut_calls
    assert (name, arguments) == ("get_weather", '{"city":')
    assert "get_weather" in answer.refused or "not valid JSON" in answer.refused


@pytest.mark.parametrize("how", HOWS)
def test_whole_calls_are_untouched(
    driver: Driver, on_protocol: Any, protocol: str, how: str
) -> None:
    answer = driver.answer(on_protocol(), how, WEATHER, [get_weather])
    assert [(name, args) for _, name, args in answer.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert (answer.cut_calls, answer.refused) == ([], "")
    assert answer.finish_reason == "tool_calls"


def _event(kind: str, **payload: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n"


def _delta(text: str) -> str:
    return _event("content_block_delta", index=0,
                  delta={"type": "input_json_delta", "partial_json": text})  # fmt: skip


#: A call cut inside a string: ``{"city": "Par`` would be closed into ``{"city": "Par"}``.
CUT = (
    _event("message_start", message={"id": "msg_1", "type": "message", "role": "assistant",
           "model": "claude", "content": [], "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 12, "output_tokens": 1}})
    + _event("content_block_start", index=0, content_block={"type": "tool_use", "id": "toolu_1",
             "name": "get_weather", "input": {}})
    + _delta('{"city": ')
    + _delta('"Par')
    + _event("content_block_stop", index=0)
    + _event("message_delta", delta={"stop_reason": "max_tokens", "stop_sequence": None},
             usage={"output_tokens": 8})
    + _event("message_stop")
).encode()  # fmt: skip


def _r(kind: str, **payload: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n"


_CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
         "arguments": "", "status": "in_progress"}  # fmt: skip
#: The same cut on the Responses API: ``response.incomplete`` for ``max_output_tokens``.
CUT_RESPONSES = (
    _r("response.created", response={"id": "resp_1", "model": "gpt", "status": "in_progress",
       "output": []})
    + _r("response.output_item.added", output_index=0, item=_CALL)
    + _r("response.function_call_arguments.delta", output_index=0, item_id="fc_1",
         delta='{"city": ')
    + _r("response.function_call_arguments.delta", output_index=0, item_id="fc_1", delta='"Par')
    + _r("response.incomplete", response={"id": "resp_1", "model": "gpt",
         "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
         "output": [{**_CALL, "arguments": '{"city": "Par'}],
         "usage": {"input_tokens": 12, "output_tokens": 8, "total_tokens": 20}})
).encode()  # fmt: skip


def on_bytes(driver: Driver, body: bytes, protocol: str = "anthropic") -> Any:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    transport = httpx.MockTransport(reply)
    return driver.make(model="m", base_url="http://gw.test", api_key="k", protocol=protocol,
                       max_retries=0, http_client=httpx.Client(transport=transport),
                       http_async_client=httpx.AsyncClient(transport=transport))  # fmt: skip


@pytest.mark.parametrize("how", HOWS)
def test_a_cut_inside_a_string_is_not_closed(driver: Driver, how: str) -> None:
    answer = driver.answer(on_bytes(driver, CUT), how, WEATHER, [get_weather])
    assert answer.tool_calls == []
    assert answer.cut_calls == [("toolu_1", "get_weather", '{"city": "Par')]
    assert answer.refused
    assert (answer.stop_reason, answer.finish_reason) == ("max_tokens", "length")
    assert answer.usage is not None and answer.usage.completion == 8


@pytest.mark.parametrize("how", HOWS)
def test_a_responses_call_cut_at_its_limit_is_flagged_never_closed(
    driver: Driver, how: str
) -> None:
    answer = driver.answer(
        on_bytes(driver, CUT_RESPONSES, "responses"), how, WEATHER, [get_weather]
    )
    assert answer.tool_calls == []
    assert answer.cut_calls == [("call_1", "get_weather", '{"city": "Par')]
    assert answer.refused
    assert (answer.stop_reason, answer.finish_reason) == ("max_output_tokens", "length")
    assert answer.usage is not None and answer.usage.completion == 8
