"""ChatSSE with ``protocol="anthropic"`` against the emulator's Anthropic Messages dialect,
as LangChain shows it.

What a user who swaps ``ChatAnthropic`` for ``ChatSSE(protocol="anthropic")`` relies on: the
answer as langchain-core's standard content blocks give it (reasoning with its signature,
redacted thinking, text, tool calls with stable indexes), a v1 stream merging to what invoke
gives, tools from LangChain's own kinds, agents and structured output, the key kept out of
repr and pickle, the cache key, and astream_events. (What both adapters do alike on this
protocol, the request, thinking passed back, usage, stop reasons, tool calls and the errors of
a broken stream: tests/adapters/test_messages_request.py and test_anthropic_answers.py.)
"""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import TIMEOUT

pytestmark = pytest.mark.timeout(60)

KEY = "sk-ant-emulator-secret-key"
THINK = {"type": "enabled", "budget_tokens": 1024}
REDACT = "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING"


def model_of(emulator: Emulator, **fields: Any) -> ChatSSE:
    params: dict[str, Any] = {
        "model": "claude-emulated",
        "base_url": emulator.base_url("anthropic"),
        "api_key": KEY,
        "protocol": "anthropic",
        "timeout": TIMEOUT,
        "max_retries": 0,
    }
    return ChatSSE(**{**params, **fields})


def sent(emulator: Emulator, index: int = -1) -> dict[str, Any]:
    record = emulator.requests[index]
    data = record.json()
    assert isinstance(data, dict)
    return data


def streamed(model: Any, prompt: Any, **kwargs: Any) -> AIMessageChunk:
    chunks = list(model.stream(prompt, **kwargs))
    whole = chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]
    assert isinstance(whole, AIMessageChunk)
    return whole


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


@tool
def get_time(zone: str) -> str:
    """Get the time in a time zone."""
    return f"noon in {zone}"


def test_signed_thinking_streamed_equals_invoked(emulator: Emulator) -> None:
    model = model_of(emulator, thinking=THINK)
    invoked = model.invoke("Why is the sky blue?")
    merged = streamed(model, "Why is the sky blue?")
    for message in (invoked, merged):
        blocks = message.additional_kwargs["reasoning_blocks"]
        assert len(blocks) == 1 and blocks[0]["type"] == "thinking"
        assert blocks[0]["thinking"] == message.additional_kwargs["reasoning_content"]
        assert blocks[0]["signature"]
        standard = message.content_blocks
        assert [b["type"] for b in standard] == ["reasoning", "text"]
        assert standard[0]["extras"]["signature"] == blocks[0]["signature"]  # type: ignore[typeddict-item]
    assert invoked.content == merged.content
    assert invoked.additional_kwargs == merged.additional_kwargs


def _unnumbered(blocks: list[Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in block.items() if k != "index"} for block in blocks]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("tools", [False, True], ids=["text", "tool"])
def test_v1_merged_stream_has_invokes_blocks_signature_included(
    emulator: Emulator, tools: bool, mode: str
) -> None:
    # The signature arrives at the stream's end, after the reasoning text's chunks: the last
    # chunk gives it to the reasoning block by that block's number, so merging keeps it.
    model: Any = model_of(emulator, thinking=THINK, output_version="v1")
    model, prompt = (
        (model.bind_tools([get_weather]), "Weather in Paris?") if tools else (model, "hi")
    )

    async def run() -> tuple[Any, AIMessageChunk]:
        if mode == "sync":
            return model.invoke(prompt), streamed(model, prompt)
        merged = None
        async for piece in model.astream(prompt):
            merged = piece if merged is None else merged + piece
        assert isinstance(merged, AIMessageChunk)
        return await model.ainvoke(prompt), merged

    invoked, merged = asyncio.run(asyncio.wait_for(run(), 30))
    assert [b["type"] for b in merged.content] == ["reasoning", "tool_call" if tools else "text"]
    assert merged.content[0]["extras"]["signature"]  # type: ignore[index]
    assert _unnumbered(merged.content) == _unnumbered(invoked.content)


def test_redacted_thinking_is_a_non_standard_block(emulator: Emulator) -> None:
    model = model_of(emulator, thinking=THINK)
    first = streamed(model, f"{REDACT} please")
    blocks = first.additional_kwargs["reasoning_blocks"]
    assert blocks[0]["type"] == "redacted_thinking" and blocks[0]["data"]
    assert first.content_blocks[0] == {"type": "non_standard", "value": blocks[0]}


