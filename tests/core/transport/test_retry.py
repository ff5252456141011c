"""The pure retry policy and Retry-After parsing; which statuses a client retries."""

from __future__ import annotations

import asyncio

import pytest

import sse_core
from sse_core import (
    AsyncChatClient,
    AuthenticationError,
    BadRequestError,
    ChatClient,
    ConfigurationError,
    GatewayConnectionError,
    IncompleteStreamError,
    RateLimitError,
    RetryableRequestError,
    RetryPolicy,
    ServerError,
    SSEConnectorError,
)
from sse_core.transport.retry import parse_retry_after
from tests.raw_server import response, serving

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": "-4"}, 0.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "nope", "retry-after": "2"}, 2.0),
        ({"retry-after": "Tue, 14 Nov 2023 22:13:30 GMT"}, 10.0),
        ({"retry-after": "Tue, 14 Nov 2023 22:13:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "inf"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == expected


def http(
    cls: type[SSEConnectorError], status: int, retry_after: float | None = None
) -> SSEConnectorError:
    return cls("x", status_code=status, retry_after=retry_after)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (GatewayConnectionError("refused"), True),
        (http(RateLimitError, 429), True),
        (http(ServerError, 503), True),
        (http(RetryableRequestError, 408), True),
        (http(AuthenticationError, 401), False),
        (http(BadRequestError, 400), False),
        (IncompleteStreamError("cut"), False),
    ],
)
def test_which_errors_are_retried(error: SSEConnectorError, retried: bool) -> None:
    delay = RetryPolicy().next_delay(error, attempt=1, retry_after=None, rand=0.5)
    assert (delay is not None) is retried


def test_attempts_are_bounded() -> None:
    policy = RetryPolicy(max_retries=2)
    error = GatewayConnectionError("refused")
    delays = [policy.next_delay(error, attempt=n, retry_after=None, rand=0.5) for n in (1, 2, 3)]
    assert delays[0] is not None and delays[1] is not None and delays[2] is None


def test_backoff_grows_exponentially_with_bounded_jitter() -> None:
    policy = RetryPolicy(initial_delay=0.5, multiplier=2, max_delay=3, jitter=0.25)
    assert [policy.backoff(n, 0.5) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0]
    assert policy.backoff(1, 0.0) == pytest.approx(0.375)
    assert policy.backoff(1, 0.999999) == pytest.approx(0.625, abs=1e-6)


def test_retry_after_is_honoured_and_capped() -> None:
    policy = RetryPolicy(max_retry_after=30)
    error = http(RateLimitError, 429)
    assert policy.next_delay(error, attempt=1, retry_after=7, rand=0.5) == 7
    assert policy.next_delay(error, attempt=1, retry_after=31, rand=0.5) is None


def test_zero_retries_disables() -> None:
    error = GatewayConnectionError("refused")
    assert RetryPolicy(max_retries=0).next_delay(error, attempt=1, retry_after=None, rand=0) is None


@pytest.mark.parametrize("kwargs", [{"max_retries": -1}, {"jitter": 2.0}, {"initial_delay": -1}])
def test_invalid_policy_is_rejected(kwargs: dict[str, float]) -> None:
    with pytest.raises(ConfigurationError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


NO_WAIT = RetryPolicy(max_retries=2, initial_delay=0, max_delay=0)
PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
UNSUPPORTED = b'{"error":{"message":"Unsupported method","type":"not_implemented"}}'


def _complete(mode: str, url: str) -> sse_core.Completion:
    if mode == "sync":
        with ChatClient(base_url=url, retry=NO_WAIT) as client:
            return client.complete(PAYLOAD)

    async def go() -> sse_core.Completion:
        async with AsyncChatClient(base_url=url, retry=NO_WAIT) as client:
            return await client.complete(PAYLOAD)

    return asyncio.run(go())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_501_is_its_own_unretryable_server_error_and_is_sent_once(mode: str) -> None:
    answer = response(
        UNSUPPORTED, status="501 Not Implemented", headers=("content-type: application/json",)
    )
    with serving(lambda n, r: answer) as served, pytest.raises(ServerError) as caught:
        _complete(mode, served.url)
    error = caught.value
    assert type(error) is sse_core.NotImplementedByServerError and error.status_code == 501
    assert error.is_retryable is False
    assert len(served.requests) == 1  # the class says it, and the client did not retry


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_503_is_still_retried(mode: str) -> None:
    busy = response(
        b'{"error":"busy"}', status="503 Service Unavailable", headers=("content-type: x/y",)
    )
    with serving(lambda n, r: busy) as served, pytest.raises(ServerError) as caught:
        _complete(mode, served.url)
    assert type(caught.value) is ServerError and caught.value.is_retryable
    assert len(served.requests) == 3  # the first try and max_retries=2
