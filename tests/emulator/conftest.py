"""Fixtures for the emulator's own tests: an HTTP client on the plugin's emulator.

The ``emulator`` and ``emulator_server`` fixtures come from
``sse_emulator.pytest_plugin``, which the root ``tests/conftest.py`` loads.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from sse_emulator import Emulator


@pytest.fixture(scope="session")
def session_client(emulator_server: Emulator) -> Iterator[httpx.Client]:
    """One httpx client for the session (building one costs an SSL context)."""
    with httpx.Client(base_url=emulator_server.url, timeout=5.0) as http:
        yield http


@pytest.fixture
def client(emulator: Emulator, session_client: httpx.Client) -> httpx.Client:
    """An httpx client rooted at the (freshly reset) emulator: real loopback HTTP."""
    return session_client
