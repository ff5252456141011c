"""Watch a request for the client's disconnect while the response is being written.

ASGI reports a disconnect only to whoever awaits ``receive()``; a streaming app that is
busy sleeping between chunks would otherwise notice only at its next write. The
watcher awaits ``receive()`` in its own task, so a client's early close is recorded
within milliseconds, and sleeps end at once when the client leaves or the server stops.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from types import TracebackType

from sse_emulator.server.responses import Receive

#: How often a sleep looks at the server's stop flag (the disconnect wakes it at once).
_STOP_POLL = 0.05


class DisconnectWatcher:
    """An async context manager that notices ``http.disconnect`` during a response."""

    def __init__(
        self, receive: Receive, on_disconnect: Callable[[], None], stopping: threading.Event
    ) -> None:
        """Prepare a watcher.

        Args:
            receive: The request's ASGI receive (its body must already be read).
            on_disconnect: Called once if the client leaves before the response ended.
            stopping: Set when the server is shutting down.
        """
        self._receive = receive
        self._on_disconnect = on_disconnect
        self._stopping = stopping
        self._gone = asyncio.Event()
        self._ended = False
        self._task: asyncio.Task[None] | None = None

    @property
    def gone(self) -> bool:
        """Whether the client has disconnected."""
        return self._gone.is_set()

    def end(self) -> None:
        """Mark the response as ended: a disconnect from now on is not early."""
        self._ended = True

    async def __aenter__(self) -> DisconnectWatcher:
        self._task = asyncio.create_task(self._watch())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._ended = True
        if self._task is not None:
            self._task.cancel()
            # wait() never raises the task's CancelledError, but lets ours through.
            await asyncio.wait([self._task])

    async def _watch(self) -> None:
        while True:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                if not self._ended:
                    self._on_disconnect()
                self._gone.set()
                return

    async def sleep(self, seconds: float) -> None:
        """Sleep, but wake as soon as the client leaves or the server stops.

        Args:
            seconds: The longest time to sleep.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not self._gone.is_set() and not self._stopping.is_set():
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            try:
                await asyncio.wait_for(self._gone.wait(), min(remaining, _STOP_POLL))
            except asyncio.TimeoutError:
                continue
