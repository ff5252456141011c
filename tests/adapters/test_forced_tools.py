"""A forced tool choice with thinking on, which the Messages API refuses, is never sent by
either adapter: each does what its framework's own Anthropic client does (ChatSSE as
langchain-anthropic: the structured-output tool offered unforced with a warning, and an
answer without the call an ``OutputParserException``; a forced ``bind_tools`` choice sent as
``auto`` with a warning; SSELLM as llama-index's ``Anthropic``, a required tool asked as
``auto``, but with the same warning); without thinking the choice is forced as asked.
Checked on what the emulator got."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from llama_index.core.prompts import PromptTemplate
from llama_index.core.tools import FunctionTool
from pydantic import BaseModel

from langchain_sse import ChatSSE
from langchain_sse._structured import _require_call
from llamaindex_sse import SSELLM
from sse_emulator import Emulator

THINK = {"type": "enabled", "budget_tokens": 1024}
UNFORCED = {"type": "auto", "disable_parallel_tool_use": True}


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    degrees: int


def _choice(emulator: Emulator) -> Any:
    record = emulator.last_request
    assert record is not None and record.status == 200, record
    return record.json().get("tool_choice")


def _chat(emulator: Emulator, **fields: Any) -> ChatSSE:
    return ChatSSE(
        model="claude-emulated",
        base_url=emulator.base_url("anthropic"),
        api_key="sk-ant-x",
        protocol="anthropic",
        max_retries=0,
        **fields,
    )


def _llm(emulator: Emulator, **fields: Any) -> SSELLM:
    return SSELLM(
        model="claude-emulated",
        base_url=emulator.base_url("anthropic"),
        api_key="sk-ant-x",
        protocol="anthropic",
        max_retries=0,
        **fields,
    )


def test_chatsse_structured_output_with_thinking_offers_the_tool_unforced(
    emulator: Emulator,
) -> None:
    model = _chat(emulator, thinking=THINK)
    with pytest.warns(UserWarning, match="cannot force the call while thinking is on"):
        structured = model.with_structured_output(Weather)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning per call: the request is sound as built
        answer = structured.invoke("weather in Paris?")
    model.close()
    assert isinstance(answer, Weather)
    assert _choice(emulator) == UNFORCED


def test_an_answer_without_the_unforced_call_is_a_parse_error() -> None:
    with pytest.raises(OutputParserException, match="cannot force the call"):
        _require_call(AIMessage(content="It is sunny."))
    called = AIMessage(content="", tool_calls=[{"name": "Weather", "args": {}, "id": "t1"}])
    assert _require_call(called) is called


def test_chatsse_bind_tools_forced_with_thinking_is_sent_as_auto_with_a_warning(
    emulator: Emulator,
) -> None:
    model = _chat(emulator, thinking=THINK)
    with pytest.warns(UserWarning, match="is sent as 'auto'"):
        model.bind_tools([Weather], tool_choice="any").invoke("weather in Paris?")
    model.close()
    assert _choice(emulator) == {"type": "auto"}


def test_chatsse_forces_the_tool_without_thinking(emulator: Emulator) -> None:
    model = _chat(emulator)
    model.with_structured_output(Weather, method="function_calling").invoke("weather in Paris?")
    model.close()
    assert _choice(emulator) == {
        "type": "tool",
        "name": "Weather",
        "disable_parallel_tool_use": True,
    }


def test_ssellm_structured_predict_forces_the_tool_without_thinking(emulator: Emulator) -> None:
    """With thinking on it asks for the answer's own format instead (no tool at all):
    tests/adapters/test_native_structured.py."""
    llm = _llm(emulator)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # as llama-index's Anthropic: no warning
        answer = llm.structured_predict(Weather, PromptTemplate("weather in {city}?"), city="Paris")
        assert isinstance(answer, Weather)
    llm.close()
    assert _choice(emulator) == {"type": "any", "disable_parallel_tool_use": True}


def test_ssellm_chat_with_tools_asks_a_required_tool_as_auto_with_thinking_and_says_so(
    emulator: Emulator,
) -> None:
    """llama-index's Anthropic turns ``tool_required`` into ``auto`` in silence; the caller
    who required a call is told it is not sure, as for a tool named by ``tool_choice``."""
    llm = _llm(emulator, thinking_dict=THINK)
    tool = FunctionTool.from_defaults(fn=lambda city: city, name="get_weather",
                                      description="Get the weather for a city.")  # fmt: skip
    with pytest.warns(UserWarning, match="is sent as 'auto'"):
        llm.chat_with_tools([tool], user_msg="weather in Paris?", tool_required=True)
    llm.close()
    assert _choice(emulator) == {"type": "auto", "disable_parallel_tool_use": True}
