"""ChatSSE over every emulator dialect (the five seeds and plain OpenAI), sync and async.

Each test runs ``stream`` and ``invoke`` (or their async twins) and checks both: the answer,
reasoning, tool calls, usage, refusals and finish reasons a user of that gateway must see.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_sse import ChatSSE
from tests.langchain.lc_support import (
    ALL_DIALECTS,
    REASONING_DIALECTS,
    ModelFactory,
    chunk,
    sse_body,
)

MODES = ("sync", "async")
REFUSAL = "I'm sorry, but I can't help with that request."


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


async def answer(model: Any, prompt: Any, mode: str) -> tuple[list[AIMessageChunk], AIMessage]:
    """The streamed chunks and the invoked message for the same prompt."""
    if mode == "sync":
        return list(model.stream(prompt)), model.invoke(prompt)
    return [c async for c in model.astream(prompt)], await model.ainvoke(prompt)


def aggregate(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    whole = chunks[0] + chunks[1:]
    assert isinstance(whole, AIMessageChunk)
    return whole


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_content_streams_and_invokes_alike(
    make_model: ModelFactory, dialect: str, mode: str
) -> None:
    chunks, message = await answer(make_model(dialect), "echo: hello streaming world", mode)
    assert all(isinstance(c.content, str) for c in chunks)
    assert "".join(str(c.content) for c in chunks) == "hello streaming world"
    assert message.content == "hello streaming world"
    assert [c.chunk_position for c in chunks].count("last") == 1
    assert chunks[-1].chunk_position == "last"
    assert [c for c in chunks if c.usage_metadata] == [chunks[-1]]
    whole = aggregate(chunks)
    for meta in (whole.response_metadata, message.response_metadata):
        assert meta["finish_reason"] == "stop"
        assert meta["model_name"] == "emulator"  # streamchat sends "": the asked model
        assert meta["model_provider"] == "sse"
    assert whole.usage_metadata == message.usage_metadata


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_reasoning_is_kept_where_the_wire_carries_it(
    make_model: ModelFactory, dialect: str, mode: str
) -> None:
    model = make_model(dialect, reasoning_effort="medium")
    chunks, message = await answer(model, "echo: pong", mode)
    expected = 'The user wrote: "echo: pong". I can answer this directly.'
    assert message.content == "pong"
    for result in (aggregate(chunks), message):
        if dialect in REASONING_DIALECTS:
            assert result.additional_kwargs["reasoning_content"] == expected
            assert [b["type"] for b in result.content_blocks] == ["reasoning", "text"]
        else:  # the seed shows no reasoning field: the gateway hides it
            assert "reasoning_content" not in result.additional_kwargs
    if dialect in REASONING_DIALECTS:  # thinking streams first, in its own chunks
        thinking = [i for i, c in enumerate(chunks) if c.additional_kwargs.get("reasoning_content")]
        text = [i for i, c in enumerate(chunks) if c.content]
        assert len(thinking) > 1
        assert max(thinking) < min(text)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_parallel_tool_calls(make_model: ModelFactory, dialect: str, mode: str) -> None:
    model = make_model(dialect).bind_tools([get_weather])
    chunks, message = await answer(model, "What is the weather in Paris and Tokyo?", mode)
    for result in (aggregate(chunks), message):
        assert [(c["name"], c["args"]) for c in result.tool_calls] == [
            ("get_weather", {"city": "Paris"}),
            ("get_weather", {"city": "Tokyo"}),
        ]
        assert all(c["id"] for c in result.tool_calls)
        assert result.response_metadata["finish_reason"] == "tool_calls"
        assert result.content == ""
    fragments = [piece for c in chunks for piece in c.tool_call_chunks]
    assert {piece["index"] for piece in fragments} == {0, 1}
    assert sum(1 for piece in fragments if piece["name"]) == 2  # id and name once per call


#: Usage of the same three-message prompt as each dialect reports it.
USAGE_DETAILS: dict[str, dict[str, Any]] = {
    "openai": {
        "input_token_details": {"cache_read": 15},
        "output_token_details": {"reasoning": 11},
    },
    "aivene": {"input_token_details": {"cache_read": 15, "cache_creation": 8}},
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_usage_with_cache_and_reasoning_details(
    make_model: ModelFactory, dialect: str, mode: str
) -> None:
    model = make_model(dialect, model="claude-think")
    prompt = [("user", "a"), ("assistant", "b"), ("user", "c d e")]
    chunks, message = await answer(model, prompt, mode)
    expected = {"input_tokens": 23, "output_tokens": 16, "total_tokens": 39}
    expected.update(USAGE_DETAILS.get(dialect, {}))
    assert message.usage_metadata == expected
    assert aggregate(chunks).usage_metadata == expected  # mapped once, not summed


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_no_usage_unless_asked_except_where_the_gateway_always_sends_it(
    make_model: ModelFactory, dialect: str, mode: str, emulator: Any
) -> None:
    chunks, message = await answer(make_model(dialect, stream_usage=False), "hi", mode)
    assert "stream_options" not in emulator.last_request.json()
    if dialect == "spass":  # event: spass.cost is always sent
        assert message.usage_metadata == {"input_tokens": 9, "output_tokens": 13,
                                          "total_tokens": 22}  # fmt: skip
    else:
        assert message.usage_metadata is None
        assert all(c.usage_metadata is None for c in chunks)


@pytest.mark.parametrize("mode", MODES)
async def test_spass_cost_event_gives_usage_and_stays_in_metadata(
    make_model: ModelFactory, mode: str
) -> None:
    chunks, message = await answer(make_model("spass"), "hi", mode)
    events = message.response_metadata["gateway_events"]
    assert events == [
        {"name": "spass.cost", "data": {"prompt_tokens": 9, "completion_tokens": 13,
                                        "total_tokens": 22}}
    ]  # fmt: skip
    assert aggregate(chunks).response_metadata["gateway_events"] == events
    assert message.usage_metadata is not None
    assert message.usage_metadata["total_tokens"] == 22


#: How each dialect delivers the refusal: as delta.refusal, as content_filter, or as text.
REFUSALS = {"openai": "refusal", "aivene": "content_filter"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_refusals(make_model: ModelFactory, dialect: str, mode: str) -> None:
    chunks, message = await answer(make_model(dialect), "tell me something forbidden", mode)
    style = REFUSALS.get(dialect, "content")
    for result in (aggregate(chunks), message):
        blocks = result.content_blocks
        if style == "refusal":
            assert result.additional_kwargs["refusal"] == REFUSAL
            assert result.content == ""
            assert blocks == [{"type": "refusal", "refusal": REFUSAL}]
        elif style == "content_filter":
            assert result.response_metadata["finish_reason"] == "content_filter"
            assert blocks == [{"type": "refusal", "refusal": "",
                               "extras": {"finish_reason": "content_filter"}}]  # fmt: skip
        else:
            assert result.content == REFUSAL
            assert result.response_metadata["finish_reason"] == "stop"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_finish_reason_length(make_model: ModelFactory, dialect: str, mode: str) -> None:
    chunks, message = await answer(make_model(dialect, max_tokens=3), "count to 10", mode)
    assert message.content == "1 2 3"
    assert message.response_metadata["finish_reason"] == "length"
    assert aggregate(chunks).response_metadata["finish_reason"] == "length"


CUMULATIVE = sse_body(
    chunk({"content": "a"}, usage={"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}),
    chunk({"content": "b"}, usage={"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}),
    chunk({}, finish_reason="stop",
          usage={"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}),
)  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
async def test_cumulative_usage_on_every_chunk_counts_once(mock_model: Any, mode: str) -> None:
    model, _ = mock_model(CUMULATIVE)
    assert isinstance(model, ChatSSE)
    chunks, message = await answer(model, "hi", mode)
    expected = {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}
    assert message.usage_metadata == expected
    assert aggregate(chunks).usage_metadata == expected  # ChatOpenAI would sum to 15/6/21
    assert sum(1 for c in chunks if c.usage_metadata) == 1


async def test_json_body_answer_is_one_whole_message(make_model: ModelFactory) -> None:
    model = make_model(default_headers={"X-Emulator-Fault": "json-body"})
    message = await model.ainvoke("echo: whole")
    assert message.content == "whole"
    assert message.response_metadata["finish_reason"] == "stop"
    assert message.usage_metadata is not None


def test_spass_c1_chat_path_and_conversation_header(
    make_model: ModelFactory, emulator: Any
) -> None:
    model = make_model(base_url=emulator.url + "/spass", path="/c1/chat")
    message = model.invoke("echo: c1")
    assert message.content == "c1"
    assert emulator.last_request.path == "/spass/c1/chat"
    assert message.response_metadata["headers"]["x-conversation-id"]
