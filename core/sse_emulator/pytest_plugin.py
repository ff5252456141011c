"""Pytest fixtures for the gateway emulator.

Enable with ``pytest_plugins = ["sse_emulator.pytest_plugin"]`` in a top-level
``conftest.py`` (or import the fixtures into one). ``emulator_server`` is one server
for the whole session; ``emulator`` is the same server with its record and fault
counters cleared before each test; ``emulator_replay`` starts emulators that replay a
recording, for one test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Protocol

import pytest

from sse_emulator.server.background import Emulator


class ReplayFactory(Protocol):
    """What ``emulator_replay`` gives: start a replaying emulator for this test."""

    def __call__(self, path: str | os.PathLike[str], *, timing: bool = False) -> Emulator:
        """Start an emulator that answers chat requests from the recording at ``path``.

        Args:
            path: A ``.sse`` file or a directory of ``NNN.sse`` files with sidecars.
            timing: Send each recorded read at its recorded time.

        Returns:
            The running emulator; the fixture stops it after the test.
        """
        ...


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[Emulator]:
    """One running emulator for the whole test session, stopped at its end."""
    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def emulator(emulator_server: Emulator) -> Iterator[Emulator]:
    """The session's emulator with an empty record and fresh fault counters."""
    emulator_server.reset()
    yield emulator_server


@pytest.fixture
def emulator_replay() -> Iterator[ReplayFactory]:
    """A factory ``(path, *, timing=False) -> Emulator`` of replaying emulators.

    Each emulator it starts is stopped when the test ends. A path that is not a
    recording raises ``ValueError`` at the call.
    """
    started: list[Emulator] = []

    def start(path: str | os.PathLike[str], *, timing: bool = False) -> Emulator:
        emulator = Emulator(replay=path, replay_timing=timing)
        started.append(emulator.start())
        return emulator

    yield start
    for emulator in started:
        emulator.stop()
