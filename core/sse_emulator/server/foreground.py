"""Serve the emulator in the foreground until interrupted: ``python -m`` and ``sse-chat``.

SIGINT and SIGTERM handlers go in before the emulator binds its port, so a signal that
arrives while it is still starting ends it cleanly (exit status 0) instead of killing
it half-started.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sse_emulator.schemas.published import compiled, versions
from sse_emulator.server.background import Emulator
from sse_emulator.server.state import FinishedHook
from sse_emulator.wire.dialects import ALL_DIALECTS


def _print(line: str) -> None:
    print(line, flush=True)


def serve(
    port: int = 8000,
    *,
    dialect: str = "openai",
    api_key: str | None = None,
    announce: Callable[[str], None] | None = _print,
    stop: threading.Event | None = None,
    on_finished: FinishedHook | None = None,
    replay: str | os.PathLike[str] | None = None,
    replay_timing: bool = False,
    strict: bool | None = None,
) -> None:
    """Serve the emulator in the foreground until Ctrl-C, SIGTERM or ``stop`` is set.

    Args:
        port: The port on 127.0.0.1 (0 picks a free one, announced).
        dialect: The dialect of the unprefixed ``/v1/chat/completions``.
        api_key: When set, chat requests must send ``Authorization: Bearer <key>``.
        announce: Called with a line naming the URL and each dialect's base URL.
        stop: Set it to stop serving (signals set it too, from the main thread).
        on_finished: Called with each request's record once it is done (``--log``).
        replay: A recording to answer chat requests with (see :class:`Emulator`).
        replay_timing: Send replayed responses at their recorded times.
        strict: Check requests against the published request types (see :class:`Emulator`).

    Raises:
        OSError: When the port cannot be bound.
        ValueError: When ``replay`` is not a recording.
        ImportError: ``strict`` and the SDKs are not installed.
    """
    stop = stop or threading.Event()
    with _signals_set(stop):
        emulator = Emulator(
            port=port,
            dialect=dialect,
            api_key=api_key,
            on_finished=on_finished,
            replay=replay,
            replay_timing=replay_timing,
            strict=strict,
        )
        if stop.is_set():  # a signal came while the recording was loading
            return
        emulator.start()
        if emulator.strict:
            compiled()  # the banner says it is ready: its first request does not wait for them
        try:
            if announce is not None:
                announce(_banner(emulator, replay))
            while not stop.wait(0.2) and emulator.running:
                pass
        finally:
            emulator.stop()


def _banner(emulator: Emulator, replay: str | os.PathLike[str] | None) -> str:
    bases = ", ".join(f"{name} {emulator.base_url(name)}" for name in ALL_DIALECTS)
    line = f"sse-connectors gateway emulator on {emulator.url} (base URLs: {bases})"
    sdks = ", ".join(f"{name} {version}" for name, version in versions().items())
    line += f"; requests checked against {sdks}" if emulator.strict else "; schema checks off"
    return line if replay is None else f"{line}; replaying {os.fspath(replay)}"


@contextmanager
def _signals_set(stop: threading.Event) -> Iterator[None]:
    """Make SIGINT and SIGTERM set ``stop`` while inside (only possible in the main thread)."""
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda *_: stop.set())
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
