"""with_structured_output (:mod:`langchain_sse._structured`): what is bound and sent, and what
comes back parsed, refused or rejected."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

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


def body(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None
    data = record.json()
    assert isinstance(data, dict)
    return data


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
