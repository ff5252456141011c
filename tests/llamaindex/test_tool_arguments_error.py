"""SSELLM's ``get_tool_calls_from_response`` refuses a finished answer's tool call whose
arguments are not a JSON object (cut at the token limit) with the typed ToolArgumentsError,
still a ValueError: its ``call`` as the model wrote it, its ``reason``, and a message that
names the protocol's own stop reason (chat completions' ``length``, Anthropic's
``max_tokens``). Over the emulator (which cuts a call's arguments at ``max_tokens``) on both
protocols, whole and streamed; while a stream is still running, nothing is refused."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatResponse
from llama_index.core.tools import FunctionTool

import llamaindex_sse
import sse_core
from llamaindex_sse import SSELLM
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)

#: The protocol and its own word for an answer cut at the token limit.
STOPS = [("chat_completions", "length"), ("anthropic", "max_tokens")]
WEATHER = "What is the weather in Paris?"


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


def _llm(emulator: Emulator, protocol: str, **fields: Any) -> SSELLM:
    url = emulator.base_url("anthropic") if protocol == "anthropic" else emulator.base_url()
    return SSELLM(model="m", base_url=url, api_key="k", protocol=protocol, max_retries=0,
                  **fields)  # fmt: skip


def _answers(llm: SSELLM) -> list[ChatResponse]:
    tools = [FunctionTool.from_defaults(get_weather)]
    whole = llm.chat_with_tools(tools, user_msg=WEATHER)
    streamed = list(llm.stream_chat_with_tools(tools, user_msg=WEATHER))
    for response in streamed:  # until the answer stopped: as far as it goes, never refused
        if "finish_reason" in response.additional_kwargs:
            break
        llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
    return [whole, streamed[-1]]


@pytest.mark.parametrize(("protocol", "stop"), STOPS)
def test_a_cut_call_is_refused_with_a_typed_error_naming_the_protocols_stop(
    emulator: Emulator, protocol: str, stop: str
) -> None:
    llm = _llm(emulator, protocol, max_tokens=1)
    for response in _answers(llm):
        with pytest.raises(llamaindex_sse.ToolArgumentsError) as caught:
            llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
        error = caught.value
        assert isinstance(error, sse_core.ToolArgumentsError) and isinstance(error, ValueError)
        assert not error.is_retryable
        assert error.call is not None
        assert (error.call.name, error.call.arguments) == ("get_weather", '{"city":')
        assert error.call.id and error.call.id in str(error)
        assert error.reason and "not valid JSON" in error.reason and error.reason in str(error)
        assert f"stopped with {stop!r}" in str(error)


@pytest.mark.parametrize(("protocol", "stop"), STOPS)
def test_whole_calls_are_not_refused(emulator: Emulator, protocol: str, stop: str) -> None:
    llm = _llm(emulator, protocol)
    for response in _answers(llm):
        (selection,) = llm.get_tool_calls_from_response(response)
        assert (selection.tool_name, selection.tool_kwargs) == ("get_weather", {"city": "Paris"})
