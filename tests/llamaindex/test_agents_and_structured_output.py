"""SSELLM driving LlamaIndex end to end against the emulator: agents, structured output,
token counting."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from llama_index.core.agent.workflow import (
    AgentOutput,
    AgentStream,
    AgentWorkflow,
    FunctionAgent,
    ReActAgent,
    ToolCallResult,
)
from llama_index.core.callbacks import CallbackManager, TokenCountingHandler
from llama_index.core.llms import ChatMessage
from llama_index.core.prompts import PromptTemplate
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow.handler import WorkflowHandler
from pydantic import BaseModel

from llamaindex_sse import SSELLM
from tests.llamaindex.li_support import LLMFactory

RUN_LIMIT = 30.0  # seconds: every agent run is bounded


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny and 21 C in {city}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Events:
    """What one agent run streamed."""

    def __init__(self) -> None:
        self.deltas: list[str] = []
        self.thinking: list[str] = []
        self.tool_results: list[ToolCallResult] = []
        self.outputs: list[AgentOutput] = []


async def run(handler: WorkflowHandler) -> tuple[Any, Events]:
    seen = Events()

    async def drain() -> Any:
        async for event in handler.stream_events():
            if isinstance(event, AgentStream):
                seen.deltas.append(event.delta)
                if event.thinking_delta:
                    seen.thinking.append(event.thinking_delta)
            elif isinstance(event, ToolCallResult):
                seen.tool_results.append(event)
            elif isinstance(event, AgentOutput):
                seen.outputs.append(event)
        return await handler

    return await asyncio.wait_for(drain(), RUN_LIMIT), seen


@pytest.mark.parametrize("dialect", ["openai", "spass", "streamchat"])
async def test_function_agent_tool_round_trip(make_llm: LLMFactory, dialect: str) -> None:
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(get_weather)], llm=make_llm(dialect))
    result, seen = await run(agent.run(user_msg="What is the weather in Paris?"))
    (call,) = seen.tool_results
    assert call.tool_name == "get_weather" and call.tool_kwargs == {"city": "Paris"}
    assert str(result.response.content) == (
        "Based on the tool results: get_weather returned sunny and 21 C in Paris."
    )
    assert "".join(seen.deltas).endswith(str(result.response.content))
    assert len([d for d in seen.deltas if d]) > 3  # the answer arrived in pieces


async def test_function_agent_streams_thinking_when_reasoning_is_on(make_llm: LLMFactory) -> None:
    llm = make_llm(model="emulator-think")
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(get_weather)], llm=llm)
    result, seen = await run(agent.run(user_msg="What is the weather in Tokyo?"))
    assert "Tokyo" in str(result.response.content)
    thought = "".join(seen.thinking)
    assert "I should call get_weather." in thought
    assert "The tool results are in" in thought


async def test_parallel_tool_calls(make_llm: LLMFactory) -> None:
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(get_weather)], llm=make_llm())
    result, seen = await run(agent.run(user_msg="weather in Paris and Tokyo"))
    assert sorted(r.tool_kwargs["city"] for r in seen.tool_results) == ["Paris", "Tokyo"]
    assert "Paris" in str(result.response.content) and "Tokyo" in str(result.response.content)


async def test_react_agent_tool_round_trip(make_llm: LLMFactory) -> None:
    # The emulator answers "echo: X" with X, so the user scripts the ReAct step it sends.
    step = 'Thought: I need to add.\nAction: add\nAction Input: {"a": 2, "b": 3}'
    agent = ReActAgent(tools=[FunctionTool.from_defaults(add)], llm=make_llm())
    result, seen = await run(agent.run(user_msg=f"echo: {step}"))
    (call,) = seen.tool_results
    assert call.tool_name == "add" and call.tool_kwargs == {"a": 2, "b": 3}
    assert call.tool_output.content == "5"
    assert "Observation: 5" in str(result.response.content)
    assert "Action: add" in "".join(seen.deltas)  # the first turn was streamed


async def test_agent_workflow_tool_round_trip(make_llm: LLMFactory) -> None:
    weather = FunctionAgent(
        name="weather",
        description="Knows the weather.",
        tools=[FunctionTool.from_defaults(get_weather)],
        llm=make_llm("aivene", model="emulator-think"),
    )
    workflow = AgentWorkflow(agents=[weather], root_agent="weather")
    result, seen = await run(workflow.run(user_msg="weather in Berlin"))
    assert [r.tool_kwargs for r in seen.tool_results] == [{"city": "Berlin"}]
    assert "Berlin" in str(result.response.content)
    assert seen.thinking and seen.deltas


class Person(BaseModel):
    """A person."""

    name: str
    age: int


# Naming the tool ("Person") makes the emulator call it even when tool_choice is "auto",
# as stream_structured_predict sends it.
PERSON = PromptTemplate("Describe the person Alice Smith, who is 30 years old.")


def test_structured_predict(make_llm: LLMFactory) -> None:
    person = make_llm().structured_predict(Person, PERSON)
    assert person == Person(name="Alice Smith", age=30)


async def test_astructured_predict(make_llm: LLMFactory) -> None:
    person = await make_llm("shroud").astructured_predict(Person, PERSON)
    assert person == Person(name="Alice Smith", age=30)


def test_stream_structured_predict(make_llm: LLMFactory) -> None:
    partials = list(make_llm().stream_structured_predict(Person, PERSON))
    assert len(partials) > 1
    final = partials[-1]
    assert isinstance(final, BaseModel)
    assert final.model_dump() == {"name": "Alice Smith", "age": 30}


async def test_astream_structured_predict(make_llm: LLMFactory) -> None:
    stream = await make_llm("gateway").astream_structured_predict(Person, PERSON)
    partials = [p async for p in stream]
    assert partials[-1].model_dump() == {"name": "Alice Smith", "age": 30}


def test_as_structured_llm(make_llm: LLMFactory) -> None:
    structured = make_llm().as_structured_llm(Person)
    response = structured.chat([ChatMessage(role="user", content=PERSON.template)])
    assert response.raw == Person(name="Alice Smith", age=30)


def counting_llm(make_llm: LLMFactory, **fields: Any) -> tuple[SSELLM, TokenCountingHandler]:
    # A word-splitting tokenizer (tiktoken needs the network): its counts differ from the
    # gateway's, so equal counts prove the gateway-reported usage was used.
    counter = TokenCountingHandler(tokenizer=lambda text: text.split())
    return make_llm(callback_manager=CallbackManager([counter]), **fields), counter


ASK = [ChatMessage(role="user", content="count to 40")]


@pytest.mark.parametrize("mode", ["chat", "stream_chat", "achat", "astream_chat"])
def test_token_counting_uses_gateway_usage(make_llm: LLMFactory, mode: str) -> None:
    llm, counter = counting_llm(make_llm)

    async def async_call() -> Any:
        if mode == "achat":
            return await llm.achat(ASK)
        return [r async for r in await llm.astream_chat(ASK)][-1]

    if mode == "chat":
        last = llm.chat(ASK)
    elif mode == "stream_chat":
        last = list(llm.stream_chat(ASK))[-1]
    else:
        last = asyncio.run(async_call())
    usage = last.raw["usage"]  # type: ignore[index]
    assert counter.prompt_llm_token_count == usage["prompt_tokens"]
    assert counter.completion_llm_token_count == usage["completion_tokens"] == 40
    assert counter.prompt_llm_token_count != len(ASK[0].content.split())  # type: ignore[union-attr]


def test_token_counting_on_the_spass_usage_trailer(make_llm: LLMFactory) -> None:
    llm, counter = counting_llm(make_llm, base_url=make_llm("spass").base_url)
    list(llm.stream_chat(ASK))
    assert counter.completion_llm_token_count == 40
