"""Recordings made through the adapters replay through the adapters, unchanged.

Each session is run live against the emulator with a recording httpx client, then again
against ``Emulator(replay=DIR)`` with the adapters' own clients; what the user sees
(content, reasoning, tool calls, usage, finish reason) must be the same. Public APIs only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, ThinkingBlock
from llama_index.core.tools import FunctionTool

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core.transport.recording import recording_client
from sse_emulator import DIALECTS, Emulator
from sse_emulator.pytest_plugin import ReplayFactory

pytestmark = pytest.mark.timeout(120)

KEY = "sk-adapter-canary-0123456789"
QUESTION = "weather in Paris and Tokyo"
ECHO = "echo: replayed word for word"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps({"city": city, "forecast": "sunny"})


TOOL = FunctionTool.from_defaults(fn=get_weather)


def headers_for(dialect: str) -> dict[str, str]:
    return {"SPASS-User-Id": "u1"} if dialect == "spass" else {}


def chat_sse(base_url: str, http: httpx.Client | None, dialect: str = "openai") -> ChatSSE:
    return ChatSSE(
        model="emulator-think",
        base_url=base_url,
        api_key=KEY,
        timeout=10,
        default_headers=headers_for(dialect),
        http_client=http,
    )


def sse_llm(base_url: str, http: httpx.Client | None, dialect: str = "openai") -> SSELLM:
    return SSELLM(
        model="emulator-think",
        base_url=base_url,
        api_key=KEY,
        timeout=10,
        default_headers=headers_for(dialect),
        http_client=http,
    )


def seen_lc(message: BaseMessage) -> dict[str, Any]:
    assert isinstance(message, AIMessage)
    return {
        "content": message.content,
        "reasoning": message.additional_kwargs.get("reasoning_content"),
        "tool_calls": message.tool_calls,
        "usage": message.usage_metadata,
        "finish_reason": message.response_metadata.get("finish_reason"),
    }


def seen_li(llm: SSELLM, response: ChatResponse) -> dict[str, Any]:
    calls = llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
    thinking = [b.content for b in response.message.blocks if isinstance(b, ThinkingBlock)]
    return {
        "content": response.message.content,
        "reasoning": thinking,
        "tool_calls": [(c.tool_id, c.tool_name, c.tool_kwargs) for c in calls],
        "usage": response.raw.get("usage") if isinstance(response.raw, dict) else None,
        "details": response.additional_kwargs,  # token counts and the finish reason
    }


def lc_session(model: ChatSSE) -> list[dict[str, Any]]:
    return [seen_lc(model.bind_tools([WEATHER]).invoke(QUESTION)), seen_lc(model.invoke(ECHO))]


def li_session(llm: SSELLM) -> list[dict[str, Any]]:
    tools = llm.chat_with_tools([TOOL], user_msg=QUESTION, allow_parallel_tool_calls=True)
    text = llm.chat([ChatMessage(role="user", content=ECHO)])
    return [seen_li(llm, tools), seen_li(llm, text)]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_chat_sse_replays_every_dialect_as_it_ran(
    dialect: str, emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    with recording_client(tmp_path) as http:
        live = lc_session(chat_sse(emulator.base_url(dialect), http, dialect))
    assert len(live[0]["tool_calls"]) == 2 and live[0]["finish_reason"] == "tool_calls"
    assert live[1]["content"] == "replayed word for word" and live[1]["usage"]
    assert KEY not in "".join(p.read_text() for p in tmp_path.iterdir())
    assert lc_session(chat_sse(emulator_replay(tmp_path).base_url(), None)) == live


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_sse_llm_replays_every_dialect_as_it_ran(
    dialect: str, emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    with recording_client(tmp_path) as http:
        live = li_session(sse_llm(emulator.base_url(dialect), http, dialect))
    assert len(live[0]["tool_calls"]) == 2 and live[0]["details"]["finish_reason"] == "tool_calls"
    assert live[1]["content"] == "replayed word for word"
    assert live[1]["details"]["total_tokens"]
    assert li_session(sse_llm(emulator_replay(tmp_path).base_url(), None)) == live


# --- a tool round trip: two model calls in one directory ---


def lc_round_trip(model: ChatSSE) -> dict[str, Any]:
    bound = model.bind_tools([WEATHER])
    history: list[BaseMessage] = [HumanMessage(QUESTION)]
    first = bound.invoke(history)
    assert isinstance(first, AIMessage)
    history.append(first)
    for call in first.tool_calls:
        history.append(ToolMessage(get_weather(**call["args"]), tool_call_id=call["id"] or ""))
    second = bound.invoke(history)
    assert isinstance(second, AIMessage) and second.usage_metadata
    usage = second.usage_metadata
    return {
        "calls": [(c["id"], c["name"], c["args"]) for c in first.tool_calls],
        "answer": second.content,
        "usage": (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]),
    }


def li_round_trip(llm: SSELLM) -> dict[str, Any]:
    first = llm.chat_with_tools([TOOL], user_msg=QUESTION, allow_parallel_tool_calls=True)
    calls = llm.get_tool_calls_from_response(first, error_on_no_tool_call=False)
    history = [ChatMessage(role="user", content=QUESTION), first.message]
    for call in calls:
        result = ChatMessage(role="tool", content=get_weather(**call.tool_kwargs))
        result.additional_kwargs["tool_call_id"] = call.tool_id
        history.append(result)
    second = llm.chat_with_tools([TOOL], chat_history=history)
    counts = second.additional_kwargs
    return {
        "calls": [(c.tool_id, c.tool_name, c.tool_kwargs) for c in calls],
        "answer": second.message.content,
        "usage": (counts["prompt_tokens"], counts["completion_tokens"], counts["total_tokens"]),
    }


def test_a_recorded_tool_round_trip_replays_through_both_adapters(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    with recording_client(tmp_path) as http:
        live = lc_round_trip(chat_sse(emulator.base_url(), http))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "001.json",
        "001.sse",
        "002.json",
        "002.sse",
    ]
    assert [name for _, name, _ in live["calls"]] == ["get_weather", "get_weather"]
    assert str(live["answer"]).startswith("Based on the tool results: get_weather returned")
    replay = emulator_replay(tmp_path)
    assert lc_round_trip(chat_sse(replay.base_url(), None)) == live
    replay.reset()  # rewind: the same two answers again, now for LlamaIndex
    assert li_round_trip(sse_llm(replay.base_url(), None)) == live
