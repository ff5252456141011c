"""The errors the adapters raise (the core's, recast to add each framework's own bases)
survive pickle and copy.deepcopy with their fields and partial answer: a worker process or a
job queue ships them pickled."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

MODES = ("pickle", "deepcopy")


@pytest.mark.parametrize("how", MODES)
def test_an_http_error_from_a_call_survives(driver: Any, on_emulator: Any, how: str) -> None:
    with pytest.raises(driver.error("ServerError")) as caught:
        driver.ask(on_emulator(fault="bad-gateway"))
    error = caught.value
    again = pickle.loads(pickle.dumps(error)) if how == "pickle" else copy.deepcopy(error)
    assert type(again) is type(error) and str(again) == str(error)
    assert again.status_code == error.status_code == 502
    assert again.headers == error.headers


@pytest.mark.parametrize("how", MODES)
def test_a_stream_error_keeps_its_partial_answer(driver: Any, on_emulator: Any, how: str) -> None:
    with pytest.raises(driver.error("GatewayStreamError")) as caught:
        driver.ask(on_emulator(fault="error-frame; after=2"), "count to 9")
    error = caught.value
    again = pickle.loads(pickle.dumps(error)) if how == "pickle" else copy.deepcopy(error)
    assert type(again) is type(error) and str(again) == str(error)
    assert again.partial.content == error.partial.content != ""
    assert driver.partial(again) == driver.partial(error)
