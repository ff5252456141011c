"""The fault catalogue on the ``gemini`` dialect: Google's error bodies, and its stream broken.

A framing fault must still give the clean answer; a failing one must break where it says
(a cut stream has no ``finishReason`` and ends cleanly; the error object comes as a
``data:`` event; a held stream sends its last chunk and then nothing).
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from tests.emulator.gemini_wire import (
    FAULT,
    MODEL,
    assert_google_error,
    body_of,
    post,
    read,
    sse_payloads,
    url,
)

pytestmark = pytest.mark.timeout(60)
INTERNAL = {
    "code": 500,
    "message": "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting",
    "status": "INTERNAL",
}


def faulted(
    client: httpx.Client, fault: str, text: str = "count to 5", **fields: Any
) -> httpx.Response:
    return post(client, text, headers={FAULT: fault}, **fields)


@pytest.fixture
def clean(client: httpx.Client) -> bytes:
    return post(client, "count to 5").content


@pytest.mark.parametrize(
    ("fault", "status", "name", "message"),
    [
        ("unauthorized", 401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
        ("forbidden", 403, "PERMISSION_DENIED", "The caller does not have permission"),
        ("not-found", 404, "NOT_FOUND", f"models/{MODEL} is not found for API version v1beta"),
        ("too-large", 413, "INVALID_ARGUMENT", "Request payload size exceeds the limit"),
        ("rate-limit", 429, "RESOURCE_EXHAUSTED", "You exceeded your current quota"),
        ("server-error", 500, "INTERNAL", "An internal error has occurred."),
        ("bad-gateway", 502, "UNAVAILABLE", "Bad gateway"),
        ("unavailable", 503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        ("overloaded", 529, "UNAVAILABLE", "The model is overloaded. Please try again later."),
    ],
)
def test_status_faults_are_google_error_bodies(
    client: httpx.Client, fault: str, status: int, name: str, message: str
) -> None:
    error = assert_google_error(faulted(client, fault), status, name)
    assert error["message"].startswith(message), error["message"]


def test_a_rate_limit_says_its_delay_in_the_body_not_a_header(client: httpx.Client) -> None:
    response = faulted(client, "rate-limit; retry-after=7")
    error = assert_google_error(response, 429, "RESOURCE_EXHAUSTED")
    assert "retry-after" not in response.headers  # Google sends no Retry-After
    assert error["message"].endswith(f"model: {MODEL}\nPlease retry in 7s.")
    failure, retry = error["details"]
    assert failure["@type"] == "type.googleapis.com/google.rpc.QuotaFailure"
    assert failure["violations"][0]["quotaDimensions"] == {"location": "global", "model": MODEL}
    assert retry == {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}
    assert faulted(client, "rate-limit; retry-after=7").status_code == 200  # count=1: retry works


def test_bad_gateway_html_and_a_bad_fault_header(client: httpx.Client) -> None:
    html = faulted(client, "bad-gateway-html")
    assert html.status_code == 502 and html.headers["content-type"] == "text/html"
    bad = faulted(client, "no-such-fault")
    error = assert_google_error(bad, 400, "INVALID_ARGUMENT")
    assert error["message"].startswith("unknown emulator fault 'no-such-fault'")


def test_truncate_ends_cleanly_with_no_finish_reason(client: httpx.Client, clean: bytes) -> None:
    response = faulted(client, "truncate; after=2")
    chunks = sse_payloads(response.content)
    assert chunks == sse_payloads(clean)[:2]
    assert all("finishReason" not in chunk["candidates"][0] for chunk in chunks)


def test_a_truncate_past_the_end_still_cuts_before_the_finish(
    client: httpx.Client, clean: bytes
) -> None:
    chunks = sse_payloads(faulted(client, "truncate; after=100").content)
    assert chunks == sse_payloads(clean)[:-1] and read(chunks).finish == []


def test_error_frame_is_the_error_object_as_a_data_event(
    client: httpx.Client, clean: bytes
) -> None:
    response = faulted(client, "error-frame; after=2")
    assert response.status_code == 200
    chunks = sse_payloads(response.content)
    assert chunks[:2] == sse_payloads(clean)[:2]
    assert chunks[2:] == [{"error": INTERNAL}]
    assert response.content.endswith(b'"status": "INTERNAL"}}\r\n\r\n')


def test_event_error_names_the_event(client: httpx.Client) -> None:
    body = faulted(client, "event-error; after=1").content.decode()
    last = body[: -len("\r\n\r\n")].split("\r\n\r\n")[-1]
    name, data = last.split("\r\n")
    assert name == "event: error" and json.loads(data[len("data: ") :]) == {"error": INTERNAL}


def test_hold_open_sends_the_last_chunk_and_then_nothing(client: httpx.Client) -> None:
    started = time.monotonic()
    got_last = None
    headers = {FAULT: "hold-open; seconds=0.6"}
    with client.stream("POST", url(), json=body_of("count to 3"), headers=headers) as response:
        received = b""
        pieces = response.iter_raw()
        for piece in pieces:
            received += piece
            if b'"finishReason": "STOP"' in received and received.endswith(b"\r\n\r\n"):
                got_last = time.monotonic()
                break
        rest = b"".join(pieces)
    ended = time.monotonic()
    assert got_last is not None and rest == b""
    assert got_last - started < 0.5 <= ended - started


def test_reset_drops_the_connection_mid_event(client: httpx.Client) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        faulted(client, "reset; after=1")


def test_stall_is_silence_then_a_clean_end_without_a_finish(client: httpx.Client) -> None:
    started = time.monotonic()
    chunks = sse_payloads(faulted(client, "stall; after=1; seconds=0.3").content)
    assert time.monotonic() - started >= 0.3
    assert len(chunks) == 1 and read(chunks).finish == []


def test_framing_faults_keep_the_answer(client: httpx.Client, clean: bytes) -> None:
    expected = sse_payloads(clean)
    for fault in ("slow; delay=0.01", "burst; frames=3", "split-utf8; pause=0"):
        assert sse_payloads(faulted(client, fault).content) == expected, fault
    lf = faulted(client, "lf").content
    assert b"\r" not in lf and lf.endswith(b"\n\n")
    assert [json.loads(b[len("data: ") :]) for b in lf.decode().split("\n\n") if b] == expected
    pinged = faulted(client, "keepalive; every=2").content.decode()
    assert pinged.startswith(": ping\r\n\r\ndata: ")
    stripped = "".join(b + "\r\n\r\n" for b in pinged.split("\r\n\r\n") if b.startswith("data: "))
    assert sse_payloads(stripped.encode()) == expected


def test_extra_frames_invalid_json_oversized_and_named_events(client: httpx.Client) -> None:
    cut = faulted(client, "invalid-json; after=1").content.decode().split("\r\n\r\n")
    assert cut[1].startswith('data: {"candidates":[{"content":{"parts":[{"text":"this frame')
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut[1][len("data: ") :])
    big = sse_payloads(faulted(client, "oversized; after=1; size=5000").content)
    assert big[1]["candidates"][0]["content"]["parts"][0]["text"] == "x" * 5000
    named = faulted(client, "named-event; name=gateway.notice").content.decode()
    assert named.startswith("event: gateway.notice\r\ndata: ")


def test_json_body_answers_the_whole_response_to_a_stream(client: httpx.Client) -> None:
    response = faulted(client, "json-body")
    assert response.headers["content-type"] == "application/json; charset=UTF-8"
    assert read([response.json()]).text == "1 2 3 4 5"


def test_the_json_array_stream_cut_broken_and_reset(client: httpx.Client) -> None:
    path = url(sse=False)
    clean = client.post(path, json=body_of("count to 5")).json()
    cut = client.post(path, json=body_of("count to 5"), headers={FAULT: "truncate; after=2"}).text
    assert cut.startswith("[{") and not cut.endswith("]") and cut.endswith("\r\n,\r\n")
    assert json.loads(cut[: -len("\r\n,\r\n")] + "]") == clean[:2]
    broken = client.post(path, json=body_of("count to 5"), headers={FAULT: "error-frame; after=2"})
    assert broken.json() == [*clean[:2], {"error": INTERNAL}]
    at_once = client.post(path, json=body_of("count to 5"), headers={FAULT: "error-frame; after=0"})
    assert at_once.json() == [{"error": INTERNAL}]
    framing = client.post(path, json=body_of("count to 5"), headers={FAULT: "crlf, keepalive, bom"})
    assert framing.json() == clean  # event-stream framing does not apply to the array
    with pytest.raises(httpx.RemoteProtocolError):
        client.post(path, json=body_of("count to 5"), headers={FAULT: "reset; after=1"})
