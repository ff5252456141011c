"""Every fault of ``X-Emulator-Fault`` over real loopback HTTP, with exact wire shapes."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import httpx
import pytest

from tests.emulator.emu_wire import chat, events, payloads, text_of

FAULT = "X-Emulator-Fault"
BODY = {"model": "m", "messages": [{"role": "user", "content": "count to 5"}], "stream": True}


def blocks(body: bytes) -> list[bytes]:
    """The LF-framed events of a body, each with its blank line."""
    return [block + b"\n\n" for block in body.split(b"\n\n") if block]


def faulted(
    client: httpx.Client, dialect: str, fault: str, content: str = "count to 5", **fields: Any
) -> httpx.Response:
    return chat(client, dialect, content, headers={FAULT: fault}, **fields)


def test_error_frame_in_openai_shape_then_close(client: httpx.Client) -> None:
    data = payloads(faulted(client, "openai", "error-frame; after=2").content)
    assert [d["choices"][0]["delta"] for d in data[:2]] == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "1"},
    ]
    assert data[2:] == [
        {
            "error": {
                "message": "The server had an error while processing your request. "
                "Sorry about that!",
                "type": "server_error",
                "param": None,
                "code": None,
            }
        }
    ]


def test_error_frame_in_shroud_shape_then_done(client: httpx.Client) -> None:
    data = payloads(faulted(client, "shroud", "error-frame; after=3").content)
    assert len(data) == 5
    assert data[3:] == [
        {
            "error": {
                "message": "upstream worker disconnected",
                "type": "upstream_error",
                "code": "inference_failed",
            }
        },
        "[DONE]",
    ]
    assert all("finish_reason" not in d["choices"][0] for d in data[:3])


def test_error_frame_in_aivene_shape_then_done(client: httpx.Client) -> None:
    data = payloads(faulted(client, "aivene", "error-frame").content)
    assert data[2:] == [
        {"error": {"message": "upstream timeout", "type": "stream_error"}},
        "[DONE]",
    ]


def test_error_frame_in_gateway_shape_then_close(client: httpx.Client) -> None:
    data = payloads(faulted(client, "gateway", "error-frame; after=1").content)
    assert data[1:] == [
        {"error": {"message": "upstream provider stream failed", "type": "stream_error"}}
    ]


def test_error_chunk_in_streamchat_shape(client: httpx.Client) -> None:
    data = payloads(faulted(client, "streamchat", "error-frame; after=2").content)
    assert len(data) == 3
    error = data[2]
    assert error["object"] == "chat.completion" and error["model"] == "" and error["choices"] == []
    assert error["error"] == {"message": "upstream model failed", "type": "server_error"}
    assert error["id"] == data[0]["id"]


def test_spass_mid_stream_failure_is_http_502_json(client: httpx.Client) -> None:
    response = faulted(client, "spass", "error-frame")
    assert response.status_code == 502
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "error": {
            "message": "upstream connection dropped",
            "type": "upstream_error",
            "code": "upstream_unavailable",
        }
    }


def test_event_error_is_a_named_error_event(client: httpx.Client) -> None:
    found = events(faulted(client, "shroud", "event-error; after=2").content)
    assert [e.event for e in found] == [None, None, "error"]
    assert found[-1].json() == {
        "error": {
            "message": "upstream worker disconnected",
            "type": "upstream_error",
            "code": "inference_failed",
        }
    }


def test_truncate_closes_cleanly_without_finish_or_done(client: httpx.Client) -> None:
    response = faulted(client, "openai", "truncate; after=3")
    data = payloads(response.content)
    assert len(data) == 3
    assert all(d["choices"][0]["finish_reason"] is None for d in data)
    assert response.content.endswith(b"\n\n")


def test_truncate_past_the_end_still_drops_the_finish(client: httpx.Client) -> None:
    data = payloads(faulted(client, "aivene", "truncate; after=999").content)
    assert "[DONE]" not in data
    assert all(d["choices"][0]["finish_reason"] is None for d in data)
    assert text_of(faulted(client, "aivene", "truncate; after=999").content) == "1 2 3 4 5"


def test_reset_breaks_the_body_in_the_middle_of_an_event(client: httpx.Client) -> None:
    full = client.post("/shroud/v1/chat/completions", json=BODY).content
    received = bytearray()
    with (
        pytest.raises(httpx.RemoteProtocolError),
        client.stream(
            "POST", "/shroud/v1/chat/completions", json=BODY, headers={FAULT: "reset; after=2"}
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    head, _, partial = bytes(received).rpartition(b"\n\n")
    assert full.startswith(bytes(received))
    assert len(events(head + b"\n\n")) == 2
    assert partial.startswith(b'data: {"id":') and len(partial) > 10


def test_stall_keeps_the_connection_open_and_silent(client: httpx.Client) -> None:
    arrivals: list[tuple[float, bytes]] = []
    with client.stream(
        "POST", "/v1/chat/completions", json=BODY, headers={FAULT: "stall; after=2; seconds=0.3"}
    ) as response:
        for piece in response.iter_raw():
            arrivals.append((time.monotonic(), piece))
        ended = time.monotonic()
    body = b"".join(piece for _, piece in arrivals)
    assert len(payloads(body)) == 2
    assert ended - arrivals[-1][0] >= 0.28


def test_stall_is_a_read_timeout_for_a_patient_client_and_ends_on_disconnect(
    client: httpx.Client, emulator: Any
) -> None:
    with (
        pytest.raises(httpx.ReadTimeout),
        client.stream(
            "POST",
            "/v1/chat/completions",
            json=BODY,
            headers={FAULT: "stall; after=1; seconds=20"},
            timeout=httpx.Timeout(5.0, read=0.2),
        ) as response,
    ):
        for _ in response.iter_raw():
            pass
    record = emulator.wait_for_disconnect(1.0)
    assert record.disconnected and not record.completed


def test_slow_delays_every_chunk(client: httpx.Client) -> None:
    arrivals = []
    started = time.monotonic()
    with client.stream(
        "POST", "/shroud/v1/chat/completions", json=BODY, headers={FAULT: "slow; delay=0.04"}
    ) as response:
        for piece in response.iter_raw():
            arrivals.append((time.monotonic(), piece))
    frames = len(payloads(b"".join(piece for _, piece in arrivals)))
    assert frames == 8  # role, five numbers, finish, [DONE]
    assert arrivals[-1][0] - started >= 8 * 0.04 - 0.01
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(arrivals)]
    assert min(gaps) >= 0.03


def test_split_utf8_cuts_characters_across_writes(client: httpx.Client) -> None:
    body = {**BODY, "messages": [{"role": "user", "content": "echo: café ☕ naïve"}]}
    plain = client.post("/shroud/v1/chat/completions", json=body).content
    with client.stream(
        "POST", "/shroud/v1/chat/completions", json=body, headers={FAULT: "split-utf8; pause=0.02"}
    ) as response:
        pieces = list(response.iter_raw())
    assert b"".join(pieces) == plain

    def broken(piece: bytes) -> bool:
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False

    assert sum(broken(piece) for piece in pieces) >= 3
    assert text_of(plain) == "café ☕ naïve"


@pytest.mark.parametrize(
    ("fault", "old", "new"),
    [("crlf", b"\n", b"\r\n"), ("cr", b"\n", b"\r"), ("single-newline", b"\n\n", b"\n")],
)
def test_line_ending_framings(client: httpx.Client, fault: str, old: bytes, new: bytes) -> None:
    plain = chat(client, "gateway").content
    assert faulted(client, "gateway", fault, "echo: Hello there").content == plain.replace(old, new)


def test_keepalive_comments_between_events(client: httpx.Client) -> None:
    plain = blocks(chat(client, "aivene").content)
    body = faulted(client, "aivene", "keepalive; every=2", "echo: Hello there").content
    ping = b": ping\n\n"
    expected = ping
    for i, block in enumerate(plain, start=1):
        expected += block + (ping if i % 2 == 0 and i < len(plain) else b"")
    assert body == expected


def test_keepalive_text_is_configurable(client: httpx.Client) -> None:
    body = faulted(client, "gateway", "keepalive; text=OPENROUTER PROCESSING").content
    assert body.startswith(b": OPENROUTER PROCESSING\n\ndata: ")


def test_bom_leads_the_body(client: httpx.Client) -> None:
    plain = chat(client, "openai").content
    assert faulted(client, "openai", "bom", "echo: Hello there").content == b"\xef\xbb\xbf" + plain


def test_oversized_event(client: httpx.Client) -> None:
    plain = payloads(chat(client, "shroud").content)
    data = payloads(
        faulted(client, "shroud", "oversized; size=200000; after=1", "echo: Hello there").content
    )
    assert data[1]["choices"][0]["delta"] == {"content": "x" * 200000}
    assert data[:1] + data[2:] == plain


def test_invalid_json_frame(client: httpx.Client) -> None:
    found = events(faulted(client, "shroud", "invalid-json; after=2", "echo: Hello there").content)
    with pytest.raises(json.JSONDecodeError):
        found[2].json()
    assert found[2].text.startswith('{"id":"chatcmpl-')
    assert [e.json()["choices"][0]["delta"] for e in found[:2]] == [
        {"role": "assistant"},
        {"content": "Hello"},
    ]
    assert found[-1].text == "[DONE]"


def test_json_body_instead_of_sse(client: httpx.Client) -> None:
    response = faulted(client, "aivene", "json-body", "echo: Hello there")
    assert response.headers["content-type"] == "application/json"
    as_json = chat(client, "aivene", stream=False).json()
    assert {**response.json(), "id": None} == {**as_json, "id": None}
    assert response.json()["choices"][0]["message"]["content"] == "Hello there"


@pytest.mark.parametrize(
    ("name", "payload"),
    [
        (
            "spass.tool-cap",
            {"code": "tool_loop_max_iterations", "iterations": 10, "synth_called": True},
        ),
        (
            "spass.tool-anti-loop",
            {"code": "tool_loop_anti_loop_detected", "iterations": 3, "synth_called": True},
        ),
        (
            "spass.tool-stripped",
            {"code": "hallucinated_tool_stripped_all_unknown", "tool_names": ["translate_text"]},
        ),
        (
            "spass.tool-feedback-recovery",
            {
                "code": "tool_feedback_recovery_after_all_unknown",
                "retries_used": 1,
                "stripped_names": ["translate_text"],
            },
        ),
    ],
)
def test_spass_named_events_carry_the_seed_payloads(
    client: httpx.Client, name: str, payload: dict[str, Any]
) -> None:
    found = events(faulted(client, "spass", f"named-event; name={name}").content)
    assert found[0].event == name and found[0].json() == payload
    assert [e.event for e in found[-2:]] == ["spass.cost", None] and found[-1].text == "[DONE]"


def test_named_events_in_other_dialects_and_defaults(client: httpx.Client) -> None:
    found = events(
        faulted(client, "gateway", "named-event; after=1, named-event; name=x.y").content
    )
    assert [e.event for e in found[:3]] == ["x.y", None, "emulator.notice"]
    assert found[0].json() == {"code": "emulated_event", "name": "x.y"}
    spass = events(faulted(client, "spass", "named-event").content)
    assert spass[0].event == "spass.tool-cap"


def test_think_tags_put_reasoning_in_the_content(client: httpx.Client) -> None:
    body = faulted(client, "aivene", "think-tags", "echo: ok", reasoning_effort="low").content
    assert text_of(body) == "<think>I can answer this directly.</think>\n\nok"
    assert text_of(body, "reasoning_content") == ""
