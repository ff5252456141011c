"""What outlives a single request: the record, the fault counters and the stop flag."""

from __future__ import annotations

import threading

from sse_core.emulator.server.record import Recorder
from sse_core.emulator.wire.faults import FaultCounters


class EmulatorState:
    """What outlives a request: the record, the fault counters and the stop flag."""

    def __init__(self, record_limit: int = 1000) -> None:
        """Create empty state.

        Args:
            record_limit: How many requests the record keeps.
        """
        self.recorder = Recorder(record_limit)
        self.counters = FaultCounters()
        self.stopping = threading.Event()

    def reset(self) -> None:
        """Forget every recorded request and every fault count."""
        self.recorder.clear()
        self.counters.clear()
