"""The relays' own SSE reader: whole events from any split of the bytes, the WHATWG rules a
relay relies on, and nothing from an unfinished event."""

from __future__ import annotations

import random

import pytest

from tests.relays.relay_sse import Event, EventReader

BODY = (
    "\ufeff: hello\r\n"
    'data: {"a":1}\r\n\r\n'
    "event: spass.cost\r\n"
    "data: line one\r\n"
    "data: line two\r\n\r\n"
    "event: only a name\r\n\r\n"
    "id: 7\rdata: café ☕\r\r"
    "data: [DONE]\n\n"
).encode()
EVENTS = [
    Event(data='{"a":1}'),
    Event(data="line one\nline two", event="spass.cost"),
    Event(data="café ☕", id="7"),
    Event(data="[DONE]", id="7"),
]


def read(pieces: list[bytes]) -> list[Event]:
    reader = EventReader()
    return [event for piece in pieces for event in reader.feed(piece)]


def test_a_whole_body() -> None:
    assert read([BODY]) == EVENTS


def test_byte_by_byte() -> None:
    assert read([BODY[i : i + 1] for i in range(len(BODY))]) == EVENTS


@pytest.mark.parametrize("cut", range(len(BODY) + 1))
def test_cut_in_two_anywhere(cut: int) -> None:
    assert read([BODY[:cut], BODY[cut:]]) == EVENTS


def test_random_cuts() -> None:
    chance = random.Random(4)
    for _ in range(200):
        cuts = sorted(chance.sample(range(1, len(BODY)), 6))
        pieces = [BODY[a:b] for a, b in zip([0, *cuts], [*cuts, len(BODY)], strict=True)]
        assert read(pieces) == EVENTS


def test_an_unfinished_event_is_never_dispatched() -> None:
    assert read([b'data: {"a":1}\n\ndata: {"cut":']) == [Event(data='{"a":1}')]
    assert read([b'data: {"a":1}\n\ndata: {"b":2}\n']) == [Event(data='{"a":1}')]


def test_a_cr_at_the_end_of_a_piece_waits_for_its_lf() -> None:
    reader = EventReader()
    assert reader.feed(b"data: x\r") == []
    assert reader.feed(b"\n") == []  # CRLF is one line end: no blank line yet
    assert reader.feed(b"\r\n") == [Event(data="x")]
