"""Fixtures for the ChatSSE tests: models pointed at the emulator, and MockTransport helpers.

The ``emulator`` fixture (one uvicorn server per session, record cleared per test) comes
from ``sse_emulator.pytest_plugin``, registered in ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import (
    SPASS_HEADERS,
    TIMEOUT,
    ModelFactory,
    Recorder,
    chunk,
    sse_body,
)


@pytest.fixture
def make_model(emulator: Emulator) -> ModelFactory:
    """``make_model(dialect="openai", **fields)``: a ChatSSE on the emulator's dialect."""

    def make(dialect: str = "openai", **fields: Any) -> ChatSSE:
        params: dict[str, Any] = {
            "model": "emulator",
            "base_url": emulator.base_url(dialect),
            "api_key": "sk-emulator-test-key",
            "timeout": TIMEOUT,
            "max_retries": 0,
            "default_headers": SPASS_HEADERS,
        }
        params.update(fields)
        return ChatSSE(**params)

    return make


@pytest.fixture
def mock_model() -> Callable[..., tuple[ChatSSE, Recorder]]:
    """``mock_model(body, **fields)``: a ChatSSE whose sync and async clients answer ``body``."""

    def make(*bodies: bytes, headers: dict[str, str] | None = None, **fields: Any) -> Any:
        recorder = Recorder(bodies or [sse_body(chunk({"content": "hi"}, finish_reason="stop"))],
                            headers)  # fmt: skip
        transport = httpx.MockTransport(recorder)
        model = ChatSSE(
            model="m",
            base_url="http://gateway.test/v1",
            http_client=httpx.Client(transport=transport),
            http_async_client=httpx.AsyncClient(transport=transport),
            **fields,
        )
        return model, recorder

    return make
