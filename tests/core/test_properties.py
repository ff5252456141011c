"""Properties: split invariance over every fixture, and fuzzing that only typed errors escape."""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sse_core import Completion, SSEConnectorError, StreamDecoder, StreamError, decode
from sse_core.pipeline import Accumulator, ChunkDecoder

FIXTURES = Path(__file__).parent.parent / "fixtures"
BODIES = {
    path.name: path.read_bytes()
    for path in sorted([*FIXTURES.glob("real/*.sse"), *FIXTURES.glob("seeds/*.sse")])
}
SMALL = {name: body for name, body in BODIES.items() if len(body) <= 6_000}
FUZZ_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def outcome(pieces: Iterable[bytes]) -> tuple[str, Completion]:
    """What a body decodes to: ("ok", completion) or (error class name, partial)."""
    try:
        return "ok", decode(pieces)
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def chop(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    edges = [0, *points, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges)]


def test_there_are_fixtures() -> None:
    assert len(BODIES) >= 38


@pytest.mark.parametrize("name", sorted(BODIES))
def test_byte_by_byte_equals_whole(name: str) -> None:
    body = BODIES[name]
    assert outcome(body[i : i + 1] for i in range(len(body))) == outcome([body])


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_two_way_split_equals_whole(name: str) -> None:
    body = SMALL[name]
    whole = outcome([body])
    for cut in range(1, len(body)):
        assert outcome([body[:cut], body[cut:]]) == whole, f"split at byte {cut}"


@pytest.mark.parametrize("name", sorted(BODIES))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_random_splits_equal_whole(name: str, data: st.DataObject) -> None:
    body = BODIES[name]
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=40))
    assert outcome(chop(body, cuts)) == outcome([body])


@FUZZ_SETTINGS
@given(body=st.binary(max_size=2_000))
def test_any_bytes_give_events_or_a_typed_error(body: bytes) -> None:
    with contextlib.suppress(SSEConnectorError):
        decode(body)


_SSE_ATOMS = [
    b"data: ",
    b"data:",
    b"event: ",
    b"error",
    b"id: ",
    b"retry: ",
    b": ping",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    b"[DONE]",
    b"{",
    b"}",
    b'"choices":',
    b'[{"delta":{"content":"x"}}]',
    b'"error":',
    b'{"message":"m"}',
    b"\xef\xbb\xbf",
    b"\xff",
    "é".encode(),
]


@FUZZ_SETTINGS
@given(atoms=st.lists(st.sampled_from(_SSE_ATOMS), max_size=60), cut=st.integers(0, 400))
def test_sse_shaped_garbage_gives_only_typed_errors(atoms: list[bytes], cut: int) -> None:
    body = b"".join(atoms)
    for pieces in ([body], [body[:cut], body[cut:]]):
        with contextlib.suppress(SSEConnectorError):
            decode(pieces)


@FUZZ_SETTINGS
@given(
    body=st.sampled_from(sorted(BODIES)),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.binary(max_size=4)), max_size=8),
)
def test_mutated_fixtures_give_only_typed_errors(body: str, flips: list[tuple[int, bytes]]) -> None:
    data = bytearray(BODIES[body])
    for where, junk in flips:
        at = where % (len(data) + 1)
        data[at : at + len(junk)] = junk
    with contextlib.suppress(SSEConnectorError):
        decode(bytes(data))


_KEYS = st.sampled_from(
    [
        "id",
        "model",
        "object",
        "choices",
        "index",
        "delta",
        "message",
        "content",
        "reasoning",
        "reasoning_content",
        "reasoning_details",
        "refusal",
        "tool_calls",
        "function",
        "name",
        "arguments",
        "finish_reason",
        "usage",
        "x_groq",
        "error",
        "type",
        "text",
        "thinking",
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "prompt_tokens_details",
        "cached_tokens",
        "system_fingerprint",
        "created",
        "summary",
        "code",
    ]
)
_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=6),
    max_leaves=30,
)


@FUZZ_SETTINGS
@given(chunks=st.lists(st.dictionaries(_KEYS, _JSON, max_size=6), max_size=6))
def test_any_json_chunks_decode_or_raise_typed(chunks: list[dict[str, Any]]) -> None:
    decoder = ChunkDecoder()
    acc = Accumulator()
    try:
        for chunk in chunks:
            acc.extend(decoder._decode_chunk(chunk))
        acc.extend(decoder.flush())
        acc.completion()
    except SSEConnectorError:
        pass
    # The same chunks through the wire path behave the same way.
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    with contextlib.suppress(SSEConnectorError):
        decode(body)


def test_protocol_error_carries_events_decoded_before_it_in_the_same_feed() -> None:
    decoder = StreamDecoder()
    body = b'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {bad\n\n'
    with pytest.raises(StreamError) as info:
        decoder.feed(body)
    assert [getattr(e, "text", None) for e in info.value.events] == ["a"]


@pytest.mark.parametrize("name", sorted(BODIES))
def test_one_frame_per_read_equals_whole(name: str) -> None:
    # The parser's fast path takes reads that hold exactly one "data: ...\n\n" frame.
    body = BODIES[name]
    frames = [frame + b"\n\n" for frame in body.split(b"\n\n")]
    frames[-1] = frames[-1][:-2]
    assert b"".join(frames) == body
    assert outcome(frames) == outcome([body])


def test_fast_path_respects_pending_state() -> None:
    # An event name set by an earlier read applies to the frame that follows.
    decoder = StreamDecoder()
    assert decoder.feed(b"event: spass.cost\n") == []
    (usage, gateway) = decoder.feed(b'data: {"prompt_tokens": 1, "completion_tokens": 2}\n\n')
    assert getattr(gateway, "name", None) == "spass.cost"
    assert getattr(usage, "usage", None) is not None
