"""The ``anthropic`` dialect in the request record, and recorded Anthropic streams replayed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx

from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from sse_emulator.replay.recording import FORMAT
from tests.emulator.test_anthropic_dialect import (
    HEADERS,
    PATH,
    WEATHER,
    assert_error,
    body_of,
    read,
)

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "anthropic"
FAULT = "X-Emulator-Fault"


def test_a_messages_request_is_recorded_with_its_key_masked(
    client: httpx.Client, emulator: Emulator
) -> None:
    body = body_of("count to 3")
    headers = HEADERS | {"x-api-key": "sk-ant-api03-secret-0123456789wxyz"}
    assert client.post(PATH + "?beta=true", json=body, headers=headers).status_code == 200
    assert client.post(PATH, json=body, headers=HEADERS | {FAULT: "overloaded"}).status_code == 529
    first, second = emulator.requests
    assert (first.method, first.path, first.query, first.dialect) == (
        "POST",
        PATH,
        "beta=true",
        "anthropic",
    )
    assert first.json() == body
    assert first.header("anthropic-version") == "2023-06-01"
    assert first.header("x-api-key") == "***wxyz"
    assert (first.status, first.completed, first.disconnected) == (200, True, False)
    assert (second.status, second.completed) == (529, True)
    listed = client.get("/_emulator/requests").text
    assert "sk-ant-api03-secret" not in listed + repr(emulator.requests)
    assert [r["dialect"] for r in json.loads(listed)["requests"]] == ["anthropic", "anthropic"]


def record(http: httpx.Client, url: str, body: dict[str, Any], folder: Path, number: int) -> bytes:
    """Record one call as a client recorder writes it: ``NNN.sse`` and its sidecar."""
    reads: list[list[float]] = []
    received = bytearray()
    sent = time.monotonic()
    with http.stream("POST", url, json=body, headers=HEADERS) as response:
        head_time = time.monotonic() - sent
        for piece in response.iter_raw():
            reads.append([time.monotonic() - sent, len(piece)])
            received += piece
    sidecar = {
        "format": FORMAT,
        "request": {"method": "POST", "url": url, "headers": {}, "body": body},
        "status": response.status_code,
        "headers": [[key, value] for key, value in response.headers.items()],
        "head_time": head_time,
        "reads": reads,
        "elapsed": time.monotonic() - sent,
    }
    (folder / f"{number:03d}.sse").write_bytes(bytes(received))
    (folder / f"{number:03d}.json").write_text(json.dumps(sidecar))
    return bytes(received)


def test_a_recorded_messages_stream_replays_byte_for_byte(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    stream = body_of(
        "weather in Paris", tools=[WEATHER], thinking={"type": "enabled", "budget_tokens": 1024}
    )
    with httpx.Client(timeout=5.0) as http:
        url = emulator.url + PATH
        recorded = record(http, url, stream, tmp_path, 1)
        live_id = emulator.requests[0]
        record(http, url, body_of("hi") | {"max_tokens": -1}, tmp_path, 2)  # a 400
        replay = emulator_replay(tmp_path)
        first = http.post(replay.url + "/v1/messages", json=body_of("anything"), headers=HEADERS)
        second = http.post(replay.url + PATH, json=body_of("anything"), headers=HEADERS)
        gone = http.post(replay.url + PATH, json=body_of("anything"), headers=HEADERS)
    assert live_id.dialect == "anthropic"
    assert first.status_code == 200 and first.content == recorded
    assert first.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert first.headers.get_list("request-id") == [first.headers["request-id"]]  # kept, once
    completion = read(first.content)
    assert json.loads(completion.tool_calls[0].arguments) == {"city": "Paris"}
    assert completion.reasoning_blocks[0].signature
    assert_error(second, 400, "invalid_request_error", "max_tokens: Input should be")
    assert_error(gone, 410, "invalid_request_error", "the recording")
    assert "exhausted" in gone.json()["error"]["message"]
    assert [r.dialect for r in replay.requests] == ["anthropic"] * 3


def test_a_real_anthropic_capture_replays_and_status_faults_still_apply(
    emulator_replay: ReplayFactory,
) -> None:
    capture = REAL / "pydantic-ai__sonnet45-redacted-thinking-padded-frames.sse"
    replay = emulator_replay(capture)
    with httpx.Client(timeout=5.0) as http:
        faulted = http.post(
            replay.url + PATH, json=body_of(), headers=HEADERS | {FAULT: "overloaded; count=1"}
        )
        served = http.post(replay.url + PATH, json=body_of(), headers=HEADERS)
    assert_error(faulted, 529, "overloaded_error", "Overloaded")
    assert served.status_code == 200 and served.content == capture.read_bytes()
    completion = read(served.content)
    assert [bool(b.redacted) for b in completion.reasoning_blocks] == [True, True]
    assert completion.stop_reason == "end_turn" and completion.content.startswith("I notice")
