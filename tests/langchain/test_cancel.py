"""Leaving a stream early closes the HTTP connection: the emulator sees the client go.

Every case streams a long, slow answer (``count to 500`` with a pause before each event),
leaves after the first chunk, and waits (bounded) for the emulator's disconnect record.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import ModelFactory

SLOW = {"X-Emulator-Fault": "slow; delay=0.05"}
LONG = "count to 500"
WAIT = 3.0


def _slow(make_model: ModelFactory) -> ChatSSE:
    return make_model(default_headers=SLOW)


def _assert_left_early(emulator: Emulator, record: Any) -> None:
    assert record.disconnected
    assert not record.completed
    assert len(emulator.requests) == 1


def test_breaking_out_of_stream_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    for chunk in _slow(make_model).stream(LONG):
        assert chunk.content == "1"
        break
    _assert_left_early(emulator, emulator.wait_for_disconnect(WAIT))


def test_closing_the_stream_generator_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    stream = _slow(make_model).stream(LONG)
    next(stream)
    stream.close()  # type: ignore[attr-defined]
    _assert_left_early(emulator, emulator.wait_for_disconnect(WAIT))


async def test_aclosing_astream_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    async with contextlib.aclosing(_slow(make_model).astream(LONG)) as stream:  # type: ignore[type-var]
        async for _ in stream:
            break
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))


async def test_breaking_out_of_astream_closes_the_connection_when_collected(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    async for _ in _slow(make_model).astream(LONG):
        break
    # No aclose: CPython frees the generator at the break, and the event loop's asyncgen
    # finalizer closes it (and the inner _astream) in a task soon after.
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))


async def test_cancelling_the_task_closes_the_connection_and_propagates(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in _slow(make_model).astream(LONG):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    assert task.cancelled()
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))


async def test_a_timeout_around_ainvoke_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(_slow(make_model).ainvoke(LONG), 0.3)
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))


async def test_leaving_astream_events_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    events = _slow(make_model).astream_events(LONG, version="v2")
    async with contextlib.aclosing(events):  # type: ignore[type-var]
        async for event in events:
            if event["event"] == "on_chat_model_stream":
                break
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))


async def test_leaving_v3_astream_events_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    async with await _slow(make_model).astream_events(LONG, version="v3") as stream:
        async for _ in stream.text:
            break
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))


async def test_a_finished_stream_is_not_counted_as_a_disconnect(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    assert (await make_model().ainvoke("count to 3")).content == "1 2 3"
    (record,) = emulator.requests
    assert record.completed
    assert not record.disconnected
