"""bind_tools and with_structured_output: what is sent, and what comes back parsed."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from lc_support import ModelFactory
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from sse_core.emulator import Emulator


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


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
async def test_structured_output_to_pydantic(
    make_model: ModelFactory, emulator: Emulator, method: str
) -> None:
    structured = make_model().with_structured_output(Weather, method=method)  # type: ignore[arg-type]
    assert structured.invoke("weather in Paris") == Weather(city="Paris", celsius=20)
    assert await structured.ainvoke("weather in Tokyo") == Weather(city="Tokyo", celsius=20)
    sent = body(emulator)
    if method == "function_calling":
        assert sent["tool_choice"] == {"type": "function", "function": {"name": "Weather"}}
        assert sent["parallel_tool_calls"] is False
    else:
        assert sent["response_format"]["json_schema"]["name"] == "Weather"
        assert "tools" not in sent
    assert "ls_structured_output_format" not in sent


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_structured_output_to_dicts(make_model: ModelFactory, method: str) -> None:
    structured = make_model().with_structured_output(Person, method=method)  # type: ignore[arg-type]
    assert structured.invoke("Ada Lovelace is 36") == {"name": "Ada Lovelace", "age": 36}


def test_json_mode(make_model: ModelFactory, emulator: Emulator) -> None:
    result = make_model().with_structured_output(method="json_mode").invoke("echo: yes")
    assert result == {"answer": "yes"}
    assert body(emulator)["response_format"] == {"type": "json_object"}


def test_include_raw(make_model: ModelFactory) -> None:
    result = make_model().with_structured_output(Weather, include_raw=True).invoke("Paris")
    assert isinstance(result, dict)
    assert isinstance(result["raw"], AIMessage)
    assert result["parsed"] == Weather(city="Paris")
    assert result["parsing_error"] is None


def test_structured_output_streams_partial_objects(make_model: ModelFactory) -> None:
    structured = make_model().with_structured_output(Person, method="json_schema")  # type: ignore[arg-type]
    parts = list(structured.stream("Ada Lovelace is 36"))
    assert parts[-1] == {"name": "Ada Lovelace", "age": 36}


@pytest.mark.parametrize("dialect", ["openai", "aivene"])  # delta.refusal; content_filter
@pytest.mark.parametrize("method", ["function_calling", "json_schema", "json_mode"])
async def test_a_refusal_stops_structured_output(
    make_model: ModelFactory, dialect: str, method: str
) -> None:
    schema = None if method == "json_mode" else Weather
    structured = make_model(dialect).with_structured_output(schema, method=method)  # type: ignore[arg-type]
    with pytest.raises(ModelRefusalError) as caught:
        await structured.ainvoke("the weather is forbidden")
    assert caught.value.raw_message is not None
    raw = make_model(dialect).with_structured_output(schema, method=method, include_raw=True)  # type: ignore[arg-type]
    result = raw.invoke("the weather is forbidden")
    assert isinstance(result["parsing_error"], ModelRefusalError)
    assert result["parsed"] is None


def test_structured_output_rejects_bad_arguments(make_model: ModelFactory) -> None:
    with pytest.raises(ValueError, match="needs a schema"):
        make_model().with_structured_output(None, method="json_schema")
    with pytest.raises(ValueError, match="strict"):
        make_model().with_structured_output(Weather, method="json_mode", strict=True)
    with pytest.raises(ValueError, match="method must be"):
        make_model().with_structured_output(Weather, method="xml")  # type: ignore[arg-type]
