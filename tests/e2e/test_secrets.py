"""Keys never appear, over real loopback HTTP: the emulator requires the canary key; the
client also sends a canary in a header marked secret (``secret_headers=``) and in an
``api-key`` default header. Whatever fails (a wrong key, status faults, error frames, a reset
connection, a stall, a refused connection), no canary may appear in the error, its cause
chain, the DEBUG logs of httpx, httpcore and sse_core, or the reprs.

The echoing gateways (401 bodies, error frames quoting the key) are in tests/core/test_secrets.py.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sse_core import (
    AsyncChatClient,
    AuthenticationError,
    ChatClient,
    Completion,
    GatewayConnectionError,
    GatewayStreamError,
    IncompleteStreamError,
    RateLimitError,
    RetryPolicy,
    ServerError,
    SSEConnectorError,
    StreamProtocolError,
    StreamTimeoutError,
    Timeouts,
)
from sse_emulator import Emulator

KEY = "sk-e2e-canary-key-7c2d9a41"
OTHER_KEY = "sk-e2e-canary-wrong-3b8f10"
SECRET = "tenant-e2e-canary-51e0c9"
API_KEY = "apikey-e2e-canary-d4a7f2"
CANARIES = (KEY, OTHER_KEY, SECRET, API_KEY)
PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "Say hello"}]}

Outcome = Completion | SSEConnectorError


@pytest.fixture(scope="module")
def gateway() -> Iterator[Emulator]:
    """An emulator that requires ``Authorization: Bearer KEY``."""
    with Emulator(api_key=KEY) as emu:
        yield emu


@pytest.fixture(autouse=True)
def debug_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    for name in ("httpx", "httpcore", "httpx2", "httpcore2", "sse_core"):
        caplog.set_level(logging.DEBUG, logger=name)
    yield
    leaked = [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.get_records("call")
        if r.name.startswith(("httpx", "httpcore", "sse_core"))  # httpx2, httpcore2 too
        and any(c in r.getMessage() + (r.exc_text or "") for c in CANARIES)
    ]
    assert leaked == []
    assert any(r.name.startswith("httpcore") for r in caplog.get_records("call"))  # DEBUG on


def exposed(error: BaseException) -> list[str]:
    """Where a canary shows in ``error`` or down its cause/context chain."""
    found, seen = [], set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts = [str(current), repr(current), repr(current.args)]
        texts += [
            repr(getattr(current, n, None)) for n in ("error_message", "data", "type", "code")
        ]
        if any(canary in text for text in texts for canary in CANARIES):
            found.append(type(current).__name__)
        current = current.__cause__ or current.__context__
    return found


def settings(emu: Emulator, **changes: Any) -> dict[str, Any]:
    return {
        "base_url": emu.base_url(),
        "api_key": KEY,
        "default_headers": {"X-Tenant-Token": SECRET, "api-key": API_KEY},
        "secret_headers": {"x-tenant-token"},
        "retry": RetryPolicy(max_retries=1, initial_delay=0.01, max_delay=0.01),
        **changes,
    }


def run_sync(config: dict[str, Any], fault: str | None) -> Outcome:
    headers = {"X-Emulator-Fault": fault} if fault else None
    with ChatClient(**config) as client:
        assert not any(c in repr(client) or c in repr(client.config) for c in CANARIES)
        try:
            return client.complete(PAYLOAD, headers=headers)
        except SSEConnectorError as exc:
            return exc


def run_async(config: dict[str, Any], fault: str | None) -> Outcome:
    headers = {"X-Emulator-Fault": fault} if fault else None

    async def main() -> Outcome:
        async with AsyncChatClient(**config) as client:
            assert not any(c in repr(client) for c in CANARIES)
            try:
                return await client.complete(PAYLOAD, headers=headers)
            except SSEConnectorError as exc:
                return exc

    return asyncio.run(main())


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Callable[[dict[str, Any], str | None], Outcome]:
    return run_sync if request.param == "sync" else run_async


@pytest.mark.timeout(30)
@pytest.mark.parametrize("key", [f"{KEY}\n", f"{KEY}  \r\n", f" {KEY}"])
def test_a_key_read_with_its_newline_works(
    run: Callable[[dict[str, Any], str | None], Outcome], gateway: Emulator, key: str
) -> None:
    result = run(settings(gateway, api_key=key), None)
    assert isinstance(result, Completion) and result.content == "You said: Say hello"
    assert gateway.last_request is not None and gateway.last_request.status == 200


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("changes", "fault", "cls"),
    [
        ({"api_key": OTHER_KEY}, None, AuthenticationError),
        ({}, "unauthorized", AuthenticationError),
        ({}, "rate-limit; count=5; retry-after=0", RateLimitError),
        ({}, "bad-gateway-html", ServerError),
        ({}, "error-frame; after=2", GatewayStreamError),
        ({}, "event-error; after=2", GatewayStreamError),
        ({}, "reset; after=2", IncompleteStreamError),
        ({}, "truncate; after=2", IncompleteStreamError),
        ({}, "invalid-json; after=1", StreamProtocolError),
        ({"timeout": Timeouts(idle=0.2)}, "stall; after=2; seconds=5", StreamTimeoutError),
    ],
)
def test_no_failure_shows_a_secret(
    run: Callable[[dict[str, Any], str | None], Outcome],
    gateway: Emulator,
    changes: dict[str, Any],
    fault: str | None,
    cls: type,
) -> None:
    result = run(settings(gateway, **changes), fault)
    assert type(result) is cls, result
    assert isinstance(result, SSEConnectorError) and exposed(result) == []


@pytest.mark.timeout(30)
def test_a_refused_connection_shows_no_secret(
    run: Callable[[dict[str, Any], str | None], Outcome], gateway: Emulator
) -> None:
    result = run(settings(gateway, base_url="http://127.0.0.1:9/v1"), None)
    assert isinstance(result, GatewayConnectionError) and exposed(result) == []
