"""``ChatSSE.with_structured_output`` defaults as the LangChain class of its protocol does, each
checked beside that class on the same emulator: ChatOpenAI (chat completions, and
``use_responses_api``) asks with ``json_schema``, strict for a Pydantic class (``strict: false``
for a TypedDict or a JSON schema); ChatAnthropic with a forced tool call. ``method="json_schema"``
with ``strict=None`` is strict where ChatOpenAI's is; ``function_calling`` is still there for
the asking."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field, SecretStr
from typing_extensions import TypedDict

from langchain_sse import ChatSSE
from sse_emulator import Emulator


class Weather(BaseModel):
    """The weather report for a city."""

    city: str = Field(description="The city")
    celsius: int | None = Field(default=None, description="Temperature")


class Person(TypedDict):
    """A person."""

    name: str
    age: int


PROMPT = "weather in Paris"


def sent(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None and record.status == 200, record
    body = record.json()
    assert isinstance(body, dict)
    return body


def fmt_of(body: dict[str, Any]) -> dict[str, Any]:
    """The structured format asked for: chat's ``response_format`` json_schema spec, or the
    Responses API's ``text.format``."""
    if "response_format" in body:
        spec = body["response_format"]
        assert spec["type"] == "json_schema"
        return dict(spec["json_schema"])
    found = body["text"]["format"]
    assert found["type"] == "json_schema"
    return dict(found)


def is_closed(schema: dict[str, Any]) -> bool:
    """What strict mode takes: every property required, no other property allowed."""
    return schema.get("additionalProperties") is False and set(schema["required"]) == set(
        schema["properties"]
    )


def ours(emulator: Emulator, protocol: str) -> ChatSSE:
    dialect = {"chat_completions": "openai"}.get(protocol, protocol)
    return ChatSSE(model="gpt-4o-mini", base_url=emulator.base_url(dialect), api_key="sk-x",
                   protocol=protocol, max_retries=0)  # fmt: skip


def anchor(emulator: Emulator, protocol: str) -> Any:
    if protocol == "anthropic":
        base = emulator.base_url("anthropic").removesuffix("/v1")
        return ChatAnthropic(model="claude-sonnet-4-5", base_url=base,  # type: ignore[call-arg]
                             api_key=SecretStr("sk-ant-x"), max_retries=0)  # fmt: skip
    dialect = {"chat_completions": "openai"}.get(protocol, protocol)
    return ChatOpenAI(model="gpt-4o-mini", base_url=emulator.base_url(dialect),
                      api_key=SecretStr("sk-x"), max_retries=0,
                      use_responses_api=protocol == "responses")  # fmt: skip


@pytest.mark.parametrize("protocol", ["chat_completions", "responses"])
def test_the_default_is_json_schema_strict_as_chatopenais(
    emulator: Emulator, protocol: str
) -> None:
    theirs = anchor(emulator, protocol).with_structured_output(Weather).invoke(PROMPT)
    expected = fmt_of(sent(emulator))
    found = ours(emulator, protocol).with_structured_output(Weather).invoke(PROMPT)
    body = sent(emulator)
    assert found == theirs and isinstance(found, Weather) and found.city == "Paris"
    spec = fmt_of(body)
    assert (
        (spec["name"], spec["strict"])
        == (expected["name"], expected["strict"])
        == (
            "Weather",
            True,
        )
    )
    assert is_closed(spec["schema"]) and is_closed(expected["schema"])
    assert "tools" not in body and "tool_choice" not in body


@pytest.mark.parametrize("protocol", ["chat_completions", "responses"])
def test_a_typeddict_goes_as_json_schema_not_strict_as_chatopenais(
    emulator: Emulator, protocol: str
) -> None:
    prompt = "Ada Lovelace is 36"
    theirs = anchor(emulator, protocol).with_structured_output(Person).invoke(prompt)
    expected = fmt_of(sent(emulator))
    found = ours(emulator, protocol).with_structured_output(Person).invoke(prompt)
    spec = fmt_of(sent(emulator))
    assert found == theirs == {"name": "Ada Lovelace", "age": 36}
    assert (
        (spec["name"], spec["strict"])
        == (expected["name"], expected["strict"])
        == (
            "Person",
            False,
        )
    )


@pytest.mark.parametrize("protocol", ["chat_completions", "responses"])
def test_json_schema_with_strict_none_is_strict_as_chatopenais(
    emulator: Emulator, protocol: str
) -> None:
    model = ours(emulator, protocol)
    found = model.with_structured_output(Weather, method="json_schema").invoke(PROMPT)
    spec = fmt_of(sent(emulator))
    assert isinstance(found, Weather) and found.city == "Paris"
    assert spec["strict"] is True and is_closed(spec["schema"])
    model.with_structured_output(Weather, method="json_schema", strict=False).invoke(PROMPT)
    assert fmt_of(sent(emulator))["strict"] is False  # as asked


@pytest.mark.parametrize("protocol", ["chat_completions", "responses"])
def test_function_calling_is_still_there_when_asked(emulator: Emulator, protocol: str) -> None:
    model = ours(emulator, protocol)
    found = model.with_structured_output(Weather, method="function_calling").invoke(PROMPT)
    body = sent(emulator)
    assert isinstance(found, Weather) and found.city == "Paris"
    assert body["tools"] and body["tool_choice"] and "response_format" not in body
    assert "format" not in body.get("text", {})


def test_the_anthropic_default_is_a_forced_tool_call_as_chatanthropics(
    emulator: Emulator,
) -> None:
    theirs = anchor(emulator, "anthropic").with_structured_output(Weather).invoke(PROMPT)
    expected = sent(emulator)
    found = ours(emulator, "anthropic").with_structured_output(Weather).invoke(PROMPT)
    body = sent(emulator)
    assert found == theirs and isinstance(found, Weather) and found.city == "Paris"
    forced = {key: body["tool_choice"][key] for key in ("type", "name")}
    assert forced == expected["tool_choice"] == {"type": "tool", "name": "Weather"}
    assert "output_config" not in body and "output_config" not in expected


@pytest.mark.parametrize("protocol", ["chat_completions", "responses", "anthropic"])
def test_the_method_traced_is_the_one_used(emulator: Emulator, protocol: str) -> None:
    bound: Any = ours(emulator, protocol).with_structured_output(Weather)
    first = bound.first if hasattr(bound, "first") else bound
    traced = first.kwargs["ls_structured_output_format"]["kwargs"]
    used = "function_calling" if protocol == "anthropic" else "json_schema"
    assert traced["method"] == used
