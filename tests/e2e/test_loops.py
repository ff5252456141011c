"""A model called from many event loops holds no socket or file descriptor per loop.

``asyncio.run(model.ainvoke(...))`` per call (scripts, Celery tasks, ``async_to_sync``, test
suites) makes a new loop each time; the pool's clients of a loop end with it, whether the
loop is shut down by ``asyncio.run`` or closed bare; ``aclose()`` closes its own loop's and
closed loops', ``close()`` every loop's, and neither leaves a socket open when the loops end
meanwhile (one model, a loop per thread). Against the emulator, for ChatSSE, SSELLM and the
core ``AsyncChatClient`` through ``ClientPool``, counting this process's descriptors in
``/proc/self/fd`` (the emulator runs in this process: its end of a connection closes when
the client's does).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import threading
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from llama_index.core.llms import ChatMessage
from pydantic import SecretStr

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ClientConfig
from sse_core.transport.pool import ClientPool
from sse_emulator import Emulator
from tests.counting_server import wait_until

#: Loops per kind: a socket left by one run in fourteen is past SLACK.
RUNS = 100
#: Descriptors a test may end with above where it began: the last connection's two ends
#: while they close, and anything unrelated the session opens meanwhile.
SLACK = 6
KINDS = pytest.mark.parametrize("kind", ["ChatSSE", "SSELLM", "AsyncChatClient"])


def descriptors() -> tuple[int, int]:
    """(open file descriptors, of which sockets) of this process."""
    total = sockets = 0
    for fd in os.listdir("/proc/self/fd"):
        total += 1
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            sockets += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return total, sockets


def back_to(start: tuple[int, int], slack: int = SLACK) -> bool:
    """Whether the descriptors come back to within ``slack`` of ``start`` (waiting a while
    for the server's ends to close)."""
    return wait_until(
        lambda: all(now <= then + slack for now, then in zip(descriptors(), start, strict=True)),
        timeout=10,
    )


class Caller:
    """A model of one kind on the emulator: ``call()`` is one async call; ``pool`` its pool."""

    def __init__(self, kind: str, url: str, http: httpx.AsyncClient | None = None) -> None:
        self.kind = kind
        if kind == "ChatSSE":
            self.model: Any = ChatSSE(
                model="m", base_url=url, api_key=SecretStr("k"), http_async_client=http
            )
        elif kind == "SSELLM":
            self.model = SSELLM(model="m", base_url=url, api_key="k", async_http_client=http)
        else:
            self.model = ClientPool(async_http_client=http)
            self.config = ClientConfig.build(base_url=url, api_key="k", environ={})

    @property
    def pool(self) -> ClientPool:
        return self.model if self.kind == "AsyncChatClient" else self.model._pool  # type: ignore[no-any-return]

    async def call(self) -> str:
        if self.kind == "ChatSSE":
            return str((await self.model.ainvoke("hi")).content)
        if self.kind == "SSELLM":
            message = [ChatMessage(role="user", content="hi")]
            return str((await self.model.achat(message)).message.content)
        client = self.model.async_(self.config)
        payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        return str((await client.complete(payload)).content)

    def close(self) -> None:
        self.model.close()

    async def aclose(self) -> None:
        await self.model.aclose()


def bare_loop(work: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``work`` in a new loop closed without ``shutdown_asyncgens`` (older code does)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(work())
    finally:
        loop.close()


@KINDS
@pytest.mark.timeout(240)
def test_asyncio_run_per_call_leaves_no_socket_behind(kind: str, emulator: Emulator) -> None:
    caller = Caller(kind, emulator.base_url())
    asyncio.run(caller.call())  # imports and first-use caches settle before counting
    start = descriptors()
    for _ in range(RUNS):
        assert asyncio.run(caller.call())
    assert back_to(start), f"{descriptors()} descriptors after {RUNS} runs, from {start}"
    assert repr(caller.pool).endswith("loops=0)")  # each loop's clients left with it


@KINDS
@pytest.mark.timeout(120)
def test_loops_closed_bare_are_swept_and_close_reaches_them(kind: str, emulator: Emulator) -> None:
    caller = Caller(kind, emulator.base_url())
    bare_loop(caller.call)
    start = descriptors()
    for _ in range(60):
        assert bare_loop(caller.call)
    # Each new loop finds the last one closed and closes its sockets: at most one is left.
    assert back_to(start, SLACK + 2), f"{descriptors()} descriptors, from {start}"
    assert repr(caller.pool).endswith("loops=1)")
    caller.close()
    assert repr(caller.pool).endswith("loops=0)")
    assert back_to((start[0] - 2, start[1] - 2), SLACK)  # the last loop's socket too


@KINDS
@pytest.mark.timeout(60)
def test_aclose_reaches_the_clients_of_closed_loops(kind: str, emulator: Emulator) -> None:
    caller = Caller(kind, emulator.base_url())
    for _ in range(3):
        bare_loop(caller.call)
    asyncio.run(caller.aclose())
    assert repr(caller.pool).endswith("loops=0)")
    start = descriptors()
    for _ in range(20):
        bare_loop(caller.call)
    asyncio.run(caller.aclose())
    assert back_to(start)


@KINDS
@pytest.mark.timeout(60)
def test_an_injected_async_client_is_never_closed(kind: str, emulator: Emulator) -> None:
    async def main(caller: Caller, http: httpx.AsyncClient) -> None:
        assert await caller.call()
        caller.close()  # every loop's clients: this one's in this loop
        await asyncio.sleep(0.05)
        assert await caller.call()

    http = httpx.AsyncClient()
    caller = Caller(kind, emulator.base_url(), http)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main(caller, http))
        loop.run_until_complete(loop.shutdown_asyncgens())  # as asyncio.run ends a loop
        assert not http.is_closed
        health = loop.run_until_complete(http.get(emulator.base_url() + "/models"))
        assert health.status_code == 200  # the client itself still works in its loop
        loop.run_until_complete(http.aclose())
    finally:
        loop.close()
    assert repr(caller.pool).endswith("loops=0)")


ADAPTERS = pytest.mark.parametrize("kind", ["ChatSSE", "SSELLM"])


def in_three_loops(caller: Caller) -> list[BaseException]:
    """Three threads, each ``asyncio.run``: one call, then (once all three called) aclose;
    the errors they raised."""
    together = threading.Barrier(3)
    errors: list[BaseException] = []

    async def main() -> None:
        assert await caller.call()
        together.wait(10)  # every loop holds its clients, then each closes
        await caller.aclose()

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as error:  # reported on the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads)
    return errors


@ADAPTERS
@pytest.mark.timeout(120)
def test_one_model_in_three_loops_each_acloses_and_nothing_stays_open(
    kind: str, emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    """Three threads, each ``asyncio.run`` streaming then ``await model.aclose()``: no loop's
    clients are closed through a task in a loop about to end (asyncio.run cancels it), so no
    socket is left to the collector and no task is pending at a loop's end."""
    caller = Caller(kind, emulator.base_url())
    asyncio.run(caller.call())  # imports and first-use caches settle before counting
    start = descriptors()
    for _ in range(5):
        gc.collect()  # what earlier tests left to the collector is not this test's
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            errors = in_three_loops(caller)
            gc.collect()
        assert errors == []
        leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
        assert leaks == []
        pending = [r.getMessage() for r in caplog.records if "pending" in r.getMessage()]
        assert pending == []
        assert repr(caller.pool).endswith("loops=0)")
    assert back_to(start), f"{descriptors()} descriptors, from {start}"
    assert asyncio.run(caller.call())  # the model still works after aclose
    caller.close()
    assert back_to(start)


@ADAPTERS
@pytest.mark.timeout(120)
def test_close_from_another_thread_as_three_loops_end_leaves_nothing_open(
    kind: str, emulator: Emulator
) -> None:
    """The sync ``close()`` reaches loops running in other threads through a task in each;
    a loop that ends right after (its ``asyncio.run`` cancelling that task) still closes
    its clients at its shutdown."""
    caller = Caller(kind, emulator.base_url())
    asyncio.run(caller.call())
    start = descriptors()
    for _ in range(5):
        called, closed = threading.Barrier(4), threading.Barrier(4)

        async def main(
            called: threading.Barrier = called, closed: threading.Barrier = closed
        ) -> None:
            assert await caller.call()
            called.wait(10)
            closed.wait(10)  # then this loop ends at once

        threads = [threading.Thread(target=asyncio.run, args=(main(),)) for _ in range(3)]
        gc.collect()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for thread in threads:
                thread.start()
            called.wait(10)
            caller.close()
            closed.wait(10)
            for thread in threads:
                thread.join(30)
            gc.collect()
        leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
        assert leaks == []
        assert repr(caller.pool).endswith("loops=0)")
    assert back_to(start), f"{descriptors()} descriptors, from {start}"
