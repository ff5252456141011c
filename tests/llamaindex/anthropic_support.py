"""Helpers for the SSELLM(protocol="anthropic") tests: an SSELLM and a core client on the
emulator's anthropic dialect, and the four ways to read one answer."""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, ThinkingBlock

from llamaindex_sse import SSELLM
from sse_core import ChatClient, Completion
from sse_emulator import Emulator
from tests.llamaindex.li_support import API_KEY, TIMEOUT

MODEL = "claude-emulated"
THINK = {"type": "enabled", "budget_tokens": 1024}
MODES = ("stream_chat", "astream_chat", "chat", "achat")
FAULT = "X-Emulator-Fault"


def anthropic_llm(emulator: Emulator, fault: str | None = None, **fields: Any) -> SSELLM:
    """An SSELLM on the emulator's anthropic dialect (``fault``: the emulator fault header)."""
    params: dict[str, Any] = {
        "protocol": "anthropic",
        "model": MODEL,
        "base_url": emulator.base_url("anthropic"),
        "api_key": API_KEY,
        "timeout": TIMEOUT,
        "max_retries": 0,
        "max_tokens": 4096,
        "default_headers": {FAULT: fault} if fault else {},
    }
    return SSELLM(**(params | fields))


def core_answer(emulator: Emulator, body: dict[str, Any]) -> Completion:
    """What the core decodes of the same request (the reference for the adapter)."""
    with ChatClient(
        protocol="anthropic",
        base_url=emulator.base_url("anthropic"),
        api_key=API_KEY,
        timeout=TIMEOUT,
        max_retries=0,
    ) as client:
        return client.complete(body)


def read(llm: SSELLM, messages: list[ChatMessage], mode: str, **kwargs: Any) -> list[ChatResponse]:
    """Every response of one answer read through ``mode`` (one for chat/achat)."""
    if mode == "stream_chat":
        return list(llm.stream_chat(messages, **kwargs))
    if mode == "chat":
        return [llm.chat(messages, **kwargs)]

    async def consume() -> list[ChatResponse]:
        if mode == "achat":
            return [await llm.achat(messages, **kwargs)]
        return [r async for r in await llm.astream_chat(messages, **kwargs)]

    return asyncio.run(asyncio.wait_for(consume(), 30))


def thinking_of(response: ChatResponse) -> list[ThinkingBlock]:
    return [b for b in response.message.blocks if isinstance(b, ThinkingBlock)]


def raw_of(response: ChatResponse) -> dict[str, Any]:
    """The response's ``raw`` (a dict for SSELLM)."""
    assert isinstance(response.raw, dict)
    return response.raw
