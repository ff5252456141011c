"""No secret is reachable from an error either adapter raises, whichever way the transport
fails (the six failures of ``tests/error_graph.py``), sync, streamed and async: the adapters
re-raise the core's errors (ChatSSE through ``sse_core.errors.recast``), which keep their
cause and context."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sse_core import SSEConnectorError, Timeouts
from tests.error_graph import FAILURES, HEADERS, KEY, leaks


def model(driver: Any, url: str) -> Any:
    return driver.make(
        base_url=url,
        api_key=KEY,
        default_headers=HEADERS,
        timeout=Timeouts(connect=0.5, first_byte=0.5, idle=0.5, data_idle=5),
        max_retries=0,
    )


def fail_sync(driver: Any, url: str) -> BaseException:
    with pytest.raises(SSEConnectorError) as caught:
        driver.ask(model(driver, url))
    return caught.value


def fail_stream(driver: Any, url: str) -> BaseException:
    with pytest.raises(SSEConnectorError) as caught:
        for _ in driver.stream(model(driver, url)):
            pass
    return caught.value


def fail_async(driver: Any, url: str) -> BaseException:
    async def main() -> BaseException:
        with pytest.raises(SSEConnectorError) as caught:
            await driver.aask(model(driver, url))
        return caught.value

    return asyncio.run(main())


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize(
    "fail", [fail_sync, fail_stream, fail_async], ids=["call", "stream", "acall"]
)
def test_no_secret_is_reachable_from_the_error(driver: Any, failure: str, fail: Any) -> None:
    with FAILURES[failure]() as url:
        error = fail(driver, url)
    assert leaks(error) == []
