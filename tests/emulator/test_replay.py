"""Replaying a recording: bytes, status, headers, read boundaries, timing, exhaustion."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from sse_emulator.replay.recording import FORMAT, split_events

REAL = Path(__file__).parents[1] / "fixtures" / "real"
CHAT = "/v1/chat/completions"
BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
EVENTS = [
    b'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n',
    b'data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n',
    b"data: [DONE]\n\n",
]
ERROR = b'{"error":{"message":"slow down","type":"rate_limit_error"}}'
#: When each of the first response's reads was received, in seconds after the request.
OFFSETS = [0.15, 0.3, 0.45]
HEAD_TIME = 0.1


def sidecar(status: int, headers: list[list[str]], reads: list[list[float]]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "request": {
            "method": "POST",
            "url": "http://host/v1/chat/completions",
            "headers": {"content-type": "application/json"},
            "body": BODY,
        },
        "status": status,
        "headers": headers,
        "head_time": HEAD_TIME,
        "reads": reads,
        "elapsed": reads[-1][0] + 0.01,
    }


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    """Two model calls: a stream in three reads, then a 429 with Retry-After."""
    first = [
        ["content-type", "text/event-stream"],
        ["x-request-id", "abc"],
        ["Content-Length", "999"],
        ["transfer-encoding", "chunked"],
        ["date", "Mon, 01 Jan 2024 00:00:00 GMT"],
        ["server", "gateway"],
        ["connection", "keep-alive"],
    ]
    reads = [[at, len(event)] for at, event in zip(OFFSETS, EVENTS, strict=True)]
    (tmp_path / "001.sse").write_bytes(b"".join(EVENTS))
    (tmp_path / "001.json").write_text(json.dumps(sidecar(200, first, reads)))
    second = [["content-type", "application/json"], ["retry-after", "3"]]
    (tmp_path / "002.sse").write_bytes(ERROR)
    (tmp_path / "002.json").write_text(json.dumps(sidecar(429, second, [[0.02, len(ERROR)]])))
    return tmp_path


def post(http: httpx.Client, emulator: Emulator, **kwargs: Any) -> httpx.Response:
    return http.post(emulator.url + CHAT, json=BODY, **kwargs)


def test_a_directory_is_served_in_order_then_exhausted_then_rewound(
    emulator_replay: ReplayFactory, recording: Path
) -> None:
    emulator = emulator_replay(recording)
    with httpx.Client(timeout=5.0) as http:
        first = post(http, emulator)
        assert first.status_code == 200
        assert first.content == b"".join(EVENTS)
        assert first.headers["content-type"] == "text/event-stream"
        assert first.headers["x-request-id"] == "abc"
        for dropped in ("content-length", "date", "server"):
            assert dropped not in first.headers
        second = post(http, emulator)
        assert (second.status_code, second.content) == (429, ERROR)
        assert second.headers["retry-after"] == "3"
        gone = post(http, emulator)
        assert gone.status_code == 410
        error = gone.json()["error"]
        assert error["code"] == "recording_exhausted"
        assert "exhausted" in error["message"] and "2 responses" in error["message"]
        records = emulator.requests
        assert [r.status for r in records] == [200, 429, 410]
        assert all(r.completed and r.json() == BODY for r in records)
        emulator.reset()
        assert post(http, emulator).content == b"".join(EVENTS)


def test_timing_replays_each_read_at_its_offset(
    emulator_replay: ReplayFactory, recording: Path
) -> None:
    emulator = emulator_replay(recording, timing=True)
    arrivals: list[float] = []
    pieces: list[bytes] = []
    with httpx.Client(timeout=5.0) as http:
        sent = time.monotonic()
        with http.stream("POST", emulator.url + CHAT, json=BODY) as response:
            head = time.monotonic() - sent
            for piece in response.iter_raw():
                pieces.append(piece)
                arrivals.append(time.monotonic() - sent)
    assert pieces == EVENTS  # one read per recorded read, once timing spaces them out
    assert head >= HEAD_TIME - 0.02
    for arrived, offset in zip(arrivals, OFFSETS, strict=True):
        assert offset - 0.02 <= arrived <= offset + 0.5


def test_without_timing_the_reads_go_out_at_once(
    emulator_replay: ReplayFactory, recording: Path
) -> None:
    emulator = emulator_replay(recording)
    with httpx.Client(timeout=5.0) as http:
        post(http, emulator)  # connect once, so the timed part is the replay alone
        emulator.reset()
        started = time.monotonic()
        assert post(http, emulator).content == b"".join(EVENTS)
        assert time.monotonic() - started < OFFSETS[-1]


def test_a_real_capture_file_is_served_for_every_request(emulator_replay: ReplayFactory) -> None:
    capture = REAL / "openai__gpt4o-parallel-tool-calls.sse"
    emulator = emulator_replay(capture)
    with httpx.Client(timeout=5.0) as http:
        for _ in range(3):
            response = post(http, emulator)
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            assert response.content == capture.read_bytes()
    assert len(emulator.requests) == 3


@pytest.mark.parametrize(
    "name",
    [
        "openai__gpt4o-parallel-tool-calls.sse",
        "perplexity__sonar-crlf-no-done-usage-citations-every-chunk.sse",
    ],
)
def test_a_capture_without_sidecar_is_written_one_event_per_write(name: str) -> None:
    body = (REAL / name).read_bytes()
    pieces = split_events(body)
    assert b"".join(pieces) == body
    assert len(pieces) == len(re.findall(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)", body))
    for piece in pieces:  # one event each: its only blank line is its last line
        lines = re.split(rb"\r\n|\r|\n", piece)[:-1]
        assert lines[-1] == b"" and b"" not in lines[:-1], piece


def test_status_faults_still_apply_without_using_up_a_response(
    emulator_replay: ReplayFactory, recording: Path
) -> None:
    emulator = emulator_replay(recording)
    with httpx.Client(timeout=5.0) as http:
        limited = post(http, emulator, headers={"X-Emulator-Fault": "rate-limit; retry-after=0"})
        assert limited.status_code == 429 and limited.json()["error"]["code"]
        assert post(http, emulator).content == b"".join(EVENTS)
        assert post(http, emulator, headers={"X-Emulator-Fault": "nope"}).status_code == 400


def test_a_client_leaving_a_replay_early_is_recorded(
    emulator_replay: ReplayFactory, recording: Path
) -> None:
    emulator = emulator_replay(recording, timing=True)
    with (
        httpx.Client(timeout=5.0) as http,
        http.stream("POST", emulator.url + CHAT, json=BODY) as response,
    ):
        assert next(response.iter_raw()) == EVENTS[0]
    record = emulator.wait_for_disconnect(2.0)
    assert record.disconnected and not record.completed


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


@pytest.mark.parametrize(
    ("files", "target", "message"),
    [
        ({}, "missing", "does not exist"),
        ({}, ".", "holds no whole call"),
        ({"001.sse": b"data: x\n\n", "001.json": "[1, 2]"}, ".", "is not a recording"),
        ({"001.sse": b"data: x\n\n", "001.json": '{"format": "other"}'}, ".", "'other'"),
        ({"001.sse": b"data: x\n\n", "001.json": "{nope"}, ".", "not readable JSON"),
        ({"002.json": "{}"}, ".", "holds no whole call; expected NNN.sse beside its NNN.json"),
        ({"001.json": "{}"}, "001.json", "give the .sse file"),
    ],
)
def test_a_path_that_is_no_recording_fails_at_construction(
    tmp_path: Path, files: dict[str, str | bytes], target: str, message: str
) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    with pytest.raises(ValueError, match=re.escape(message)):
        Emulator(replay=tmp_path / target)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "200"}, "expected an HTTP status"),
        ({"headers": {"a": "b"}}, "expected headers as [[name, value], ...]"),
        ({"reads": [[0.1, 3]]}, "3 bytes in reads, 9 in 001.sse"),
        ({"reads": [["soon", 9]]}, "expected reads as [[seconds, size], ...]"),
        ({"head_time": -1}, "expected head_time in seconds"),
    ],
)
def test_a_malformed_sidecar_is_named_with_what_was_expected(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    write(tmp_path / "001.sse", b"data: x\n\n")
    meta = {**sidecar(200, [], [[0.1, 9]]), **change}
    write(tmp_path / "001.json", json.dumps(meta))
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        Emulator(replay=tmp_path)
    assert "001.json" in str(raised.value)


CLAIM = json.dumps({"claimed_by": {"pid": 4321, "host": "elsewhere"}})
#: What a recorder stopped mid-call can leave (SIGKILL, power loss): no call, only parts.
TORN: dict[str, str | bytes] = {
    "003.json": CLAIM,  # a number claimed, the call not written
    "004.sse": b"data: cut\n\n",  # the body in place, its sidecar not yet over the claim
    "004.json": CLAIM,
    "005.json": json.dumps(sidecar(200, [], [[0.1, 9]])),  # a sidecar without its body
    ".006.sse.4321.1.tmp": b"data: half",  # a file being written
    ".claim.json.4321.1.tmp": CLAIM,
}


def test_torn_calls_are_skipped_and_named_and_the_whole_ones_served(
    recording: Path, emulator_replay: ReplayFactory
) -> None:
    for name, text in TORN.items():
        write(recording / name, text)
    with pytest.warns(UserWarning) as caught:
        emulator = emulator_replay(recording)
    named = "\n".join(str(warning.message) for warning in caught)
    for name in TORN:
        assert name in named
    assert "003.json has no 003.sse beside it" in named
    with httpx.Client(timeout=5.0) as http:
        assert post(http, emulator).content == b"".join(EVENTS)
        assert post(http, emulator).status_code == 429
        assert post(http, emulator).json()["error"]["code"] == "recording_exhausted"


def test_a_directory_of_torn_calls_only_is_refused_naming_them(tmp_path: Path) -> None:
    for name, text in TORN.items():
        write(tmp_path / name, text)
    with pytest.raises(ValueError, match="holds no whole call") as raised:
        Emulator(replay=tmp_path)
    for name in TORN:
        assert name in str(raised.value)


def test_the_command_line_replays_a_directory(recording: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "sse_emulator", "--port", "0", "--replay", str(recording)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert f"replaying {recording}" in banner
        match = re.search(r"http://127\.0\.0\.1:(\d+) ", banner)
        assert match, banner
        url = f"http://127.0.0.1:{match.group(1)}{CHAT}"
        assert httpx.post(url, json=BODY, timeout=5.0).content == b"".join(EVENTS)
        assert httpx.post(url, json=BODY, timeout=5.0).status_code == 429
    finally:
        process.send_signal(signal.SIGTERM)  # only the process this test started
        process.communicate(timeout=10)
    assert process.returncode == 0
