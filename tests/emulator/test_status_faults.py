"""Status faults and the fault header itself: 429/503/502/401 answers, counts, keys, bounds."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from sse_emulator.server.responses import NGINX_502
from sse_emulator.wire.faults import FaultError, parse_faults
from tests.emulator.emu_wire import chat, payloads

FAULT = "X-Emulator-Fault"
BODY = {"model": "m", "messages": [{"role": "user", "content": "count to 5"}], "stream": True}


def faulted(
    client: httpx.Client, dialect: str, fault: str, content: str = "count to 5", **fields: Any
) -> httpx.Response:
    return chat(client, dialect, content, headers={FAULT: fault}, **fields)


def test_rate_limit_then_success_on_retry(client: httpx.Client) -> None:
    headers = {FAULT: "rate-limit; retry-after=2"}
    first = client.post("/v1/chat/completions", json=BODY, headers=headers)
    second = client.post("/v1/chat/completions", json=BODY, headers=headers)
    other = client.post("/v1/chat/completions", json={**BODY, "model": "n"}, headers=headers)
    assert first.status_code == 429 and first.headers["retry-after"] == "2"
    assert first.json()["error"] == {
        "message": "Rate limit reached; retry after the delay given.",
        "type": "rate_limit_error",
        "param": None,
        "code": "rate_limit_exceeded",
    }
    assert second.status_code == 200 and payloads(second.content)[-1] == "[DONE]"
    assert other.status_code == 429  # counted per request (path and body) by default


def test_rate_limit_count_and_shared_key(client: httpx.Client) -> None:
    headers = {FAULT: "rate-limit; count=2; retry-after=0; key=k"}
    statuses = [
        client.post(
            "/v1/chat/completions", json={**BODY, "model": str(i)}, headers=headers
        ).status_code
        for i in range(3)
    ]
    assert statuses == [429, 429, 200]
    client.post("/_emulator/reset")
    assert client.post("/v1/chat/completions", json=BODY, headers=headers).status_code == 429


def test_unavailable_is_persistent(client: httpx.Client) -> None:
    headers = {FAULT: "unavailable; retry-after=1"}
    responses = [
        client.post("/shroud/v1/chat/completions", json=BODY, headers=headers) for _ in range(3)
    ]
    assert [r.status_code for r in responses] == [503, 503, 503]
    assert responses[0].headers["retry-after"] == "1"
    assert responses[0].json()["error"]["code"] == "service_unavailable"


def test_bad_gateway_json_and_html(client: httpx.Client) -> None:
    as_json = client.post("/v1/chat/completions", json=BODY, headers={FAULT: "bad-gateway"})
    as_html = client.post("/v1/chat/completions", json=BODY, headers={FAULT: "bad-gateway-html"})
    assert as_json.status_code == 502
    assert as_json.json()["error"]["type"] == "upstream_error"
    assert as_html.status_code == 502
    assert as_html.headers["content-type"] == "text/html"
    assert as_html.headers["server"] == "nginx"
    assert as_html.text == NGINX_502
    assert "<center><h1>502 Bad Gateway</h1></center>" in as_html.text


def test_unauthorized(client: httpx.Client) -> None:
    response = client.post(
        "/aivene/v1/chat/completions", json=BODY, headers={FAULT: "unauthorized"}
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


def test_faults_combine(client: httpx.Client) -> None:
    plain = chat(client, "gateway").content
    body = faulted(client, "gateway", "crlf, keepalive; every=99, bom", "echo: Hello there").content
    assert body == b"\xef\xbb\xbf: ping\r\n\r\n" + plain.replace(b"\n", b"\r\n")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("explode", "unknown emulator fault 'explode'; expected one of:"),
        ("stall; sconds=1", "fault 'stall' got 'sconds=1'; expected after=..., seconds=..."),
        ("slow; delay=soon", "fault 'slow': delay must be a number, got 'soon'"),
        ("truncate; after=-1", "fault 'truncate': after must not be negative"),
    ],
)
def test_bad_fault_header_is_a_400_that_says_what_was_expected(
    client: httpx.Client, header: str, expected: str
) -> None:
    response = client.post("/v1/chat/completions", json=BODY, headers={FAULT: header})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_fault"
    assert response.json()["error"]["message"].startswith(expected)


def test_durations_and_sizes_are_bounded() -> None:
    stall, slow, big = parse_faults(
        "stall; seconds=99999, slow; delay=99, oversized; size=99999999999"
    )
    assert stall.number("seconds") == 300.0
    assert slow.number("delay") == 10.0
    assert big.integer("size") == 64 << 20
    with pytest.raises(FaultError):
        parse_faults("oversized; size=big")
