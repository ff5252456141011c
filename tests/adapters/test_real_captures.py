"""Both adapters on the real Anthropic captures of ``tests/fixtures/real/anthropic/``
(provenance in tests/fixtures/real/SOURCES.md), served as sent by a loopback server: nothing
the core decodes of a capture is lost on the way to the framework's answer (text, reasoning
blocks with their signatures byte-exact, tool calls, usage with cache counts, stop reason and
sequence, citations, id and model), read the four ways; a tool input cut by max_tokens is kept
as written and flagged, never repaired.

The reference is ``sse_core.decode`` of the same bytes, whose values
tests/core/anthropic/test_captures.py checks against the captures by hand; a few values are
also read off the captures here. (How each framework shows the blocks and citations:
tests/langchain/test_anthropic_real_captures.py and
tests/llamaindex/test_ssellm_real_captures.py.)

The same on ``protocol="responses"`` with the real OpenAI Responses captures of
``tests/fixtures/responses/real/`` (checked by hand in
tests/core/responses/test_real_captures.py): the reasoning item comes back as its
``output_item.done`` gave it, hosted tools as gateway events, the ``error`` event as a
GatewayStreamError with its code.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import sse_core
from sse_core import Completion
from tests.adapters.answers import Answer, Usage
from tests.adapters.conftest import HOWS, Driver
from tests.core.anthropic.test_captures import CAPTURES, CUT_ARGUMENTS
from tests.core.responses.test_real_captures import CAPTURES as RESPONSES
from tests.core.responses.test_real_captures import ERROR as RESPONSES_ERROR
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

#: Its tool input was cut by max_tokens: a flagged call, checked on its own below.
CUT = "anthropic-sdk-python__max-tokens-cut-tool-input-padded.sse"
WEB_SEARCH = "vercel-ai__web-search-citations.payloads.jsonl"


def served(driver: Driver, name: str, how: str) -> Answer:
    """The answer ``driver``'s model reads ``how`` from the capture ``name``, served as sent."""
    body = CAPTURES[name]
    with serving(lambda n, request: response(body)) as server:
        model = driver.make(model="claude-test", base_url=server.url, api_key="sk-ant-test",
                            protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
        return driver.answer(model, how)


def _blocks(reference: Completion) -> list[dict[str, Any]]:
    """The reasoning blocks as Anthropic wants them back on the next turn."""
    return [
        {"type": "redacted_thinking", "data": b.redacted}
        if b.redacted is not None
        else {"type": "thinking", "thinking": b.text, "signature": b.signature}
        for b in reference.reasoning_blocks
    ]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("name", sorted(set(CAPTURES) - {CUT}))
def test_nothing_the_core_decodes_is_lost(driver: Driver, name: str, how: str) -> None:
    reference = sse_core.decode(CAPTURES[name], protocol="anthropic")
    answer = served(driver, name, how)
    assert answer.text == reference.content
    assert answer.reasoning == reference.reasoning
    assert answer.reasoning_blocks == _blocks(reference)
    assert answer.tool_calls == [
        (t.id, t.name, json.loads(t.arguments)) for t in reference.tool_calls
    ]
    assert (answer.cut_calls, answer.refused) == ([], "")
    expected = reference.usage
    assert expected is not None
    assert answer.usage == Usage(
        prompt=expected.prompt_tokens,
        completion=expected.completion_tokens,
        total=expected.total_tokens,
        cached=expected.cached_tokens,
        cache_write=expected.cache_write_tokens,
        reasoning=expected.reasoning_tokens,
    )
    assert (answer.stop_reason, answer.finish_reason, answer.stop_sequence) == (
        reference.stop_reason,
        reference.finish_reason,
        reference.stop_sequence,
    )
    assert (answer.id, answer.model) == (reference.id, reference.model)
    assert answer.citations == list(reference.citations)
    if how.endswith("stream"):
        assert answer.deltas == reference.content
        assert answer.thought == reference.reasoning


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize(
    ("name", "thought", "length", "ends"),
    [
        (
            "vercel-ai__sonnet5-thinking-signature-padded.payloads.jsonl",
            "I'm working through the Euclidean algorithm",
            436,
            "Ltlg+1I6L4oPGAE=",
        ),
        (
            "vercel-ai__thinking-context-management.payloads.jsonl",
            "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
            332,
            "EhT6Ca17BgB",
        ),
    ],
    ids=["sonnet5", "context-management"],
)
def test_a_signature_of_a_real_stream_is_kept_byte_exact(
    driver: Driver, how: str, name: str, thought: str, length: int, ends: str
) -> None:
    answer = served(driver, name, how)
    ((block),) = answer.reasoning_blocks
    assert block["type"] == "thinking" and block["thinking"].startswith(thought)
    assert len(block["signature"]) == length and block["signature"].endswith(ends)


def test_the_signed_captures_say_what_is_checked_above(driver: Driver) -> None:
    sonnet = served(driver, "vercel-ai__sonnet5-thinking-signature-padded.payloads.jsonl", "ask")
    assert sonnet.usage is not None and sonnet.usage.reasoning == 62
    context = served(driver, "vercel-ai__thinking-context-management.payloads.jsonl", "ask")
    assert context.text == "925 ÷ 5 = 185"
    assert context.reasoning_blocks[0]["signature"].startswith("EvQBCkYICxgCKkAx")


@pytest.mark.parametrize("how", HOWS)
def test_prompt_tokens_of_a_real_cached_stream(driver: Driver, how: str) -> None:
    answer = served(driver, "vercel-ai__bash-code-execution-prompt-cache.payloads.jsonl", how)
    assert answer.usage == Usage(prompt=6 + 6289 + 3337, completion=198,
                                 total=6 + 6289 + 3337 + 198, cached=6289, cache_write=3337,
                                 reasoning=0)  # fmt: skip
    assert answer.tool_calls == []  # the bash runs were Anthropic's server tools


@pytest.mark.parametrize("how", HOWS)
def test_a_real_tool_call_with_a_caller(driver: Driver, how: str) -> None:
    answer = served(driver, "vercel-ai__tool-use-caller-stop-details.payloads.jsonl", how)
    assert answer.tool_calls == [
        ("toolu_01Ni1uw4HXYxUhc4iFMqx7yY", "get_weather", {"city": "San Francisco"})
    ]
    assert answer.text == "Let me check."
    assert answer.stop_reason == "tool_use"


@pytest.mark.parametrize("how", HOWS)
def test_a_real_tool_input_cut_by_max_tokens_is_flagged_as_written(
    driver: Driver, how: str
) -> None:
    answer = served(driver, CUT, how)
    assert answer.tool_calls == []
    assert answer.cut_calls == [("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file", CUT_ARGUMENTS)]
    assert "make_file" in answer.refused or "not valid JSON" in answer.refused
    assert answer.text.endswith("in a file called taxes.txt. Let me do that for you now.")
    assert (answer.stop_reason, answer.finish_reason) == ("max_tokens", "length")
    assert answer.usage is not None and answer.usage.completion == 124


@pytest.mark.parametrize("how", HOWS)
def test_real_web_search_citations_are_kept_as_sent(driver: Driver, how: str) -> None:
    answer = served(driver, WEB_SEARCH, how)
    assert answer.tool_calls == []  # web_search ran on the server
    cited = answer.citations
    assert len(cited) == 14
    assert [c["type"] for c in cited] == ["web_search_result_location"] * 14
    assert cited[0]["cited_text"] == (
        "Apple today announced the grand reopening of Apple Ginza on Friday, September 26,"
        " located in the vibrant Ginza district."
    )
    assert cited[0]["encrypted_index"].endswith("jQaotEHkYBA==")
    assert cited[-1]["cited_text"] == (
        "Apple released iOS 26 on September 15, bringing the Liquid Glass redesign to the iPhone. "
    )
    assert answer.text.startswith("Based on my search results")
    assert answer.text.endswith("their first international retail expansion.")
    assert answer.usage is not None and answer.usage.prompt == 15665


# --- OpenAI Responses captures ---


def served_responses(driver: Driver, name: str, how: str) -> Answer:
    """The answer ``driver``'s model reads ``how`` from the Responses capture ``name``."""
    body = RESPONSES[name]
    with serving(lambda n, request: response(body)) as server:
        model = driver.make(model="gpt-test", base_url=server.url, api_key="sk-test",
                            protocol="responses", max_retries=0, timeout=10)  # fmt: skip
        return driver.answer(model, how)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("name", sorted(set(RESPONSES) - {RESPONSES_ERROR}))
def test_nothing_the_core_decodes_of_a_real_responses_stream_is_lost(
    driver: Driver, name: str, how: str
) -> None:
    reference = sse_core.decode(RESPONSES[name], protocol="responses")
    answer = served_responses(driver, name, how)
    assert answer.text == reference.content
    assert answer.reasoning == reference.reasoning
    assert answer.reasoning_blocks == [b.item for b in reference.reasoning_blocks]
    assert answer.tool_calls == [
        (t.id, t.name, json.loads(t.arguments)) for t in reference.tool_calls
    ]
    assert (answer.cut_calls, answer.refused) == ([], "")
    expected = reference.usage
    assert expected is not None
    assert answer.usage == Usage(
        prompt=expected.prompt_tokens,
        completion=expected.completion_tokens,
        total=expected.total_tokens,
        cached=expected.cached_tokens,
        cache_write=expected.cache_write_tokens,
        reasoning=expected.reasoning_tokens,
    )
    assert (answer.stop_reason, answer.finish_reason) == (
        reference.stop_reason,
        reference.finish_reason,
    )
    assert (answer.id, answer.model) == (reference.id, reference.model)
    assert answer.citations == list(reference.citations)
    assert [n for n, _ in answer.gateway_events] == [e.name for e in reference.events]
    if how.endswith("stream"):
        assert answer.deltas == reference.content
        assert answer.thought == reference.reasoning


@pytest.mark.parametrize("how", HOWS)
def test_a_real_responses_error_event_raises_with_its_code(driver: Driver, how: str) -> None:
    with pytest.raises(driver.error("GatewayStreamError")) as caught:
        served_responses(driver, RESPONSES_ERROR, how)
    error = caught.value
    assert isinstance(error, sse_core.GatewayStreamError)
    assert error.code == "insufficient_quota"
    assert "You exceeded your current quota" in str(error)
