"""Citations of an Anthropic answer reach its standard text block, as ChatAnthropic's do.

The text block of ``content_blocks`` (and of v1 content) carries them as ``annotations``
shaped as langchain-core's anthropic translator shapes them: ``citation`` with
``cited_text``, ``title``/``url`` and the rest in ``extras``, an unknown kind as
``non_standard_annotation``; they are no gateway events. A v1 stream's merged blocks equal
``invoke``'s. Exact bytes over a MockTransport, both output versions, sync and async. (That
the answer keeps them as sent, in ``response_metadata["citations"]``, and has none when none
came: tests/adapters/test_cited_answers.py.)
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessageChunk

from langchain_sse import ChatSSE

pytestmark = pytest.mark.timeout(60)

CHAR = {"type": "char_location", "cited_text": "Paris is the capital", "document_index": 0,
        "document_title": "Atlas", "start_char_index": 0, "end_char_index": 20}  # fmt: skip
WEB = {"type": "web_search_result_location", "cited_text": "big city", "url": "https://w.test/p",
       "title": "Paris", "encrypted_index": "Eo8B"}  # fmt: skip
ODD = {"type": "some_future_location", "cited_text": "x"}


def _frames() -> list[tuple[str, dict[str, Any]]]:
    def delta(index: int, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return ("content_block_delta", {"type": "content_block_delta", "index": index,
                                        "delta": body})  # fmt: skip

    return [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "thinking", "thinking": ""}}),
        delta(0, {"type": "thinking_delta", "thinking": "Look it up."}),
        delta(0, {"type": "signature_delta", "signature": "c2lnbmVk"}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("content_block_start", {"type": "content_block_start", "index": 1,
                                 "content_block": {"type": "text", "text": ""}}),
        delta(1, {"type": "citations_delta", "citation": CHAR}),
        delta(1, {"type": "text_delta", "text": "Paris is the capital"}),
        delta(1, {"type": "citations_delta", "citation": WEB}),
        delta(1, {"type": "citations_delta", "citation": ODD}),
        delta(1, {"type": "text_delta", "text": " of France."}),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                           "stop_sequence": None}, "usage": {"output_tokens": 12}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip


BODY = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in _frames()).encode()
EXPECTED = [
    {"type": "citation", "cited_text": "Paris is the capital", "title": "Atlas",
     "extras": {"document_index": 0, "start_char_index": 0, "end_char_index": 20}},
    {"type": "citation", "cited_text": "big city", "url": "https://w.test/p", "title": "Paris",
     "extras": {"encrypted_index": "Eo8B"}},
    {"type": "non_standard_annotation", "value": ODD},
]  # fmt: skip


def model(**fields: Any) -> ChatSSE:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=BODY)

    transport = httpx.MockTransport(reply)
    return ChatSSE(model="claude", base_url="http://gw.test", api_key="k", protocol="anthropic",
                   max_retries=0, http_client=httpx.Client(transport=transport),
                   http_async_client=httpx.AsyncClient(transport=transport), **fields)  # fmt: skip


def unnumbered(blocks: list[Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in block.items() if k != "index"} for block in blocks]


def test_the_text_block_carries_the_citations_invoked_and_streamed() -> None:
    chat = model()
    invoked = chat.invoke("Capital of France?")
    pieces = list(chat.stream("Capital of France?"))
    merged = pieces[0] + pieces[1:]
    assert isinstance(merged, AIMessageChunk)
    for message in (invoked, merged):
        assert message.content == "Paris is the capital of France."
        reasoning, text = message.content_blocks
        assert reasoning["type"] == "reasoning" and reasoning["extras"]["signature"] == "c2lnbmVk"  # type: ignore[typeddict-item]
        assert text == {"type": "text", "text": "Paris is the capital of France.",
                        "annotations": EXPECTED}  # fmt: skip
        assert "gateway_events" not in message.response_metadata  # citations are no such


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_v1_merged_stream_has_invokes_annotated_text(mode: str) -> None:
    chat = model(output_version="v1")

    async def run() -> tuple[Any, Any]:
        if mode == "sync":
            pieces = list(chat.stream("Capital?"))
            return chat.invoke("Capital?"), pieces[0] + pieces[1:]
        merged = None
        async for piece in chat.astream("Capital?"):
            merged = piece if merged is None else merged + piece
        return await chat.ainvoke("Capital?"), merged

    invoked, merged = asyncio.run(asyncio.wait_for(run(), 30))
    assert [b["type"] for b in merged.content] == ["reasoning", "text"]
    assert merged.content[1]["annotations"] == EXPECTED
    assert unnumbered(merged.content) == unnumbered(invoked.content)


def test_an_answer_without_citations_has_no_annotations() -> None:
    body = BODY.replace(b"citations_delta", b"other_delta")
    message = ChatSSE(
        model="claude", base_url="http://gw.test", api_key="k", protocol="anthropic",
        max_retries=0, http_client=httpx.Client(transport=httpx.MockTransport(
            lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"},
                                           content=body))),
    ).invoke("x")  # fmt: skip
    assert "annotations" not in message.content_blocks[-1]
    assert "citations" not in message.response_metadata  # no empty list either
