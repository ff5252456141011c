"""SSELLM(protocol="anthropic"): an answer's citations, in ``additional_kwargs["citations"]``.

``citations_delta`` events carry the citations of the text as it streams; llama-index's own
Anthropic LLM gives them on its response (``citations``). Each streamed response holds those
that arrived so far (no key before the first), and a search result's citation is also a
CitationBlock after the text. Exact bytes over a MockTransport. (That the answer keeps them
as sent, in arrival order, whole or streamed: tests/adapters/test_cited_answers.py.)
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from llama_index.core.base.llms.types import CitationBlock
from llama_index.core.llms import ChatMessage

from llamaindex_sse import SSELLM
from tests.llamaindex.li_support import sse_transport

pytestmark = pytest.mark.timeout(60)

FIRST = {"type": "char_location", "cited_text": "Paris is", "document_index": 0,
         "start_char_index": 0, "end_char_index": 8}  # fmt: skip
SECOND = {"type": "search_result_location", "cited_text": "capital", "source": "atlas",
          "title": "Atlas", "search_result_index": 0, "start_block_index": 0,
          "end_block_index": 0}  # fmt: skip
ASK = [ChatMessage(role="user", content="Capital of France?")]


def _frame(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _delta(body: dict[str, Any]) -> str:
    return _frame("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": body})  # fmt: skip


def body(citations: bool = True) -> bytes:
    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
             "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {"input_tokens": 5, "output_tokens": 1}}  # fmt: skip
    cite = [_delta({"type": "citations_delta", "citation": c}) for c in (FIRST, SECOND)]
    parts = [
        _frame("message_start", {"type": "message_start", "message": start}),
        _frame("content_block_start", {"type": "content_block_start", "index": 0,
                                       "content_block": {"type": "text", "text": ""}}),
        *(cite[:1] if citations else []),
        _delta({"type": "text_delta", "text": "Paris is"}),
        *(cite[1:] if citations else []),
        _delta({"type": "text_delta", "text": " the capital."}),
        _frame("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _frame("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
               "stop_sequence": None}, "usage": {"output_tokens": 6}}),
        _frame("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return "".join(parts).encode()


def llm(content: bytes) -> SSELLM:
    """An SSELLM answered with ``content``, one event per network read."""
    frames = [frame + b"\n\n" for frame in content.split(b"\n\n") if frame]
    transport = sse_transport(frames)
    return SSELLM(model="claude", base_url="http://gw.test", api_key="k", protocol="anthropic",
                  max_retries=0, http_client=httpx.Client(transport=transport),
                  async_http_client=httpx.AsyncClient(transport=transport))  # fmt: skip


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_each_streamed_response_holds_the_citations_so_far(mode: str) -> None:
    model = llm(body())

    async def run() -> list[Any]:
        if mode == "sync":
            return list(model.stream_chat(ASK))
        return [response async for response in await model.astream_chat(ASK)]

    responses = asyncio.run(asyncio.wait_for(run(), 30))
    seen = [response.additional_kwargs.get("citations", []) for response in responses]
    assert seen[-1] == [FIRST, SECOND]
    assert all(seen[i] == seen[i + 1][: len(seen[i])] for i in range(len(seen) - 1))
    by_text = {r.delta: r.additional_kwargs.get("citations") for r in responses if r.delta}
    assert by_text == {"Paris is": [FIRST], " the capital.": [FIRST, SECOND]}


def test_no_citations_no_key_on_any_response() -> None:
    model = llm(body(citations=False))
    assert "citations" not in model.chat(ASK).additional_kwargs
    assert all("citations" not in r.additional_kwargs for r in model.stream_chat(ASK))


def test_a_search_result_citation_is_also_a_citation_block_after_the_text() -> None:
    seen: list[httpx.Request] = []
    frames = [frame + b"\n\n" for frame in body().split(b"\n\n") if frame]
    client = httpx.Client(transport=sse_transport(frames, seen))
    model = SSELLM(model="claude", base_url="http://gw.test", api_key="k", protocol="anthropic",
                   max_retries=0, http_client=client)  # fmt: skip
    answers = [model.chat(ASK).message, list(model.stream_chat(ASK))[-1].message]
    for message in answers:
        kinds = [block.block_type for block in message.blocks]
        assert kinds == ["text", "citation"]
        citation = message.blocks[1]
        assert isinstance(citation, CitationBlock)
        assert (citation.source, citation.title, citation.cited_content.text) == (  # type: ignore[union-attr]
            "atlas", "Atlas", "capital")  # fmt: skip
        assert citation.additional_location_info == {
            "start_block_index": 0, "end_block_index": 0, "search_result_index": 0}  # fmt: skip
        assert message.content == "Paris is the capital."
    # The next turn sends the answer back without its citation block (the API takes none).
    model.chat([*ASK, answers[0], ChatMessage(role="user", content="And Spain?")])
    sent = json.loads(seen[-1].content)["messages"][1]
    assert sent == {"role": "assistant",
                    "content": [{"type": "text", "text": "Paris is the capital."}]}  # fmt: skip
