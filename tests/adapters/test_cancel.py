"""Leaving a stream early closes the HTTP connection at once: the emulator sees the client go.

Every case streams a long, slow answer (``count to 500`` with a pause before each event) through
either adapter, leaves after the first piece the way a caller does (a ``break``, ``close()``,
``aclosing``, a cancelled task, a timeout), and waits (bounded) for the emulator's disconnect
record. (What each framework adds, LangChain's event streams and LlamaIndex's handlers that keep
the stream's frames, agents and workflows: tests/langchain/test_leaving_event_streams.py and
tests/llamaindex/test_early_close_with_handlers.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest

from sse_emulator import Emulator, RequestRecord
from tests.adapters.conftest import Driver

SLOW = "slow; delay=0.05"
LONG = "count to 500"
WAIT = 3.0
#: Seconds from our close to the emulator seeing the client leave.
PROMPTLY = 0.5


def _left_at_once(emulator: Emulator, record: RequestRecord, since: float) -> None:
    """The only request was cut by the client within :data:`PROMPTLY` of ``since``."""
    assert record.disconnected and not record.completed
    assert record.disconnected_at is not None
    assert record.disconnected_at - since < PROMPTLY
    assert len(emulator.requests) == 1


def test_breaking_out_of_a_stream_closes_the_connection(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    for text in driver.stream(on_emulator(fault=SLOW), LONG):
        assert text == "1"
        break  # the generator is dropped here; CPython closes it at once
    since = time.monotonic()
    _left_at_once(emulator, emulator.wait_for_disconnect(WAIT), since - PROMPTLY / 2)


def test_closing_the_stream_closes_the_connection(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    stream = driver.open_stream(on_emulator(fault=SLOW), LONG)
    next(stream)
    since = time.monotonic()
    stream.close()
    _left_at_once(emulator, emulator.wait_for_disconnect(WAIT), since)


async def test_aclosing_an_async_stream_closes_the_connection(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    stream = await driver.open_astream(on_emulator(fault=SLOW), LONG)
    async with contextlib.aclosing(stream):
        async for _ in stream:
            break
        since = time.monotonic()
    _left_at_once(emulator, await emulator.wait_for_disconnect_async(WAIT), since)


async def test_breaking_out_of_an_async_stream_closes_the_connection_when_collected(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    async for _ in await driver.open_astream(on_emulator(fault=SLOW), LONG):
        break
    since = time.monotonic()
    # No aclose: CPython frees the generator at the break, and the event loop's asyncgen
    # finalizer closes it in a task soon after.
    _left_at_once(emulator, await emulator.wait_for_disconnect_async(WAIT), since)


async def test_cancelling_the_task_closes_the_connection_and_propagates(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    first = asyncio.Event()
    model = on_emulator(fault=SLOW)

    async def consume() -> None:
        async for _ in driver.aiter(model, LONG):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), WAIT)
    since = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):  # never swallowed
        await asyncio.wait_for(task, WAIT)
    assert task.cancelled()
    _left_at_once(emulator, await emulator.wait_for_disconnect_async(WAIT), since)


@pytest.mark.parametrize("how", ["aask", "astream"])
async def test_a_timeout_around_a_call_closes_the_connection(
    driver: Driver, on_emulator: Any, emulator: Emulator, how: str
) -> None:
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(driver.call(on_emulator(fault=SLOW), how, LONG), 0.3)
    since = time.monotonic()
    _left_at_once(emulator, await emulator.wait_for_disconnect_async(WAIT), since - PROMPTLY / 2)


async def test_a_finished_stream_is_not_counted_as_a_disconnect(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    assert await driver.aask(on_emulator(), "count to 3") == "1 2 3"
    record = await asyncio.to_thread(emulator.wait_for_end, 10.0)  # recorded by its thread
    assert len(emulator.requests) == 1
    assert record.completed
    assert not record.disconnected
