"""LlamaIndex agents on SSELLM(protocol="anthropic") against the emulator's anthropic dialect:
FunctionAgent (one call, parallel calls, thinking passed back signed inside the tool loop),
ReActAgent and AgentWorkflow, and structured output through a forced tool."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.agent.workflow import (
    AgentWorkflow,
    FunctionAgent,
    ReActAgent,
)
from llama_index.core.tools import FunctionTool

from sse_emulator import Emulator
from tests.llamaindex.agent_support import PERSON, Person, add, get_weather, run
from tests.llamaindex.anthropic_support import THINK, anthropic_llm

pytestmark = pytest.mark.timeout(60)


async def test_function_agent_passes_signed_thinking_back_in_its_tool_loop(
    emulator: Emulator,
) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK)
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(get_weather)], llm=llm)
    result, calls, streamed = await run(agent.run(user_msg="What is the weather in Paris?"))
    (call,) = calls
    assert call.tool_name == "get_weather" and call.tool_kwargs == {"city": "Paris"}
    assert str(result.response.content) == (
        "Based on the tool results: get_weather returned sunny and 21 C in Paris."
    )
    assert "I should call get_weather." in "".join(s.thinking_delta or "" for s in streamed)
    first, second = emulator.requests[-2:]
    (thinking,) = [b for b in first_answer_blocks(second.json()) if b["type"] == "thinking"]
    assert thinking["signature"] and thinking["thinking"].startswith("I should call")
    turns = second.json()["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    (use,) = [b for b in turns[1]["content"] if b["type"] == "tool_use"]
    assert use["input"] == {"city": "Paris"} and use["id"].startswith("toolu_01")
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": use["id"], "content": "sunny and 21 C in Paris"}
    ]
    assert first.json()["tools"][0]["name"] == "get_weather"


def first_answer_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The content of the first assistant turn of a request."""
    return next(t["content"] for t in body["messages"] if t["role"] == "assistant")


async def test_parallel_calls_give_one_user_turn_of_results(emulator: Emulator) -> None:
    agent = FunctionAgent(
        tools=[FunctionTool.from_defaults(get_weather)], llm=anthropic_llm(emulator)
    )
    result, calls, _ = await run(agent.run(user_msg="weather in Paris and Tokyo"))
    assert sorted(r.tool_kwargs["city"] for r in calls) == ["Paris", "Tokyo"]
    assert "Paris" in str(result.response.content) and "Tokyo" in str(result.response.content)
    last = emulator.requests[-1].json()["messages"]
    assert [t["role"] for t in last] == ["user", "assistant", "user"]
    assert [b["type"] for b in last[2]["content"]] == ["tool_result", "tool_result"]


async def test_react_agent_tool_round_trip(emulator: Emulator) -> None:
    step = 'Thought: I need to add.\nAction: add\nAction Input: {"a": 2, "b": 3}'
    agent = ReActAgent(tools=[FunctionTool.from_defaults(add)], llm=anthropic_llm(emulator))
    result, calls, streamed = await run(agent.run(user_msg=f"echo: {step}"))
    (call,) = calls
    assert call.tool_name == "add" and call.tool_kwargs == {"a": 2, "b": 3}
    assert call.tool_output.content == "5"
    assert "Observation: 5" in str(result.response.content)
    assert "Action: add" in "".join(s.delta for s in streamed)
    assert isinstance(emulator.requests[0].json()["system"], str)  # the ReAct prompt on top


async def test_agent_workflow_tool_round_trip(emulator: Emulator) -> None:
    weather = FunctionAgent(
        name="weather",
        description="Knows the weather.",
        tools=[FunctionTool.from_defaults(get_weather)],
        llm=anthropic_llm(emulator, thinking_dict=THINK),
    )
    workflow = AgentWorkflow(agents=[weather], root_agent="weather")
    result, calls, streamed = await run(workflow.run(user_msg="weather in Berlin"))
    assert [r.tool_kwargs for r in calls] == [{"city": "Berlin"}]
    assert "Berlin" in str(result.response.content)
    assert any(s.thinking_delta for s in streamed) and any(s.delta for s in streamed)


def test_structured_predict_forces_the_tool(emulator: Emulator) -> None:
    llm = anthropic_llm(emulator)
    assert llm.structured_predict(Person, PERSON) == Person(name="Alice Smith", age=30)
    body = emulator.last_request.json() if emulator.last_request else {}
    assert body["tool_choice"]["type"] in ("any", "tool")
    streamed = list(llm.stream_structured_predict(Person, PERSON))
    assert streamed[-1] == Person(name="Alice Smith", age=30)
