"""How a stream's response is closed: at once, on every exit path, nothing left behind.

- :func:`aclose_response` (async): an answer that ended well has the end of its body read if
  it is here (:mod:`.keepalive`), one left early is hung up at once (:func:`hang_up_unfinished`),
  then the response is closed and its body's generators are unwound (:func:`unwind`), so none
  is left to the event loop's finalizer.
- :func:`close_response` (sync): the same, except inside a garbage collection, where the close
  runs on a thread of its own (:class:`Closer`), because the collector may run inside
  httpcore while it holds its pool lock, which the close needs too.
"""

from __future__ import annotations

import contextlib
import gc
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from sse_core.transport.body import hang_up, retire
from sse_core.transport.keepalive import afinish_body, finish_body

if TYPE_CHECKING:
    from sse_core.transport.packages import AnyResponse

__all__ = [
    "Closer",
    "aclose_response",
    "close_response",
    "hang_up_unfinished",
    "run_abandoned",
    "unwind",
]


async def aclose_response(
    response: AnyResponse, body: AsyncIterator[bytes], *, ended_well: bool, reuse: bool
) -> None:
    """Close an async response: one that ended well after reading the end of its body if it
    is here (:mod:`.keepalive`); one left early hung up at once first (see below). Then its
    body's generators are unwound (:func:`unwind`)."""
    if not ended_well or not reuse:
        hang_up_unfinished(response, reuse)
    else:
        await afinish_body(response, body)
    await response.aclose()
    await unwind(body)


#: Reads an unwound body may still give (an in-memory body has no connection to close).
_UNWIND_READS = 64


async def unwind(body: AsyncIterator[bytes]) -> None:
    """End every generator of a closed response's body, down to httpx's and httpcore's.

    A body left before its end (a ``break``, ``aclose()``, the answer whole before the
    body's end) is a chain of async generators, each suspended in the one below it: ours
    (decoding, the idle watch), httpx's ``aiter_raw`` and its streams, httpcore's. Closing the
    outermost closes none of those below, and each would be left to the event loop's
    finalizer, a task of its own at some later turn (or, at the loop's shutdown, a pending
    ``async_generator_athrow``). The connection is closed now, so one more read fails at the
    bottom at once, and the error ends each generator of the chain on its way up (or the end
    of the body does). A body that keeps giving bytes (one held in memory) is closed after
    :data:`_UNWIND_READS` reads. A cancelled or failed read unwound the chain already: the
    next one ends at once.
    """
    for _ in range(_UNWIND_READS):
        try:
            await body.__anext__()
        except Exception:  # StopAsyncIteration, or what the closed connection raises
            return
    close = getattr(body, "aclose", None)
    if close is not None:
        await close()


def hang_up_unfinished(response: AnyResponse, reuse: bool) -> None:
    """Shut the connection of an unfinished response down now, without awaiting anything.

    An async stream left early is closed by ``aclose()``, which needs the event loop; when a
    consumer breaks out just before ``asyncio.run`` ends, the loop stops before the close
    completes and the gateway would go on generating until the process exits. A sync one
    after an error the same way: a connection whose body broke the protocol is never reused.
    A response closed already (its body read to the end) gave its connection back to the
    pool, where it may serve another request by now: it is only retired if still idle
    (where the reuse fast path is off, it asked ``connection: close`` and is closed already).

    Where the fast path :data:`~sse_core.transport.keepalive.REUSE` is off, every stream
    ends here: its connection is not reused (httpx's public API only).
    """
    if not response.is_closed:
        hang_up(response.extensions.get("network_stream"))
    elif reuse:
        retire(response)


class Closer:
    """Closes responses abandoned inside a garbage collection, on a thread of its own.

    A sync stream's body is a chain of generators down to httpcore's pool stream, whose
    own close takes the pool's lock when it is finalized. Were the chain part of the garbage
    a collection finds, the collector would finalize it there, inside httpcore perhaps,
    with the lock held: a deadlock. So :attr:`reading` holds each sync response with its
    body while its read loop runs, which keeps them out of any garbage, and a loop
    finalized by the collector hands both to this thread, where they are closed and
    released.
    """

    collecting: ClassVar[bool] = False  # a collection is running (set by the gc callback)
    started: ClassVar[bool] = False
    pending: queue.SimpleQueue[tuple[AnyResponse, Any] | Callable[[], None]] = queue.SimpleQueue()
    reading: ClassVar[dict[int, tuple[AnyResponse, Iterator[bytes]]]] = {}

    @classmethod
    def on_gc(cls, phase: str, info: dict[str, Any]) -> None:
        cls.collecting = phase == "start"

    @classmethod
    def start(cls) -> None:
        """Start the thread (once, before any stream runs: never from the collector)."""
        if not cls.started:
            cls.started = True
            threading.Thread(target=cls.run, name="sse-core-closer", daemon=True).start()

    @classmethod
    def later(cls, job: Callable[[], None]) -> None:
        """Run ``job`` on the closer thread: what a stream abandoned in a collection still
        has to do that takes locks of its own (ending its telemetry span)."""
        cls.pending.put(job)

    @classmethod
    def run(cls) -> None:
        while True:
            run_abandoned(cls.pending.get())


def run_abandoned(item: tuple[AnyResponse, Any] | Callable[[], None]) -> None:
    """Close a response abandoned in a collection with its body, or run a job of one
    (nobody to report an error to: it was abandoned). A function of its own: a local of the
    closer's loop would keep the last item alive until the next."""
    if callable(item):
        with contextlib.suppress(Exception):
            item()
    else:
        close_abandoned(*item)


def close_abandoned(response: AnyResponse, body: Any) -> None:
    """Close a response abandoned in a collection, and its body's generators (if here).
    (A function of its own: a local of the closer's loop would keep the last one, its
    connection and its pool, alive until the next, and so its socket open.)"""
    with contextlib.suppress(Exception):  # nobody to report to: it was abandoned
        response.close()
    with contextlib.suppress(Exception):
        close = getattr(body, "close", None)
        if close is not None:
            close()


gc.callbacks.append(Closer.on_gc)


def close_response(
    response: AnyResponse, body: Iterator[bytes], *, ended_well: bool, reuse: bool
) -> None:
    """Close ``response`` (after reading the end of ``body``, for an answer that ended well
    and a client whose connections are reused: :mod:`.keepalive`); inside a garbage
    collection, on the closer thread instead, with the body (see :class:`Closer`)."""
    Closer.reading.pop(id(response), None)
    keep = ended_well and reuse
    if not keep:
        hang_up_unfinished(response, reuse)
    if Closer.collecting:
        Closer.pending.put((response, body))
        return
    if keep:
        finish_body(response, body)
    response.close()
