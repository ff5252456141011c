"""``data_idle`` behind a relay that pings: the upstream stalls, the relay sends ``: ping``
every 0.2 s. Pings are bytes, so they keep ``idle`` from ever firing, and the stream stays
open until the relay itself ends (here when the upstream's stall ends); ``data_idle`` counts
only data, so it ends the stream within about its own bound, with the partial answer. Both
adapters, both relays; the direct run shows what ``idle`` alone does without pings.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from llama_index.core.llms import ChatMessage

import langchain_sse
import llamaindex_sse
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import Timeouts
from sse_emulator import Emulator
from tests.relays.relay_support import PROMPTLY, SPASS_HEADERS, RelayProcess

ADAPTERS = ("ChatSSE", "SSELLM")
MODES = ("sync", "async")
PROMPT = "echo: one two three four five"
#: The upstream sends two words, then nothing for STALL seconds, then closes without a finish.
STALL = 2.5
FAULT = f"stall; after=3; seconds={STALL}"
IDLE = 1.5
DATA_IDLE = 0.6
WITH_DATA_IDLE = Timeouts(connect=2.0, first_byte=10.0, idle=IDLE, data_idle=DATA_IDLE, total=30)
IDLE_ONLY = Timeouts(connect=2.0, first_byte=10.0, idle=IDLE, total=30)  # data_idle: 600 s

TIMEOUT_ERRORS = {
    "ChatSSE": langchain_sse.StreamTimeoutError,
    "SSELLM": llamaindex_sse.StreamTimeoutError,
}
INCOMPLETE_ERRORS = {
    "ChatSSE": langchain_sse.IncompleteStreamError,
    "SSELLM": llamaindex_sse.IncompleteStreamError,
}


def build(adapter: str, base_url: str, timeout: Timeouts) -> ChatSSE | SSELLM:
    settings: dict[str, Any] = {
        "model": "emulator",
        "base_url": base_url,
        "timeout": timeout,
        "max_retries": 0,
        "default_headers": {**SPASS_HEADERS, "X-Emulator-Fault": FAULT},
    }
    return ChatSSE(**settings) if adapter == "ChatSSE" else SSELLM(**settings)


async def stream_until_it_fails(model: ChatSSE | SSELLM, mode: str) -> tuple[Exception, str, float]:
    """The error ending the stream, the text before it, and the seconds it took."""
    text = ""
    start = time.monotonic()
    try:
        if isinstance(model, ChatSSE):
            if mode == "sync":
                for chunk in model.stream(PROMPT):
                    text += chunk.text
            else:
                async for chunk in model.astream(PROMPT):
                    text += chunk.text
        else:
            ask = [ChatMessage(role="user", content=PROMPT)]
            if mode == "sync":
                for response in model.stream_chat(ask):
                    text += response.delta or ""
            else:
                async for response in await model.astream_chat(ask):
                    text += response.delta or ""
    except Exception as exc:
        return exc, text, time.monotonic() - start
    raise AssertionError("expected the stalled stream to fail, it ended well")


def partial_text(error: Any) -> str:
    """The partial answer's text, as each adapter attaches it to its errors."""
    if hasattr(error, "partial_message"):  # ChatSSE
        return str(error.partial_message.content)
    return str(error.partial_response.message.content)  # SSELLM


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_data_idle_ends_a_stream_that_only_pings(
    relay: RelayProcess, emulator: Emulator, adapter: str, mode: str
) -> None:
    model = build(adapter, relay.base_url(), WITH_DATA_IDLE)
    error, text, took = await stream_until_it_fails(model, mode)
    left_at = time.monotonic()
    assert type(error) is TIMEOUT_ERRORS[adapter]
    assert "data_idle" in str(error)
    assert DATA_IDLE <= took < IDLE  # well before idle, and long before the stall ends
    assert text == partial_text(error) == "one two"
    record = await emulator.wait_for_disconnect_async(3.0)  # the relay let the upstream go
    assert record.disconnected_at is not None and record.disconnected_at - left_at < PROMPTLY


@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_pings_keep_a_stalled_stream_open_past_idle(
    relay: RelayProcess, adapter: str
) -> None:
    model = build(adapter, relay.base_url(), IDLE_ONLY)
    error, text, took = await stream_until_it_fails(
        model, "async" if adapter == "SSELLM" else "sync"
    )
    assert type(error) is INCOMPLETE_ERRORS[adapter]  # the relay ended: no timeout ever fired
    assert took >= STALL - 0.3 > IDLE
    assert text == partial_text(error) == "one two"


@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_without_pings_idle_alone_ends_the_stall(emulator: Emulator, adapter: str) -> None:
    model = build(adapter, emulator.base_url(), IDLE_ONLY)
    error, text, took = await stream_until_it_fails(model, "sync")
    assert type(error) is TIMEOUT_ERRORS[adapter]
    assert IDLE - 0.1 <= took < STALL
    assert text == "one two"
