"""Both adapters on a body that ends in the middle of an event (tests/core/
test_cut_inside_an_event.py), on every protocol, read the four ways: a clean close inside the
last event's JSON and a reset at the same byte are the same cut stream, the adapter's own
IncompleteStreamError (also the framework's error class) with the answer so far."""

from __future__ import annotations

from typing import Any

import pytest

import sse_core
from tests.adapters.conftest import HOWS, PROTOCOLS, Driver
from tests.core.test_cut_inside_an_event import TEXT, _reset_after, cuts
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)


def failure(driver: Driver, protocol: str, reply: Any, how: str) -> BaseException:
    with serving(lambda n, request: reply) as server:
        model = driver.make(model="m", base_url=server.url, api_key="sk-test", protocol=protocol,
                            max_retries=0, timeout=10)  # fmt: skip
        try:
            driver.answer(model, how)
        except Exception as error:
            return error
    raise AssertionError("no error")


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("ending", ["close", "reset"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_body_that_ends_inside_an_event_is_a_cut_stream(
    driver: Driver, protocol: str, ending: str, how: str
) -> None:
    cut = cuts(protocol)[7]
    reply = response(cut) if ending == "close" else _reset_after(cut)
    error = failure(driver, protocol, reply, how)
    assert type(error) is driver.error("IncompleteStreamError"), repr(error)
    assert isinstance(error, sse_core.IncompleteStreamError)
    assert isinstance(error, driver.framework_error("IncompleteStreamError"))
    assert error.partial.content == TEXT
    assert driver.partial(error) == TEXT
