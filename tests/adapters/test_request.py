"""The request both adapters send: every setting and the call's keyword arguments in the body,
the key, default headers and per-call headers on the wire (and not in the body), unset
settings left out, usage asked for unless switched off, and a transport failure as the
core's connection error. (Each framework's own names and call arguments:
tests/langchain/test_chatsse_model.py and tests/llamaindex/test_ssellm_component.py.)"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import sse_core
from sse_emulator import Emulator
from tests.adapters.conftest import Driver

KEY = "sk-very-secret-key-1234"


def _sent(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None
    body = record.json()
    assert isinstance(body, dict)
    return body


def test_the_request_carries_the_settings_and_the_call_arguments(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    model = on_emulator(
        api_key=KEY,
        temperature=0.2,
        max_tokens=50,
        stop=["STOP"],
        reasoning_effort="low",
        model_kwargs={"top_p": 0.9},
        extra_body={"chat_template_kwargs": {"enable_thinking": False}},
        default_headers={"SPASS-User-Id": "u-7", "X-Team": "a"},
    )
    driver.ask(model, "hi", seed=7, extra_headers={"X-Trace": "t-1"})
    body = _sent(emulator)
    assert (body["temperature"], body["max_tokens"], body["stop"]) == (0.2, 50, ["STOP"])
    assert body["reasoning_effort"] == "low"
    assert (body["top_p"], body["seed"]) == (0.9, 7)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert "extra_headers" not in body
    record = emulator.last_request
    assert record is not None
    assert record.header("authorization") == "Bearer ***1234"  # the emulator masks it
    assert (record.header("spass-user-id"), record.header("x-team")) == ("u-7", "a")
    assert record.header("x-trace") == "t-1"


def test_unset_settings_are_not_sent(driver: Driver, on_emulator: Any, emulator: Emulator) -> None:
    driver.ask(on_emulator())
    assert not {"temperature", "max_tokens", "stop", "reasoning_effort"} & set(_sent(emulator))


def test_an_empty_stop_list_is_not_sent(
    driver: Driver, on_emulator: Any, emulator: Emulator
) -> None:
    driver.ask(on_emulator(stop=[]))
    assert "stop" not in _sent(emulator)


def test_usage_can_be_switched_off(driver: Driver, on_emulator: Any, emulator: Emulator) -> None:
    driver.ask(on_emulator(stream_usage=False))
    assert "stream_options" not in _sent(emulator)
    assert _sent(emulator)["stream"] is True


@pytest.mark.parametrize("how", ["ask", "aask", "stream", "astream"])
async def test_a_transport_failure_is_the_cores_connection_error(driver: Driver, how: str) -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    transport = httpx.MockTransport(broken)
    model = driver.make(base_url="http://h/v1", max_retries=0,
                        http_client=httpx.Client(transport=transport),
                        http_async_client=httpx.AsyncClient(transport=transport))  # fmt: skip
    with pytest.raises(sse_core.GatewayConnectionError) as caught:
        await driver.call(model, how)
    assert type(caught.value) is driver.error("GatewayConnectionError")
    assert json.dumps(str(caught.value))  # says something
