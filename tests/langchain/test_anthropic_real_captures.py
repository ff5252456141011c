"""ChatSSE(protocol="anthropic") on the real Anthropic captures of
``tests/fixtures/real/anthropic/`` (provenance in tests/fixtures/real/SOURCES.md), served as
sent by a loopback server: nothing the core decodes of a capture is lost on the way to the
LangChain message (text, reasoning with its signature byte-exact, tool calls, usage with
cache counts, stop reason, id and model), whether invoked or streamed, sync or async.

The reference is ``sse_core.decode`` of the same bytes, whose values
tests/core/anthropic/test_captures.py checks against the captures by hand; a few values are
also read off the captures here.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage

import sse_core
from langchain_sse import ChatSSE, ToolArgumentsError
from sse_core import Completion
from tests.core.anthropic.test_captures import CAPTURES, CUT_ARGUMENTS
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

MODES = ("invoke", "stream", "ainvoke", "astream")
# Its tool input was cut by max_tokens: a flagged call, checked on its own below.
CUT = "anthropic-sdk-python__max-tokens-cut-tool-input-padded.sse"


def _message(base_url: str, mode: str) -> BaseMessage:
    model = ChatSSE(model="claude-test", base_url=base_url, api_key="sk-ant-test",
                    protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
    if mode == "invoke":
        return model.invoke("hi")
    if mode == "stream":
        chunks = list(model.stream("hi"))
        merged: Any = chunks[0]
        for chunk in chunks[1:]:
            merged = merged + chunk
        return merged  # type: ignore[no-any-return]

    async def run() -> BaseMessage:
        if mode == "ainvoke":
            return await model.ainvoke("hi")
        merged: Any = None
        async for chunk in model.astream("hi"):
            merged = chunk if merged is None else merged + chunk
        assert isinstance(merged, AIMessageChunk)
        return merged

    return asyncio.run(asyncio.wait_for(run(), 30))


def served_message(name: str, mode: str) -> AIMessage:
    body = CAPTURES[name]
    with serving(lambda n, request: response(body)) as served:
        message = _message(served.url, mode)
    assert isinstance(message, AIMessage)  # an AIMessageChunk when streamed
    return message


def _blocks(reference: Completion) -> list[dict[str, Any]]:
    """The reasoning blocks as Anthropic wants them back on the next turn."""
    return [
        {"type": "redacted_thinking", "data": b.redacted}
        if b.redacted is not None
        else {"type": "thinking", "thinking": b.text, "signature": b.signature}
        for b in reference.reasoning_blocks
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(set(CAPTURES) - {CUT}))
def test_nothing_the_core_decodes_is_lost(name: str, mode: str) -> None:
    reference = sse_core.decode(CAPTURES[name], protocol="anthropic")
    message = served_message(name, mode)
    assert isinstance(message, AIMessage)
    assert message.text == reference.content
    assert message.additional_kwargs.get("reasoning_content", "") == reference.reasoning
    kept = message.additional_kwargs.get("reasoning_blocks", [])
    assert [{k: v for k, v in b.items() if k != "index"} for b in kept] == _blocks(reference)
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        (t.id, t.name, json.loads(t.arguments)) for t in reference.tool_calls
    ]
    assert message.invalid_tool_calls == []
    usage, expected = message.usage_metadata, reference.usage
    assert usage is not None and expected is not None
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (
        expected.prompt_tokens,
        expected.completion_tokens,
        expected.total_tokens,
    )
    outputs: Any = usage.get("output_token_details") or {}
    assert outputs.get("reasoning") == expected.reasoning_tokens
    details: Any = usage.get("input_token_details") or {}
    assert details.get("cache_read", 0) == (expected.cached_tokens or 0)
    assert details.get("cache_creation", 0) == (expected.cache_write_tokens or 0)
    meta = message.response_metadata
    assert (meta["stop_reason"], meta["finish_reason"]) == (
        reference.stop_reason,
        reference.finish_reason,
    )
    assert (meta["id"], meta["model_name"]) == (reference.id, reference.model)
    assert meta.get("citations", []) == list(reference.citations)
    assert meta.get("stop_sequence") == reference.stop_sequence


@pytest.mark.parametrize("mode", MODES)
def test_a_signature_of_a_real_stream_reaches_the_standard_block(mode: str) -> None:
    message = served_message("vercel-ai__sonnet5-thinking-signature-padded.payloads.jsonl", mode)
    blocks: list[Any] = list(message.content_blocks)
    reasoning, text = blocks
    assert reasoning["type"] == "reasoning" and text["type"] == "text"
    signature = reasoning["extras"]["signature"]
    assert len(signature) == 436 and signature.endswith("Ltlg+1I6L4oPGAE=")
    assert reasoning["reasoning"].startswith("I'm working through the Euclidean algorithm")
    assert message.usage_metadata is not None
    assert message.usage_metadata.get("output_token_details") == {"reasoning": 62}


@pytest.mark.parametrize("mode", MODES)
def test_prompt_tokens_of_a_real_cached_stream(mode: str) -> None:
    message = served_message("vercel-ai__bash-code-execution-prompt-cache.payloads.jsonl", mode)
    assert message.usage_metadata == {
        "input_tokens": 6 + 6289 + 3337,
        "output_tokens": 198,
        "total_tokens": 6 + 6289 + 3337 + 198,
        "input_token_details": {"cache_read": 6289, "cache_creation": 3337},
        "output_token_details": {"reasoning": 0},
    }
    assert message.tool_calls == []  # the bash runs were Anthropic's server tools


@pytest.mark.parametrize("mode", MODES)
def test_a_real_tool_call_with_a_caller(mode: str) -> None:
    message = served_message("vercel-ai__tool-use-caller-stop-details.payloads.jsonl", mode)
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        ("toolu_01Ni1uw4HXYxUhc4iFMqx7yY", "get_weather", {"city": "San Francisco"})
    ]
    assert message.text == "Let me check."
    assert message.response_metadata["stop_reason"] == "tool_use"


@pytest.mark.parametrize("mode", MODES)
def test_a_real_tool_input_cut_by_max_tokens_is_an_invalid_call_as_written(mode: str) -> None:
    if mode.endswith("stream"):  # merging chunks would re-parse it: raised after the last one
        with pytest.raises(ToolArgumentsError) as caught:
            served_message(CUT, mode)
        message, call = caught.value.partial_message, caught.value.call
        assert call is not None and call.arguments == CUT_ARGUMENTS
    else:
        message = served_message(CUT, mode)
    assert isinstance(message, AIMessage)
    assert message.tool_calls == []
    assert [(c["id"], c["name"], c["args"]) for c in message.invalid_tool_calls] == [
        ("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file", CUT_ARGUMENTS)
    ]
    assert message.text.endswith("in a file called taxes.txt. Let me do that for you now.")
    assert message.response_metadata["stop_reason"] == "max_tokens"
    assert message.usage_metadata is not None
    assert message.usage_metadata["output_tokens"] == 124


WEB_SEARCH = "vercel-ai__web-search-citations.payloads.jsonl"
GINZA = (
    "https://www.apple.com/newsroom/2025/09/"
    "the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/"
)


@pytest.mark.parametrize("mode", MODES)
def test_real_web_search_citations_are_the_text_blocks_annotations(mode: str) -> None:
    message = served_message(WEB_SEARCH, mode)
    assert message.tool_calls == []  # web_search ran on the server
    cited = message.response_metadata["citations"]
    assert len(cited) == 14 and cited[0]["cited_text"].startswith("Apple today announced")
    (text,) = message.content_blocks
    assert text["type"] == "text" and text["text"].startswith("Based on my search results")
    annotations: list[Any] = list(text.get("annotations", []))
    assert len(annotations) == 14
    assert annotations[0] == {
        "type": "citation",
        "cited_text": "Apple today announced the grand reopening of Apple Ginza on Friday,"
        " September 26, located in the vibrant Ginza district.",
        "url": GINZA,
        "title": "The all-new Apple Ginza opens this Friday, September 26, in Tokyo - Apple",
        "extras": {"encrypted_index": cited[0]["encrypted_index"]},
    }
    assert cited[0]["encrypted_index"].endswith("jQaotEHkYBA==")
    assert [a["url"] for a in annotations].count(GINZA) == 5
    assert message.usage_metadata is not None
    assert message.usage_metadata["input_tokens"] == 15665
