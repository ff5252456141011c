"""The accumulator (``pipeline/accumulator.py``): events to the Completion, the end-of-stream
rule, and the O(1) views the adapters read (followed, usage, metadata, marks, snapshots)."""

from __future__ import annotations

import pytest

from sse_core import (
    Choice,
    Completion,
    ErrorFrame,
    Finish,
    GatewayEvent,
    GatewayStreamError,
    IncompleteStreamError,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    UsageUpdate,
    decode,
)
from sse_core.pipeline import Accumulator
from tests.core.core_frames import delta, sse

# --- moved from the decoder suite: usage and the end-of-stream rule -----------------------------


def test_cumulative_usage_last_wins() -> None:
    chunks = [
        {
            **delta(content="a"),
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        },
        {
            **delta(content="b"),
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        },
        {**delta(finish="stop"), "usage": None},
    ]
    usage = decode(sse(*chunks)).usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (5, 2, 7)


def test_finish_without_done_is_complete() -> None:
    assert decode(sse(delta(content="x", finish="stop"), done=False)).done is False


def test_done_without_finish_is_complete() -> None:
    assert decode(sse(delta(content="x"))).finish_reason is None


def test_neither_finish_nor_done_is_incomplete_with_partial() -> None:
    with pytest.raises(IncompleteStreamError, match="after 5 characters") as info:
        decode(sse(delta(content="tru"), delta(content="nc"), done=False))
    assert info.value.partial.content == "trunc"


# --- state ------------------------------------------------------------------------------------


def test_empty_accumulator() -> None:
    acc = Accumulator()
    assert (acc.followed, acc.usage, acc.metadata, acc.gateway_events) == (
        None,
        None,
        Metadata(),
        (),
    )
    assert acc.finish_reason() is None and acc.mark() is None and not acc.complete
    assert acc.completion() == Completion()
    with pytest.raises(IncompleteStreamError, match="after 0 characters"):
        acc.finish()


def test_followed_is_the_first_choice_seen_by_any_choice_event() -> None:
    acc = Accumulator()
    acc.extend([UsageUpdate(usage=Usage(prompt_tokens=1)), Metadata(id="x"), StreamEnd()])
    assert acc.followed is None  # no choice event yet
    acc.add(Finish(reason="length", choice=2))
    acc.add(TextDelta(text="a", choice=0))
    assert acc.followed == 2
    assert acc.finish_reason() == "length" and acc.finish_reason(0) is None
    assert acc.finish_reason(7) is None


@pytest.mark.parametrize(
    "event",
    [
        TextDelta(text="t", choice=3),
        ReasoningDelta(text="r", choice=3),
        RefusalDelta(text="no", choice=3),
        ToolCallDelta(index=0, name="f", choice=3),
    ],
)
def test_every_choice_event_sets_followed(event: object) -> None:
    acc = Accumulator()
    acc.add(event)  # type: ignore[arg-type]
    assert acc.followed == 3 and acc.mark() is not None


def test_usage_is_the_last_report() -> None:
    acc = Accumulator()
    first, last = Usage(prompt_tokens=1), Usage(prompt_tokens=1, completion_tokens=9)
    acc.extend([UsageUpdate(usage=first), UsageUpdate(usage=last)])
    assert acc.usage is last and acc.completion().usage is last


def test_metadata_first_value_of_each_field_wins() -> None:
    acc = Accumulator()
    acc.add(Metadata(id="a", created=0))
    acc.add(Metadata(id="b", model="m", created=5))
    acc.add(Metadata(system_fingerprint="fp", model="n"))
    assert acc.metadata == Metadata(id="a", model="m", system_fingerprint="fp", created=0)
    done = acc.completion()
    assert (done.id, done.model, done.system_fingerprint, done.created) == ("a", "m", "fp", 0)


def test_gateway_events_and_headers_are_kept() -> None:
    acc = Accumulator(headers={"x-request-id": "r1"})
    note, cap = GatewayEvent(name="note", data="hi"), GatewayEvent(name="cap", data={"n": 1})
    acc.extend([note, cap, StreamEnd()])
    assert acc.gateway_events == (note, cap)
    result = acc.finish()
    assert result.events == (note, cap) and result.headers == {"x-request-id": "r1"}
    assert result.done and result.choices == ()


def test_completion_joins_every_choice_sorted_by_index() -> None:
    acc = Accumulator()
    acc.extend(
        [
            TextDelta(text="b1", choice=1),
            TextDelta(text="a", choice=0),
            ReasoningDelta(text="r", choice=1),
            RefusalDelta(text="no", choice=0),
            TextDelta(text="b2", choice=1),
            Finish(reason="stop", choice=0),
        ]
    )
    assert acc.completion().choices == (
        Choice(index=0, content="a", refusal="no", finish_reason="stop"),
        Choice(index=1, content="b1b2", reasoning="r"),
    )
    assert acc.completion().content == "a"  # the first choice by index


def test_tool_calls_set_id_and_name_once_and_append_arguments() -> None:
    acc = Accumulator()
    acc.extend(
        [
            ToolCallDelta(index=1, id="b", name="g", arguments="{"),
            ToolCallDelta(index=0, id="a", name="f"),
            ToolCallDelta(index=1, id="other", name="h", arguments="}"),
            ToolCallDelta(index=0, arguments="{}"),
        ]
    )
    assert acc.completion().tool_calls == (
        ToolCall(index=0, id="a", name="f", arguments="{}"),
        ToolCall(index=1, id="b", name="g", arguments="{}"),
    )


