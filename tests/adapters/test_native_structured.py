"""Structured output as the protocol's own feature where it has one: on Anthropic Messages a
JSON schema goes as ``output_config.format`` (the API's native structured output, as
langchain-anthropic and llama-index's ``Anthropic`` send it), which works with thinking on,
where a forced tool call does not. ChatSSE's ``method="json_schema"`` always asks that way;
SSELLM's structured paths ask that way where the forced call cannot be sent (thinking on) and
keep the forced call otherwise. Checked on what the emulator got and on the parsed answer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.prompts import PromptTemplate
from pydantic import BaseModel, Field

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ConfigurationError
from sse_emulator import Emulator

THINK = {"type": "enabled", "budget_tokens": 1024}
PROMPT = PromptTemplate("Tell a joke about {topic}.")


class Joke(BaseModel):
    """A joke."""

    setup: str = Field(description="The setup")
    rating: int = Field(ge=1, le=10, description="How funny")


def _sent(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None and record.status == 200, record
    body = record.json()
    assert isinstance(body, dict)
    return body


def _assert_native(body: dict[str, Any]) -> None:
    fmt = body["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    schema = fmt["schema"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"setup", "rating"}
    # The bounds the API does not take are said in the description, not lost.
    assert "minimum: 1" in schema["properties"]["rating"]["description"]
    assert "tools" not in body and "tool_choice" not in body


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


@pytest.mark.parametrize("thinking", [None, THINK], ids=["plain", "thinking"])
@pytest.mark.parametrize("include_raw", [False, True])
def test_chatsse_json_schema_is_the_native_format(
    emulator: Emulator, thinking: Any, include_raw: bool
) -> None:
    model = _chat(emulator, thinking=thinking)
    found = model.with_structured_output(
        Joke, method="json_schema", include_raw=include_raw
    ).invoke("Tell a joke about cats.")
    model.close()
    parsed = found["parsed"] if include_raw else found
    assert isinstance(parsed, Joke) and 1 <= parsed.rating <= 10
    body = _sent(emulator)
    _assert_native(body)
    assert ("thinking" in body) is (thinking is not None)


def test_chatsse_json_mode_with_a_schema_asks_natively(emulator: Emulator) -> None:
    model = _chat(emulator, thinking=THINK)
    found = model.with_structured_output(Joke, method="json_mode").invoke("a joke")
    model.close()
    assert isinstance(found, Joke)
    _assert_native(_sent(emulator))


def test_chatsse_json_mode_without_a_schema_names_the_protocol(emulator: Emulator) -> None:
    with pytest.raises(ValueError, match="protocol='anthropic', which has no JSON mode"):
        _chat(emulator).with_structured_output(None, method="json_mode")


def test_chatsse_bind_tools_with_a_response_format_sends_both(emulator: Emulator) -> None:
    def get_weather(city: str) -> str:
        """Get the weather for a city."""
        return city

    model = _chat(emulator)
    model.bind_tools([get_weather], response_format=Joke).invoke("a joke")
    model.close()
    body = _sent(emulator)
    assert [tool["name"] for tool in body["tools"]] == ["get_weather"]
    assert body["output_config"]["format"]["schema"]["additionalProperties"] is False


def test_json_mode_itself_is_refused_by_name(emulator: Emulator) -> None:
    model = _chat(emulator)
    with pytest.raises(ConfigurationError, match="no JSON mode"):
        model.invoke("hi", response_format={"type": "json_object"})
    model.close()
    assert emulator.last_request is None


def test_sselm_structured_predict_with_thinking_is_native(emulator: Emulator) -> None:
    llm = _llm(emulator, thinking_dict=THINK)
    joke = llm.structured_predict(Joke, PROMPT, topic="cats")
    assert isinstance(joke, Joke)
    body = _sent(emulator)
    _assert_native(body)
    assert body["thinking"] == THINK
    ajoke = asyncio.run(llm.astructured_predict(Joke, PROMPT, topic="cats"))
    assert isinstance(ajoke, Joke)
    _assert_native(_sent(emulator))
    llm.close()


def test_sselm_streamed_structured_predict_with_thinking_is_native(emulator: Emulator) -> None:
    llm = _llm(emulator, thinking_dict=THINK)
    objects = list(llm.stream_structured_predict(Joke, PROMPT, topic="cats"))
    assert objects and isinstance(objects[-1], Joke)
    _assert_native(_sent(emulator))

    async def astreamed() -> list[Any]:
        stream = await llm.astream_structured_predict(Joke, PROMPT, topic="cats")
        return [item async for item in stream]

    assert isinstance(asyncio.run(astreamed())[-1], Joke)
    _assert_native(_sent(emulator))
    llm.close()


def test_sselm_structured_llm_with_thinking_is_native(emulator: Emulator) -> None:
    llm = _llm(emulator, thinking_dict=THINK)
    answer = llm.as_structured_llm(Joke).chat([ChatMessage(role="user", content="A joke.")])
    llm.close()
    assert isinstance(answer.raw, Joke)
    _assert_native(_sent(emulator))


def test_sselm_structured_predict_without_thinking_forces_the_tool(emulator: Emulator) -> None:
    llm = _llm(emulator)
    joke = llm.structured_predict(Joke, PROMPT, topic="cats")
    llm.close()
    assert isinstance(joke, Joke)
    body = _sent(emulator)
    assert body["tool_choice"]["type"] in ("any", "tool") and "output_config" not in body


def test_sselm_native_answer_that_is_not_the_schema_is_a_value_error() -> None:
    from llama_index.core.base.llms.types import ChatResponse

    from llamaindex_sse._structured import _parsed

    with pytest.raises(ValueError, match="is not a Joke"):
        _parsed(Joke, ChatResponse(message=ChatMessage(role="assistant", content="no JSON")))
