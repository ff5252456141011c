"""The WHATWG SSE parser, byte by byte."""

from __future__ import annotations

import pytest

from sse_core import StreamProtocolError
from sse_core.pipeline import ServerSentEvent, SSEParser


def parse(body: bytes, *, pieces: int = 0) -> list[ServerSentEvent]:
    """Parse ``body`` whole (pieces=0) or in pieces of that many bytes."""
    parser = SSEParser()
    events: list[ServerSentEvent] = []
    if pieces:
        for start in range(0, len(body), pieces):
            events += parser.feed(body[start : start + pieces])
    else:
        events += parser.feed(body)
    return events + parser.finish()


def datas(body: bytes, **kw: int) -> list[str]:
    return [event.data for event in parse(body, **kw)]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending_gives_the_same_events(newline: bytes) -> None:
    body = newline.join([b"data: a", b"", b"data: b", b"data: c", b"", b""])
    assert datas(body) == ["a", "b\nc"]
    assert datas(body, pieces=1) == ["a", "b\nc"]


def test_crlf_split_between_reads_is_one_line_ending() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\ndata: b\r") == []
    assert [e.data for e in parser.feed(b"\n\r\n")] == ["a\nb"]


def test_leading_bom_is_stripped_even_split_across_reads() -> None:
    body = b"\xef\xbb\xbfdata: x\n\n"
    assert datas(body) == ["x"]
    assert datas(body, pieces=1) == ["x"]


def test_bom_later_in_the_stream_is_data() -> None:
    assert datas(b"data: a\n\n\xef\xbb\xbfdata: b\n\n") == ["a"]


def test_comments_are_ignored() -> None:
    assert datas(b": ping\n\n: OPENROUTER PROCESSING\n\ndata: x\n: mid\n\n") == ["x"]


def test_event_id_and_retry_fields() -> None:
    (event,) = parse(b"event: spass.cost\nid: 7\nretry: 1500\ndata: {}\n\n")
    assert event == ServerSentEvent(data="{}", event="spass.cost", id="7", retry=1500)


def test_retry_with_non_digits_is_ignored() -> None:
    (event,) = parse(b"retry: 15s\ndata: x\n\n")
    assert event.retry is None


