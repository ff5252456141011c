"""Text chunks read without a JSON parse give exactly the events a parse gives.

The template (:mod:`sse_core.pipeline.template`) is the decoder's own shortcut, on by default:
every capture and hypothesis-made stream (texts with quotes, backslashes, control characters,
non-ASCII and invalid UTF-8; chunks around them that change the prefix, finish, carry usage,
a ``<think>`` block, an escaped key, or a per-chunk random field) is decoded with it and with
it off, whole, a frame per read, in small reads and cut at a random byte, and the events,
errors and Completions must be equal. And it is used at all: a plain stream parses a few
chunks, not every one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sse_core import StreamDecoder, TextDelta
from sse_core.pipeline import chunks as chunks_module
from tests.core.pipeline.decode_support import Outcome, outcome

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"


class _Off:
    """A template that never reads a chunk: the decoder parses every one."""

    index = 0

    def text_of(self, data: bytes) -> None:
        return None

    def learn(self, data: bytes, chunk: Any) -> None:
        return None


def _decoder(template: bool) -> StreamDecoder:
    decoder = StreamDecoder()
    if not template:
        decoder._payloads._template = _Off()  # type: ignore[attr-defined]
    return decoder


def run(pieces: Iterable[bytes], template: bool) -> Outcome:
    return outcome(_decoder(template), pieces)


def same_both_ways(body: bytes, cut: int | None = None) -> None:
    frames = [frame + b"\n\n" for frame in body.split(b"\n\n") if frame]
    readings = [[body], frames, [body[i : i + 7] for i in range(0, len(body), 7)]]
    if cut is not None:
        readings.append([body[:cut], body[cut:]])
    for pieces in readings:
        assert run(pieces, True) == run(pieces, False)


CAPTURES = {
    path.name: path.read_bytes()
    for path in sorted([*FIXTURES.glob("real/*.sse"), *FIXTURES.glob("seeds/*.sse")])
}


def test_there_are_captures() -> None:
    assert len(CAPTURES) >= 30


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_every_capture_decodes_the_same(name: str) -> None:
    same_both_ways(CAPTURES[name])


HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m",'


def text_chunk(text: str, head: str = HEAD, tail: str = ',"finish_reason":null}]}') -> bytes:
    choice = '"choices":[{"index":0,"delta":{"content":' + json.dumps(text) + "}" + tail
    return b"data: " + (head + choice).encode() + b"\n\n"


def test_a_plain_stream_parses_a_few_chunks_not_every_one(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[bytes] = []
    real = chunks_module.from_json

    def counting(data: bytes, **kwargs: Any) -> Any:
        parsed.append(data)
        return real(data, **kwargs)

    monkeypatch.setattr(chunks_module, "from_json", counting)
    words = [f" w{i}" for i in range(200)]
    body = b"".join(text_chunk(word) for word in words) + b"data: [DONE]\n\n"
    events = StreamDecoder().feed(body)
    assert [e.text for e in events if isinstance(e, TextDelta)] == words
    assert len(parsed) == 1  # the first teaches; the other 199 are read around their text


def test_a_per_chunk_random_field_stops_the_learning(monkeypatch: pytest.MonkeyPatch) -> None:
    decoder = StreamDecoder()
    body = b"".join(
        text_chunk(f"w{i}", tail=f',"finish_reason":null}}],"obfuscation":"{i:08x}"}}')
        for i in range(100)
    )
    events = decoder.feed(body)
    assert len([e for e in events if isinstance(e, TextDelta)]) == 100
    assert decoder._payloads._template._tries == 0  # type: ignore[attr-defined]


_PIECES = ['"', "\\", "\n", "\x00", "\x1f", "\x7f", "é", "中", "😀", "<think>", "</think>", " "]
_TEXT = st.lists(
    st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from(_PIECES),
    max_size=8,
).map("".join)
USAGE = '"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}'
SPACED = '{"id" : "chatcmpl-1", '


def spaced(text: str) -> bytes:
    return text_chunk(text, head=SPACED).replace(b'"content":', b'"content" :  ')


def with_role(text: str) -> bytes:
    delta = '{"role":"assistant","content":' + json.dumps(text) + "}"
    return b'data: {"choices":[{"index":0,"delta":' + delta.encode() + b"}]}\n\n"


_SHAPES = st.sampled_from(
    [
        text_chunk,
        lambda t: text_chunk(t, head='{"id":"chatcmpl-2","model":"other",'),
        lambda t: text_chunk(t, tail=',"finish_reason":"stop"}]}'),
        lambda t: text_chunk(t, tail=',"finish_reason":null}],' + USAGE + "}"),
        lambda t: text_chunk(t, tail=',"finish_reason":null}],"usage":null}'),
        lambda t: text_chunk(t, head='{"x_groq":{"usage":{"prompt_tokens":4}},'),
        lambda t: text_chunk(t, tail=',"finish_reason":null},{"index":1,"delta":{}}]}'),
        lambda t: text_chunk(t, head='{"note":"\\"content\\"",'),
        lambda t: text_chunk(t, head='{"a":{"con\\u0074ent":"x"},'),
        spaced,
        with_role,
    ]
)
_RAW = st.sampled_from(
    [
        text_chunk("a")[:-3] + b' x"}\n\n',  # trailing garbage after the object
        text_chunk("b").replace(b'"b"', b'"\xff"'),  # invalid UTF-8 in the text
        text_chunk("c").replace(b'"c"', b'"\xed\xa0\x80"'),  # a UTF-8-encoded surrogate
        text_chunk("d").replace(b'"d"', b'"\\ud800"'),  # an escaped lone surrogate
        text_chunk("e").replace(b'"e"', b'"a"b"'),  # a quote the text cannot hold
        b"data: [DONE]\n\n",
        b": keep-alive\n\n",
        b'event: note\ndata: {"n":1}\n\n',
    ]
)
_FRAME = st.builds(lambda shape, text: shape(text), _SHAPES, _TEXT) | _RAW


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames=st.lists(_FRAME, max_size=12), cut=st.integers(0, 3_000))
def test_hypothesis_streams_decode_the_same(frames: list[bytes], cut: int) -> None:
    same_both_ways(b"".join(frames), cut)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(_TEXT, min_size=2, max_size=20))
def test_runs_of_one_shape_decode_the_same(texts: list[str]) -> None:
    body = b"".join(text_chunk(text) for text in texts) + b"data: [DONE]\n\n"
    same_both_ways(body)


def test_an_escaped_key_cannot_point_the_template_at_another_string() -> None:
    # The delta's key escaped, a decoy "content" key elsewhere holding the same text: the
    # template must not learn the decoy's place, or the next chunk reads the decoy's text.
    def frame(decoy: str) -> bytes:
        return (b'data: {"decoy":{"content":"' + decoy.encode() + b'"},"choices":[{"index":0,'
                b'"delta":{"\\u0063ontent":"same"}}]}\n\n')  # fmt: skip

    body = frame("same") + frame("other") + frame("third")
    events = StreamDecoder().feed(body)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["same"] * 3
    same_both_ways(body)
