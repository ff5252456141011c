"""No secret is reachable from an error of the core clients, whichever way the transport
fails (refused, connect timeout, head timeout, reset before the head, read timeout or reset
mid-stream), sync and async: httpx attaches the request (with its headers) to its exceptions,
which become the causes of ours. See ``tests/error_graph.py`` for the walk."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    GatewayConnectionError,
    IncompleteStreamError,
    SSEConnectorError,
    StreamTimeoutError,
    Timeouts,
)
from tests.error_graph import FAILURES, HEADERS, KEY, leaks

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
EXPECTED: dict[str, type[SSEConnectorError]] = {
    "refused": GatewayConnectionError,
    "connect-timeout": GatewayConnectionError,
    "head-timeout": StreamTimeoutError,
    "reset-before-head": GatewayConnectionError,
    "read-timeout-mid-stream": StreamTimeoutError,
    "reset-mid-stream": IncompleteStreamError,
}


def settings(url: str) -> dict[str, Any]:
    return {
        "base_url": url,
        "api_key": KEY,
        "default_headers": HEADERS,
        "secret_headers": ["x-tenant-secret"],
        "timeout": Timeouts(connect=0.5, first_byte=0.5, idle=0.5, data_idle=5),
        "max_retries": 0,
    }


def fail_sync(url: str) -> SSEConnectorError:
    with ChatClient(**settings(url)) as client, pytest.raises(SSEConnectorError) as caught:
        client.complete(PAYLOAD)
    return caught.value


def fail_async(url: str) -> SSEConnectorError:
    async def main() -> SSEConnectorError:
        async with AsyncChatClient(**settings(url)) as client:
            with pytest.raises(SSEConnectorError) as caught:
                await client.complete(PAYLOAD)
            return caught.value

    return asyncio.run(main())


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("fail", [fail_sync, fail_async], ids=["sync", "async"])
def test_no_secret_is_reachable_from_the_error(failure: str, fail: Any) -> None:
    with FAILURES[failure]() as url:
        error = fail(url)
    assert isinstance(error, EXPECTED[failure]), repr(error)
    assert leaks(error) == []


def test_the_walk_finds_a_request_on_an_httpx_error() -> None:
    """The walk itself: an httpx error carrying the request is caught."""
    import httpx

    request = httpx.Request("POST", "http://h/", headers={"authorization": f"Bearer {KEY}"})
    error = SSEConnectorError("x")
    error.__cause__ = httpx.ReadTimeout("t", request=request)
    assert leaks(error)
