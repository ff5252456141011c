"""SSELLM behind the FastAPI + sse-starlette and aiohttp-sse relays, sync and async: what it
gives through a relay is what it gives from the gateway (text, reasoning, tools, usage,
errors with their partial answer), and leaving early reaches the emulator through the relay.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatResponse, ThinkingBlock, ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool

import llamaindex_sse
from llamaindex_sse import SSELLM
from sse_emulator import Emulator
from tests.relays.relay_support import ALL_DIALECTS, REASONING_DIALECTS, SLOW, closed_promptly

MODES = ("sync", "async")
LLMFactory = Callable[..., SSELLM]


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


WEATHER = FunctionTool.from_defaults(get_weather)


def ask(prompt: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=prompt)]


async def answer(llm: SSELLM, prompt: str, mode: str) -> tuple[ChatResponse, ChatResponse]:
    """The last streamed response and the chat response for the same prompt."""
    if mode == "sync":
        streamed = list(llm.stream_chat(ask(prompt)))
        whole = llm.chat(ask(prompt))
    else:
        streamed = [r async for r in await llm.astream_chat(ask(prompt))]
        whole = await llm.achat(ask(prompt))
    return streamed[-1], whole


async def failure(llm: SSELLM, prompt: str, mode: str) -> tuple[Exception, str]:
    """The error of streaming ``prompt``, and the text streamed before it."""
    text = ""
    try:
        if mode == "sync":
            for response in llm.stream_chat(ask(prompt)):
                text += response.delta or ""
        else:
            async for response in await llm.astream_chat(ask(prompt)):
                text += response.delta or ""
    except Exception as exc:
        return exc, text
    raise AssertionError("expected an error, the stream ended well")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_text_and_usage_in_every_dialect(
    make_llm: LLMFactory, dialect: str, mode: str
) -> None:
    last, whole = await answer(make_llm(dialect), "echo: hello through the relay", mode)
    for response in (last, whole):
        assert response.message.content == "hello through the relay"
        assert response.additional_kwargs["finish_reason"] == "stop"
        assert response.additional_kwargs["completion_tokens"] == 4
        assert response.raw is not None and response.raw["usage"]["completion_tokens"] == 4


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", sorted(REASONING_DIALECTS))
async def test_reasoning(make_llm: LLMFactory, dialect: str, mode: str) -> None:
    last, whole = await answer(make_llm(dialect, reasoning_effort="medium"), "echo: pong", mode)
    expected = 'The user wrote: "echo: pong". I can answer this directly.'
    for response in (last, whole):
        thinking = [b for b in response.message.blocks if isinstance(b, ThinkingBlock)]
        assert [b.content for b in thinking] == [expected]
        assert response.message.content == "pong"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ["openai", "streamchat", "spass"])
async def test_tool_calls(make_llm: LLMFactory, dialect: str, mode: str) -> None:
    llm = make_llm(dialect)
    prompt = "weather in Paris and Tokyo"
    if mode == "sync":
        response = llm.chat_with_tools([WEATHER], prompt, allow_parallel_tool_calls=True)
    else:
        response = await llm.achat_with_tools([WEATHER], prompt, allow_parallel_tool_calls=True)
    calls = llm.get_tool_calls_from_response(response)
    assert [(c.tool_name, c.tool_kwargs) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tokyo"}),
    ]
    assert len([b for b in response.message.blocks if isinstance(b, ToolCallBlock)]) == 2
    assert response.additional_kwargs["finish_reason"] == "tool_calls"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", ["error-frame; after=3", "event-error; after=3"])
async def test_a_mid_stream_error_keeps_the_partial_answer(
    make_llm: LLMFactory, fault: str, mode: str
) -> None:
    error, text = await failure(make_llm(fault=fault), "echo: one two three four five", mode)
    assert type(error) is llamaindex_sse.GatewayStreamError
    assert text == "one two"
    assert error.partial_response.message.content == "one two"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", ["truncate; after=3", "reset; after=3"])
async def test_a_cut_upstream_is_an_incomplete_stream(
    make_llm: LLMFactory, fault: str, mode: str
) -> None:
    error, text = await failure(make_llm(fault=fault), "echo: one two three four five", mode)
    assert type(error) is llamaindex_sse.IncompleteStreamError
    assert text == "one two"
    assert error.partial_response.message.content == "one two"


@pytest.mark.parametrize("mode", MODES)
async def test_invoke_streaming_false_passes_through(
    make_llm: LLMFactory, emulator: Emulator, mode: str
) -> None:
    llm = make_llm(invoke_streaming=False, reasoning_effort="low")
    whole = llm.chat(ask("echo: whole")) if mode == "sync" else await llm.achat(ask("echo: whole"))
    assert whole.message.content == "whole"
    assert isinstance(whole.message.blocks[0], ThinkingBlock)
    record = emulator.last_request
    assert record is not None and record.json()["stream"] is False


def test_leaving_a_stream_early_reaches_the_emulator(
    make_llm: LLMFactory, emulator: Emulator
) -> None:
    stream = make_llm(fault=SLOW).stream_chat(ask("count to 200"))
    for _ in stream:
        break
    since = time.monotonic()
    stream.close()  # type: ignore[attr-defined]
    closed_promptly(emulator.wait_for_disconnect(3.0), since)


async def test_leaving_an_astream_early_reaches_the_emulator(
    make_llm: LLMFactory, emulator: Emulator
) -> None:
    stream: Any = await make_llm(fault=SLOW).astream_chat(ask("count to 200"))
    async for _ in stream:
        break
    since = time.monotonic()
    await stream.aclose()
    closed_promptly(await emulator.wait_for_disconnect_async(3.0), since)
