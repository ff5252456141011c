"""ChatSSE with ``protocol="anthropic"`` against the emulator's Anthropic Messages dialect.

What a user who swaps ``ChatAnthropic`` for ``ChatSSE(protocol="anthropic")`` relies on: the
request as the Messages API wants it (URL, headers, ``system``, ``max_tokens``, thinking,
tools), the answer as langchain-core's standard content blocks give it (reasoning with its
signature, redacted thinking, text, tool calls with stable indexes), usage with cache
details, ``stop_reason`` and ``stop_sequence``, reasoning passed back byte-exact on the next
turn, agents and structured output, and the typed errors of a broken stream.
"""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_sse import AuthenticationError, ChatSSE, GatewayStreamError, IncompleteStreamError
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


def test_the_request_is_a_messages_request(emulator: Emulator) -> None:
    model = model_of(emulator, temperature=0.5, stop=["END"], model_kwargs={"top_k": 5,
                     "metadata": {"user_id": "u-1"}})  # fmt: skip
    model.invoke([SystemMessage("Be brief."), HumanMessage("say hi")])
    record = emulator.requests[-1]
    assert record.path == "/anthropic/v1/messages"
    assert record.header("x-api-key") is not None  # (the record masks it)
    assert record.header("anthropic-version") == "2023-06-01"
    assert record.header("authorization") is None
    body = sent(emulator)
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "say hi"}]}]
    assert body["max_tokens"] == 1024 and body["stream"] is True
    assert body["stop_sequences"] == ["END"] and body["temperature"] == 0.5
    assert body["top_k"] == 5 and body["metadata"] == {"user_id": "u-1"}
    assert "stream_options" not in body and "stop" not in body


def test_the_key_is_sent_as_the_gateway_checks_it() -> None:
    with Emulator(api_key=KEY) as guarded:
        assert model_of(guarded).invoke("hi").text  # x-api-key
        assert model_of(guarded, auth="bearer").invoke("hi").text
        assert guarded.requests[-1].header("x-api-key") is None
        with pytest.raises(AuthenticationError):
            model_of(guarded, api_key="sk-wrong").invoke("hi")


def test_a_base_url_ending_in_v1_is_not_doubled(emulator: Emulator) -> None:
    model = model_of(emulator, base_url=emulator.base_url("anthropic") + "/v1")
    assert model.invoke("hi").text
    assert emulator.requests[-1].path == "/anthropic/v1/messages"
    path = model_of(emulator, path="/v1/messages")
    assert path.invoke("hi").text and emulator.requests[-1].path == "/anthropic/v1/messages"


def test_max_tokens_makes_room_beside_a_thinking_budget(emulator: Emulator) -> None:
    model_of(emulator, thinking={"type": "enabled", "budget_tokens": 2000}).invoke("hi")
    assert sent(emulator)["max_tokens"] == 3024
    model_of(emulator, max_tokens=5000, thinking=THINK).invoke("hi")
    assert sent(emulator)["max_tokens"] == 5000


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


def test_thinking_goes_back_byte_exact_on_the_next_turn(emulator: Emulator) -> None:
    model = model_of(emulator, thinking=THINK)
    first = model.invoke("Why is the sky blue?")
    kept = first.additional_kwargs["reasoning_blocks"]
    model.invoke([HumanMessage("Why is the sky blue?"), first, HumanMessage("And at dusk?")])
    assistant = sent(emulator)["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == kept[0]
    assert assistant["content"][1] == {"type": "text", "text": first.content}


def test_redacted_thinking_is_kept_and_passed_back(emulator: Emulator) -> None:
    model = model_of(emulator, thinking=THINK)
    first = streamed(model, f"{REDACT} please")
    blocks = first.additional_kwargs["reasoning_blocks"]
    assert blocks[0]["type"] == "redacted_thinking" and blocks[0]["data"]
    assert first.content_blocks[0] == {"type": "non_standard", "value": blocks[0]}
    model.invoke([HumanMessage(f"{REDACT} please"), first, HumanMessage("go on")])
    assert sent(emulator)["messages"][1]["content"][0] == blocks[0]


def test_usage_with_cache_details_stop_reason_and_sequence(emulator: Emulator) -> None:
    system = SystemMessage([{"type": "text", "text": "A long context. " * 50,
                             "cache_control": {"type": "ephemeral"}}])  # fmt: skip
    history = [system, HumanMessage("My name is Ada."), AIMessage("Hello Ada."),
               HumanMessage("count to 20")]  # fmt: skip
    model = model_of(emulator, stop=["7"])
    for message in (model.invoke(history), streamed(model, history)):
        usage = message.usage_metadata
        assert usage is not None
        details = usage.get("input_token_details") or {}
        assert details.get("cache_read", 0) > 0 and details.get("cache_creation", 0) > 0
        assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
        meta = message.response_metadata
        assert meta["stop_reason"] == "stop_sequence" and meta["stop_sequence"] == "7"
        assert meta["finish_reason"] == "stop" and meta["model_name"] and meta["id"]
    assert sent(emulator)["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_tools_are_bound_in_anthropic_shape(emulator: Emulator) -> None:
    model = model_of(emulator).bind_tools([get_weather, get_time], tool_choice="get_weather",
                                          parallel_tool_calls=False)  # fmt: skip
    message = model.invoke("What is the weather in Paris?")
    body = sent(emulator)
    assert [t["name"] for t in body["tools"]] == ["get_weather", "get_time"]
    assert body["tools"][0]["input_schema"]["properties"] == {"city": {"type": "string"}}
    assert body["tool_choice"] == {"type": "tool", "name": "get_weather",
                                   "disable_parallel_tool_use": True}  # fmt: skip
    calls = [(c["name"], c["args"]) for c in message.tool_calls]
    assert calls == [("get_weather", {"city": "Paris"})]
    assert message.response_metadata["stop_reason"] == "tool_use"


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
    for method in ("json_schema", "json_mode"):
        also = model.with_structured_output(Person, method=method).invoke("Ada is 36")  # type: ignore[arg-type]
        assert also == person
        assert sent(emulator)["tool_choice"] == {"type": "tool", "name": "Person",
                                                 "disable_parallel_tool_use": True}  # fmt: skip
    with pytest.raises(ValueError, match="needs a schema"):
        model.with_structured_output(None, method="json_mode")


def test_an_error_event_after_200_is_typed_with_the_partial_answer(emulator: Emulator) -> None:
    model = model_of(emulator, default_headers={"X-Emulator-Fault": "error-frame; after=5"})
    with pytest.raises(GatewayStreamError) as caught:
        model.invoke("count to 40")
    assert caught.value.partial is not None and caught.value.partial.content


def test_a_cut_stream_is_incomplete_not_complete(emulator: Emulator) -> None:
    model = model_of(emulator, default_headers={"X-Emulator-Fault": "truncate"})
    with pytest.raises(IncompleteStreamError):
        streamed(model, "count to 40")


def test_a_socket_held_open_after_message_stop_does_not_hang(emulator: Emulator) -> None:
    model = model_of(emulator, default_headers={"X-Emulator-Fault": "hold-open"},
                     timeout=30.0)  # fmt: skip

    async def main() -> AIMessage:
        return await model.ainvoke("count to 5")

    assert asyncio.run(asyncio.wait_for(main(), 5.0)).text == "1 2 3 4 5"


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
