"""What the README's "Behind a proxy" promises users of both adapters: LiteLLM's Retry-After
alias is honoured, and ``Timeouts(data_idle=...)`` reaches the core (the relay tests in
``tests/relays`` show it ending a stream that only pings)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from sse_core import Timeouts

MODES = ("sync", "async")
#: LiteLLM's proxy forwards the upstream's Retry-After under this name (and no Retry-After).
ALIAS = "llm_provider-retry-after"
ANSWER = (
    b'data: {"choices": [{"index": 0, "delta": {"content": "after the wait"}, '
    b'"finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'
)


class RateLimited:
    """A gateway that answers 429 with the alias ``limited`` times, then a stream."""

    def __init__(self, limited: int) -> None:
        self.limited = limited
        self.times: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.times.append(time.monotonic())
        if len(self.times) <= self.limited:
            error = {"error": {"message": "slow down", "type": "rate_limit_error"}}
            return httpx.Response(429, headers={ALIAS: "1"}, content=json.dumps(error).encode())
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=ANSWER)

    def model(self, driver: Any, max_retries: int) -> Any:
        transport = httpx.MockTransport(self)
        return driver.make(
            base_url="http://gateway.test/v1",
            max_retries=max_retries,
            http_client=httpx.Client(transport=transport),
            http_async_client=httpx.AsyncClient(transport=transport),
        )

    def waited(self) -> float:
        return self.times[1] - self.times[0]


async def ask(driver: Any, model: Any, mode: str) -> str:
    return driver.ask(model) if mode == "sync" else await driver.aask(model)  # type: ignore[no-any-return]


@pytest.mark.parametrize("mode", MODES)
async def test_a_429_with_the_litellm_alias_is_retried_after_its_delay(
    driver: Any, mode: str
) -> None:
    gateway = RateLimited(limited=1)
    assert await ask(driver, gateway.model(driver, max_retries=2), mode) == "after the wait"
    assert len(gateway.times) == 2
    assert 0.9 <= gateway.waited() < 2.5  # the alias's second, not the 0.5 s backoff


@pytest.mark.parametrize("mode", MODES)
async def test_the_alias_is_the_retry_after_of_the_last_429(driver: Any, mode: str) -> None:
    gateway = RateLimited(limited=10)
    with pytest.raises(driver.error("RateLimitError")) as caught:
        await ask(driver, gateway.model(driver, max_retries=1), mode)
    assert caught.value.retry_after == 1.0
    assert caught.value.status_code == 429
    assert len(gateway.times) == 2
    assert 0.9 <= gateway.waited() < 2.5


def test_data_idle_reaches_the_core(driver: Any) -> None:
    model = driver.make(base_url="http://gateway.test/v1", timeout=Timeouts(idle=5, data_idle=1))
    timeouts = driver.config(model).timeouts
    assert (timeouts.idle, timeouts.data_idle) == (5.0, 1.0)
    assert driver.sync_client(model).config.timeouts.data_idle == 1.0


def test_a_plain_number_sets_every_phase_but_total(driver: Any) -> None:
    timeouts = driver.config(driver.make(base_url="http://gateway.test/v1", timeout=3)).timeouts
    assert timeouts == Timeouts(connect=3, first_byte=3, idle=3, data_idle=3, total=None)
