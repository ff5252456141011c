"""The pytest plugin's fixtures: one server per session, a clean record per test."""

from __future__ import annotations

import httpx

from sse_core.emulator import Emulator

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
