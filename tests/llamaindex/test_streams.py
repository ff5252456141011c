"""The stream twins through SSELLM against the emulator: every dialect, sync and async, the
eight endpoints, and the LlamaIndex events of each."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatResponse, TextBlock, ThinkingBlock
from llama_index.core.llms import ChatMessage

from sse_emulator import Emulator
from tests.llamaindex.li_support import (
    ALL_DIALECTS,
    REASONING_DIALECTS,
    SEED_DIALECTS,
    LLMFactory,
    collect_events,
)

ASK = [ChatMessage(role="user", content="count to 12")]
ANSWER = " ".join(str(n) for n in range(1, 13))


def check_stream(responses: list[ChatResponse], dialect: str, thinking: bool) -> None:
    """The per-chunk contract, checked on a whole streamed answer."""
    assert responses, "at least one response"
    assert "".join(r.delta or "" for r in responses) == ANSWER
    running = ""
    for response in responses:
        running += response.delta or ""
        texts = [b for b in response.message.blocks if isinstance(b, TextBlock)]
        assert len(texts) == 1 and texts[0].text == running
    last = responses[-1]
    assert last.additional_kwargs["finish_reason"] == "stop"
    assert last.raw is not None and last.raw["usage"]["completion_tokens"] > 0
    assert last.additional_kwargs["prompt_tokens"] == last.raw["usage"]["prompt_tokens"]
    assert set(last.additional_kwargs) >= {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "cached_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
    }
    if thinking and dialect in REASONING_DIALECTS:
        thought = "".join(r.additional_kwargs.get("thinking_delta", "") for r in responses)
        (block,) = [b for b in last.message.blocks if isinstance(b, ThinkingBlock)]
        assert thought and block.content == thought


@pytest.mark.parametrize("dialect", ALL_DIALECTS)
def test_stream_chat_every_dialect(make_llm: LLMFactory, dialect: str) -> None:
    llm = make_llm(dialect, model="emulator-think")
    check_stream(list(llm.stream_chat(ASK)), dialect, thinking=True)


@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_astream_chat_every_dialect(make_llm: LLMFactory, dialect: str) -> None:
    llm = make_llm(dialect, model="emulator-think")
    responses = [r async for r in await llm.astream_chat(ASK)]
    check_stream(responses, dialect, thinking=True)


@pytest.mark.parametrize("dialect", SEED_DIALECTS)
def test_chat_every_seed_dialect(make_llm: LLMFactory, dialect: str) -> None:
    response = make_llm(dialect).chat(ASK)
    assert response.message.content == ANSWER
    assert response.additional_kwargs["finish_reason"] == "stop"
    assert response.raw is not None and response.raw["usage"]["total_tokens"] > 0


@pytest.mark.parametrize("dialect", SEED_DIALECTS)
async def test_achat_every_seed_dialect(make_llm: LLMFactory, dialect: str) -> None:
    response = await make_llm(dialect).achat(ASK)
    assert response.message.content == ANSWER
    assert response.additional_kwargs["total_tokens"] == response.raw["usage"]["total_tokens"]  # type: ignore[index]


def test_stream_and_chat_agree(make_llm: LLMFactory) -> None:
    llm = make_llm(model="emulator-think")
    whole = llm.chat(ASK)
    last = list(llm.stream_chat(ASK))[-1]
    assert last.message.blocks == whole.message.blocks
    assert last.raw is not None and whole.raw is not None
    assert last.raw["usage"] == whole.raw["usage"]


def test_the_completion_endpoints(make_llm: LLMFactory) -> None:
    llm = make_llm()
    assert llm.complete("count to 12").text == ANSWER
    pieces = list(llm.stream_complete("count to 12"))
    assert "".join(p.delta or "" for p in pieces) == ANSWER
    assert pieces[-1].text == ANSWER
    assert pieces[-1].additional_kwargs["finish_reason"] == "stop"


async def test_the_async_completion_endpoints(make_llm: LLMFactory) -> None:
    llm = make_llm()
    assert (await llm.acomplete("count to 12")).text == ANSWER
    pieces = [p async for p in await llm.astream_complete("count to 12")]
    assert pieces[-1].text == ANSWER
    assert pieces[-1].raw is not None and pieces[-1].raw["usage"]["prompt_tokens"] > 0


def names(events: list[Any]) -> list[str]:
    return [e.class_name() for e in events]


def test_stream_events_are_start_one_per_chunk_and_end(make_llm: LLMFactory) -> None:
    with collect_events() as seen:
        responses = list(make_llm().stream_chat(ASK))
    llm_events = seen.named("LLMChatStartEvent", "LLMChatInProgressEvent", "LLMChatEndEvent")
    assert names(llm_events) == [
        "LLMChatStartEvent",
        *["LLMChatInProgressEvent"] * len(responses),
        "LLMChatEndEvent",
    ]
    progress = llm_events[1:-1]
    assert [e.response for e in progress] == responses  # type: ignore[attr-defined]
    assert llm_events[-1].response is responses[-1]  # type: ignore[attr-defined]


async def test_async_stream_events_share_the_call_span(make_llm: LLMFactory) -> None:
    with collect_events() as seen:
        responses = [r async for r in await make_llm().astream_chat(ASK)]
    llm_events = seen.named("LLMChatStartEvent", "LLMChatInProgressEvent", "LLMChatEndEvent")
    assert len(llm_events) == len(responses) + 2
    assert len({e.span_id for e in llm_events}) == 1
    assert llm_events[0].span_id is not None
    assert llm_events[0].span_id.startswith("SSELLM.astream_chat")


def test_chat_and_complete_emit_one_start_and_end(make_llm: LLMFactory) -> None:
    with collect_events() as seen:
        make_llm().chat(ASK)
        make_llm().complete("count to 12")
    assert names(seen.named("LLMChatStartEvent", "LLMChatEndEvent")) == [
        "LLMChatStartEvent",
        "LLMChatEndEvent",
    ]
    assert names(seen.named("LLMCompletionStartEvent", "LLMCompletionEndEvent")) == [
        "LLMCompletionStartEvent",
        "LLMCompletionEndEvent",
    ]


def test_spass_usage_trailer_and_c1_path(emulator: Emulator, make_llm: LLMFactory) -> None:
    llm = make_llm(base_url=emulator.url + "/spass", path="/c1/chat")
    last = list(llm.stream_chat(ASK))[-1]
    assert last.message.content == ANSWER
    assert last.raw is not None and last.raw["usage"]["total_tokens"] > 0
    assert emulator.last_request is not None and emulator.last_request.path == "/spass/c1/chat"


def test_refusal(make_llm: LLMFactory) -> None:
    last = list(make_llm().stream_chat([ChatMessage(role="user", content="forbidden")]))[-1]
    assert last.message.additional_kwargs["refusal"].startswith("I'm sorry")
    assert last.message.content == ""


def test_reasoning_from_think_tags(make_llm: LLMFactory) -> None:
    last = list(make_llm("gateway", fault="think-tags", model="emulator-think").stream_chat(ASK))[
        -1
    ]
    thinking, text = last.message.blocks
    assert isinstance(thinking, ThinkingBlock) and thinking.content
    assert isinstance(text, TextBlock) and text.text == ANSWER


# The README's LlamaIndex streaming loop (after ``llm = SSELLM(...)``): thinking and answer
# printed apart, each delta as it came.
README_LOOP = """
thinking = False
for chunk in llm.stream_chat([ChatMessage(role="user", content="count to 12")]):
    if thought := chunk.additional_kwargs.get("thinking_delta"):
        print(thought if thinking else f"[thinking] {thought}", end="", flush=True)
        thinking = True
    if chunk.delta:
        if thinking:
            print("\\n[answer] ", end="")
            thinking = False
        print(chunk.delta, end="", flush=True)
print()
"""


def test_the_readme_loop_prints_thinking_then_the_answer(
    make_llm: LLMFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    llm = make_llm(model="emulator-think")
    thought = "".join(r.additional_kwargs.get("thinking_delta", "") for r in llm.stream_chat(ASK))
    exec(README_LOOP, {"llm": llm, "ChatMessage": ChatMessage})
    assert capsys.readouterr().out == f"[thinking] {thought}\n[answer] {ANSWER}\n"
