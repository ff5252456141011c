"""LlamaIndex agents on SSELLM(protocol="responses") against the emulator's responses dialect,
as with llama-index's OpenAIResponses: FunctionAgent (a stateless tool loop whose reasoning
item goes back whole, parallel calls), ReActAgent and AgentWorkflow, and structured output."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.agent.workflow import (
    AgentWorkflow,
    FunctionAgent,
    ReActAgent,
)
from llama_index.core.tools import FunctionTool

from llamaindex_sse import SSELLM
from sse_emulator import Emulator
from tests.llamaindex.agent_support import PERSON, Person, add, get_weather, run

pytestmark = pytest.mark.timeout(60)
REASON = {"reasoning": {"effort": "low", "summary": "auto"}}


def responses_llm(emulator: Emulator, **fields: Any) -> SSELLM:
    return SSELLM(model="gpt-5-mini", base_url=emulator.base_url("responses"),
                  api_key="sk-emulator", protocol="responses", max_retries=0, **fields)  # fmt: skip


async def test_function_agent_sends_its_reasoning_item_back_whole(emulator: Emulator) -> None:
    llm = responses_llm(emulator, additional_kwargs=REASON)
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(get_weather)], llm=llm)
    result, calls, streamed = await run(agent.run(user_msg="What is the weather in Paris?"))
    (call,) = calls
    assert call.tool_name == "get_weather" and call.tool_kwargs == {"city": "Paris"}
    assert "get_weather returned sunny and 21 C in Paris" in str(result.response.content)
    assert "get_weather" in "".join(s.thinking_delta or "" for s in streamed)
    first, second = emulator.requests[-2:]
    assert second.status == 200  # the emulator verifies the sealed reasoning it issued
    assert first.json()["include"] == ["reasoning.encrypted_content"]
    sent = second.json()["input"]
    assert [item["type"] for item in sent] == [
        "message", "reasoning", "function_call", "function_call_output"
    ]  # fmt: skip
    reasoning, use, output = sent[1:]
    assert reasoning["id"].startswith("rs_") and reasoning["encrypted_content"]
    assert use["name"] == "get_weather" and use["arguments"] == '{"city":"Paris"}'
    assert output == {"type": "function_call_output", "call_id": use["call_id"],
                      "output": "sunny and 21 C in Paris"}  # fmt: skip


async def test_parallel_calls_each_get_their_output(emulator: Emulator) -> None:
    agent = FunctionAgent(
        tools=[FunctionTool.from_defaults(get_weather)], llm=responses_llm(emulator)
    )
    result, calls, _ = await run(agent.run(user_msg="weather in Paris and Tokyo"))
    assert sorted(r.tool_kwargs["city"] for r in calls) == ["Paris", "Tokyo"]
    assert "Paris" in str(result.response.content) and "Tokyo" in str(result.response.content)
    sent = emulator.requests[-1].json()["input"]
    called = [item["call_id"] for item in sent if item["type"] == "function_call"]
    answered = [item["call_id"] for item in sent if item["type"] == "function_call_output"]
    assert len(called) == 2 and sorted(called) == sorted(answered)


async def test_react_agent_tool_round_trip(emulator: Emulator) -> None:
    step = 'Thought: I need to add.\nAction: add\nAction Input: {"a": 2, "b": 3}'
    agent = ReActAgent(tools=[FunctionTool.from_defaults(add)], llm=responses_llm(emulator))
    result, calls, streamed = await run(agent.run(user_msg=f"echo: {step}"))
    (call,) = calls
    assert call.tool_name == "add" and call.tool_kwargs == {"a": 2, "b": 3}
    assert call.tool_output.content == "5"
    assert "Observation: 5" in str(result.response.content)
    assert "Action: add" in "".join(s.delta for s in streamed)
    assert isinstance(emulator.requests[0].json()["instructions"], str)  # the ReAct prompt


async def test_agent_workflow_tool_round_trip(emulator: Emulator) -> None:
    weather = FunctionAgent(
        name="weather",
        description="Knows the weather.",
        tools=[FunctionTool.from_defaults(get_weather)],
        llm=responses_llm(emulator, additional_kwargs=REASON),
    )
    workflow = AgentWorkflow(agents=[weather], root_agent="weather")
    result, calls, streamed = await run(workflow.run(user_msg="weather in Berlin"))
    assert [r.tool_kwargs for r in calls] == [{"city": "Berlin"}]
    assert "Berlin" in str(result.response.content)
    assert any(s.thinking_delta for s in streamed) and any(s.delta for s in streamed)


def test_structured_predict_is_strict_text_format_whole_and_the_tool_streamed(
    emulator: Emulator,
) -> None:
    """As OpenAIResponses: constrained decoding for a whole answer, a tool call streamed."""
    llm = responses_llm(emulator)
    assert llm.structured_predict(Person, PERSON) == Person(name="Alice Smith", age=30)
    body = emulator.last_request.json() if emulator.last_request else {}
    assert body["text"]["format"]["strict"] is True and "tools" not in body
    streamed = list(llm.stream_structured_predict(Person, PERSON))
    assert streamed[-1] == Person(name="Alice Smith", age=30)
    body = emulator.last_request.json() if emulator.last_request else {}
    assert body["tool_choice"] == "required" and body["tools"][0]["type"] == "function"
