"""No secret is reachable from an error SSELLM raises, whichever way the transport fails
(the six failures of ``tests/error_graph.py``), sync and async: SSELLM re-raises the core's
errors through ``sse_core.errors.recast``, which keeps their cause and context."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from error_graph import FAILURES, HEADERS, KEY, leaks
from llama_index.core.llms import ChatMessage

from llamaindex_sse import SSELLM, SSEConnectorError
from sse_core import Timeouts

MESSAGES = [ChatMessage(role="user", content="hi")]


def model(url: str) -> SSELLM:
    return SSELLM(
        model="m",
        base_url=url,
        api_key=KEY,
        default_headers=HEADERS,
        timeout=Timeouts(connect=0.5, first_byte=0.5, idle=0.5, data_idle=5),
        max_retries=0,
    )


def fail_sync(url: str) -> BaseException:
    with pytest.raises(SSEConnectorError) as caught:
        model(url).chat(MESSAGES)
    return caught.value


def fail_stream(url: str) -> BaseException:
    with pytest.raises(SSEConnectorError) as caught:
        for _ in model(url).stream_chat(MESSAGES):
            pass
    return caught.value


def fail_async(url: str) -> BaseException:
    async def main() -> BaseException:
        with pytest.raises(SSEConnectorError) as caught:
            await model(url).achat(MESSAGES)
        return caught.value

    return asyncio.run(main())


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize(
    "fail", [fail_sync, fail_stream, fail_async], ids=["chat", "stream", "achat"]
)
def test_no_secret_is_reachable_from_the_error(failure: str, fail: Any) -> None:
    with FAILURES[failure]() as url:
        error = fail(url)
    assert leaks(error) == []
