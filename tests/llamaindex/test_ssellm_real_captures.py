"""SSELLM(protocol="anthropic") on the real Anthropic captures of
``tests/fixtures/real/anthropic/`` (provenance in tests/fixtures/real/SOURCES.md), served as
sent by a loopback server: nothing the core decodes of a capture is lost on the way to the
ChatResponse (text, ThinkingBlocks with their signatures byte-exact, tool calls, usage with
cache counts, stop reason), read through chat, stream_chat, achat and astream_chat.

The reference is ``sse_core.decode`` of the same bytes, whose values
tests/core/anthropic/test_captures.py checks against the captures by hand; a few values are
also read off the captures here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ThinkingBlock,
    ToolCallBlock,
)

import sse_core
from llamaindex_sse import SSELLM
from sse_core import Completion
from tests.core.anthropic.test_captures import CAPTURES, CUT_ARGUMENTS
from tests.llamaindex.anthropic_support import MODES, raw_of, read, thinking_of
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

# Its tool input was cut by max_tokens: a flagged call, checked on its own below.
CUT = "anthropic-sdk-python__max-tokens-cut-tool-input-padded.sse"


def served_responses(name: str, mode: str) -> tuple[SSELLM, list[ChatResponse]]:
    body = CAPTURES[name]
    with serving(lambda n, request: response(body)) as served:
        llm = SSELLM(protocol="anthropic", model="claude-test", base_url=served.url,
                     api_key="sk-ant-test", max_retries=0, timeout=10, max_tokens=256)  # fmt: skip
        return llm, read(llm, [ChatMessage(role="user", content="hi")], mode)


def _thinking(reference: Completion) -> list[ThinkingBlock]:
    return [
        ThinkingBlock(
            content="",
            additional_information={"type": "redacted_thinking", "data": b.redacted},
        )
        if b.redacted is not None
        else ThinkingBlock(
            content=b.text,
            additional_information={"type": "thinking", "signature": b.signature},
        )
        for b in reference.reasoning_blocks
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(set(CAPTURES) - {CUT}))
def test_nothing_the_core_decodes_is_lost(name: str, mode: str) -> None:
    reference = sse_core.decode(CAPTURES[name], protocol="anthropic")
    llm, responses = served_responses(name, mode)
    last = responses[-1]
    assert last.message.content == reference.content
    assert thinking_of(last) == _thinking(reference)
    calls = llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)
    assert [(c.tool_id, c.tool_name, c.tool_kwargs) for c in calls] == [
        (t.id, t.name, json.loads(t.arguments)) for t in reference.tool_calls
    ]
    usage = reference.usage
    assert usage is not None
    tokens = last.additional_kwargs
    assert (tokens["prompt_tokens"], tokens["completion_tokens"], tokens["total_tokens"]) == (
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.total_tokens,
    )
    assert (tokens["cached_tokens"], tokens["cache_write_tokens"]) == (
        usage.cached_tokens,
        usage.cache_write_tokens,
    )
    assert tokens["reasoning_tokens"] == usage.reasoning_tokens
    assert (tokens["finish_reason"], tokens["stop_reason"]) == (
        reference.finish_reason,
        reference.stop_reason,
    )
    assert last.message.additional_kwargs["stop_reason"] == reference.stop_reason
    assert last.additional_kwargs.get("citations", []) == list(reference.citations)
    assert tokens.get("stop_sequence") == reference.stop_sequence
    raw: Any = raw_of(last)
    assert (raw["id"], raw["model"]) == (reference.id, reference.model)
    if mode.endswith("stream_chat"):
        assert "".join(r.delta or "" for r in responses) == reference.content
        thought = "".join(r.additional_kwargs.get("thinking_delta", "") for r in responses)
        assert thought == reference.reasoning


@pytest.mark.parametrize("mode", MODES)
def test_a_signature_of_a_real_stream_is_kept_byte_exact(mode: str) -> None:
    _, responses = served_responses("vercel-ai__thinking-context-management.payloads.jsonl", mode)
    (block,) = thinking_of(responses[-1])
    assert (
        block.content
        == "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"
    )
    signature = block.additional_information["signature"]
    assert len(signature) == 332 and signature.startswith("EvQBCkYICxgCKkAx")
    assert signature.endswith("EhT6Ca17BgB")
    assert responses[-1].message.content == "925 ÷ 5 = 185"


@pytest.mark.parametrize("mode", MODES)
def test_cache_counts_of_a_real_stream(mode: str) -> None:
    _, responses = served_responses(
        "vercel-ai__bash-code-execution-prompt-cache.payloads.jsonl", mode
    )
    last = responses[-1]
    tokens = last.additional_kwargs
    assert (tokens["prompt_tokens"], tokens["completion_tokens"]) == (6 + 6289 + 3337, 198)
    assert (tokens["cached_tokens"], tokens["cache_write_tokens"]) == (6289, 3337)
    assert tokens["reasoning_tokens"] == 0  # output_tokens_details.thinking_tokens
    kept = last.message.additional_kwargs["usage"]
    assert (kept["input_tokens"], kept["cache_read_input_tokens"]) == (6, 6289)
    assert kept["cache_creation_input_tokens"] == 3337


@pytest.mark.parametrize("mode", MODES)
def test_a_real_tool_call_with_a_caller(mode: str) -> None:
    llm, responses = served_responses(
        "vercel-ai__tool-use-caller-stop-details.payloads.jsonl", mode
    )
    (call,) = llm.get_tool_calls_from_response(responses[-1])
    assert (call.tool_id, call.tool_name, call.tool_kwargs) == (
        "toolu_01Ni1uw4HXYxUhc4iFMqx7yY",
        "get_weather",
        {"city": "San Francisco"},
    )
    assert responses[-1].message.content == "Let me check."


@pytest.mark.parametrize("mode", MODES)
def test_a_real_tool_input_cut_by_max_tokens_is_kept_as_written(mode: str) -> None:
    llm, responses = served_responses(CUT, mode)
    last = responses[-1]
    (block,) = [b for b in last.message.blocks if isinstance(b, ToolCallBlock)]
    assert (block.tool_call_id, block.tool_name) == ("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file")
    assert block.tool_kwargs == CUT_ARGUMENTS  # never repaired
    with pytest.raises(ValueError, match="make_file"):
        llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)
    assert str(last.message.content).endswith("Let me do that for you now.")
    assert (last.additional_kwargs["finish_reason"], last.additional_kwargs["stop_reason"]) == (
        "length",
        "max_tokens",
    )
    assert last.additional_kwargs["completion_tokens"] == 124


@pytest.mark.parametrize("mode", MODES)
def test_real_web_search_citations_are_kept_as_sent(mode: str) -> None:
    _, responses = served_responses("vercel-ai__web-search-citations.payloads.jsonl", mode)
    last = responses[-1]
    cited = last.additional_kwargs["citations"]
    assert len(cited) == 14
    assert [c["type"] for c in cited] == ["web_search_result_location"] * 14
    assert cited[0]["cited_text"] == (
        "Apple today announced the grand reopening of Apple Ginza on Friday, September 26,"
        " located in the vibrant Ginza district."
    )
    assert cited[-1]["cited_text"] == (
        "Apple released iOS 26 on September 15, bringing the Liquid Glass redesign to the iPhone. "
    )
    # Web results are no CitationBlocks (llama-index's Anthropic LLM makes them of search
    # results only): the answer is its text alone.
    assert [b.block_type for b in last.message.blocks] == ["text"]
    assert str(last.message.content).endswith("their first international retail expansion.")
