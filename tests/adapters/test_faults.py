"""Every emulator fault through both adapters, sync and async: status faults and broken streams
arrive as the adapter's typed errors (catchable as sse_core's class and as the framework's own
where it has one), and stream failures keep what arrived: ``.partial`` (the Completion) and
the adapter's own form of it equal the texts the caller already received.

(Wire quirks that leave the answer whole, checked against each framework's fields:
tests/langchain/test_langchain_exceptions.py and tests/llamaindex/test_faults.py.)
"""

from __future__ import annotations

from typing import Any

import pytest

import sse_core
from sse_emulator import Emulator
from tests.adapters.conftest import Driver

STREAMS = ("stream", "astream")
ANSWERS = ("ask", "aask")
#: fault -> the core's class
STATUS_FAULTS = {
    "rate-limit": "RateLimitError",
    "unavailable": "ServerError",
    "bad-gateway": "ServerError",
    "bad-gateway-html": "ServerError",
    "unauthorized": "AuthenticationError",
}
STREAM_FAULTS = {
    "error-frame; after=3": "GatewayStreamError",
    "event-error; after=3": "GatewayStreamError",
    "truncate; after=3": "IncompleteStreamError",
    "reset; after=3": "IncompleteStreamError",
    "stall; after=3; seconds=5": "StreamTimeoutError",
    "oversized; after=2; size=5000": "StreamProtocolError",
    "invalid-json; after=2": "StreamProtocolError",
}
#: The five seed gateways, and plain OpenAI.
ALL_DIALECTS = ("openai", "shroud", "streamchat", "spass", "gateway", "aivene")
KEY = "sk-emulator-test-key"


def _model(on_emulator: Any, dialect: str, fault: str, **fields: Any) -> Any:
    return on_emulator(
        dialect,
        timeout=sse_core.Timeouts(connect=5, first_byte=5, idle=0.2),
        max_event_bytes=2000,
        default_headers={"SPASS-User-Id": "u", "X-Emulator-Fault": fault},
        **fields,
    )


async def _failure(driver: Driver, model: Any, how: str) -> tuple[list[str], BaseException]:
    """The texts received before the call failed, and the error."""
    texts: list[str] = []
    try:
        await driver.call(model, how, "count to 6", texts)
    except Exception as exc:
        return texts, exc
    raise AssertionError(f"no error; received {texts}")


def _assert_typed(driver: Driver, error: BaseException, name: str) -> None:
    assert type(error) is driver.error(name), repr(error)
    assert isinstance(error, getattr(sse_core, name))
    assert isinstance(error, driver.framework_error(name))


@pytest.mark.parametrize("how", STREAMS)
@pytest.mark.parametrize("fault", sorted(STATUS_FAULTS))
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_status_faults_raise_typed_errors(
    driver: Driver, on_emulator: Any, dialect: str, fault: str, how: str
) -> None:
    texts, error = await _failure(driver, _model(on_emulator, dialect, fault), how)
    assert texts == []
    _assert_typed(driver, error, STATUS_FAULTS[fault])
    assert isinstance(error, sse_core.GatewayHTTPError)
    assert KEY not in str(error)


@pytest.mark.parametrize("how", STREAMS)
@pytest.mark.parametrize("fault", sorted(STREAM_FAULTS))
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_stream_faults_keep_the_partial_answer(
    driver: Driver, on_emulator: Any, dialect: str, fault: str, how: str
) -> None:
    texts, error = await _failure(driver, _model(on_emulator, dialect, fault), how)
    if dialect == "spass" and fault.startswith("error-frame"):
        # SPASS reports a mid-stream failure as an HTTP 502 instead of a stream.
        assert texts == []
        _assert_typed(driver, error, "ServerError")
        return
    _assert_typed(driver, error, STREAM_FAULTS[fault])
    assert isinstance(error, sse_core.StreamError) and error.has_partial
    assert error.partial.content == "".join(texts)
    assert "1" in error.partial.content or fault.startswith(("oversized", "invalid"))
    assert driver.partial(error) == error.partial.content


@pytest.mark.parametrize("how", ANSWERS)
async def test_a_truncated_answer_raises_incomplete_with_the_partial_answer(
    driver: Driver, on_emulator: Any, how: str
) -> None:
    model = _model(on_emulator, "shroud", "truncate; after=4")
    _, error = await _failure(driver, model, how)
    _assert_typed(driver, error, "IncompleteStreamError")
    assert isinstance(error, sse_core.IncompleteStreamError)
    assert error.partial.content == "1 2 3"
    assert error.partial.finish_reason is None
    assert driver.partial(error) == "1 2 3"
    assert "without a finish_reason" in str(error)


@pytest.mark.parametrize("how", ["ask", "aask", "stream", "astream"])
async def test_a_rate_limit_is_retried_before_the_stream_and_then_succeeds(
    driver: Driver, on_emulator: Any, emulator: Emulator, how: str
) -> None:
    model = on_emulator(fault="rate-limit; count=1; retry-after=0", max_retries=1)
    assert "".join(await driver.call(model, how, "echo: ok")) == "ok"
    assert [r.status for r in emulator.requests] == [429, 200]


@pytest.mark.parametrize("how", ["ask", "stream"])
async def test_a_broken_stream_is_never_retried(
    driver: Driver, on_emulator: Any, emulator: Emulator, how: str
) -> None:
    model = on_emulator(fault="truncate; after=2", max_retries=3)
    _, error = await _failure(driver, model, how)
    _assert_typed(driver, error, "IncompleteStreamError")
    assert len(emulator.requests) == 1


@pytest.mark.parametrize("how", ANSWERS)
async def test_an_unreachable_gateway_is_a_connection_error(driver: Driver, how: str) -> None:
    model = driver.make(base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2)
    _, error = await _failure(driver, model, how)
    _assert_typed(driver, error, "GatewayConnectionError")