def test_tools_are_bound_in_anthropic_shape(emulator: Emulator) -> None:
    model = model_of(emulator).bind_tools([get_weather, get_time])
    model.invoke("What is the weather in Paris?")
    body = sent(emulator)
    assert [t["name"] for t in body["tools"]] == ["get_weather", "get_time"]
    assert body["tools"][0]["input_schema"]["properties"] == {"city": {"type": "string"}}


def test_parallel_tool_calls_stream_with_stable_indexes(emulator: Emulator) -> None:
    model = model_of(emulator).bind_tools([get_weather, get_time])
    prompt = "What is the weather in Paris and the time in UTC?"
    pieces = [
        piece
        for chunk in model.stream(prompt)
        if isinstance(chunk, AIMessageChunk)
        for piece in chunk.tool_call_chunks
    ]
    by_index: dict[int, list[Any]] = {}
    for piece in pieces:
        assert piece["index"] is not None
        by_index.setdefault(piece["index"], []).append(piece)
    assert len(by_index) == 2
    for group in by_index.values():
        assert group[0]["id"] and group[0]["name"]
        assert all(p["id"] is None and p["name"] is None for p in group[1:])
    merged = streamed(model, prompt)
    invoked = model.invoke(prompt)
    assert merged.tool_calls == invoked.tool_calls
    assert {c["name"] for c in invoked.tool_calls} == {"get_weather", "get_time"}


def test_an_agent_runs_its_tool_loop(emulator: Emulator) -> None:
    agent = create_agent(model_of(emulator, thinking=THINK), tools=[get_weather, get_time])
    result = agent.invoke({"messages": [HumanMessage("What is the weather in Paris?")]})
    final = result["messages"][-1]
    assert isinstance(final, AIMessage) and "sunny in Paris" in final.text
    second = sent(emulator)
    results = [b for m in second["messages"] for b in m["content"] if b["type"] == "tool_result"]
    assert results and results[0]["content"] == "sunny in Paris"
    assistant = second["messages"][1]["content"]
    assert assistant[0]["type"] == "thinking" and assistant[0]["signature"]
    assert assistant[-1]["type"] == "tool_use" and assistant[-1]["input"] == {"city": "Paris"}


class Person(BaseModel):
    name: str
    age: int


def test_structured_output_by_a_forced_tool_call(emulator: Emulator) -> None:
    model = model_of(emulator)
    person = model.with_structured_output(Person).invoke("Ada is 36")
    assert isinstance(person, Person)
    assert sent(emulator)["tool_choice"]["type"] == "tool"
    assert sent(emulator)["tool_choice"] == {"type": "tool", "name": "Person",
                                             "disable_parallel_tool_use": True}  # fmt: skip
    for method in ("json_schema", "json_mode"):  # the API's own structured output
        also = model.with_structured_output(Person, method=method).invoke("Ada is 36")  # type: ignore[arg-type]
        assert isinstance(also, Person)
        body = sent(emulator)
        assert (
            "tool_choice" not in body and body["output_config"]["format"]["type"] == "json_schema"
        )
    with pytest.raises(ValueError, match="needs a schema"):
        model.with_structured_output(None, method="json_mode")


def test_the_key_is_in_no_repr_dump_or_pickle(emulator: Emulator) -> None:
    model = model_of(emulator)
    for shown in (repr(model), str(model.model_dump()), str(model._identifying_params)):
        assert KEY not in shown
    assert KEY.encode() not in pickle.dumps(model)


def test_the_protocol_and_thinking_are_in_the_cache_key(emulator: Emulator) -> None:
    plain = model_of(emulator)
    thinking = model_of(emulator, thinking=THINK)
    chat = ChatSSE(model="claude-emulated", base_url=emulator.base_url("anthropic"))
    keys = {m._get_llm_string() for m in (plain, thinking, chat)}
    assert len(keys) == 3


def test_astream_events_carry_reasoning_text_and_usage(emulator: Emulator) -> None:
    model = model_of(emulator, thinking=THINK)

    async def main() -> list[Any]:
        return [
            event
            async for event in model.astream_events("Why is the sky blue?", version="v2")
            if event["event"] == "on_chat_model_stream"
        ]

    chunks = [event["data"]["chunk"] for event in asyncio.run(main())]
    thought = "".join(c.additional_kwargs.get("reasoning_content", "") for c in chunks)
    invoked = model.invoke("Why is the sky blue?")
    assert thought == invoked.additional_kwargs["reasoning_content"]
    assert "".join(c.text for c in chunks) == invoked.text
    assert chunks[-1].usage_metadata == invoked.usage_metadata
    assert (
        chunks[-1].additional_kwargs["reasoning_blocks"]
        == (invoked.additional_kwargs["reasoning_blocks"])
    )
