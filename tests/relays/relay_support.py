"""Helpers of the relay tests: a relay process (started, found, stopped in bounded time),
and the settings every adapter in these tests uses."""

from __future__ import annotations

import select
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from sse_core import Timeouts
from sse_emulator import RequestRecord

__all__ = [
    "ALL_DIALECTS",
    "API_KEY",
    "KINDS",
    "PROMPTLY",
    "REASONING_DIALECTS",
    "SLOW",
    "SPASS_HEADERS",
    "TIMEOUT",
    "RelayProcess",
    "closed_promptly",
    "settings",
]

#: The relays (see ``relay_app.py``).
KINDS = ("starlette", "aiohttp")
#: The five seed gateways, and plain OpenAI.
ALL_DIALECTS = ("openai", "shroud", "streamchat", "spass", "gateway", "aivene")
#: Dialects whose wire carries reasoning text (the others keep it hidden).
REASONING_DIALECTS = frozenset({"openai", "shroud", "aivene"})
#: SPASS rejects requests without it; the relays forward it.
SPASS_HEADERS = {"SPASS-User-Id": "user-1"}
API_KEY = "sk-relay-test-key-0123456789"
#: Every request of these tests is bounded.
TIMEOUT = Timeouts(connect=2.0, first_byte=10.0, idle=10.0, data_idle=10.0, total=60.0)
#: A long answer at a slow pace (count to 200: about 10 s).
SLOW = "slow; delay=0.05"
#: Seconds from the client's close to the emulator seeing the relay leave.
PROMPTLY = 1.5

_RELAY_APP = Path(__file__).with_name("relay_app.py")
_START_TIMEOUT = 30.0  # a cold import of fastapi and aiohttp on a busy machine
_STOP_TIMEOUT = 5.0


class RelayProcess:
    """One relay (``kind``) in a process of its own, in front of ``upstream``."""

    def __init__(self, kind: str, upstream: str, log: Path) -> None:
        self.kind = kind
        self.upstream = upstream
        self.log = log
        self.port = 0
        self._process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_url(self, dialect: str = "openai") -> str:
        """The dialect's base URL, through the relay (the relay keeps the path)."""
        prefix = "" if dialect == "openai" else f"/{dialect}"
        return f"{self.url}{prefix}/v1"

    def start(self) -> RelayProcess:
        """Start the process; return once it listens (or raise, with its log)."""
        with self.log.open("w") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-u", str(_RELAY_APP), self.kind, self.upstream],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                cwd=_RELAY_APP.parent,  # its folder is on its sys.path: relay_sse imports
            )
        assert self._process.stdout is not None
        line = _read_line(self._process.stdout, _START_TIMEOUT)
        if not line.startswith("listening "):
            self.stop()
            raise RuntimeError(f"the {self.kind} relay did not start: {self.log.read_text()}")
        self.port = int(line.split()[1])
        return self

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it is still there after a few seconds."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(_STOP_TIMEOUT)
        if process.stdout is not None:
            process.stdout.close()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None


def _read_line(stream: IO[str], timeout: float) -> str:
    ready, _, _ = select.select([stream], [], [], timeout)
    return stream.readline() if ready else ""


def closed_promptly(record: RequestRecord, since: float) -> None:
    """The emulator saw the relay's upstream request cut, within :data:`PROMPTLY`."""
    assert record.disconnected and not record.completed
    assert record.disconnected_at is not None
    assert record.disconnected_at - since < PROMPTLY


def settings(relay: RelayProcess, dialect: str, fault: str | None, **fields: Any) -> dict[str, Any]:
    """Keyword settings shared by ChatSSE and SSELLM through ``relay``."""
    headers = dict(SPASS_HEADERS)
    if fault is not None:
        headers["X-Emulator-Fault"] = fault
    return {
        "model": "emulator",
        "base_url": relay.base_url(dialect),
        "api_key": API_KEY,
        "timeout": TIMEOUT,
        "max_retries": 0,
        "default_headers": headers,
        **fields,
    }
