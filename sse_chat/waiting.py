"""The wait indicator: ``(waiting for the first token: 3.2 s)`` on a terminal until output.

A reasoning model behind a gateway that hides its reasoning, or a stalled upstream, can keep
a stream silent for minutes; a blank terminal then looks like a hang. The indicator is
redrawn in place on its own thread and erased (spaces, no escape codes, so a dumb terminal
shows no garbage) before anything else is written. The Renderer only makes one for a TTY:
output piped to a file or a program never carries it.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

__all__ = ["WaitIndicator"]


class WaitIndicator:
    """Shows the time waited so far on ``out``'s current line, until :meth:`clear`."""

    def __init__(self, out: TextIO, *, interval: float = 0.2) -> None:
        self._out = out
        self._interval = interval
        self._lock = threading.Lock()
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._width = 0  # the characters drawn on the line, to erase
        #: When the wait began (monotonic), or None when not waiting.
        self.since: float | None = None

    def start(self, since: float | None = None) -> None:
        """Begin (or go on) waiting: the first drawing comes after one interval."""
        self.clear()
        self.since = time.monotonic() if since is None else since
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(self._stop, self.since), name="sse-chat-wait", daemon=True
        )
        self._thread.start()

    def _run(self, stop: threading.Event, since: float) -> None:
        while not stop.wait(self._interval):
            text = f"(waiting for the first token: {time.monotonic() - since:.1f} s)"
            with self._lock:
                if stop.is_set():
                    return
                self._out.write("\r" + text.ljust(self._width))
                self._out.flush()
                self._width = len(text)

    def clear(self) -> None:
        """Stop and erase the indicator (nothing to do when not waiting)."""
        stop, thread = self._stop, self._thread
        if stop is None or thread is None:
            return
        with self._lock:
            stop.set()
            if self._width:
                self._out.write("\r" + " " * self._width + "\r")
                self._out.flush()
                self._width = 0
        thread.join()
        self._stop = self._thread = None
        self.since = None
