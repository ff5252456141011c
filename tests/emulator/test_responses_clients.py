"""The ``responses`` dialect read by the Responses API's own clients (dev dependencies): the
openai SDK's stream helper, its structured-output parsing and its typed errors, and
langchain-openai's ``use_responses_api``, over real loopback HTTP. What those clients accept
from api.openai.com they accept from the emulator; where they fail on a valid stream (the
SDK's helper on ``response.incomplete``) the emulator is not what is wrong.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from sse_emulator import Emulator

openai = pytest.importorskip("openai")

WEATHER: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
THINK: dict[str, Any] = {"effort": "low", "summary": "auto"}


class Trip(BaseModel):
    city: str
    days: int


def test_the_sdk_stream_helper_and_a_stateless_second_turn(emulator: Emulator) -> None:
    with openai.OpenAI(base_url=emulator.base_url("responses"), api_key="sk-test") as client:
        _stateless_tool_loop(client)


def _stateless_tool_loop(client: Any) -> None:
    question = "weather in Paris and Tokyo"
    include = ["reasoning.encrypted_content"]
    with client.responses.stream(
        model="gpt-5",
        input=question,
        tools=[WEATHER],
        reasoning=THINK,
        include=include,
        store=False,
    ) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert kinds[-1] == "response.completed"
    assert [item.type for item in final.output] == ["reasoning", "function_call", "function_call"]
    assert final.usage is not None and final.usage.output_tokens_details.reasoning_tokens > 0
    turn: list[Any] = [{"role": "user", "content": question}]
    turn += [item.model_dump(exclude_none=True) for item in final.output]
    turn += [
        {"type": "function_call_output", "call_id": item.call_id, "output": "Sunny"}
        for item in final.output
        if item.type == "function_call"
    ]
    again = client.responses.create(
        model="gpt-5", input=turn, tools=[WEATHER], reasoning=THINK, include=include, store=False
    )
    assert again.output_text.startswith("Based on the tool results: get_weather returned Sunny")


def test_the_sdk_parses_structured_output_and_types_a_refusal(emulator: Emulator) -> None:
    with openai.OpenAI(base_url=emulator.base_url("responses"), api_key="sk-test") as client:
        _structured_and_refused(client)


def _structured_and_refused(client: Any) -> None:
    parsed = client.responses.parse(
        model="gpt-5", input="A trip to Paris for 3 days", text_format=Trip
    )
    assert parsed.output_parsed == Trip(city="Paris", days=3)
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(model="gpt-5", input="hi", max_output_tokens=3)
    assert refused.value.code == "integer_below_min_value"
    assert refused.value.param == "max_output_tokens"


def test_langchain_openai_runs_a_tool_loop(emulator: Emulator) -> None:
    langchain_openai = pytest.importorskip("langchain_openai")
    from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage

    llm = langchain_openai.ChatOpenAI(
        model="gpt-5",
        base_url=emulator.base_url("responses"),
        api_key="sk-test",
        use_responses_api=True,
        reasoning=THINK,
    ).bind_tools([WEATHER])
    question = HumanMessage("What is the weather in Paris?")
    message: AIMessageChunk | None = None
    for chunk in llm.stream([question]):
        message = chunk if message is None else message + chunk
    assert message is not None
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    result = ToolMessage("Sunny", tool_call_id=str(message.tool_calls[0]["id"]))
    answer = llm.invoke([question, message, result])
    assert answer.text.startswith("Based on the tool results: get_weather returned Sunny")
