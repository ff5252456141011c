"""Where a stream's call (:class:`~sse_core.telemetry.call.Call`) opens and ends.

A stream with telemetry on reads its batches through :func:`traced` (:func:`atraced`),
which opens the call's span at the first read (when the request is made), scans the batches
until the first answer chunk (then hands the rest on untouched: nothing per chunk after it),
and ends the call exactly once where the read loop ends:

- the loop ran to its end: the whole answer, status OK;
- it raised: ``error.type`` is the library's error class (``IncompleteStreamError`` for a cut
  stream, ``GatewayStreamError``, ``RateLimitError``, ``StreamTimeoutError``, ...), or
  ``cancelled`` for a cancelled task;
- it was closed before its end: ``cancelled`` where its caller closed it (``close()``,
  ``aclose()``, the ``with`` block, or a cancel asked of the reading task), ``_OTHER`` where
  nobody did: the stream was dropped and the garbage collector or the event loop finalized it.

The read loop is closed before the call ends, so the span covers the response's close.
A stream with telemetry off reads its batches straight from the loop.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING

from sse_core.telemetry.call import error_type
from sse_core.telemetry.names import CANCELLED, OTHER
from sse_core.transport.closing import Closer

if TYPE_CHECKING:
    from sse_core.pipeline.session import StreamSession
    from sse_core.telemetry.call import Call
    from sse_core.transport.streams import AsyncBatches, Batches, _Outcome

__all__ = ["atraced", "traced"]


class _End:
    """How a read loop ended: its ``error.type`` (None: well) and the error, if one."""

    __slots__ = ("error", "kind")

    def __init__(self, call: Call) -> None:
        call.begin()  # the request is being made
        self.kind: str | None = None
        self.error: BaseException | None = None

    def by(self, exc: BaseException, outcome: _Outcome) -> None:
        """The loop ended by ``exc``: closed before its end (``GeneratorExit``), by its
        caller or finalized unclosed; a cancelled task; or an error."""
        if isinstance(exc, GeneratorExit):
            self.kind = CANCELLED if outcome.left or outcome.cancel_asked() else OTHER
        elif isinstance(exc, asyncio.CancelledError):
            self.kind = CANCELLED
        else:
            self.kind, self.error = error_type(exc), exc

    def record(self, call: Call, session: StreamSession, outcome: _Outcome) -> None:
        """End ``call``; inside a garbage collection (a sync stream abandoned in a reference
        cycle), on the closer thread: the collector may have stopped this thread while it
        held a lock of the OpenTelemetry SDK that ending a span takes too."""
        job = partial(
            call.end,
            session.answer,
            outcome.completion,
            self.kind,
            self.error,
            session.keepalives,
            session.dialect,
        )
        self.error = None  # the error's traceback holds the loop's frame, which holds self
        if Closer.collecting:
            Closer.later(job)
        else:
            job()


def traced(batches: Batches, call: Call, session: StreamSession, outcome: _Outcome) -> Batches:
    """``batches``, with the call opened at the first read and ended where they end."""
    end = _End(call)
    try:
        for batch in batches:
            found = call.scan(batch)
            yield batch
            if found:
                break
        yield from batches
    except BaseException as exc:
        end.by(exc, outcome)
        raise
    finally:
        batches.close()
        end.record(call, session, outcome)


async def atraced(
    batches: AsyncBatches, call: Call, session: StreamSession, outcome: _Outcome
) -> AsyncBatches:
    """Async twin of :func:`traced`."""
    end = _End(call)
    try:
        async for batch in batches:
            found = call.scan(batch)
            yield batch
            if found:
                break
        async for batch in batches:
            yield batch
    except BaseException as exc:
        end.by(exc, outcome)
        raise
    finally:
        await batches.aclose()
        end.record(call, session, outcome)
