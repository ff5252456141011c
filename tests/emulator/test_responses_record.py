"""The ``responses`` dialect in the request record, and recorded Responses streams replayed."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from sse_emulator.server.record import access_line
from tests.emulator.test_anthropic_record import record
from tests.emulator.test_responses_dialect import PATH, THINK, WEATHER, body_of, read

FAULT = "X-Emulator-Fault"


def test_a_responses_request_is_recorded_with_its_key_masked(
    client: httpx.Client, emulator: Emulator
) -> None:
    body = body_of("count to 3")
    secret = {"Authorization": "Bearer sk-proj-secret-0123456789wxyz"}
    assert client.post(PATH, json=body, headers=secret).status_code == 200
    faulted = secret | {FAULT: "rate-limit"}
    assert client.post(PATH, json=body, headers=faulted).status_code == 429
    first, second = emulator.requests
    assert (first.method, first.path, first.dialect, first.status) == (
        "POST",
        PATH,
        "responses",
        200,
    )
    assert first.json() == body and first.completed and not first.disconnected
    assert first.header("authorization") == "Bearer ***wxyz"
    assert (second.status, second.completed) == (429, True)
    listed = client.get("/_emulator/requests").text
    assert "sk-proj-secret" not in listed + repr(emulator.requests)
    assert access_line(first).startswith("POST /v1/responses dialect=responses status=200")
    assert "faults=rate-limit" in access_line(second)


def test_a_recorded_responses_stream_replays_byte_for_byte(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    stream = body_of("weather in Paris", tools=[WEATHER], **THINK)
    with httpx.Client(timeout=5.0) as http:
        url = emulator.url + PATH
        recorded = record(http, url, stream, tmp_path, 1)
        record(http, url, body_of("hi", max_output_tokens=1), tmp_path, 2)  # a 400
        replay = emulator_replay(tmp_path)
        first = http.post(replay.url + PATH, json=body_of("anything"))
        second = http.post(replay.url + PATH, json=body_of("anything"))
        gone = http.post(replay.url + PATH, json=body_of("anything"))
    assert first.status_code == 200 and first.content == recorded
    assert first.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert first.headers["x-request-id"].startswith("req_")
    answer = read(first.content)
    assert answer.terminal == "response.completed"
    assert json.loads(answer.calls[1].arguments) == {"city": "Paris"}
    assert second.status_code == 400
    assert second.json()["error"]["param"] == "max_output_tokens"
    assert gone.status_code == 410
    assert gone.json()["error"]["code"] == "recording_exhausted"
    assert set(gone.json()["error"]) == {"message", "type", "param", "code"}
    assert [r.dialect for r in replay.requests] == ["responses"] * 3


def test_a_replayed_recording_still_answers_status_faults(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    with httpx.Client(timeout=5.0) as http:
        recorded = record(http, emulator.url + PATH, body_of(), tmp_path, 1)
        replay = emulator_replay(tmp_path / "001.sse")
        faulted = http.post(
            replay.url + PATH, json=body_of(), headers={FAULT: "unavailable; count=1"}
        )
        served = http.post(replay.url + PATH, json=body_of())
    assert faulted.status_code == 503 and faulted.json()["error"]["code"] == "service_unavailable"
    assert served.content == recorded and read(served.content).content == "Hello there"
