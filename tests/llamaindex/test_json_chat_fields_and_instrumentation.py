"""``invoke_streaming=False``: chat and complete ask ``stream: false`` and give what streams give.

For every emulator dialect and a plain answer, a reasoning answer, tool calls and a refusal
(each with usage), the JSON ``chat`` is compared field by field with the streamed ``chat``
of the same prompt; the ids differ (the emulator derives them from the request body). The
instrumentation sees the whole answer, and ``complete`` gives the streamed completion. (The
same typed errors, and ``stream_chat`` still streaming, for both adapters:
tests/adapters/test_invoke_streaming.py.)
"""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.base.llms.types import (
    ChatResponse,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool

from llamaindex_sse import SSELLM
from sse_emulator import Emulator
from tests.llamaindex.li_support import ALL_DIALECTS, REASONING_DIALECTS, LLMFactory, collect_events

MODES = ("sync", "async")
REFUSAL = "I'm sorry, but I can't help with that request."
#: Dialects whose stream envelope carries no model and no created time (the JSON body does).
BARE_ENVELOPE = frozenset({"spass", "gateway"})


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


WEATHER = FunctionTool.from_defaults(get_weather)

#: case -> (prompt, LLM fields, offer the tool)
CASES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "plain": ("echo: hello json world", {}, False),
    "reasoning": ("echo: pong", {"reasoning_effort": "medium"}, False),
    "tools": ("weather in Paris and Tokyo", {}, True),
    "refusal": ("this is forbidden", {}, False),
}


async def ask(llm: SSELLM, prompt: str, tools: bool, mode: str) -> ChatResponse:
    if tools:
        if mode == "sync":
            return llm.chat_with_tools([WEATHER], prompt, allow_parallel_tool_calls=True)
        return await llm.achat_with_tools([WEATHER], prompt, allow_parallel_tool_calls=True)
    messages = [ChatMessage(role="user", content=prompt)]
    return llm.chat(messages) if mode == "sync" else await llm.achat(messages)


def sent_body(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None
    body = record.json()
    assert isinstance(body, dict)
    return body


def describe_blocks(response: ChatResponse) -> list[tuple[str, Any]]:
    """The message's blocks, tool-call ids left out."""
    shown: list[tuple[str, Any]] = []
    for block in response.message.blocks:
        if isinstance(block, ThinkingBlock):
            shown.append(("thinking", block.content))
        elif isinstance(block, TextBlock):
            shown.append(("text", block.text))
        elif isinstance(block, ToolCallBlock):
            assert block.tool_call_id
            shown.append(("tool", (block.tool_name, block.tool_kwargs)))
        else:
            shown.append((type(block).__name__, None))
    return shown


def without_call_ids(value: Any) -> Any:
    """``value`` with every tool-call ``id`` blanked (the emulator derives them from the body)."""
    if isinstance(value, dict):
        return {k: "<id>" if k == "id" else without_call_ids(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_call_ids(v) for v in value]
    return value


def assert_same_answer(json_answer: ChatResponse, streamed: ChatResponse, dialect: str) -> None:
    assert describe_blocks(json_answer) == describe_blocks(streamed)
    assert without_call_ids(json_answer.message.additional_kwargs) == without_call_ids(
        streamed.message.additional_kwargs
    )
    assert json_answer.additional_kwargs == streamed.additional_kwargs
    assert json_answer.additional_kwargs["total_tokens"]
    raw_json, raw_streamed = json_answer.raw, streamed.raw
    assert raw_json is not None and raw_streamed is not None
    assert raw_json["usage"] == raw_streamed["usage"] is not None
    assert without_call_ids(raw_json["choices"]) == without_call_ids(raw_streamed["choices"])
    assert raw_json["object"] == raw_streamed["object"] == "chat.completion"
    assert raw_json["id"] and raw_streamed["id"]
    if dialect in BARE_ENVELOPE:  # the stream never named them; the JSON answer does
        assert (raw_streamed["model"], raw_streamed["created"]) == (None, None)
        assert raw_json["model"] == "emulator" and raw_json["created"]
    else:
        assert raw_json["model"] == raw_streamed["model"]
        assert raw_json["created"] == raw_streamed["created"]


def assert_case_shape(response: ChatResponse, case: str, dialect: str) -> None:
    """What each case must hold, so the comparison is not of two empty answers."""
    finish = response.additional_kwargs.get("finish_reason")
    if case == "plain":
        assert (response.message.content, finish) == ("hello json world", "stop")
    elif case == "reasoning":
        assert response.message.content == "pong"
        thinking = any(isinstance(b, ThinkingBlock) for b in response.message.blocks)
        assert thinking is (dialect in REASONING_DIALECTS)
    elif case == "tools":
        calls = [b for b in response.message.blocks if isinstance(b, ToolCallBlock)]
        assert [c.tool_kwargs for c in calls] == ['{"city":"Paris"}', '{"city":"Tokyo"}']
        assert finish == "tool_calls"
    elif dialect == "openai":
        assert response.message.additional_kwargs["refusal"] == REFUSAL
    elif dialect == "aivene":
        assert finish == "content_filter"
    else:
        assert response.message.content == REFUSAL


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_json_chat_gives_the_streamed_answer(
    make_llm: LLMFactory, emulator: Emulator, dialect: str, case: str, mode: str
) -> None:
    prompt, fields, tools = CASES[case]
    streamed = await ask(make_llm(dialect, **fields), prompt, tools, mode)
    assert sent_body(emulator)["stream"] is True
    no_stream = make_llm(dialect, invoke_streaming=False, **fields)
    json_answer = await ask(no_stream, prompt, tools, mode)
    body = sent_body(emulator)
    assert body["stream"] is False
    assert "stream_options" not in body
    assert len(emulator.requests) == 2
    assert_case_shape(streamed, case, dialect)
    assert_same_answer(json_answer, streamed, dialect)


@pytest.mark.parametrize("mode", MODES)
async def test_json_complete_gives_the_streamed_completion(
    make_llm: LLMFactory, emulator: Emulator, mode: str
) -> None:
    texts = []
    for invoke_streaming in (True, False):
        llm = make_llm(reasoning_effort="low", invoke_streaming=invoke_streaming)
        if mode == "sync":
            completion = llm.complete("echo: a b c")
        else:
            completion = await llm.acomplete("echo: a b c")
        assert sent_body(emulator)["stream"] is invoke_streaming
        texts.append((completion.text, completion.additional_kwargs))
    assert texts[0] == texts[1]
    assert texts[1][0] == "a b c"


@pytest.mark.parametrize("mode", MODES)
async def test_instrumentation_sees_the_whole_json_answer(make_llm: LLMFactory, mode: str) -> None:
    llm = make_llm(invoke_streaming=False)
    messages = [ChatMessage(role="user", content="echo: seen whole")]
    with collect_events() as seen:
        response = llm.chat(messages) if mode == "sync" else await llm.achat(messages)
    (end,) = seen.named("LLMChatEndEvent")
    assert end.response is not None  # type: ignore[attr-defined]
    assert end.response.message.content == "seen whole"  # type: ignore[attr-defined]
    assert response.message.content == "seen whole"
