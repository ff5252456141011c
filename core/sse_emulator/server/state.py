"""What outlives a single request: the record, the fault counters, the replay position,
the stored Responses API responses and the stop flag."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sse_emulator.assistant.conversations import ResponseStore
from sse_emulator.server.record import Recorder, RequestRecord
from sse_emulator.wire.faults import FaultCounters

#: Called with a request's record once the emulator is done with it (``--log``).
FinishedHook = Callable[[RequestRecord], None]


class Cursor:
    """A thread-safe position in a replayed recording: each chat request takes the next."""

    def __init__(self) -> None:
        """Start at the first response."""
        self._lock = threading.Lock()
        self._next = 0

    def take(self) -> int:
        """Return the next position and move past it."""
        with self._lock:
            position, self._next = self._next, self._next + 1
            return position

    def rewind(self) -> None:
        """Go back to the first response."""
        with self._lock:
            self._next = 0


class EmulatorState:
    """What outlives a request: the record, the fault counters, the replay position and
    the stop flag."""

    def __init__(
        self, record_limit: int = 1000, *, on_finished: FinishedHook | None = None
    ) -> None:
        """Create empty state.

        Args:
            record_limit: How many requests the record keeps.
            on_finished: Called (on the server's thread) with each request's record once
                the emulator is done with it.
        """
        self.recorder: Recorder = Recorder(record_limit)
        self.counters: FaultCounters = FaultCounters()
        self.replayed: Cursor = Cursor()
        self.stored: ResponseStore = ResponseStore()
        self.stopping: threading.Event = threading.Event()
        self.on_finished = on_finished

    def finish(self, index: int) -> None:
        """Note that request ``index`` is done, and tell ``on_finished``."""
        record = self.recorder.update(index, finished_at=time.monotonic())
        if record is not None and self.on_finished is not None:
            self.on_finished(record)

    def reset(self) -> None:
        """Forget every recorded request, fault count and stored response; rewind a replay."""
        self.recorder.clear()
        self.stored.clear()
        self.counters.clear()
        self.replayed.rewind()
