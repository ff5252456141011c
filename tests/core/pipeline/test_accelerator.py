"""The msgspec accelerator gives exactly the pure path's events and Completions.

``StreamDecoder(accelerator="msgspec")`` is opt-in; the pure path is the reference. Every
golden capture and hypothesis-made chunk bodies (right shapes, wrong types, unknown keys,
invalid UTF-8, numbers JSON cannot hold) are decoded both ways, whole, a frame per read and
in small reads, and the events, errors and Completions must be equal (usage ``raw`` too).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sse_core import (
    ConfigurationError,
    StreamDecoder,
    decode,
)
from sse_core.pipeline.session import StreamSession
from tests.core.pipeline.decode_support import Outcome, outcome

pytest.importorskip("msgspec")

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"


def _body(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".payloads.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


CAPTURES = {
    path.name: _body(path)
    for path in sorted(
        [
            *FIXTURES.glob("real/*.sse"),
            *FIXTURES.glob("real/*.payloads.jsonl"),
            *FIXTURES.glob("seeds/*.sse"),
        ]
    )
}


def run(pieces: Iterable[bytes], accelerator: str | None) -> Outcome:
    """Events (with what an error carried), the error's class, and the Completion."""
    return outcome(StreamDecoder(accelerator=accelerator), pieces)


def reads(body: bytes) -> list[list[bytes]]:
    """The body whole, a frame per read, and in 7-byte reads."""
    frames = [frame + b"\n\n" for frame in body.split(b"\n\n") if frame]
    return [[body], frames, [body[i : i + 7] for i in range(0, len(body), 7)]]


def same_both_ways(body: bytes) -> None:
    for pieces in reads(body):
        assert run(pieces, "msgspec") == run(pieces, None)


def test_there_are_captures() -> None:
    assert len(CAPTURES) >= 38


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_every_capture_decodes_the_same(name: str) -> None:
    same_both_ways(CAPTURES[name])


class _Counting:
    """The msgspec decoder, counting the payloads it took."""

    def __init__(self, decoder: Any) -> None:
        self.decoder = decoder
        self.taken = 0

    def decode(self, payload: bytes) -> Any:
        chunk = self.decoder.decode(payload)
        self.taken += 1
        return chunk


@pytest.mark.parametrize("reads", ["one frame per read", "frames in one read"])
def test_the_accelerator_takes_common_chunks(reads: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """It is used at all, on either read pattern: the common chunks decode through msgspec,
    not the fallback; a chunk with a key the structs do not name falls back."""
    from sse_core.pipeline import _accel_structs

    counting = _Counting(_accel_structs.DECODER)
    monkeypatch.setattr(_accel_structs, "DECODER", counting)
    decoder = StreamDecoder(accelerator="msgspec")
    chunk = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
    unknown = b'data: {"choices":[],"x_groq":{}}\n\n'
    pieces = [chunk, chunk, unknown] if reads == "one frame per read" else [chunk * 2 + unknown]
    events = [event for piece in pieces for event in decoder.feed(piece)]
    assert counting.taken == 2
    assert [getattr(event, "text", None) for event in events][-2:] == ["hi", "hi"]


@pytest.mark.parametrize("name", ["deepseek__reasoner-reasoning-content.sse"])
def test_a_session_takes_the_accelerator(name: str) -> None:
    session = StreamSession(accelerator="msgspec")
    session.begin({"content-type": "text/event-stream"})
    session.step(CAPTURES[name])
    session.end()
    assert session.completion() == decode(CAPTURES[name])


def test_an_unknown_accelerator_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="accelerator must be one of"):
        StreamDecoder(accelerator="simdjson")


# --- hypothesis: chunks near the accelerated schema, and off it ---

