"""The fault catalogue on the ``anthropic`` dialect, and Anthropic's own faults.

Each faulted stream is checked on the wire and assembled by the tests' own reader: a
framing fault must still give the clean answer, a failing one must break where it says.
(``tests/e2e/test_anthropic_emulator.py`` checks the typed errors the core raises.)
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from tests.emulator.emu_wire import events
from tests.emulator.test_anthropic_dialect import (
    HEADERS,
    PATH,
    WEATHER,
    Read,
    assert_error,
    body_of,
    read,
)

FAULT = "X-Emulator-Fault"
#: Reasoning, text and no tool; every block kind but tool_use (which has its own cases).
THINK = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


def post(
    client: httpx.Client, fault: str, content: str = "count to 5", **fields: Any
) -> httpx.Response:
    body = body_of(content, **(THINK | fields))
    return client.post(PATH, json=body, headers=HEADERS | {FAULT: fault})


def decode(body: bytes) -> Read:
    return read(body)


def counts(usage: dict[str, Any]) -> dict[str, Any]:
    names = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return {key: usage[key] for key in (*names, "output_tokens")}


@pytest.fixture
def clean(client: httpx.Client) -> Read:
    """The unfaulted answer to ``count to 5`` with thinking."""
    return decode(client.post(PATH, json=body_of("count to 5", **THINK), headers=HEADERS).content)


@pytest.mark.parametrize(
    ("fault", "status", "kind", "message"),
    [
        ("unauthorized", 401, "authentication_error", "invalid x-api-key"),
        ("forbidden", 403, "permission_error", "Your API key does not have permission"),
        ("not-found", 404, "not_found_error", "The model was not found."),
        ("too-large", 413, "request_too_large", "Request exceeds the maximum allowed"),
        ("rate-limit; retry-after=7", 429, "rate_limit_error", "Number of request tokens"),
        ("server-error", 500, "api_error", "Internal server error"),
        ("bad-gateway", 502, "api_error", "Bad gateway"),
        ("unavailable", 503, "api_error", "The gateway is temporarily unavailable."),
        ("overloaded", 529, "overloaded_error", "Overloaded"),
    ],
)
def test_status_faults_are_anthropic_error_bodies(
    client: httpx.Client, fault: str, status: int, kind: str, message: str
) -> None:
    response = post(client, fault)
    assert_error(response, status, kind, message)
    assert response.headers.get("retry-after") == ("7" if status == 429 else None)


def test_a_counted_529_lets_the_retry_through(client: httpx.Client) -> None:
    first = post(client, "overloaded; count=1")
    second = post(client, "overloaded; count=1")
    assert_error(first, 529, "overloaded_error", "Overloaded")
    assert decode(second.content).content == "1 2 3 4 5"


def test_bad_gateway_html_is_nginx_s_page(client: httpx.Client) -> None:
    response = post(client, "bad-gateway-html")
    assert response.status_code == 502
    assert response.headers["content-type"] == "text/html"
    assert b"<center><h1>502 Bad Gateway</h1></center>" in response.content
    assert response.headers["request-id"].startswith("req_011")


@pytest.mark.parametrize("fault", ["error-frame; after=6", "event-error; after=6"])
def test_an_error_event_after_a_200_is_a_gateway_stream_error(
    client: httpx.Client, fault: str
) -> None:
    response = post(client, fault)
    assert response.status_code == 200
    found = events(response.content)
    assert [e.event for e in found[:3]] == ["message_start", "content_block_start", "ping"]
    last = found[-1]
    assert (last.event, len(found)) == ("error", 7)
    assert last.json()["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    if fault.startswith("error-frame"):  # Anthropic's own shape: the type inside the data too
        assert last.json()["type"] == "error"
    got = decode(response.content)
    assert got.error == {"type": "overloaded_error", "message": "Overloaded"}
    assert got.reasoning and got.stop_reason is None  # thinking, then the error


@pytest.mark.parametrize("after", [4, 999])
def test_truncate_is_an_incomplete_stream(client: httpx.Client, clean: Read, after: int) -> None:
    response = post(client, f"truncate; after={after}")
    names = [e.event for e in events(response.content)]
    assert "message_delta" not in names and "message_stop" not in names
    got = decode(response.content)
    assert (got.done, got.stop_reason, got.error) == (False, None, None)
    if after == 999:  # every block was sent; only the end is missing
        assert (got.content, got.reasoning) == (clean.content, clean.reasoning)


def test_reset_breaks_the_body_in_the_middle_of_an_event(client: httpx.Client) -> None:
    received = bytearray()
    with (
        pytest.raises(httpx.RemoteProtocolError),
        client.stream(
            "POST", PATH, json=body_of("count to 5"), headers=HEADERS | {FAULT: "reset; after=3"}
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    head, _, partial = bytes(received).rpartition(b"\n\n")
    assert len(events(head + b"\n\n")) == 3
    assert partial.startswith(b"event: content_block_delta\ndata: {")


def test_stall_is_silence_then_a_read_timeout(client: httpx.Client, emulator: Emulator) -> None:
    received = bytearray()
    with (
        pytest.raises(httpx.ReadTimeout),
        client.stream(
            "POST",
            PATH,
            json=body_of("count to 5"),
            headers=HEADERS | {FAULT: "stall; after=4; seconds=20"},
            timeout=httpx.Timeout(5.0, read=0.3),
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    assert len(events(bytes(received))) == 4
    assert emulator.wait_for_disconnect(1.0).disconnected


def test_hold_open_keeps_the_socket_after_message_stop(
    client: httpx.Client, emulator: Emulator, clean: Read
) -> None:
    """The body never ends: a client that waits for EOF hangs, one that stops at
    ``message_stop`` has the whole answer at once."""
    headers = HEADERS | {FAULT: "hold-open; seconds=20"}
    body = body_of("count to 5", **THINK)
    received = bytearray()
    with (
        pytest.raises(httpx.ReadTimeout),
        client.stream(
            "POST", PATH, json=body, headers=headers, timeout=httpx.Timeout(5.0, read=0.5)
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    assert [e.event for e in events(bytes(received))][-1] == "message_stop"
    emulator.wait_for_disconnect(1.0)

    seen = bytearray()
    started = time.monotonic()
    with client.stream("POST", PATH, json=body, headers=headers) as response:
        for piece in response.iter_raw():
            seen += piece
            if seen.endswith(b'data: {"type":"message_stop"}\n\n'):
                break
    assert read(bytes(seen)).done and time.monotonic() - started < 2.0
    record = emulator.wait_for_disconnect(1.0)
    assert not record.completed
    assert decode(bytes(received)) == clean


def test_data_only_frames_carry_their_type_only_inside(client: httpx.Client, clean: Read) -> None:
    response = post(client, "data-only")
    found = events(response.content)
    assert found and all(e.event is None for e in found)
    assert all(e.json()["type"] for e in found)
    assert b"event:" not in response.content
    assert decode(response.content) == clean


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        ("crlf", lambda body: b"\r\n\r\n" in body and b"\n\n" not in body.replace(b"\r\n", b"")),
        ("cr", lambda body: b"\r\r" in body and b"\n" not in body),
        ("single-newline", lambda body: b"\n\n" not in body),
        ("bom", lambda body: body.startswith(b"\xef\xbb\xbfevent: message_start")),
        ("keepalive; every=2", lambda body: body.startswith(b": ping\n\n")),
        ("slow; delay=0.01", lambda body: body.startswith(b"event: message_start")),
        ("split-utf8; pause=0.01", lambda body: "ü".encode() in body),
        ("burst; frames=4", lambda body: body.startswith(b"event: message_start")),
        ("named-event; name=vendor.notice; after=3", lambda body: b"event: vendor.notice" in body),
        ("think-tags", lambda body: b"<think>" not in body),  # does not apply: thinking blocks
    ],
)
def test_framing_faults_still_decode_to_the_clean_answer(
    client: httpx.Client, fault: str, check: Any
) -> None:
    content = "echo: grüße über alles"
    body = body_of(content, **THINK)
    clean = decode(client.post(PATH, json=body, headers=HEADERS).content)
    response = client.post(PATH, json=body, headers=HEADERS | {FAULT: fault})
    assert response.status_code == 200
    assert check(response.content)
    if fault.startswith("single-newline"):  # events run together: one event to a reader
        return
    got = decode(response.content)
    assert dataclasses.replace(got, others=[]) == clean
    assert got.others == (["vendor.notice"] if fault.startswith("named-event") else [])


def test_invalid_json_frame_is_a_protocol_error(client: httpx.Client) -> None:
    response = post(client, "invalid-json; after=3")
    assert b'data: {"type":"content_block_delta","index":1,' in response.content
    with pytest.raises(ValueError, match=r"Expecting|Unterminated"):
        decode(response.content)


def test_oversized_event_is_a_text_delta_over_the_bound(client: httpx.Client) -> None:
    fault = {FAULT: "oversized; after=3; size=300000"}  # inside the text block: no thinking
    response = client.post(PATH, json=body_of("echo: hi"), headers=HEADERS | fault)
    (big,) = [e for e in events(response.content) if len(e.text) > 300000]
    assert big.json()["delta"] == {"type": "text_delta", "text": "x" * 300000}
    assert decode(response.content).content == "x" * 300000 + "hi"


def test_json_body_answers_a_stream_request_with_the_whole_message(
    client: httpx.Client, clean: Read
) -> None:
    response = post(client, "json-body")
    assert response.headers["content-type"] == "application/json"
    message = response.json()
    assert message["type"] == "message"
    assert [b["type"] for b in message["content"]] == ["thinking", "text"]
    assert message["content"][1]["text"] == clean.content


def test_tool_input_survives_framing_faults(client: httpx.Client) -> None:
    body = body_of("weather in Paris and Tokyo", tools=[WEATHER])
    clean = decode(client.post(PATH, json=body, headers=HEADERS).content)
    faulted = client.post(PATH, json=body, headers=HEADERS | {FAULT: "crlf, data-only, burst"})
    assert decode(faulted.content) == clean
    assert [c.arguments for c in clean.tool_calls] == ['{"city":"Paris"}', '{"city":"Tokyo"}']


def test_a_malformed_fault_header_is_an_anthropic_400(client: httpx.Client) -> None:
    assert_error(post(client, "hold-open; minutes=1"), 400, "invalid_request_error", "fault")


def test_prefilled_sends_the_whole_message_in_message_start(
    client: httpx.Client, clean: Read
) -> None:
    response = post(client, "prefilled")
    found = events(response.content)
    assert [e.event for e in found] == ["message_start", "message_stop"]
    message = found[0].json()["message"]
    assert [b["type"] for b in message["content"]] == ["thinking", "text"]
    assert message["stop_reason"] == "end_turn"
    assert decode(response.content) == clean


@pytest.mark.parametrize("fault", ["usage-late", "usage-output-only", "usage-twice"])
def test_usage_variants_give_the_same_counts_to_a_last_value_wins_client(
    client: httpx.Client, clean: Read, fault: str
) -> None:
    response = post(client, fault)
    found = [e.json() for e in events(response.content)]
    start_usage = found[0]["message"]["usage"]
    finals = [p["usage"] for p in found if p["type"] == "message_delta"]
    out = clean.usage["output_tokens"]
    assert out > 2
    if fault == "usage-late":
        assert start_usage == {"output_tokens": 1} and "input_tokens" in finals[-1]
    if fault == "usage-output-only":
        assert "input_tokens" in start_usage and finals == [{"output_tokens": out}]
    if fault == "usage-twice":
        assert [f["output_tokens"] for f in finals] == [out // 2, out]  # both cumulative
    got = decode(response.content)
    assert counts(got.usage) == counts(clean.usage)  # for a reader whose last value wins
    assert dataclasses.replace(got, usage={}) == dataclasses.replace(clean, usage={})


@pytest.mark.parametrize(
    ("fault", "status", "kind"),
    [
        ("forbidden", 403, "permission_error"),
        ("not-found", 404, "not_found_error"),
        ("too-large", 413, "invalid_request_error"),
        ("server-error", 500, "server_error"),
        ("overloaded", 529, "overloaded_error"),
    ],
)
def test_the_new_status_faults_apply_to_chat_dialects_in_their_shape(
    client: httpx.Client, fault: str, status: int, kind: str
) -> None:
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    response = client.post("/v1/chat/completions", json=chat, headers={FAULT: fault})
    assert response.status_code == status
    error = response.json()["error"]
    assert (error["type"], set(error)) == (kind, {"message", "type", "param", "code"})


def test_hold_open_applies_to_chat_dialects_after_done(client: httpx.Client) -> None:
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    received = bytearray()
    with (
        pytest.raises(httpx.ReadTimeout),
        client.stream(
            "POST",
            "/shroud/v1/chat/completions",
            json=chat,
            headers={FAULT: "hold-open; seconds=20"},
            timeout=httpx.Timeout(5.0, read=0.3),
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    assert bytes(received).endswith(b"data: [DONE]\n\n")
