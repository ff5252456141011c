"""The relays are faithful, checked on the bytes (plain httpx, no sse_core): each upstream event
comes out with its name and data as the relay's library writes events (CRLF, pings), a cut
upstream adds nothing, statuses and JSON bodies pass through, the emulator gets the headers
it reads, and a broken upstream breaks the relayed response."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from tests.relays.relay_sse import Event, EventReader
from tests.relays.relay_support import API_KEY, SPASS_HEADERS, RelayProcess

BODY = {"model": "emulator", "messages": [{"role": "user", "content": "echo: a b c"}]}


def post(base_url: str, fault: str | None = None, **body: Any) -> tuple[httpx.Response, bytes]:
    headers = {**SPASS_HEADERS, "Authorization": f"Bearer {API_KEY}"}
    if fault is not None:
        headers["X-Emulator-Fault"] = fault
    payload = {**BODY, "stream": True, **body}
    with httpx.stream(
        "POST", base_url + "/chat/completions", json=payload, headers=headers, timeout=10.0
    ) as response:
        return response, b"".join(response.iter_raw())


def events(raw: bytes) -> list[Event]:
    return EventReader().feed(raw)


@pytest.mark.parametrize("dialect", ["openai", "spass", "streamchat"])
def test_every_event_comes_out_with_its_name_and_data(
    relay: RelayProcess, emulator: Emulator, dialect: str
) -> None:
    fault = "named-event; name=relay.note, named-event; after=2"
    _, direct = post(emulator.base_url(dialect), fault)
    response, relayed = post(relay.base_url(dialect), fault)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert events(relayed) == events(direct)
    names = [e.event for e in events(relayed) if e.event]
    assert names.count("relay.note") == 1 and len(names) >= 2
    assert b"\n" not in relayed.replace(b"\r\n", b"")  # the libraries write CRLF line ends


def test_the_relay_pings_while_the_upstream_is_silent(relay: RelayProcess) -> None:
    _, relayed = post(relay.base_url(), "stall; after=2; seconds=1.2")
    pings = [line for line in relayed.split(b"\r\n") if line.startswith(b": ping")]
    assert len(pings) >= 3  # every 0.2 s
    assert b"[DONE]" not in relayed  # the stall ends with a clean close and no finish


def test_a_cut_upstream_ends_cleanly_with_nothing_added(
    relay: RelayProcess, emulator: Emulator
) -> None:
    _, direct = post(emulator.base_url(), "truncate; after=3")
    response, relayed = post(relay.base_url(), "truncate; after=3")
    assert response.status_code == 200
    assert events(relayed) == events(direct)
    assert b"[DONE]" not in relayed
    finishes = [json.loads(e.data)["choices"][0]["finish_reason"] for e in events(relayed)]
    assert finishes == [None, None, None]


def test_a_broken_upstream_breaks_the_relayed_response(relay: RelayProcess) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        post(relay.base_url(), "reset; after=3")


@pytest.mark.parametrize(
    ("fault", "status"),
    [("rate-limit; count=0; retry-after=3", 429), ("unauthorized", 401), ("bad-gateway", 502)],
)
def test_statuses_and_json_bodies_pass_through(
    relay: RelayProcess, emulator: Emulator, fault: str, status: int
) -> None:
    direct, direct_body = post(emulator.base_url(), fault)
    response, body = post(relay.base_url(), fault)
    assert response.status_code == direct.status_code == status
    assert response.headers["content-type"].startswith("application/json")
    assert json.loads(body) == json.loads(direct_body)
    assert response.headers.get("retry-after") == direct.headers.get("retry-after")


def test_a_json_answer_passes_through(relay: RelayProcess, emulator: Emulator) -> None:
    _, direct = post(emulator.base_url(), stream=False)
    response, body = post(relay.base_url(), stream=False)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert json.loads(body) == json.loads(direct)
    assert json.loads(body)["object"] == "chat.completion"


def test_the_emulator_gets_the_headers_it_reads(relay: RelayProcess, emulator: Emulator) -> None:
    response, _ = post(relay.base_url("spass"), "slow; delay=0.01")
    assert response.status_code == 200  # SPASS refuses a request without SPASS-User-Id
    record = emulator.wait_for_end(10.0)  # the relay may be back before the emulator recorded it
    assert record.header("spass-user-id") == "user-1"
    assert record.header("x-emulator-fault") == "slow; delay=0.01"
    assert record.header("authorization") == f"Bearer ***{API_KEY[-4:]}"
    assert record.completed and not record.disconnected
