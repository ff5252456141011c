"""ChatSSE behind the FastAPI + sse-starlette and aiohttp-sse relays, sync and async: what it
gives through a relay is what it gives from the gateway (text, reasoning, tools, usage,
errors with their partial answer), and leaving early reaches the emulator through the relay.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

import langchain_sse
from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.relays.relay_support import ALL_DIALECTS, REASONING_DIALECTS, SLOW, closed_promptly

MODES = ("sync", "async")
ChatFactory = Callable[..., ChatSSE]


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


async def answer(model: Any, prompt: str, mode: str) -> tuple[AIMessageChunk, AIMessage]:
    """The merged streamed chunks and the invoked message for the same prompt."""
    if mode == "sync":
        chunks = list(model.stream(prompt))
        message = model.invoke(prompt)
    else:
        chunks = [c async for c in model.astream(prompt)]
        message = await model.ainvoke(prompt)
    merged = chunks[0] + chunks[1:]
    assert isinstance(merged, AIMessageChunk) and isinstance(message, AIMessage)
    return merged, message


async def failure(model: ChatSSE, prompt: str, mode: str) -> tuple[Exception, str]:
    """The error of streaming ``prompt``, and the text streamed before it."""
    text = ""
    try:
        if mode == "sync":
            for chunk in model.stream(prompt):
                text += chunk.text
        else:
            async for chunk in model.astream(prompt):
                text += chunk.text
    except Exception as exc:
        return exc, text
    raise AssertionError("expected an error, the stream ended well")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_text_and_usage_in_every_dialect(
    make_chat: ChatFactory, dialect: str, mode: str
) -> None:
    streamed, message = await answer(make_chat(dialect), "echo: hello through the relay", mode)
    for result in (streamed, message):
        assert result.text == "hello through the relay"
        assert result.response_metadata["finish_reason"] == "stop"
        assert result.usage_metadata is not None
        assert result.usage_metadata["output_tokens"] == 4
    assert streamed.usage_metadata == message.usage_metadata


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", sorted(REASONING_DIALECTS))
async def test_reasoning(make_chat: ChatFactory, dialect: str, mode: str) -> None:
    model = make_chat(dialect, reasoning_effort="medium")
    streamed, message = await answer(model, "echo: pong", mode)
    expected = 'The user wrote: "echo: pong". I can answer this directly.'
    for result in (streamed, message):
        assert result.text == "pong"
        assert result.additional_kwargs["reasoning_content"] == expected
        assert result.usage_metadata is not None
        assert result.usage_metadata.get("output_token_details", {}).get("reasoning", 10) == 10


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ["openai", "streamchat", "spass"])
async def test_tool_calls(make_chat: ChatFactory, dialect: str, mode: str) -> None:
    model = make_chat(dialect).bind_tools([get_weather])
    streamed, message = await answer(model, "weather in Paris and Tokyo", mode)
    for result in (streamed, message):
        assert [(c["name"], c["args"]) for c in result.tool_calls] == [
            ("get_weather", {"city": "Paris"}),
            ("get_weather", {"city": "Tokyo"}),
        ]
        assert result.response_metadata["finish_reason"] == "tool_calls"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", ["error-frame; after=3", "event-error; after=3"])
async def test_a_mid_stream_error_keeps_the_partial_answer(
    make_chat: ChatFactory, fault: str, mode: str
) -> None:
    error, text = await failure(make_chat(fault=fault), "echo: one two three four five", mode)
    assert type(error) is langchain_sse.GatewayStreamError
    assert text == "one two"
    assert error.partial_message.content == "one two"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", ["truncate; after=3", "reset; after=3"])
async def test_a_cut_upstream_is_an_incomplete_stream(
    make_chat: ChatFactory, fault: str, mode: str
) -> None:
    error, text = await failure(make_chat(fault=fault), "echo: one two three four five", mode)
    assert type(error) is langchain_sse.IncompleteStreamError
    assert text == "one two"
    assert error.partial_message.content == "one two"


@pytest.mark.parametrize("mode", MODES)
async def test_invoke_streaming_false_passes_through(
    make_chat: ChatFactory, emulator: Emulator, mode: str
) -> None:
    model = make_chat(invoke_streaming=False, reasoning_effort="low")
    message = model.invoke("echo: whole") if mode == "sync" else await model.ainvoke("echo: whole")
    assert message.text == "whole"
    assert message.additional_kwargs["reasoning_content"] == "I can answer this directly."
    record = emulator.last_request
    assert record is not None and record.json()["stream"] is False


def test_leaving_a_stream_early_reaches_the_emulator(
    make_chat: ChatFactory, emulator: Emulator
) -> None:
    since = 0.0
    for _ in make_chat(fault=SLOW).stream("count to 200"):
        since = time.monotonic()
        break
    closed_promptly(emulator.wait_for_disconnect(3.0), since)


async def test_leaving_an_astream_early_reaches_the_emulator(
    make_chat: ChatFactory, emulator: Emulator
) -> None:
    stream: Any = make_chat(fault=SLOW).astream("count to 200")
    async with contextlib.aclosing(stream) as chunks:
        async for _ in chunks:
            since = time.monotonic()
            break
    closed_promptly(await emulator.wait_for_disconnect_async(3.0), since)
