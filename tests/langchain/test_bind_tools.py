"""bind_tools (:mod:`langchain_sse._tools`): tool schemas, ``tool_choice``, ``response_format``."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from langchain_sse._tools import (
    build_response_format,
    format_tools,
    list_tool_names,
    normalize_tool_choice,
)
from sse_emulator import Emulator
from tests.langchain.lc_support import ModelFactory


class Weather(BaseModel):
    """The weather report for a city."""

    city: str = Field(description="The city")
    celsius: int = Field(default=20, description="Temperature")


class Person(TypedDict):
    """A person."""

    name: str
    age: int


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """Get the time in a time zone."""
    return zone


def body(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None
    data = record.json()
    assert isinstance(data, dict)
    return data


def test_tools_of_every_kind_are_sent_in_openai_format(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    openai_tool = {
        "type": "function",
        "function": {"name": "lookup", "description": "Look up.", "parameters": {"type": "object",
                     "properties": {"q": {"type": "string"}}, "required": ["q"]}},
    }  # fmt: skip
    make_model().bind_tools([get_weather, get_time, Weather, Person, openai_tool]).invoke("hi")
    tools = body(emulator)["tools"]
    assert [t["type"] for t in tools] == ["function"] * 5
    assert [t["function"]["name"] for t in tools] == [
        "get_weather", "get_time", "Weather", "Person", "lookup"]  # fmt: skip
    assert tools[0]["function"]["parameters"]["properties"] == {"city": {"type": "string"}}
    assert tools[4] == openai_tool


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("any", "required"),
        (True, "required"),
        ("get_time", {"type": "function", "function": {"name": "get_time"}}),
        ({"type": "function", "function": {"name": "get_weather"}},
         {"type": "function", "function": {"name": "get_weather"}}),
    ],
)  # fmt: skip
def test_tool_choice_is_normalised(
    make_model: ModelFactory, emulator: Emulator, given: Any, sent: Any
) -> None:
    make_model().bind_tools([get_weather, get_time], tool_choice=given).invoke("hi")
    assert body(emulator)["tool_choice"] == sent


@pytest.mark.parametrize("given", [None, False])
def test_no_tool_choice_sends_none(
    make_model: ModelFactory, emulator: Emulator, given: Any
) -> None:
    make_model().bind_tools([get_weather], tool_choice=given).invoke("hi")
    assert "tool_choice" not in body(emulator)


def test_an_unknown_tool_name_is_refused_at_bind_time(make_model: ModelFactory) -> None:
    with pytest.raises(ValueError, match="not one of the bound tools"):
        make_model().bind_tools([get_weather], tool_choice="get_stock")


def test_forced_tool_is_called(make_model: ModelFactory) -> None:
    message = (
        make_model()
        .bind_tools([get_weather, get_time], tool_choice="get_time")
        .invoke("what time is it in Tokyo")
    )
    assert [c["name"] for c in message.tool_calls] == ["get_time"]


def test_strict_parallel_and_response_format(make_model: ModelFactory, emulator: Emulator) -> None:
    bound = make_model().bind_tools(
        [get_weather], strict=True, parallel_tool_calls=False, response_format=Weather
    )
    message = bound.invoke("weather in Paris and Tokyo")
    sent = body(emulator)
    assert sent["tools"][0]["function"]["strict"] is True
    assert sent["parallel_tool_calls"] is False
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["name"] == "Weather"
    assert sent["response_format"]["json_schema"]["strict"] is True
    assert len(message.tool_calls) == 1  # parallel calls were turned off


def test_an_empty_tool_list_sends_no_tool_fields(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    make_model().bind_tools([], tool_choice="auto", parallel_tool_calls=True).invoke("hi")
    sent = body(emulator)
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(sent)


def test_a_tool_loop_by_hand(make_model: ModelFactory, emulator: Emulator) -> None:
    model = make_model().bind_tools([get_weather])
    history: list[Any] = [HumanMessage("What is the weather in Paris?")]
    call = model.invoke(history)
    assert isinstance(call, AIMessage)
    (tool_call,) = call.tool_calls
    history += [call, ToolMessage(get_weather.invoke(tool_call["args"]),
                                  tool_call_id=tool_call["id"])]  # fmt: skip
    final = model.invoke(history)
    assert final.content == "Based on the tool results: get_weather returned sunny in Paris."
    sent = body(emulator)["messages"]
    assert sent[1]["role"] == "assistant"
    assert sent[1]["content"] is None
    assert sent[1]["tool_calls"][0]["function"] == {"name": "get_weather",
                                                    "arguments": '{"city": "Paris"}'}  # fmt: skip
    assert sent[2] == {"role": "tool", "tool_call_id": tool_call["id"], "content": "sunny in Paris"}


def test_tool_choice_of_another_type_is_refused() -> None:
    with pytest.raises(ValueError, match="must be a str, bool or dict, got int"):
        normalize_tool_choice(3, ["f"])


def test_a_response_format_dict_is_sent_as_given_and_a_schema_is_wrapped() -> None:
    given = {"type": "json_object"}
    assert build_response_format(given, strict=None) == given
    wrapped = build_response_format(Weather, strict=None)
    assert wrapped["type"] == "json_schema"
    assert wrapped["json_schema"]["name"] == "Weather"
    assert wrapped["json_schema"]["description"] == "The weather report for a city."
    assert "strict" not in wrapped["json_schema"]


def test_tool_names_skip_non_function_tools() -> None:
    tools = [*format_tools([get_weather], strict=None), {"type": "web_search"}]
    assert list_tool_names(tools) == ["get_weather"]
