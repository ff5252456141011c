"""The request record: contents, masking, the HTTP endpoints, and early disconnects."""

from __future__ import annotations

import asyncio
import time

import httpx

from sse_emulator import Emulator

FAULT = "X-Emulator-Fault"
LONG = {"model": "m", "messages": [{"role": "user", "content": "count to 50"}], "stream": True}


def test_a_completed_request_is_recorded_whole(client: httpx.Client, emulator: Emulator) -> None:
    response = client.post(
        "/gateway/v1/chat/completions?trace=1", json=LONG, headers={"X-Custom": "yes"}
    )
    assert response.status_code == 200
    (record,) = emulator.requests
    assert record.index == 0
    assert (record.method, record.path, record.query) == (
        "POST",
        "/gateway/v1/chat/completions",
        "trace=1",
    )
    assert record.header("x-custom") == "yes"
    assert record.json() == LONG
    assert record.dialect == "gateway"
    assert (record.status, record.completed, record.disconnected) == (200, True, False)
    assert record.disconnected_at is None
    assert emulator.last_request == record


def test_secrets_are_masked_before_they_are_stored(
    client: httpx.Client, emulator: Emulator
) -> None:
    secrets = {
        "Authorization": "Bearer sk-test-0123456789abcd",
        "api-key": "short",
        "X-Api-Key": "azure-key-0123456789wxyz",
        "X-Session-Token": "tok-0123456789-zz99",
    }
    client.post("/v1/chat/completions", json=LONG | {"stream": False}, headers=secrets)
    record = emulator.last_request
    assert record is not None
    assert record.header("authorization") == "Bearer ***abcd"
    assert record.header("api-key") == "***"
    assert record.header("x-api-key") == "***wxyz"
    assert record.header("x-session-token") == "***zz99"
    listed = client.get("/_emulator/requests").text
    for secret in ("sk-test-0123456789abcd", "short", "azure-key-0123456789wxyz", "tok-0123456789"):
        assert secret not in repr(emulator.requests)
        assert secret not in listed


def test_http_endpoints_list_and_reset_the_record(client: httpx.Client) -> None:
    client.post("/aivene/v1/chat/completions", json=LONG | {"stream": False})
    listed = client.get("/_emulator/requests").json()["requests"]
    assert len(listed) == 1
    entry = listed[0]
    assert entry["path"] == "/aivene/v1/chat/completions"
    assert entry["body"] == LONG | {"stream": False}
    assert entry["status"] == 200 and entry["completed"] is True
    assert entry["disconnected"] is False and entry["disconnected_after"] is None
    assert client.post("/_emulator/reset").json() == {"ok": True}
    assert client.get("/_emulator/requests").json() == {"requests": []}
    health = client.get("/_emulator/health").json()
    assert health["ok"] is True and health["dialects"]["spass"] == "/spass/v1"
    assert client.get("/_emulator/nothing").status_code == 404


def test_the_record_sees_an_early_close_within_50_ms(
    client: httpx.Client, emulator: Emulator
) -> None:
    with client.stream(
        "POST", "/v1/chat/completions", json=LONG, headers={FAULT: "slow; delay=0.2"}
    ) as response:
        next(response.iter_raw())
        closed_at = time.monotonic()
        response.close()
    record = emulator.wait_for_disconnect(1.0)
    assert record.disconnected and not record.completed
    assert record.disconnected_at is not None
    assert record.disconnected_at - closed_at < 0.05
    endpoint = client.get("/_emulator/requests").json()["requests"][0]
    assert endpoint["disconnected"] is True and endpoint["disconnected_after"] > 0


async def test_a_cancelled_async_stream_reaches_the_server(emulator: Emulator) -> None:
    async with httpx.AsyncClient(base_url=emulator.url, timeout=5.0) as http:

        async def consume() -> None:
            async with http.stream(
                "POST", "/shroud/v1/chat/completions", json=LONG, headers={FAULT: "slow; delay=0.1"}
            ) as response:
                async for _ in response.aiter_raw():
                    pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.25)
        cancelled_at = time.monotonic()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        record = await emulator.wait_for_disconnect_async(1.0)
    assert task.cancelled()
    assert record.disconnected_at is not None
    assert record.disconnected_at - cancelled_at < 0.05


def test_wait_for_disconnect_times_out_when_the_client_stays(
    client: httpx.Client, emulator: Emulator
) -> None:
    client.post("/v1/chat/completions", json=LONG)
    started = time.monotonic()
    try:
        emulator.wait_for_disconnect(0.05)
    except TimeoutError as error:
        assert "no early disconnect" in str(error)
    else:
        raise AssertionError("expected TimeoutError")
    assert time.monotonic() - started < 0.5
    assert emulator.wait_for_requests(1, timeout=0.1)[0].completed


def test_a_wrong_path_is_recorded_too(client: httpx.Client, emulator: Emulator) -> None:
    client.post("/v1/v1/chat/completions", json=LONG)
    client.get("/v1/models")
    wrong, listed = emulator.requests
    assert (wrong.path, wrong.status, wrong.dialect, wrong.completed) == (
        "/v1/v1/chat/completions",
        404,
        None,
        True,
    )
    assert (listed.path, listed.status, listed.dialect) == ("/v1/models", 200, None)