def test_id_with_nul_is_ignored_and_last_id_persists() -> None:
    events = parse(b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n")
    assert [e.id for e in events] == ["1", "1"]


def test_event_name_resets_after_dispatch() -> None:
    events = parse(b"event: x\ndata: 1\n\ndata: 2\n\n")
    assert [(e.event, e.data) for e in events] == [("x", "1"), ("message", "2")]


def test_block_without_data_dispatches_nothing() -> None:
    # WHATWG: an event-only block must not dispatch, and its name must not leak onward.
    events = parse(b"event: ping\n\ndata: x\n\n")
    assert [(e.event, e.data) for e in events] == [("message", "x")]


def test_data_without_space_and_with_two_spaces() -> None:
    assert datas(b"data:x\n\ndata:  y\n\n") == ["x", " y"]


def test_field_without_colon() -> None:
    assert datas(b"data\ndata\n\n") == ["\n"]


def test_unknown_fields_are_ignored() -> None:
    assert datas(b"foo: bar\ndata: x\nerror: ignored\n\n") == ["x"]


def test_final_event_without_blank_line_is_dispatched_at_end() -> None:
    assert datas(b"data: a\n\ndata: b") == ["a", "b"]
    assert datas(b"data: a\n\ndata: b\n") == ["a", "b"]


def test_single_newline_framing_of_complete_json_payloads() -> None:
    body = b'data: {"a":1}\ndata: {"b":2}\ndata: [DONE]\n'
    assert datas(body) == ['{"a":1}', '{"b":2}', "[DONE]"]
    assert datas(body, pieces=1) == ['{"a":1}', '{"b":2}', "[DONE]"]


def test_single_newline_framing_with_named_events() -> None:
    body = b'data: {"a":1}\nevent: spass.cost\ndata: {"b":2}\ndata: [DONE]\n'
    expected = [("message", '{"a":1}'), ("spass.cost", '{"b":2}'), ("message", "[DONE]")]
    assert [(e.event, e.data) for e in parse(body)] == expected
    assert [(e.event, e.data) for e in parse(body, pieces=1)] == expected


def test_event_line_after_data_in_a_normal_block_still_names_non_json_data() -> None:
    # WHATWG: field order inside a block does not matter; only a whole JSON payload
    # followed by "event:" is taken as single-newline framing.
    (event,) = parse(b"data: plain text\nevent: note\n\n")
    assert (event.event, event.data) == ("note", "plain text")


def test_multiline_json_that_is_incomplete_per_line_is_joined() -> None:
    assert datas(b'data: {"a":\ndata: 1}\n\n') == ['{"a":\n1}']


def test_utf8_split_across_reads() -> None:
    body = "data: héllo ✓ 🎉\n\n".encode()
    assert datas(body, pieces=1) == ["héllo ✓ 🎉"]


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert datas(b"data: \xff\xfe\n\n") == ["\ufffd\ufffd"]


def test_line_over_the_bound_raises_protocol_error() -> None:
    parser = SSEParser(max_event_bytes=64)
    with pytest.raises(StreamProtocolError, match="exceeded 64 bytes"):
        for _ in range(100):
            parser.feed(b"data: xxxxxxxxxx")


def test_event_over_the_bound_raises_even_with_short_lines() -> None:
    parser = SSEParser(max_event_bytes=64)
    with pytest.raises(StreamProtocolError, match="exceeded 64 bytes"):
        parser.feed(b"data: 0123456789\n" * 10)


def test_invalid_bound_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_event_bytes"):
        SSEParser(max_event_bytes=0)


def test_many_tiny_feeds_of_one_long_line_stay_linear() -> None:
    # 200 KB fed one byte at a time: pieces are joined once, not re-copied per byte.
    parser = SSEParser()
    line = b"data: " + b"x" * 200_000
    for i in range(len(line)):
        assert parser.feed(line[i : i + 1]) == []
    (event,) = parser.feed(b"\n\n")
    assert len(event.data) == 200_000


def test_single_frame_takes_only_a_whole_plain_frame_with_nothing_pending() -> None:
    parser = SSEParser()
    assert parser.single_frame(b"\xef\xbb\xbfdata: x\n\n") is None  # maybe a BOM: lines
    assert parser.feed(b"\xef\xbb\xbfid: 4\nretry: 9\ndata: x\n\n") == [
        ServerSentEvent(data="x", id="4", retry=9)
    ]
    assert parser.single_frame(b"data: x\n\n") == ("message", b"x", "4", 9)
    assert parser.single_frame(b"data: \n\n") == ("message", b"", "4", 9)
    assert parser.single_frame(b"event: e\ndata: x\n\n") == ("e", b"x", "4", 9)
    assert parser.single_frame(b"event:\ndata: x\n\n") == ("message", b"x", "4", 9)
    assert parser.single_frame(b"data: x\ndata: y\n\n") is None  # two lines
    assert parser.single_frame(b"event: e\ndata: x\ndata: y\n\n") is None
    assert parser.single_frame(b"event: e\nid: 5\n\n") is None
    assert parser.single_frame(b"data: x\r\n\r\n") is None  # CR framing
    assert parser.single_frame(b"data: x\n") is None  # not whole
    assert parser.single_frame(b": hi\n\n") is None
    parser.feed(b"event: e\n")  # an event name is pending: the line rules apply it
    assert parser.single_frame(b"data: x\n\n") is None
    assert [(e.event, e.data) for e in parser.feed(b"data: x\n\n")] == [("e", "x")]


def test_single_frame_starts_a_body_that_cannot_begin_with_a_bom() -> None:
    parser = SSEParser()
    assert parser.single_frame(b"data: x\n\n") == ("message", b"x", "", None)
    bounded = SSEParser(max_event_bytes=7)
    assert bounded.single_frame(b"data: x\n\n") is not None  # the line is 7 bytes: in bound
    assert bounded.single_frame(b"data: xy\n\n") is None  # 8: the line rules refuse it
    with pytest.raises(StreamProtocolError):
        bounded.feed(b"data: xy\n\n")
    assert bounded.single_frame(b"data: x\n\n") is None  # after an error: nothing more


def test_a_read_of_plain_frames_then_other_lines_parses_as_the_line_rules() -> None:
    """The speed path takes the leading plain frames; the line rules the rest, in order."""
    body = (
        b'data: {"a":1}\n\nevent: e\ndata: 2\n\n: comment\ndata: 3\n\nid: 7\ndata: 4\n\n'
        b"data: 5\ndata: 6\n\ndata: 7"
    )
    fast = SSEParser()
    events = fast.feed(body) + fast.finish()
    slow = SSEParser()
    expected = [e for i in range(len(body)) for e in slow.feed(body[i : i + 1])] + slow.finish()
    assert events == expected
    assert [(e.event, e.data, e.id) for e in events] == [
        ("message", '{"a":1}', ""),
        ("e", "2", ""),
        ("message", "3", ""),
        ("message", "4", "7"),
        ("message", "5\n6", "7"),
        ("message", "7", "7"),
    ]


# --- input types, the bound's arithmetic, the raw entry points ---------------------------------


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_like_input_parses_like_bytes(kind: type) -> None:
    assert [e.data for e in SSEParser().feed(kind(b"data: x\n\n"))] == ["x"]


@pytest.mark.parametrize("bad", ["data: x\n\n", 1, None])
def test_other_input_is_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="expected bytes, bytearray or memoryview"):
        SSEParser().feed(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bound", [0, -1, 1.5, True, "64", None])
def test_the_bound_must_be_a_positive_int(bound: object) -> None:
    with pytest.raises(ValueError, match="max_event_bytes must be a positive integer"):
        SSEParser(max_event_bytes=bound)  # type: ignore[arg-type]


def test_a_line_of_exactly_the_bound_passes_and_one_more_byte_fails() -> None:
    line = b"data: " + b"x" * 58  # 64 bytes
    assert [len(e.data) for e in SSEParser(max_event_bytes=64).feed(line + b"\n\n")] == [58]
    with pytest.raises(StreamProtocolError):
        SSEParser(max_event_bytes=64).feed(line + b"x\n\n")


@pytest.mark.parametrize(("size", "ok"), [(30, True), (31, True), (32, False)])
def test_the_data_bound_counts_the_joining_newlines(size: int, ok: bool) -> None:
    # Data of size + 1 ("\n") + 32 bytes from two short lines: 63, 64, then 65 bytes.
    body = b"data: " + b"a" * size + b"\ndata: " + b"b" * 32 + b"\n\n"
    parser = SSEParser(max_event_bytes=64)
    if ok:
        assert len(parser.feed(body)[0].data) == size + 33
    else:
        with pytest.raises(StreamProtocolError, match="an event's data"):
            parser.feed(body)


def test_after_a_bound_error_every_call_raises_it_again() -> None:
    parser = SSEParser(max_event_bytes=16)
    with pytest.raises(StreamProtocolError) as first:
        parser.feed(b": " + b"c" * 20 + b"\n")
    with pytest.raises(StreamProtocolError) as again:
        parser.feed(b"data: x\n\n")
    with pytest.raises(StreamProtocolError) as at_end:
        parser.finish()
    assert first.value is again.value is at_end.value


def test_last_event_id_persists_across_events() -> None:
    parser = SSEParser()
    parser.feed(b"id: 42\ndata: a\n\ndata: b\n\n")
    assert parser.last_event_id == "42"


def test_a_server_sent_event_defaults_to_message() -> None:
    assert ServerSentEvent(data="x") == ServerSentEvent(
        data="x", event="message", id="", retry=None
    )
