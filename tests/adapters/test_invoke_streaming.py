"""A call made with one JSON request (``invoke_streaming=False``) fails as the streamed call
does: the same error classes for the same HTTP statuses, a 200 JSON error object as a gateway
stream error with its (empty) partial answer, an unreadable JSON body as a protocol error; and
a stream still streams. (The JSON answer compared field by field with the streamed one, as each
framework shows it: tests/langchain/test_json_invoke_fields_and_callbacks.py and
tests/llamaindex/test_json_chat_fields_and_instrumentation.py.)"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import sse_core
from sse_emulator import Emulator

MODES = ("sync", "async")

STATUS_FAULTS = {
    "unauthorized": "AuthenticationError",
    "rate-limit; count=0; retry-after=0": "RateLimitError",
    "bad-gateway": "ServerError",
    "bad-gateway-html": "ServerError",
}


async def failure(driver: Any, model: Any, mode: str) -> Exception:
    try:
        if mode == "sync":
            driver.ask(model, "echo: hi")
        else:
            await driver.aask(model, "echo: hi")
    except Exception as exc:
        return exc
    raise AssertionError("expected an error, got an answer")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", sorted(STATUS_FAULTS))
async def test_http_statuses_raise_the_streamed_error_classes(
    driver: Any, on_emulator: Any, fault: str, mode: str
) -> None:
    streamed = await failure(driver, on_emulator(fault=fault), mode)
    json_error = await failure(driver, on_emulator(fault=fault, invoke_streaming=False), mode)
    expected = driver.error(STATUS_FAULTS[fault])
    assert issubclass(expected, getattr(sse_core, STATUS_FAULTS[fault]))
    assert type(json_error) is type(streamed) is expected
    assert getattr(json_error, "status_code", None) == getattr(streamed, "status_code", None)
    assert str(json_error) == str(streamed)


def json_model(driver: Any, body: bytes) -> tuple[Any, list[httpx.Request]]:
    """The driver's model whose gateway answers every request with a 200 JSON ``body``."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "application/json"}, content=body)

    transport = httpx.MockTransport(answer)
    model = driver.make(
        base_url="http://gateway.test/v1",
        max_retries=0,
        invoke_streaming=False,
        http_client=httpx.Client(transport=transport),
        http_async_client=httpx.AsyncClient(transport=transport),
    )
    return model, seen


ERROR_BODY = json.dumps({"error": {"message": "upstream exploded", "type": "server_error"}})


@pytest.mark.parametrize("mode", MODES)
async def test_a_200_json_error_object_is_a_gateway_stream_error(driver: Any, mode: str) -> None:
    model, seen = json_model(driver, ERROR_BODY.encode())
    error = await failure(driver, model, mode)
    assert type(error) is driver.error("GatewayStreamError")
    assert "upstream exploded" in str(error)
    assert driver.partial(error) == ""
    assert json.loads(seen[0].content)["stream"] is False


UNREADABLE = {"cut": b'{"choices": [', "text": b"not json", "list": b"[]"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("body", UNREADABLE.values(), ids=UNREADABLE.keys())
async def test_an_unreadable_json_body_is_a_stream_protocol_error(
    driver: Any, body: bytes, mode: str
) -> None:
    model, seen = json_model(driver, body)
    error = await failure(driver, model, mode)
    assert type(error) is driver.error("StreamProtocolError")
    assert len(seen) == 1


@pytest.mark.parametrize("how", ["stream", "astream"])
async def test_a_stream_still_streams(
    driver: Any, on_emulator: Any, emulator: Emulator, how: str
) -> None:
    texts = await driver.call(on_emulator(invoke_streaming=False), how, "count to 5")
    assert "".join(texts) == "1 2 3 4 5"
    assert len(texts) > 2
    record = emulator.last_request
    assert record is not None
    body = record.json()
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
