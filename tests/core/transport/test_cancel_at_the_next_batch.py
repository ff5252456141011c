"""A cancel asked while the consumer holds a batch lands at the next batch, even when the
bytes already read hold more: asyncio delivers a cancel only at an await that waits, and a
body whose next pieces are already in the buffer gives them with no wait, so the consumer
would get them all first. The read loop awaits when a cancel is pending, so the cancel lands
there, as it lands at a wait for the network (what a cancel from another task does)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from sse_core import AsyncChatClient
from tests.raw_server import serving

FRAMES = 40


def _chunked(frames: list[bytes]) -> bytes:
    """One response whose every frame is an HTTP chunk of its own, all in one write."""
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(frame), frame) for frame in frames)
    return head + chunks + b"0\r\n\r\n"


def _frames() -> list[bytes]:
    chunk = '{"choices":[{"index":0,"delta":{"content":"%d "}}]}'
    frames = [b"data: " + (chunk % n).encode() + b"\n\n" for n in range(FRAMES)]
    return [*frames, b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n']


async def test_a_cancel_from_inside_the_task_lands_at_the_next_batch() -> None:
    with serving(lambda n, request: _chunked(_frames())) as served:
        batches: list[Any] = []

        async def consume() -> None:
            async with (
                AsyncChatClient(base_url=served.url, api_key="k") as client,
                client.stream({"model": "m", "messages": []}) as stream,
            ):
                async for batch in stream.batches():
                    batches.append(batch)
                    if len(batches) == 2:
                        task.cancel()  # the rest of the body is read already

        task = asyncio.create_task(consume())
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
    assert task.cancelled()
    assert len(batches) == 2  # not the ~40 batches the buffer held


async def test_a_cancel_caught_before_the_stream_does_not_cut_it() -> None:
    """A cancel the task asked for (and swallowed) before the stream began is not this
    stream's: only a request made while it runs lands in it."""
    with serving(lambda n, request: _chunked(_frames())) as served:

        async def consume() -> int:
            me = asyncio.current_task()
            assert me is not None
            me.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0)  # swallowed without uncancel(): cancelling() stays 1
            async with AsyncChatClient(base_url=served.url, api_key="k") as client:
                completion = await client.complete({"model": "m", "messages": []})
                return len(completion.content.split())

        assert await asyncio.wait_for(asyncio.create_task(consume()), 10) == FRAMES
