"""SSELLM(protocol="anthropic") on real Anthropic captures (tests/fixtures/real/anthropic/,
provenance in tests/fixtures/real/SOURCES.md), as LlamaIndex shows them: the message keeps
the stop reason and the gateway's usage where llama-index's Anthropic LLM keeps them, a
web-search answer is its text alone (no CitationBlock: llama-index makes those of search
results only), and a tool input cut by max_tokens is a ToolCallBlock as written that
``get_tool_calls_from_response`` refuses by name. (That nothing the core decodes is lost, for
both adapters: tests/adapters/test_real_captures.py.)
"""

from __future__ import annotations

import pytest
from llama_index.core.base.llms.types import ChatResponse, ToolCallBlock

import sse_core
from llamaindex_sse import SSELLM
from tests.adapters.conftest import HOWS, LlamaIndexDriver
from tests.core.anthropic.test_captures import CAPTURES, CUT_ARGUMENTS
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

DRIVER = LlamaIndexDriver()
CUT = "anthropic-sdk-python__max-tokens-cut-tool-input-padded.sse"


def served_response(name: str, how: str) -> tuple[SSELLM, ChatResponse]:
    """The model and the last response SSELLM gives of the capture ``name``, read ``how``."""
    body = CAPTURES[name]
    with serving(lambda n, request: response(body)) as served:
        llm = DRIVER.make(model="claude-test", base_url=served.url, api_key="sk-ant-test",
                          protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
        message = DRIVER.answer(llm, how).native
    return llm, ChatResponse(message=message)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("name", sorted(set(CAPTURES) - {CUT}))
def test_the_message_keeps_the_stop_reason_and_the_gateways_usage(name: str, how: str) -> None:
    reference = sse_core.decode(CAPTURES[name], protocol="anthropic")
    _, last = served_response(name, how)
    kept = last.message.additional_kwargs
    assert kept["stop_reason"] == reference.stop_reason
    assert reference.usage is not None and kept["usage"] == dict(reference.usage.raw)


def test_the_cached_captures_usage_as_the_gateway_counted_it() -> None:
    _, last = served_response("vercel-ai__bash-code-execution-prompt-cache.payloads.jsonl", "ask")
    kept = last.message.additional_kwargs["usage"]
    assert (kept["input_tokens"], kept["cache_read_input_tokens"]) == (6, 6289)
    assert kept["cache_creation_input_tokens"] == 3337


@pytest.mark.parametrize("how", HOWS)
def test_a_real_tool_input_cut_by_max_tokens_is_refused_by_name(how: str) -> None:
    llm, last = served_response(CUT, how)
    (block,) = [b for b in last.message.blocks if isinstance(b, ToolCallBlock)]
    assert (block.tool_call_id, block.tool_name) == ("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file")
    assert block.tool_kwargs == CUT_ARGUMENTS  # never repaired
    with pytest.raises(ValueError, match="make_file"):
        llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)


@pytest.mark.parametrize("how", HOWS)
def test_a_real_web_search_answer_is_its_text_alone(how: str) -> None:
    _, last = served_response("vercel-ai__web-search-citations.payloads.jsonl", how)
    assert [b.block_type for b in last.message.blocks] == ["text"]
