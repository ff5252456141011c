"""Every body of each named-event protocol (Anthropic Messages, Responses: the bodies of their
wire tests, and each capture or fixture) gives one verdict however it is split into reads:
byte by byte, at every two-way cut, at random cuts, and through each driver (``decode``, the
README's StreamDecoder + Accumulator loop, a StreamSession). Arbitrary bytes, and any JSON
value in any field, give events or a typed error, never anything else. One suite, a protocol
axis: what differs by protocol is its bodies and the fields its payloads carry."""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sse_core import Completion, SSEConnectorError, StreamDecoder, StreamError, decode
from sse_core.pipeline import Accumulator, StreamSession
from tests.core.anthropic.test_captures import CAPTURES
from tests.core.anthropic.test_messages_wire import BODIES as MESSAGES_BODIES
from tests.core.responses.test_fixtures import FIXTURES
from tests.core.responses.test_responses_wire import BODIES as RESPONSES_BODIES

Outcome = tuple[str, Completion | None]


@dataclass(frozen=True)
class Wire:
    """One protocol's bodies: ``bodies`` (small, every two-way cut) and ``more`` (captures and
    fixtures), and the fields its payloads carry (mutated by the JSON test)."""

    bodies: dict[str, bytes]
    more: dict[str, bytes]
    fields: tuple[str, ...]

    @property
    def all(self) -> dict[str, bytes]:
        return {**self.bodies, **self.more}


COMMON = ("type", "delta", "text", "content", "usage")
WIRES = {
    "anthropic": Wire(
        MESSAGES_BODIES,
        {f"capture:{name}": data for name, data in CAPTURES.items()},
        (
            *COMMON,
            "index",
            "content_block",
            "message",
            "error",
            "partial_json",
            "signature",
            "thinking",
            "stop_reason",
            "input",
            "data",
        ),
    ),
    "responses": Wire(
        RESPONSES_BODIES,
        {f"fixture:{name}": data for name, data in FIXTURES.items()},
        (
            *COMMON,
            "output_index",
            "item_id",
            "content_index",
            "summary_index",
            "sequence_number",
            "arguments",
            "item",
            "response",
            "status",
            "output",
            "incomplete_details",
            "encrypted_content",
            "call_id",
            "code",
        ),
    ),
}
ALL = [(protocol, name) for protocol, wire in WIRES.items() for name in sorted(wire.all)]
SMALL = [(protocol, name) for protocol, wire in WIRES.items() for name in sorted(wire.bodies)]


def outcome(protocol: str, pieces: Iterable[bytes]) -> Outcome:
    """What a body decodes to: ("ok", completion) or (error class name, partial)."""
    try:
        return "ok", decode(pieces, protocol=protocol)
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def chop(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    """``body`` cut at ``cuts`` (out-of-range and repeated cuts ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(body)})
    return [body[a:b] for a, b in itertools.pairwise([0, *points, len(body)])]


def readme_loop(protocol: str, pieces: Iterable[bytes]) -> Outcome:
    """The README's incremental loop."""
    decoder, acc = StreamDecoder(protocol=protocol), Accumulator()
    try:
        for piece in pieces:
            for event in decoder.feed(piece):
                acc.add(event)
            if decoder.done:
                break
        acc.extend(decoder.finish())
        return "ok", acc.finish()
    except StreamError as exc:
        if not exc.has_partial:
            with contextlib.suppress(StreamError):
                acc.extend(exc.events)
            return type(exc).__name__, acc.completion()
        return type(exc).__name__, exc.partial


def session_loop(protocol: str, pieces: Iterable[bytes]) -> Outcome:
    session = StreamSession(protocol=protocol)
    session.begin({"content-type": "text/event-stream"})
    try:
        for piece in pieces:
            session.step(piece)
            if session.stopped:
                break
        session.end()
        return "ok", session.completion()
    except StreamError as exc:
        return type(exc).__name__, exc.partial


@pytest.mark.parametrize(("protocol", "name"), ALL)
def test_byte_by_byte_equals_whole(protocol: str, name: str) -> None:
    data = WIRES[protocol].all[name]
    assert outcome(protocol, (data[i : i + 1] for i in range(len(data)))) == outcome(
        protocol, [data]
    )


@pytest.mark.parametrize(("protocol", "name"), SMALL)
def test_every_two_way_split_equals_whole(protocol: str, name: str) -> None:
    data = WIRES[protocol].bodies[name]
    whole = outcome(protocol, [data])
    for cut in range(1, len(data)):
        assert outcome(protocol, [data[:cut], data[cut:]]) == whole, f"split at byte {cut}"


@pytest.mark.parametrize(("protocol", "name"), ALL)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_random_splits_equal_whole_for_every_driver(
    protocol: str, name: str, data: st.DataObject
) -> None:
    body = WIRES[protocol].all[name]
    pieces = chop(body, data.draw(st.lists(st.integers(0, len(body)), max_size=30)))
    whole = outcome(protocol, [body])
    verdict, completion = whole
    assert outcome(protocol, pieces) == whole
    assert session_loop(protocol, pieces) == whole
    loop_verdict, loop_completion = readme_loop(protocol, pieces)
    assert loop_verdict == verdict
    assert completion is not None and loop_completion is not None
    assert loop_completion.choices == completion.choices
    assert loop_completion.usage == completion.usage


@pytest.mark.parametrize("protocol", sorted(WIRES))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=2_000))
def test_any_bytes_give_events_or_a_typed_error(protocol: str, data: bytes) -> None:
    with contextlib.suppress(SSEConnectorError):
        outcome(protocol, [data])


@pytest.mark.parametrize("protocol", sorted(WIRES))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    at=st.integers(0, 10_000),
    junk=st.binary(min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 10_000), max_size=6),
)
def test_mutated_bodies_give_one_typed_verdict_however_split(
    protocol: str, data: st.DataObject, at: int, junk: bytes, cuts: list[int]
) -> None:
    bodies = WIRES[protocol].bodies
    body = bodies[data.draw(st.sampled_from(sorted(bodies)))]
    at %= len(body)
    mutated = body[:at] + junk + body[at + len(junk) :]
    whole = outcome(protocol, [mutated])  # no exception other than the typed ones escapes
    assert outcome(protocol, chop(mutated, cuts)) == whole


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _replace(value: Any, key: str, new: object) -> Any:
    """``value`` with every ``key`` (at any depth) set to ``new``."""
    if isinstance(value, dict):
        return {k: new if k == key else _replace(v, key, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, key, new) for v in value]
    return value


@pytest.mark.parametrize("protocol", sorted(WIRES))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), new=JSON)
def test_any_json_value_in_any_field_gives_events_or_a_typed_error(
    protocol: str, data: st.DataObject, new: object
) -> None:
    wire = WIRES[protocol]
    body = wire.bodies[data.draw(st.sampled_from(sorted(wire.bodies)))]
    key = data.draw(st.sampled_from(wire.fields))
    frames = []
    for raw in body.split(b"\n\n"):
        head, sep, payload_bytes = raw.rpartition(b"data: ")
        try:
            payload = json.loads(payload_bytes) if sep and payload_bytes[:1] == b"{" else None
        except ValueError:
            payload = None
        if payload is None:
            frames.append(raw)
        else:
            frames.append(head + sep + json.dumps(_replace(payload, key, new)).encode())
    outcome(protocol, [b"\n\n".join(frames)])  # only the typed errors are caught there
