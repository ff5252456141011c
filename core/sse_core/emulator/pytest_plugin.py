"""Pytest fixtures for the gateway emulator.

Enable with ``pytest_plugins = ["sse_core.emulator.pytest_plugin"]`` in a top-level
``conftest.py`` (or import the fixtures into one). ``emulator_server`` is one server
for the whole session; ``emulator`` is the same server with its record and fault
counters cleared before each test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sse_core.emulator.server.background import Emulator


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
