"""Serve the emulator in the foreground until interrupted: ``python -m`` and ``sse-chat``."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

from sse_core.emulator.server.background import Emulator
from sse_core.emulator.wire.dialects import DIALECTS


def _print(line: str) -> None:
    print(line, flush=True)


def serve(
    port: int = 8000,
    *,
    dialect: str = "openai",
    api_key: str | None = None,
    announce: Callable[[str], None] | None = _print,
    stop: threading.Event | None = None,
) -> None:
    """Serve the emulator in the foreground until Ctrl-C, SIGTERM or ``stop`` is set.

    Args:
        port: The port on 127.0.0.1 (0 picks a free one, announced).
        dialect: The dialect of the unprefixed ``/v1/chat/completions``.
        api_key: When set, chat requests must send ``Authorization: Bearer <key>``.
        announce: Called with a line naming the URL and each dialect's base URL.
        stop: Set it to stop serving (signals set it too, from the main thread).

    Raises:
        OSError: When the port cannot be bound.
    """
    stop = stop or threading.Event()
    emulator = Emulator(port=port, dialect=dialect, api_key=api_key).start()
    previous = _on_signals(stop)
    try:
        if announce is not None:
            bases = ", ".join(f"{name} {emulator.base_url(name)}" for name in DIALECTS)
            announce(f"sse-connectors gateway emulator on {emulator.url} (base URLs: {bases})")
        while not stop.wait(0.2) and emulator.running:
            pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        emulator.stop()


def _on_signals(stop: threading.Event) -> dict[int, Any]:
    """Make SIGINT and SIGTERM set ``stop`` (only possible in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
