"""Every async generator a stream opens is closed by us, on every exit path: none of ours, nor
httpx's or httpcore's under us, is left to the event loop's asyncgen finalizer (a task of its
own, later, or an ``async_generator_athrow`` still pending when the loop ends).

The loop's finalizer hook is wrapped (``sys.set_asyncgen_hooks``, public API) to see each
async generator handed to it. The one exception is what the caller drops unclosed: after a
bare ``break`` the stream object the caller held goes to the finalizer, as any async generator
does; everything under it is then closed by it. (LangChain's own ``BaseChatModel.astream``,
the faithful path, drops ChatSSE's ``_astream`` generator the same way: that one too.) Each
stream runs on a loop of its own, and the loop must end with no task pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

import pytest

from sse_emulator import Emulator
from tests.adapters.conftest import Driver

LONG = "count to 500"
#: A bounded number of loop turns for a finalizer's task to end in (none is waited on time).
TURNS = 200


class Finalized:
    """The async generators the running loop's finalizer hook is handed."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def install(self) -> None:
        firstiter, finalizer = sys.get_asyncgen_hooks()
        assert finalizer is not None, "inside a running asyncio loop"

        def seen(agen: AsyncGenerator[Any, None]) -> None:
            self.names.append(agen.__qualname__)
            finalizer(agen)

        sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=seen)


def _run_on_own_loop(scenario: Callable[[], Awaitable[None]], finalized: Finalized) -> None:
    """``scenario`` on a new loop; then no task of it may be pending, within bounded turns."""

    async def main() -> None:
        finalized.install()
        await scenario()
        for _ in range(TURNS):
            if not [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
                return
            await asyncio.sleep(0)
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        raise AssertionError(f"tasks still pending after {TURNS} turns: {pending}")

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
        loop.run_until_complete(loop.shutdown_asyncgens())
        assert not asyncio.all_tasks(loop)
    finally:
        loop.close()


def _model(driver: Driver, emulator: Emulator, fault: str | None = None, **fields: Any) -> Any:
    settings: dict[str, Any] = {
        "model": "emulator",
        "base_url": emulator.base_url(),
        "api_key": "sk-emulator-test-key",
        "max_retries": 0,
        **fields,
    }
    if fault is not None:
        settings["default_headers"] = {"X-Emulator-Fault": fault}
    return driver.make(**settings)


async def _read_all(driver: Driver, model: Any) -> None:
    stream = await driver.open_astream(model, "count to 20")
    async with contextlib.aclosing(stream):
        async for _ in stream:
            pass


EXITS = {
    # exit path -> (fault, the error it ends with, or None)
    "complete": (None, None),
    "cut": ("truncate; after=3", "IncompleteStreamError"),
    "reset": ("reset; after=3", "IncompleteStreamError"),
    "error-frame": ("error-frame; after=3", "GatewayStreamError"),
    "idle-timeout": ("stall; after=3; seconds=5", "StreamTimeoutError"),
}


@pytest.mark.parametrize("exit_path", list(EXITS))
@pytest.mark.parametrize("how", ["astream", "aask"])
def test_a_stream_that_ends_leaves_nothing_to_the_finalizer(
    driver: Driver, emulator: Emulator, exit_path: str, how: str
) -> None:
    fault, error = EXITS[exit_path]
    model = _model(driver, emulator, fault, timeout=0.5 if exit_path == "idle-timeout" else 10)
    finalized = Finalized()

    async def scenario() -> None:
        raised = contextlib.nullcontext() if error is None else pytest.raises(driver.error(error))
        with raised:
            if how == "aask":
                await driver.aask(model, "count to 20")
            else:
                await _read_all(driver, model)

    for _ in range(3):  # one model, three loops
        _run_on_own_loop(scenario, finalized)
    assert finalized.names == []


def test_a_cancelled_task_leaves_nothing_to_the_finalizer(
    driver: Driver, emulator: Emulator
) -> None:
    model = _model(driver, emulator, "slow; delay=0.05")
    finalized = Finalized()

    async def scenario() -> None:
        first = asyncio.Event()

        async def consume() -> None:
            stream = await driver.open_astream(model, LONG)
            async with contextlib.aclosing(stream):
                async for _ in stream:
                    first.set()

        task = asyncio.create_task(consume())
        await first.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        record = await emulator.wait_for_disconnect_async(5.0)
        assert record.disconnected

    _run_on_own_loop(scenario, finalized)
    assert finalized.names == []


def test_a_bare_break_leaves_only_what_the_caller_dropped(
    driver: Driver, emulator: Emulator
) -> None:
    model = _model(driver, emulator, "slow; delay=0.05")
    finalized = Finalized()
    dropped: list[str] = []

    async def scenario() -> None:
        stream = await driver.open_astream(model, LONG)
        dropped.append(stream.__qualname__)
        async for _ in stream:
            break
        del stream  # the caller's last reference: no aclose, no aclosing
        record = await emulator.wait_for_disconnect_async(5.0)
        assert record.disconnected and not record.completed

    _run_on_own_loop(scenario, finalized)
    # What langchain-core's BaseChatModel.astream (the faithful path) drops unclosed itself.
    framework = {"astream_chunks"} if driver.name == "ChatSSE" else set()
    assert finalized.names[:1] == dropped
    assert set(finalized.names[1:]) <= framework, finalized.names
