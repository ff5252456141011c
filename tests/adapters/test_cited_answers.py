"""Citations of an Anthropic answer reach both adapters' answers as sent, in arrival order,
whole or streamed, sync or async: the core decodes ``citations_delta`` events into Citation
events, which are no gateway events; an answer without citations has none. Exact bytes over
a MockTransport. (How each framework shows them: ChatSSE's text-block annotations,
tests/langchain/test_anthropic_citations.py; SSELLM's citations so far on each streamed
response and its CitationBlocks, tests/llamaindex/test_ssellm_citations.py.)"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.adapters.conftest import HOWS, Driver

pytestmark = pytest.mark.timeout(60)

CHAR = {"type": "char_location", "cited_text": "Paris is the capital", "document_index": 0,
        "document_title": "Atlas", "start_char_index": 0, "end_char_index": 20}  # fmt: skip
WEB = {"type": "web_search_result_location", "cited_text": "big city", "url": "https://w.test/p",
       "title": "Paris", "encrypted_index": "Eo8B"}  # fmt: skip
SEARCH = {"type": "search_result_location", "cited_text": "capital", "source": "atlas",
          "title": "Atlas", "search_result_index": 0, "start_block_index": 0,
          "end_block_index": 0}  # fmt: skip
ODD = {"type": "some_future_location", "cited_text": "x"}


def _frame(kind: str, **data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def _delta(index: int, **delta: Any) -> str:
    return _frame("content_block_delta", index=index, delta=delta)


def body(citations: bool = True) -> bytes:
    def cite(*which: dict[str, Any]) -> list[str]:
        return [_delta(1, type="citations_delta", citation=c) for c in which if citations]

    return "".join([
        _frame("message_start", message={"id": "msg_1", "type": "message", "role": "assistant",
               "model": "claude", "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}),
        _frame("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        _delta(0, type="thinking_delta", thinking="Look it up."),
        _delta(0, type="signature_delta", signature="c2lnbmVk"),
        _frame("content_block_stop", index=0),
        _frame("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        *cite(CHAR),
        _delta(1, type="text_delta", text="Paris is the capital"),
        *cite(WEB, SEARCH, ODD),
        _delta(1, type="text_delta", text=" of France."),
        _frame("content_block_stop", index=1),
        _frame("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None},
               usage={"output_tokens": 12}),
        _frame("message_stop"),
    ]).encode()  # fmt: skip


def model(driver: Driver, content: bytes) -> Any:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    transport = httpx.MockTransport(reply)
    return driver.make(model="claude", base_url="http://gw.test", api_key="k", protocol="anthropic",
                       max_retries=0, http_client=httpx.Client(transport=transport),
                       http_async_client=httpx.AsyncClient(transport=transport))  # fmt: skip


@pytest.mark.parametrize("how", HOWS)
def test_the_citations_come_as_sent_in_arrival_order(driver: Driver, how: str) -> None:
    answer = driver.answer(model(driver, body()), how, "Capital of France?")
    assert answer.text == "Paris is the capital of France."
    assert answer.citations == [CHAR, WEB, SEARCH, ODD]
    assert answer.reasoning_blocks == [
        {"type": "thinking", "thinking": "Look it up.", "signature": "c2lnbmVk"}
    ]


@pytest.mark.parametrize("how", HOWS)
def test_an_answer_without_citations_has_none(driver: Driver, how: str) -> None:
    answer = driver.answer(model(driver, body(citations=False)), how, "Capital of France?")
    assert answer.text == "Paris is the capital of France."
    assert answer.citations == []