_TEXT = st.text(max_size=6) | st.sampled_from(["<think>", "</think>", " ", "\n", "<th", "ink>"])
_SCALAR: st.SearchStrategy[Any] = (
    st.none()
    | st.booleans()
    | st.integers(-3, 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_ANY: st.SearchStrategy[Any] = st.recursive(
    _SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right shape, sometimes null or anything at all."""
    return st.one_of(value, value, value, st.none(), _ANY)


_FUNCTION = st.fixed_dictionaries(
    {}, optional={"name": _maybe(_TEXT), "arguments": _maybe(_TEXT | st.just({"a": 1}))}
)
_CALL = st.fixed_dictionaries(
    {},
    optional={
        "index": _maybe(st.integers(0, 3)),
        "id": _maybe(st.sampled_from(["", "c1", "c2"])),
        "type": st.just("function"),
        "function": _maybe(_FUNCTION),
    },
)
_DELTA = st.fixed_dictionaries(
    {},
    optional={
        "role": st.just("assistant"),
        "content": _maybe(_TEXT | st.just([{"type": "text", "text": "p"}])),
        "reasoning_content": _maybe(_TEXT),
        "reasoning": _maybe(_TEXT),
        "reasoning_details": st.just([{"text": "d"}]),
        "refusal": _maybe(_TEXT),
        "tool_calls": _maybe(st.lists(_CALL, max_size=2)),
        "audio": st.just({}),
    },
)
_CHOICE = st.fixed_dictionaries(
    {},
    optional={
        "index": _maybe(st.integers(0, 2)),
        "delta": _maybe(_DELTA),
        "message": _DELTA,
        "finish_reason": _maybe(st.sampled_from(["stop", "length", "tool_calls", ""])),
        "logprobs": st.none(),
        "extra": _ANY,
    },
)
_USAGE = st.fixed_dictionaries(
    {},
    optional={
        "prompt_tokens": _maybe(st.integers(0, 50)),
        "completion_tokens": _maybe(st.integers(0, 50)),
        "total_tokens": _maybe(st.integers(0, 100)),
        "prompt_tokens_details": _maybe(st.fixed_dictionaries({"cached_tokens": _SCALAR})),
        "queue_time": st.floats(0, 1),
    },
)
_CHUNK = st.fixed_dictionaries(
    {},
    optional={
        "id": _maybe(st.sampled_from(["", "chatcmpl-1"])),
        "object": st.just("chat.completion.chunk"),
        "created": _maybe(st.integers(0, 2**40)),
        "model": _maybe(_TEXT),
        "system_fingerprint": _maybe(_TEXT),
        "choices": _maybe(st.lists(_CHOICE, max_size=3)),
        "usage": _maybe(_USAGE),
        "x_groq": st.fixed_dictionaries({"usage": _USAGE}),
        "error": _maybe(st.just({"message": "boom"})),
    },
)
_RAW_FRAMES = st.sampled_from(
    [
        b'data: {"choices":[{"delta":{"content":"\\ud800"}}]}\n\n',  # a lone surrogate
        b'data: {"choices":[{"delta":{"content":"\xff"}}]}\n\n',  # invalid UTF-8
        b'data: {"usage":{"prompt_tokens":1e400}}\n\n',  # a number msgspec refuses
        b'data: {"usage":{"prompt_tokens":NaN}}\n\n',
        b'data: {"choices":[{"delta":{"content":"a"}}]} x\n\n',  # trailing garbage
        b"data: [DONE]\n\n",
        b": keep-alive\n\n",
        b'event: note\ndata: {"n":1}\n\n',
    ]
)
_FRAME = _CHUNK.map(lambda chunk: b"data: " + json.dumps(chunk).encode() + b"\n\n") | _RAW_FRAMES


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames=st.lists(_FRAME, max_size=8), cut=st.integers(0, 2_000))
def test_hypothesis_bodies_decode_the_same(frames: list[bytes], cut: int) -> None:
    body = b"".join(frames)
    same_both_ways(body)
    halves = [body[:cut], body[cut:]]
    assert run(halves, "msgspec") == run(halves, None)
