"""``merge_read`` (``pipeline/reads.py``): what one network read added to one choice."""

from __future__ import annotations

from sse_core import (
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEnd,
    TextDelta,
    ToolCallDelta,
    Usage,
    UsageUpdate,
)
from sse_core.pipeline import ReadDelta
from sse_core.pipeline.reads import merge_read

NOTE = GatewayEvent(name="note", data={"n": 1})
CAP = GatewayEvent(name="cap", data="x")


def test_an_empty_read() -> None:
    delta = merge_read([], 0)
    assert delta == ReadDelta() and not delta.has_delta


def test_texts_of_the_choice_are_joined() -> None:
    delta = merge_read(
        [
            TextDelta(text="Hel"),
            ReasoningDelta(text="r1"),
            TextDelta(text="lo"),
            RefusalDelta(text="no"),
            ReasoningDelta(text="r2"),
        ],
        0,
    )
    assert (delta.text, delta.reasoning, delta.refusal) == ("Hello", "r1r2", "no")
    assert delta.has_delta and not delta.finished and not delta.usage


def test_other_choices_are_left_out() -> None:
    delta = merge_read(
        [
            TextDelta(text="a", choice=1),
            TextDelta(text="b", choice=0),
            ToolCallDelta(index=0, name="f", choice=0),
            Finish(reason="stop", choice=0),
            RefusalDelta(text="r", choice=0),
        ],
        1,
    )
    assert delta == ReadDelta(text="a")


def test_tool_call_fragments_are_merged_per_call_in_order_of_appearance() -> None:
    delta = merge_read(
        [
            ToolCallDelta(index=1, id="b", name="g", arguments="{", choice=2),
            ToolCallDelta(index=0, id="a", name="f", choice=2),
            ToolCallDelta(index=1, id="x", name="y", arguments="}", choice=2),
            ToolCallDelta(index=0, arguments='{"k":', choice=2),
            ToolCallDelta(index=0, arguments="1}", choice=2),
        ],
        2,
    )
    assert delta.tool_calls == (
        ToolCallDelta(index=1, id="b", name="g", arguments="{}", choice=2),
        ToolCallDelta(index=0, id="a", name="f", arguments='{"k":1}', choice=2),
    )
    assert delta.has_delta


def test_a_continuation_only_read_has_no_id_or_name() -> None:
    (call,) = merge_read([ToolCallDelta(index=3, arguments="x")], 0).tool_calls
    assert call == ToolCallDelta(index=3, arguments="x")


def test_finish_usage_and_named_events() -> None:
    delta = merge_read(
        [
            NOTE,
            Finish(reason="length", choice=1),
            UsageUpdate(usage=Usage(total_tokens=3)),
            Finish(reason="stop", choice=0),
            CAP,
        ],
        0,
    )
    assert delta.finished and delta.usage and delta.events == (NOTE, CAP)
    assert not delta.has_delta  # no text and no tool call arrived


def test_another_choices_finish_does_not_finish_this_one() -> None:
    assert not merge_read([Finish(reason="stop", choice=1)], 0).finished


def test_no_choice_yet_keeps_only_named_events_and_usage() -> None:
    usage = Usage()
    delta = merge_read(
        [TextDelta(text="a"), NOTE, Finish(reason="stop"), UsageUpdate(usage=usage)], None
    )
    assert delta == ReadDelta(events=(NOTE,), usage=usage)


def test_metadata_done_and_error_frames_add_nothing() -> None:
    delta = merge_read([Metadata(id="x"), ErrorFrame(message="boom"), StreamEnd()], 0)
    assert delta == ReadDelta()


def test_events_may_be_any_iterable() -> None:
    assert merge_read(iter([TextDelta(text="a"), TextDelta(text="b")]), 0).text == "ab"
