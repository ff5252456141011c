"""The pytest plugin's fixtures: one server per session, a clean record per test."""

from __future__ import annotations

from pathlib import Path

import httpx

from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_first_test_leaves_a_request_and_a_fault_count(emulator: Emulator) -> None:
    headers = {"X-Emulator-Fault": "rate-limit; key=plugin"}
    assert (
        httpx.post(
            emulator.base_url() + "/chat/completions", json=BODY, headers=headers
        ).status_code
        == 429
    )
    assert len(emulator.requests) == 1


def test_next_test_starts_clean(emulator: Emulator, emulator_server: Emulator) -> None:
    assert emulator is emulator_server and emulator.running
    assert emulator.requests == []
    headers = {"X-Emulator-Fault": "rate-limit; key=plugin"}
    assert (
        httpx.post(
            emulator.base_url() + "/chat/completions", json=BODY, headers=headers
        ).status_code
        == 429
    )


REPLAYED: list[Emulator] = []


def test_emulator_replay_starts_a_replaying_emulator(
    emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    (tmp_path / "001.sse").write_bytes(b"data: [DONE]\n\n")
    emulator = emulator_replay(tmp_path, timing=True)
    REPLAYED.append(emulator)
    assert emulator.running and emulator.app.replay_timing
    response = httpx.post(emulator.base_url() + "/chat/completions", json=BODY, timeout=5.0)
    assert response.content == b"data: [DONE]\n\n"


def test_emulator_replay_stopped_it_after_the_test() -> None:
    assert len(REPLAYED) == 1 and not REPLAYED[0].running
