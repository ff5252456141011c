"""Fixtures for the SSELLM tests: LLMs pointed at the emulator.

The ``emulator`` fixture (one uvicorn server per session, record cleared per test) comes
from ``sse_emulator.pytest_plugin``, registered in ``tests/conftest.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from llamaindex_sse import SSELLM
from sse_emulator import Emulator
from tests.llamaindex.li_support import API_KEY, SPASS_HEADERS, TIMEOUT, LLMFactory


@pytest.fixture
def make_llm(emulator: Emulator) -> LLMFactory:
    """``make_llm(dialect="openai", fault=None, **fields)``: an SSELLM on the emulator."""

    def make(dialect: str = "openai", fault: str | None = None, **fields: Any) -> SSELLM:
        headers = dict(SPASS_HEADERS)
        if fault is not None:
            headers["X-Emulator-Fault"] = fault
        params: dict[str, Any] = {
            "model": "emulator",
            "base_url": emulator.base_url(dialect),
            "api_key": API_KEY,
            "timeout": TIMEOUT,
            "max_retries": 0,
            "default_headers": headers,
        }
        params.update(fields)
        return SSELLM(**params)

    return make
