"""A model dropped while its stream is read: the stream goes on to its end.

``await SSELLM(...).astream_chat(...)`` and ``ChatSSE(...).astream(...)`` keep no reference
to the model: it is collected while the stream is read, and with it its client pool. The
pool's clients of a loop end with the loop, but a collected pool must not end them: a
stream still being read holds its client. Against the emulator, with the collector run
between two pieces.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from llama_index.core.llms import ChatMessage

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ClientConfig
from sse_core.transport.pool import ClientPool
from sse_emulator import Emulator

SLOW = "slow; delay=0.02"


def settings(emulator: Emulator) -> dict[str, Any]:
    return {
        "model": "emulator",
        "base_url": emulator.base_url(),
        "api_key": "sk-dropped",
        "default_headers": {"X-Emulator-Fault": SLOW},
    }


async def test_a_collected_pool_leaves_the_streams_of_its_clients_alone(
    emulator: Emulator,
) -> None:
    pool = ClientPool()
    fields = {k: v for k, v in settings(emulator).items() if k != "model"}
    config = ClientConfig.build(environ={}, **fields)  # type: ignore[arg-type]
    payload = {"model": "m", "messages": [{"role": "user", "content": "count to 30"}]}
    assert pool is not None
    async with pool.async_(config).stream(payload) as stream:
        async for _event in stream:
            if pool is not None:
                pool = None  # what a model dropped while its stream is read leaves behind
                gc.collect()
                await asyncio.sleep(0.05)  # the loop runs what the collection scheduled
    assert stream.completion.content == " ".join(str(n) for n in range(1, 31))


async def _numbered(stream: Any) -> Any:
    n = 0
    async for item in stream:
        yield n, item
        n += 1


async def test_a_dropped_sse_llm_leaves_its_stream_whole(emulator: Emulator) -> None:
    messages = [ChatMessage(role="user", content="count to 30")]
    stream: Any = await SSELLM(**settings(emulator)).astream_chat(messages)
    last = None
    async for n, response in _numbered(stream):
        if n < 2:
            gc.collect()  # the model and its pool are gone after the first piece
        last = response
    assert last is not None
    assert last.message.content == " ".join(str(n) for n in range(1, 31))


async def test_a_dropped_chat_sse_leaves_its_stream_whole(emulator: Emulator) -> None:
    text = ""
    async for n, chunk in _numbered(ChatSSE(**settings(emulator)).astream("count to 30")):
        if n < 2:
            gc.collect()  # a whole-heap collection per piece took 15 s: the first two do
        text += chunk.text
    assert text == " ".join(str(n) for n in range(1, 31))
