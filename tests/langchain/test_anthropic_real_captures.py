"""ChatSSE(protocol="anthropic") on real Anthropic captures (tests/fixtures/real/anthropic/,
provenance in tests/fixtures/real/SOURCES.md), as LangChain shows them: a signature reaches
the standard reasoning block, web-search citations are the text block's annotations, and a
stream whose tool input was cut by max_tokens ends with ToolArgumentsError carrying the call
as written. (That nothing the core decodes is lost, for both adapters:
tests/adapters/test_real_captures.py.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from langchain_sse import ToolArgumentsError
from tests.adapters.conftest import HOWS, LangChainDriver
from tests.core.anthropic.test_captures import CAPTURES, CUT_ARGUMENTS
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

DRIVER = LangChainDriver()
CUT = "anthropic-sdk-python__max-tokens-cut-tool-input-padded.sse"
WEB_SEARCH = "vercel-ai__web-search-citations.payloads.jsonl"
GINZA = (
    "https://www.apple.com/newsroom/2025/09/"
    "the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/"
)


def served_message(name: str, how: str) -> Any:
    """The AIMessage (an AIMessageChunk when streamed) ChatSSE gives of the capture ``name``."""
    body = CAPTURES[name]
    with serving(lambda n, request: response(body)) as served:
        model = DRIVER.make(model="claude-test", base_url=served.url, api_key="sk-ant-test",
                            protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
        return DRIVER.answer(model, how).native


@pytest.mark.parametrize("how", HOWS)
def test_a_signature_of_a_real_stream_reaches_the_standard_block(how: str) -> None:
    message = served_message("vercel-ai__sonnet5-thinking-signature-padded.payloads.jsonl", how)
    blocks: list[Any] = list(message.content_blocks)
    reasoning, text = blocks
    assert reasoning["type"] == "reasoning" and text["type"] == "text"
    signature = reasoning["extras"]["signature"]
    assert len(signature) == 436 and signature.endswith("Ltlg+1I6L4oPGAE=")
    assert reasoning["reasoning"].startswith("I'm working through the Euclidean algorithm")
    assert message.usage_metadata.get("output_token_details") == {"reasoning": 62}


@pytest.mark.parametrize("how", ["stream", "astream"])
def test_a_stream_cut_in_its_tool_input_raises_with_the_call_as_written(how: str) -> None:
    # Merging the chunks would re-parse the call: the error comes after the last one.
    body = CAPTURES[CUT]
    with serving(lambda n, request: response(body)) as served:
        model = DRIVER.make(model="claude-test", base_url=served.url, api_key="sk-ant-test",
                            protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
        with pytest.raises(ToolArgumentsError) as caught:
            asyncio.run(asyncio.wait_for(DRIVER.call(model, how), 30))
    call = caught.value.call
    assert call is not None and call.arguments == CUT_ARGUMENTS
    assert caught.value.partial_message.tool_calls == []


@pytest.mark.parametrize("how", HOWS)
def test_real_web_search_citations_are_the_text_blocks_annotations(how: str) -> None:
    message = served_message(WEB_SEARCH, how)
    cited = message.response_metadata["citations"]
    (text,) = message.content_blocks
    assert text["type"] == "text" and text["text"].startswith("Based on my search results")
    annotations: list[Any] = list(text.get("annotations", []))
    assert len(annotations) == len(cited) == 14
    assert annotations[0] == {
        "type": "citation",
        "cited_text": "Apple today announced the grand reopening of Apple Ginza on Friday,"
        " September 26, located in the vibrant Ginza district.",
        "url": GINZA,
        "title": "The all-new Apple Ginza opens this Friday, September 26, in Tokyo - Apple",
        "extras": {"encrypted_index": cited[0]["encrypted_index"]},
    }
    assert [a["url"] for a in annotations].count(GINZA) == 5
