"""End to end against the emulator: a chain, and tool-calling agents (langchain and LangGraph)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool
from pydantic import BaseModel

from tests.langchain.lc_support import ALL_DIALECTS, ModelFactory


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny, 21 C in {city}"


@tool
def get_time(city: str) -> str:
    """Get the local time in a city."""
    return f"10:30 in {city}"


class Report(BaseModel):
    """A weather report."""

    city: str
    summary: str


PROMPT = ChatPromptTemplate.from_messages([("system", "You are terse."), ("user", "echo: {text}")])


@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_prompt_model_parser_chain(make_model: ModelFactory, dialect: str) -> None:
    chain = PROMPT | make_model(dialect) | StrOutputParser()
    assert chain.invoke({"text": "chained ünïcode"}) == "chained ünïcode"
    assert await chain.ainvoke({"text": "async"}) == "async"
    assert "".join(chain.stream({"text": "a b c"})) == "a b c"
    pieces = [piece async for piece in chain.astream({"text": "d e f"})]
    assert len(pieces) > 1
    assert "".join(pieces) == "d e f"
    assert chain.batch([{"text": "x"}, {"text": "y"}]) == ["x", "y"]


@pytest.mark.parametrize("dialect", ALL_DIALECTS)
def test_create_agent_tool_loop(make_model: ModelFactory, dialect: str) -> None:
    agent = create_agent(make_model(dialect), tools=[get_weather, get_time])
    result = agent.invoke({"messages": [HumanMessage("What is the weather in Paris?")]})
    messages = result["messages"]
    kinds = [type(m).__name__ for m in messages]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    call, answer = messages[1], messages[3]
    assert isinstance(call, AIMessage)
    assert [(c["name"], c["args"]) for c in call.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert isinstance(messages[2], ToolMessage)
    assert messages[2].content == "sunny, 21 C in Paris"
    assert answer.content == "Based on the tool results: get_weather returned sunny, 21 C in Paris."
    assert answer.usage_metadata is not None


async def test_create_agent_parallel_tools_async_with_thinking(make_model: ModelFactory) -> None:
    model = make_model("shroud", reasoning_effort="low", reasoning_passback=True)
    agent = create_agent(model, tools=[get_weather, get_time], system_prompt="Be brief.")
    question = "What is the weather and the time in Oslo?"
    result = await agent.ainvoke({"messages": [HumanMessage(question)]})
    messages = result["messages"]
    call = messages[1]
    assert {c["name"] for c in call.tool_calls} == {"get_weather", "get_time"}
    assert call.additional_kwargs["reasoning_content"] == "I should call get_weather, get_time."
    assert sum(isinstance(m, ToolMessage) for m in messages) == 2
    assert messages[-1].content.startswith("Based on the tool results:")


async def test_agent_streams_messages_with_usage_on_the_last_chunk(
    make_model: ModelFactory,
) -> None:
    agent = create_agent(make_model(), tools=[get_weather])
    streamed: list[AIMessageChunk] = []
    async for message, _meta in agent.astream(
        {"messages": [HumanMessage("weather in Rome")]}, stream_mode="messages"
    ):
        if isinstance(message, AIMessageChunk):
            streamed.append(message)
    final_turn = [c for c in streamed if c.content or c.chunk_position == "last"]
    assert "".join(str(c.content) for c in final_turn).startswith("Based on the tool results")
    with_usage = [c for c in streamed if c.usage_metadata]
    assert len(with_usage) == 2  # one per model call, on its last chunk
    assert all(c.chunk_position == "last" for c in with_usage)
    ids = [c.id for c in streamed]  # one message id per model call, on each of its chunks
    assert all(i is not None and i.startswith("lc_run--") for i in ids)
    assert len(set(ids)) == 2 and ids == sorted(ids, key=ids.index)


def test_create_agent_with_structured_response(make_model: ModelFactory) -> None:
    agent = create_agent(make_model(), tools=[get_weather], response_format=Report)
    result: dict[str, Any] = agent.invoke({"messages": [HumanMessage("Report on Lisbon")]})
    report = result["structured_response"]
    assert isinstance(report, Report)
    assert report.city == "Lisbon"


def test_langgraph_tool_loop(make_model: ModelFactory) -> None:
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    model = make_model("gateway").bind_tools([get_weather])

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    result = graph.compile().invoke({"messages": [("user", "What is the weather in Kyoto?")]})
    assert result["messages"][-1].content == (
        "Based on the tool results: get_weather returned sunny, 21 C in Kyoto."
    )
    assert len(result["messages"]) == 4