def test_an_error_frame_raises_with_the_partial_and_the_gateway_fields() -> None:
    acc = Accumulator()
    acc.extend([TextDelta(text="so far"), UsageUpdate(usage=Usage(total_tokens=3))])
    frame = ErrorFrame(message="boom", type="upstream", code=502, data={"error": "boom"})
    with pytest.raises(GatewayStreamError, match="inside the stream: boom") as info:
        acc.add(frame)
    error = info.value
    assert (error.type, error.code, error.data) == ("upstream", 502, {"error": "boom"})
    assert error.partial.content == "so far" and error.partial.usage == Usage(total_tokens=3)


def test_finish_message_counts_what_arrived() -> None:
    acc = Accumulator()
    acc.extend(
        [
            ReasoningDelta(text="think"),
            TextDelta(text="abc"),
            ToolCallDelta(index=0, name="f"),
            ToolCallDelta(index=1, name="g"),
        ]
    )
    with pytest.raises(IncompleteStreamError) as info:
        acc.finish()
    message = str(info.value)
    assert "3 characters (and 5 of reasoning) and 2 tool call(s)" in message
    assert "retry the request" in message and info.value.partial.tool_calls


@pytest.mark.parametrize("end", [StreamEnd(), Finish(reason="stop")])
def test_complete_after_done_or_a_finish(end: StreamEnd | Finish) -> None:
    acc = Accumulator()
    acc.add(TextDelta(text="x"))
    assert not acc.complete
    acc.add(end)
    assert acc.complete and acc.finish().content == "x"


# --- marks and snapshots ------------------------------------------------------------------------


def test_mark_and_snapshot_give_the_choice_as_it_stood() -> None:
    acc = Accumulator()
    marks = []
    for event in [
        TextDelta(text="He"),
        ReasoningDelta(text="r1"),
        TextDelta(text="llo"),
        RefusalDelta(text="n"),
        ReasoningDelta(text="r2"),
    ]:
        acc.add(event)
        marks.append(acc.mark())
    shots = [acc.snapshot(m) for m in marks if m is not None]
    assert [(s.content, s.reasoning, s.refusal) for s in shots] == [
        ("He", "", ""),
        ("He", "r1", ""),
        ("Hello", "r1", ""),
        ("Hello", "r1", "n"),
        ("Hello", "r1r2", "n"),
    ]


def test_snapshot_tool_calls_hold_only_the_fragments_that_had_arrived() -> None:
    acc = Accumulator()
    marks = []
    for event in [
        ToolCallDelta(index=0, name="f"),
        ToolCallDelta(index=0, id="call_a", arguments='{"x"'),
        ToolCallDelta(index=1, id="call_b", name="g", arguments="{"),
        ToolCallDelta(index=0, arguments=":1}"),
        ToolCallDelta(index=1, arguments="}"),
    ]:
        acc.add(event)
        marks.append(acc.mark())
    shots = [acc.snapshot(m).tool_calls for m in marks if m is not None]
    assert shots == [
        (ToolCall(index=0, name="f"),),
        (ToolCall(index=0, id="call_a", name="f", arguments='{"x"'),),
        (
            ToolCall(index=0, id="call_a", name="f", arguments='{"x"'),
            ToolCall(index=1, id="call_b", name="g", arguments="{"),
        ),
        (
            ToolCall(index=0, id="call_a", name="f", arguments='{"x":1}'),
            ToolCall(index=1, id="call_b", name="g", arguments="{"),
        ),
        (
            ToolCall(index=0, id="call_a", name="f", arguments='{"x":1}'),
            ToolCall(index=1, id="call_b", name="g", arguments="{}"),
        ),
    ]


def test_marks_follow_the_followed_choice_only() -> None:
    acc = Accumulator()
    acc.add(TextDelta(text="a", choice=1))
    first = acc.mark()
    acc.extend([TextDelta(text="zzz", choice=0), TextDelta(text="b", choice=1)])
    second = acc.mark()
    assert first is not None and second is not None and first[0] == second[0] == 1
    assert (acc.snapshot(first).content, acc.snapshot(second).content) == ("a", "ab")
    assert acc.snapshot(second).index == 1


def test_snapshot_finish_reason_is_as_it_stands_now() -> None:
    acc = Accumulator()
    acc.add(TextDelta(text="x"))
    early = acc.mark()
    acc.add(Finish(reason="stop"))
    assert early is not None and acc.snapshot(early).finish_reason == "stop"


def test_marks_read_out_of_order_give_the_same_texts() -> None:
    acc = Accumulator()
    marks = []
    for piece in ["a", "b", "c", "d"]:
        acc.add(TextDelta(text=piece))
        marks.append(acc.mark())
    forward = [acc.snapshot(m).content for m in marks if m is not None]
    backward = [acc.snapshot(m).content for m in reversed(marks) if m is not None]
    assert forward == ["a", "ab", "abc", "abcd"] and backward == forward[::-1]
    assert acc.completion().content == "abcd"


@pytest.mark.timeout(30)
def test_reading_every_mark_in_order_stays_linear() -> None:
    # 100,000 one-character pieces with a snapshot after each: a fresh join per snapshot
    # would be 5e9 character copies (minutes); reusing the previous join is a blink.
    acc = Accumulator()
    size = 0
    for _ in range(100_000):
        acc.add(TextDelta(text="x"))
        mark = acc.mark()
        assert mark is not None
        size = len(acc.snapshot(mark).content)
    assert size == 100_000
