"""``StreamDecoder`` (``pipeline/decoder.py``): body bytes to StreamEvents, parser and chunk
decoder together; ``[DONE]`` ends it; a protocol error keeps the events decoded before it."""

from __future__ import annotations

import pytest

from sse_core import (
    Finish,
    GatewayEvent,
    StreamDecoder,
    StreamEnd,
    StreamProtocolError,
    TextDelta,
    decode,
)
from tests.core.core_frames import delta, sse

FRAME = b'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'


def test_bytes_after_done_are_ignored() -> None:
    body = sse(delta(content="x", finish="stop")) + b"data: {not json}\n\n"
    assert decode(body).content == "x"


def test_decoder_stops_at_done() -> None:
    decoder = StreamDecoder()
    events = decoder.feed(sse(delta(content="x")) + sse(delta(content="y")))
    assert decoder.done and isinstance(events[-1], StreamEnd)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["x"]
    assert decoder.feed(b"data: more\n\n") == [] and decoder.finish() == []


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_like_input_decodes_like_bytes(kind: type) -> None:
    whole = StreamDecoder().feed(FRAME)
    assert StreamDecoder().feed(kind(FRAME)) == whole == [TextDelta(text="hi")]
    # ... on the general path too (two frames in one read), and in pieces.
    decoder = StreamDecoder()
    two = decoder.feed(kind(FRAME * 2)) + decoder.feed(kind(FRAME[:7])) + decoder.feed(FRAME[7:])
    assert two == [TextDelta(text="hi")] * 3


@pytest.mark.parametrize("bad", ["data: x\n\n", 5, None, [b"data: x\n\n"]])
def test_anything_else_is_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="expected bytes, bytearray or memoryview"):
        StreamDecoder().feed(bad)  # type: ignore[arg-type]


def test_finish_dispatches_the_last_event_without_its_blank_line() -> None:
    decoder = StreamDecoder()
    assert decoder.feed(FRAME[:-2]) == []
    assert decoder.finish() == [TextDelta(text="hi")]


def test_finish_releases_text_held_for_a_think_tag() -> None:
    decoder = StreamDecoder()
    assert decoder.feed(sse(delta(content="<thi"), done=False)) != []  # Metadata only
    assert decoder.finish() == [TextDelta(text="<thi")]


def test_finish_after_a_bound_error_raises_it_again() -> None:
    decoder = StreamDecoder(max_event_bytes=16)
    with pytest.raises(StreamProtocolError):
        decoder.feed(b"data: " + b"x" * 40)
    with pytest.raises(StreamProtocolError, match="exceeded 16 bytes"):
        decoder.finish()


def test_a_protocol_error_carries_the_events_before_it() -> None:
    decoder = StreamDecoder()
    with pytest.raises(StreamProtocolError) as info:
        decoder.feed(FRAME + b'event: note\ndata: x\n\ndata: {"choices": [\n\n' + FRAME)
    assert info.value.events == (TextDelta(text="hi"), GatewayEvent(name="note", data="x"))


def test_a_bound_error_carries_the_events_before_it() -> None:
    decoder = StreamDecoder(max_event_bytes=64)
    with pytest.raises(StreamProtocolError, match="exceeded 64 bytes") as info:
        decoder.feed(FRAME + b": " + b"c" * 100 + b"\n" + FRAME)
    assert info.value.events == (TextDelta(text="hi"),)


def test_done_before_an_oversized_line_in_the_same_read_wins() -> None:
    decoder = StreamDecoder(max_event_bytes=64)
    events = decoder.feed(FRAME + b"data: [DONE]\n\n" + b"data: " + b"x" * 100 + b"\n\n")
    assert events == [TextDelta(text="hi"), StreamEnd()] and decoder.done
    assert decoder.finish() == []


def test_the_one_frame_fast_path_and_the_general_path_agree() -> None:
    frames = [
        FRAME,
        b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n',
        b"data: [DONE]\n\n",
    ]
    one_per_read = StreamDecoder()
    fast = [event for frame in frames for event in one_per_read.feed(frame)]
    slow = StreamDecoder().feed(b"".join(frames))
    assert fast == slow == [TextDelta(text="hi"), Finish(reason="stop"), StreamEnd()]


def test_a_non_json_single_frame_takes_the_message_path() -> None:
    decoder = StreamDecoder()
    decoder.feed(b": warm up\n")  # the BOM check is done: the next read is a lone frame
    assert decoder.feed(b"data: \n\n") == []  # an empty keepalive
    with pytest.raises(StreamProtocolError, match="expected a JSON object"):
        decoder.feed(b"data: nope\n\n")


def test_invalid_utf8_inside_json_strings_is_replaced() -> None:
    events = StreamDecoder().feed(b'data: {"choices":[{"delta":{"content":"a\xffb"}}]}\n\n')
    assert events == [TextDelta(text="a\ufffdb")]


def test_a_whole_json_body_ends_with_done() -> None:
    decoder = StreamDecoder()
    body = b'{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}'
    expected = [TextDelta(text="whole"), Finish(reason="stop"), StreamEnd()]
    assert decoder.decode_whole(body) == expected
    assert decoder.done
