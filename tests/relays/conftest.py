"""Fixtures of the relay tests: both relays, each in its own process in front of the session's
emulator, started once and stopped (bounded) when the session ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_emulator import Emulator
from tests.relays.relay_support import KINDS, RelayProcess, settings


@pytest.fixture(scope="session")
def relay_processes(
    emulator_server: Emulator, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, RelayProcess]]:
    """Both relays in front of the session's emulator (their logs in a temporary folder)."""
    logs = tmp_path_factory.mktemp("relays")
    started: dict[str, RelayProcess] = {}
    try:
        for kind in KINDS:
            log = Path(logs, f"{kind}.log")
            started[kind] = RelayProcess(kind, emulator_server.url, log).start()
        yield started
    finally:
        for process in started.values():
            process.stop()


@pytest.fixture(params=KINDS)
def relay(
    request: pytest.FixtureRequest, relay_processes: dict[str, RelayProcess], emulator: Emulator
) -> RelayProcess:
    """Each relay in turn (the emulator's record cleared first)."""
    process = relay_processes[request.param]
    assert process.running, f"the {process.kind} relay died: {process.log.read_text()}"
    return process


@pytest.fixture
def make_chat(relay: RelayProcess) -> Callable[..., ChatSSE]:
    """``make_chat(dialect="openai", fault=None, **fields)``: a ChatSSE through the relay."""

    def make(dialect: str = "openai", fault: str | None = None, **fields: Any) -> ChatSSE:
        return ChatSSE(**settings(relay, dialect, fault, **fields))

    return make


@pytest.fixture
def make_llm(relay: RelayProcess) -> Callable[..., SSELLM]:
    """``make_llm(dialect="openai", fault=None, **fields)``: an SSELLM through the relay."""

    def make(dialect: str = "openai", fault: str | None = None, **fields: Any) -> SSELLM:
        return SSELLM(**settings(relay, dialect, fault, **fields))

    return make
