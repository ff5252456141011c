"""Emulator faults through SSELLM, sync and async: answers survive wire quirks (each
ChatResponse field as the core decoded it), and a truncated chat keeps its partial answer as
a ChatResponse's blocks.

(Every fault as a typed error with its partial answer, for both adapters:
tests/adapters/test_faults.py.)"""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.base.llms.types import ChatResponse, TextBlock
from llama_index.core.llms import ChatMessage

import sse_core
from llamaindex_sse import (
    SSELLM,
    IncompleteStreamError,
)
from sse_core import (
    ChatClient,
)
from sse_emulator import Emulator
from tests.llamaindex.li_support import ALL_DIALECTS, SPASS_HEADERS, TIMEOUT, LLMFactory

TEXT = "café ☕ and more words to stream"
ASK = [ChatMessage(role="user", content=f"echo: {TEXT}")]
WIRE_ASK = {"role": "user", "content": f"echo: {TEXT}"}
MODES = ("sync", "async")


def stream(llm: SSELLM, mode: str) -> list[ChatResponse]:
    """Every response of one streamed answer; raises what the stream raised."""
    if mode == "sync":
        return list(llm.stream_chat(ASK))

    async def consume() -> list[ChatResponse]:
        return [r async for r in await llm.astream_chat(ASK)]

    return asyncio.run(asyncio.wait_for(consume(), 30))


def core_completion(emulator: Emulator, dialect: str, fault: str) -> ChatClient:
    return ChatClient(
        base_url=emulator.base_url(dialect),
        default_headers={**SPASS_HEADERS, "X-Emulator-Fault": fault},
        timeout=TIMEOUT,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "fault",
    [
        "slow; delay=0.002",
        "split-utf8; pause=0.002",
        "crlf",
        "cr",
        "single-newline",
        "keepalive; every=1",
        "keepalive; text=OPENROUTER PROCESSING",
        "bom",
        "json-body",
        "oversized; size=4096",
    ],
)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
def test_the_answer_survives_wire_quirks(
    emulator: Emulator, make_llm: LLMFactory, dialect: str, fault: str, mode: str
) -> None:
    responses = stream(make_llm(dialect, fault=fault), mode)
    extra = "x" * 4096 if fault.startswith("oversized") else ""
    last = responses[-1]
    assert last.message.content is not None
    assert last.message.content.replace(extra, "") == TEXT
    assert "".join(r.delta or "" for r in responses) == last.message.content
    # The adapter shows exactly what the core decoded (finish reason and usage included).
    with core_completion(emulator, dialect, fault) as client:
        completion = client.complete({"model": "emulator", "messages": [WIRE_ASK]})
    assert last.additional_kwargs.get("finish_reason") == completion.finish_reason
    assert last.additional_kwargs.get("total_tokens") == (
        completion.usage.total_tokens if completion.usage else None
    )


@pytest.mark.parametrize("mode", MODES)
def test_chat_raises_the_same_typed_errors(make_llm: LLMFactory, mode: str) -> None:
    llm = make_llm(fault="truncate; after=3")
    with pytest.raises(sse_core.IncompleteStreamError) as caught:
        if mode == "sync":
            llm.chat(ASK)
        else:
            asyncio.run(llm.achat(ASK))
    assert type(caught.value) is IncompleteStreamError
    assert TEXT.startswith(caught.value.partial.content)
    (text,) = caught.value.partial_response.message.blocks
    assert isinstance(text, TextBlock) and text.text == caught.value.partial.content
