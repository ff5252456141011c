"""Run by test_early_close_with_handlers.py in a fresh interpreter: a bare ``break`` out of
SSELLM streams.

Usage: ``python li_bare_break.py BASE_URL``. With LlamaDebugHandler and an instrumentation
handler that keeps every event (both keep the early-close exception, and with it the
generators' frames), it breaks out of ``stream_chat`` and ``async for ... in await
astream_chat(...)`` with no ``close()``/``aclosing``, prints the ``time.monotonic()`` of
each break as JSON, lets the loop run a moment (or, the third time, ends it at once), and
ends the interpreter. The
test checks that the emulator saw each client leave at once and that nothing was printed
to stderr (no "Exception ignored", no asyncio errors, no ResourceWarning).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import warnings

from li_support import SLOW, collect_events
from llama_index.core.callbacks import CallbackManager, LlamaDebugHandler
from llama_index.core.llms import ChatMessage

from llamaindex_sse import SSELLM

ASK = [ChatMessage(role="user", content="count to 200")]


def make(base_url: str) -> SSELLM:
    return SSELLM(
        model="emulator",
        base_url=base_url,
        max_retries=0,
        default_headers={"X-Emulator-Fault": SLOW},
        callback_manager=CallbackManager([LlamaDebugHandler(print_trace_on_end=False)]),
    )


def sync_break(llm: SSELLM) -> float:
    for _ in llm.stream_chat(ASK):
        break
    return time.monotonic()


async def async_break(llm: SSELLM) -> float:
    async for _ in await llm.astream_chat(ASK):
        break
    broke = time.monotonic()
    await asyncio.sleep(0.3)  # the loop runs on a moment, then shuts down
    return broke


async def async_break_and_end(llm: SSELLM) -> float:
    async for _ in await llm.astream_chat(ASK):
        break
    return time.monotonic()  # the loop shuts down at once: no time left for an async close


def main(base_url: str) -> None:
    warnings.simplefilter("always", ResourceWarning)
    with collect_events():
        breaks = [sync_break(make(base_url)), asyncio.run(async_break(make(base_url)))]
        # The loop ends at once: the stream hangs up synchronously (the gateway sees it at
        # once), but the async close cannot finish, so the socket object is left for the
        # collector, a ResourceWarning that Python shows only when asked to, as above.
        warnings.simplefilter("ignore", ResourceWarning)
        breaks.append(asyncio.run(async_break_and_end(make(base_url))))
        time.sleep(0.5)  # the interpreter lives on: its exit must not be what hangs up
    print(json.dumps(breaks), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
