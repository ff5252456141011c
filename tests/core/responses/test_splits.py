"""Every Responses body of ``test_responses_wire`` (and each fixture of tests/fixtures/responses)
gives one verdict however it is split into reads: byte by byte, at every two-way cut, at
random cuts, and through each driver (``decode``, the README's StreamDecoder + Accumulator loop, a
StreamSession). Arbitrary bytes give events or a typed error, never anything else."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sse_core import (
    Accumulator,
    SSEConnectorError,
    StreamDecoder,
    StreamError,
    StreamSession,
)
from tests.core.responses.responses_wire import Outcome, chop, outcome
from tests.core.responses.test_fixtures import FIXTURES
from tests.core.responses.test_responses_wire import BODIES

ALL = {**BODIES, **{f"fixture:{name}": data for name, data in FIXTURES.items()}}


def readme_loop(pieces: Iterable[bytes]) -> Outcome:
    """The README's incremental loop, with ``protocol="responses"``."""
    decoder, acc = StreamDecoder(protocol="responses"), Accumulator()
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


def session_loop(pieces: Iterable[bytes]) -> Outcome:
    session = StreamSession(protocol="responses")
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


@pytest.mark.parametrize("name", sorted(ALL))
def test_byte_by_byte_equals_whole(name: str) -> None:
    data = ALL[name]
    assert outcome(data[i : i + 1] for i in range(len(data))) == outcome([data])


@pytest.mark.parametrize("name", sorted(BODIES))
def test_every_two_way_split_equals_whole(name: str) -> None:
    data = BODIES[name]
    whole = outcome([data])
    for cut in range(1, len(data)):
        assert outcome([data[:cut], data[cut:]]) == whole, f"split at byte {cut}"


@pytest.mark.parametrize("name", sorted(ALL))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_random_splits_equal_whole_for_every_driver(name: str, data: st.DataObject) -> None:
    body = ALL[name]
    pieces = chop(body, data.draw(st.lists(st.integers(0, len(body)), max_size=30)))
    whole = outcome([body])
    verdict, completion = whole
    assert outcome(pieces) == whole
    assert session_loop(pieces) == whole
    loop_verdict, loop_completion = readme_loop(pieces)
    assert loop_verdict == verdict
    assert loop_completion.choices == completion.choices
    assert loop_completion.usage == completion.usage


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=2_000))
def test_any_bytes_give_events_or_a_typed_error(data: bytes) -> None:
    with contextlib.suppress(SSEConnectorError):
        outcome([data])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(BODIES)),
    at=st.integers(0, 10_000),
    junk=st.binary(min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 10_000), max_size=6),
)
def test_mutated_bodies_give_one_typed_verdict_however_split(
    name: str, at: int, junk: bytes, cuts: list[int]
) -> None:
    body = BODIES[name]
    at %= len(body)
    mutated = body[:at] + junk + body[at + len(junk) :]
    whole = outcome([mutated])  # no exception other than the typed ones escapes
    assert outcome(chop(mutated, cuts)) == whole


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELDS = [
    "type",
    "output_index",
    "item_id",
    "content_index",
    "summary_index",
    "sequence_number",
    "delta",
    "text",
    "arguments",
    "item",
    "response",
    "status",
    "output",
    "usage",
    "incomplete_details",
    "encrypted_content",
    "call_id",
    "content",
    "code",
]


def _replace(value: object, key: str, new: object, depth: int = 0) -> object:
    """``value`` with every ``key`` (at any depth) set to ``new``."""
    if isinstance(value, dict):
        return {k: new if k == key else _replace(v, key, new, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, key, new, depth + 1) for v in value]
    return value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(BODIES)), key=st.sampled_from(FIELDS), new=JSON)
def test_any_json_value_in_any_field_gives_events_or_a_typed_error(
    name: str, key: str, new: object
) -> None:
    frames = []
    for raw in BODIES[name].split(b"\n\n"):
        head, sep, data = raw.rpartition(b"data: ")
        try:
            payload = json.loads(data) if sep and data[:1] == b"{" else None
        except ValueError:
            payload = None
        if payload is None:
            frames.append(raw)
        else:
            frames.append(head + sep + json.dumps(_replace(payload, key, new)).encode())
    outcome([b"\n\n".join(frames)])  # only the typed errors are caught there
