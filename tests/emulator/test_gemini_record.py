"""The ``gemini`` dialect in the request record (its key masked, in a header or the URL), and
recorded Gemini streams replayed byte for byte, the key and the status faults still checked."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from sse_emulator.replay.recording import FORMAT
from tests.emulator.gemini_wire import (
    FAULT,
    GEMINI3,
    WEATHER,
    assert_google_error,
    body_of,
    read,
    sse_payloads,
    url,
)

pytestmark = pytest.mark.timeout(60)
KEY = "AIzaSyEmulatorTestKey0123456789wxyz"


def test_a_gemini_request_is_recorded_with_its_key_masked_in_the_header_and_the_query(
    client: httpx.Client, emulator: Emulator
) -> None:
    body = body_of("count to 3")
    assert client.post(url(), json=body, headers={"x-goog-api-key": KEY}).status_code == 200
    assert client.post(url(sse=False) + f"?alt=sse&key={KEY}", json=body).status_code == 200
    first, second = emulator.requests
    assert (first.dialect, first.path, first.query) == ("gemini", url(sse=False), "alt=sse")
    assert first.header("x-goog-api-key") == "***wxyz"
    assert second.query == "alt=sse&key=***wxyz"
    assert first.json() == body and (first.status, first.completed) == (200, True)
    listed = client.get("/_emulator/requests").text
    assert KEY not in listed + repr(emulator.requests)
    assert [r["dialect"] for r in json.loads(listed)["requests"]] == ["gemini", "gemini"]


def record(
    http: httpx.Client, address: str, body: dict[str, Any], folder: Path, number: int
) -> bytes:
    """Record one call as a client recorder writes it: ``NNN.sse`` and its sidecar."""
    reads: list[list[float]] = []
    received = bytearray()
    sent = time.monotonic()
    with http.stream("POST", address, json=body) as response:
        head_time = time.monotonic() - sent
        for piece in response.iter_raw():
            reads.append([time.monotonic() - sent, len(piece)])
            received += piece
    sidecar = {
        "format": FORMAT,
        "request": {"method": "POST", "url": address, "headers": {}, "body": body},
        "status": response.status_code,
        "headers": [[key, value] for key, value in response.headers.items()],
        "head_time": head_time,
        "reads": reads,
        "elapsed": time.monotonic() - sent,
    }
    (folder / f"{number:03d}.sse").write_bytes(bytes(received))
    (folder / f"{number:03d}.json").write_text(json.dumps(sidecar))
    return bytes(received)


def test_a_recorded_gemini_stream_replays_byte_for_byte(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    tools = {"tools": [{"functionDeclarations": [WEATHER]}]}
    with httpx.Client(timeout=5.0) as http:
        recorded = record(
            http, emulator.url + url(GEMINI3), body_of("weather in Paris", **tools), tmp_path, 1
        )
        record(http, emulator.url + url(GEMINI3), {"contents": []}, tmp_path, 2)  # a 400
        replay = emulator_replay(tmp_path)
        first = http.post(replay.url + url(GEMINI3), json=body_of("anything"))
        second = http.post(replay.url + url(), json=body_of("anything"))
        gone = http.post(replay.url + url(), json=body_of("anything"))
    assert first.status_code == 200 and first.content == recorded
    assert first.headers["content-type"] == "text/event-stream"
    found = read(sse_payloads(first.content))
    assert found.calls == [{"name": "get_weather", "args": {"city": "Paris"}}]
    assert [kind for kind, _ in found.signatures] == ["call"]
    assert_google_error(
        second,
        400,
        "INVALID_ARGUMENT",
        "* GenerateContentRequest.contents: contents is not specified\n",
    )
    error = assert_google_error(gone, 410, "UNKNOWN")
    assert "exhausted" in error["message"]
    assert [r.dialect for r in replay.requests] == ["gemini"] * 3


def test_a_replay_checks_the_gemini_key_and_answers_status_faults_in_google_s_body(
    emulator: Emulator, tmp_path: Path
) -> None:
    with httpx.Client(timeout=5.0) as http:
        recorded = record(http, emulator.url + url(), body_of("count to 3"), tmp_path, 1)
    capture = tmp_path / "001.sse"
    with Emulator(replay=capture, api_key=KEY) as replay, httpx.Client(timeout=5.0) as http:
        keyless = http.post(replay.url + url(), json=body_of())
        limited = http.post(
            replay.url + url(),
            json=body_of(),
            headers={"x-goog-api-key": KEY, FAULT: "rate-limit; retry-after=2"},
        )
        served = http.post(replay.url + url(sse=False) + f"?alt=sse&key={KEY}", json=body_of())
    assert_google_error(keyless, 403, "PERMISSION_DENIED")
    error = assert_google_error(limited, 429, "RESOURCE_EXHAUSTED")
    assert error["details"][-1]["retryDelay"] == "2s" and "retry-after" not in limited.headers
    assert served.status_code == 200 and served.content == recorded
