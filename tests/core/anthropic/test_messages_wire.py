"""Anthropic Messages streams, byte-level: each behaviour of the wire as a body written by
hand, decoded with ``sse_core.decode(body, protocol="anthropic")``.

``test_splits.py`` feeds every body here split at every byte.
"""

from __future__ import annotations

import pytest

from sse_core import (
    Completion,
    GatewayEvent,
    ReasoningBlock,
    ToolCall,
)
from tests.core.anthropic.messages_wire import (
    PING,
    STOP,
    block,
    body,
    chop,
    delta,
    frame,
    json_piece,
    message_delta,
    outcome,
    signature,
    start,
    stop_block,
    text,
    thinking,
)

SIGNATURE = "EqQBCkgIARABGAIiQL+/=="  # base64, with the characters a careless copy would alter
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP=="

TEXT_USAGE = body(
    start(
        usage={
            "input_tokens": 10,
            "output_tokens": 1,
            "cache_creation_input_tokens": 3,
            "cache_read_input_tokens": 7,
            "cache_creation": {"ephemeral_5m_input_tokens": 3, "ephemeral_1h_input_tokens": 0},
        }
    ),
    block(0),
    text(0, "Hel"),
    text(0, "lo"),
    stop_block(0),
    message_delta("end_turn", usage={"output_tokens": 15}),
    STOP,
)
PREFILLED = body(
    start(content=[{"type": "text", "text": "Pre"}]),
    block(1),
    text(1, " fill"),
    stop_block(1),
    message_delta(),
    STOP,
)
THINKING = body(
    start(),
    block(0, "thinking"),
    thinking(0, "Let me "),
    thinking(0, "think."),
    signature(0, SIGNATURE),
    stop_block(0),
    block(1),
    text(1, "Answer"),
    stop_block(1),
    message_delta(),
    STOP,
)
REDACTED_THINKING = body(
    start(),
    block(0, "redacted_thinking", data=REDACTED),
    stop_block(0),
    block(1),
    text(1, "Hi"),
    stop_block(1),
    message_delta(),
    STOP,
)
MIXED_REASONING = body(
    start(),
    block(0, "thinking"),
    thinking(0, "first"),
    signature(0, "sig1"),
    stop_block(0),
    block(1, "redacted_thinking", data=REDACTED),
    stop_block(1),
    block(2, "thinking"),
    thinking(2, "second"),
    signature(2, "sig2"),
    stop_block(2),
    block(3, "tool_use", id="toolu_m", name="f"),
    json_piece(3, "{}"),
    stop_block(3),
    message_delta("tool_use"),
    STOP,
)
TOOL = body(
    start(),
    block(0),
    text(0, "Checking."),
    stop_block(0),
    block(1, "tool_use", id="toolu_01", name="get_weather"),
    json_piece(1, ""),
    json_piece(1, '{"city": "Par'),
    json_piece(1, 'is", "unit": "c"}'),
    stop_block(1),
    message_delta("tool_use"),
    STOP,
)
TOOL_NO_INPUT = body(
    start(),
    block(0, "tool_use", id="toolu_02", name="now"),
    stop_block(0),
    message_delta("tool_use"),
    STOP,
)
#: A tool input cut by max_tokens: the stream is whole, the call's input is not JSON.
TOOL_CUT = body(
    start(),
    block(0, "tool_use", id="toolu_03", name="write"),
    json_piece(0, '{"path": "a.txt", "text": "abc'),
    stop_block(0),
    message_delta("max_tokens"),
    STOP,
)
SERVER_TOOLS = body(
    start(),
    block(0, "server_tool_use", id="srvtoolu_1", name="web_search", input={}),
    json_piece(0, '{"query": "x"}'),
    stop_block(0),
    block(1, "web_search_tool_result", tool_use_id="srvtoolu_1", content=[]),
    stop_block(1),
    block(2, citations=[]),
    delta(2, "citations_delta", citation={"type": "web_search_result_location", "url": "u"}),
    text(2, "Found it."),
    stop_block(2),
    message_delta(),
    STOP,
)
UNKNOWN = body(
    start(),
    {"type": "future_event", "value": 1},
    block(0, "future_block", payload="p"),
    delta(0, "future_delta", value=2),
    stop_block(0),
    block(1),
    delta(1, "future_text_delta", text="?"),
    text(1, "ok"),
    stop_block(1),
    message_delta(),
    STOP,
)
INTERLEAVED = body(
    start(),
    block(0),
    block(1, "tool_use", id="toolu_a", name="one"),
    block(2, "tool_use", id="toolu_b", name="two"),
    json_piece(2, '{"b":'),
    text(0, "Both "),
    json_piece(1, '{"a":'),
    json_piece(2, " 2}"),
    text(0, "at once."),
    json_piece(1, " 1}"),
    stop_block(2),
    stop_block(1),
    stop_block(0),
    message_delta("tool_use"),
    STOP,
)
DUPLICATE_START = body(
    start(usage={"input_tokens": 10, "output_tokens": 1}),
    start(
        msg_id="msg_other",
        usage={"input_tokens": 99, "output_tokens": 1, "cache_read_input_tokens": 4},
        content=[{"type": "text", "text": "again"}],
    ),
    block(0),
    text(0, "ok"),
    stop_block(0),
    message_delta(usage={"output_tokens": 2}),
    STOP,
)
USAGE_LAST_WINS = body(
    start(usage={"output_tokens": 1}),
    block(0),
    text(0, "pong"),
    stop_block(0),
    message_delta(None, usage={"output_tokens": 5}),
    message_delta("end_turn", usage={"input_tokens": 61, "output_tokens": 9}),
    STOP,
)
COMMENTS_AND_PINGS = (
    b": keep-alive\n\n"
    + frame(start())
    + frame(PING)
    + b": still here\n\n"
    + frame(block(0))
    + frame(text(0, "a"))
    + frame(PING)
    + frame(text(0, "b"))
    + frame(stop_block(0))
    + b":\n\n"
    + frame(message_delta())
    + frame(STOP)
)
ERROR_AFTER_TEXT = body(
    start(),
    block(0),
    text(0, "Partial"),
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    text(0, " never"),
)
STOPPED_THEN_MORE = body(
    start(), block(0), text(0, "done"), stop_block(0), message_delta(), STOP
) + (b"event: content_block_delta\ndata: {not json at all\n\n" + frame(text(0, " late")))
STOP_REASON_NO_MESSAGE_STOP = body(
    start(), block(0), text(0, "fine"), stop_block(0), message_delta()
)
CUT = body(start(), block(0), text(0, "cut he"))
CUT_TOOL = body(start(), block(0, "tool_use", id="toolu_c", name="f"), json_piece(0, '{"a": 1'))
BROKEN_FRAME = body(start(), block(0), text(0, "so far")) + (
    b"event: content_block_delta\ndata: {broken\n\n"
)

#: Every body above, for the split tests.
BODIES = {
    name.lower(): value
    for name, value in dict(globals()).items()
    if name.isupper() and isinstance(value, bytes) and name not in {"SIGNATURE", "REDACTED"}
}


def ok(data: bytes) -> Completion:
    verdict, completion = outcome([data])
    assert verdict == "ok", verdict
    return completion


def test_message_start_metadata_and_usage_with_cache_counts() -> None:
    completion = ok(TEXT_USAGE)
    assert (completion.id, completion.model, completion.content) == (
        "msg_1",
        "claude-test",
        "Hello",
    )
    usage = completion.usage
    assert usage is not None
    # input_tokens leaves out the cached part; prompt_tokens counts it, as chat completions do
    assert usage.prompt_tokens == 10 + 7 + 3
    assert (usage.completion_tokens, usage.total_tokens) == (15, 35)
    assert (usage.cached_tokens, usage.cache_write_tokens) == (7, 3)
    assert usage.raw["cache_creation"] == {
        "ephemeral_5m_input_tokens": 3,
        "ephemeral_1h_input_tokens": 0,
    }
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "end_turn")
    assert completion.done


def test_content_prefilled_in_message_start_is_kept() -> None:
    assert ok(PREFILLED).content == "Pre fill"


def test_thinking_text_and_signature_are_kept_byte_exact() -> None:
    completion = ok(THINKING)
    assert completion.reasoning == "Let me think."
    assert completion.reasoning_blocks == (
        ReasoningBlock(text="Let me think.", signature=SIGNATURE),
    )
    assert completion.content == "Answer"


def test_redacted_thinking_is_kept_byte_exact() -> None:
    completion = ok(REDACTED_THINKING)
    assert completion.reasoning_blocks == (ReasoningBlock(redacted=REDACTED),)
    assert (completion.reasoning, completion.content) == ("", "Hi")


def test_tool_use_input_pieces_make_the_arguments() -> None:
    completion = ok(TOOL)
    assert completion.tool_calls == (
        ToolCall(
            index=0, id="toolu_01", name="get_weather", arguments='{"city": "Paris", "unit": "c"}'
        ),
    )
    assert completion.tool_calls[0].arguments_error is None
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "tool_use")
    assert completion.content == "Checking."


def test_tool_use_without_input_deltas_has_empty_object_arguments() -> None:
    (call,) = ok(TOOL_NO_INPUT).tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_02", "now", "{}")


def test_tool_input_that_is_not_json_is_flagged_never_repaired() -> None:
    completion = ok(TOOL_CUT)
    (call,) = completion.tool_calls
    assert call.arguments == '{"path": "a.txt", "text": "abc'  # as the model wrote it
    assert call.arguments_error is not None and "not valid JSON" in call.arguments_error
    assert (completion.finish_reason, completion.stop_reason) == ("length", "max_tokens")


def test_server_tool_blocks_are_gateway_events_and_citations_are_citations() -> None:
    completion = ok(SERVER_TOOLS)
    assert completion.tool_calls == ()
    assert completion.content == "Found it."
    names = [event.name for event in completion.events]
    assert names == [
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_stop",
    ]
    assert completion.events[0].data["content_block"]["name"] == "web_search"
    assert completion.events[1].data["delta"]["partial_json"] == '{"query": "x"}'
    assert completion.citations == ({"type": "web_search_result_location", "url": "u"},)


def test_unknown_event_block_and_delta_types_are_gateway_events_never_fatal() -> None:
    completion = ok(UNKNOWN)
    assert completion.content == "ok"
    assert [event.name for event in completion.events] == [
        "future_event",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_delta",
    ]
    assert completion.events[0].data == {"type": "future_event", "value": 1}


def test_interleaved_blocks_keep_their_own_pieces_and_their_order() -> None:
    completion = ok(INTERLEAVED)
    assert completion.content == "Both at once."
    assert [(c.index, c.id, c.name, c.arguments) for c in completion.tool_calls] == [
        (0, "toolu_a", "one", '{"a": 1}'),
        (1, "toolu_b", "two", '{"b": 2}'),
    ]


def test_a_duplicate_message_start_adds_only_counts_not_known_yet() -> None:
    completion = ok(DUPLICATE_START)
    assert (completion.id, completion.content) == ("msg_1", "ok")
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (14, 4, 2)


def test_cumulative_usage_last_value_wins_and_input_may_come_last() -> None:
    usage = ok(USAGE_LAST_WINS).usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (61, 9, 70)


#: A Go relay re-encodes message_delta with its zero values for the counts Anthropic left
#: out of it (``"input_tokens":0`` beside the real output count).
RELAY_ZEROS = body(
    start(usage={"input_tokens": 471, "output_tokens": 1, "cache_read_input_tokens": 12}),
    block(0),
    text(0, "hi"),
    stop_block(0),
    message_delta(
        "end_turn",
        usage={
            "input_tokens": 0,
            "output_tokens": 80,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        },
    ),
    STOP,
)


def test_a_relays_zero_after_a_count_leaves_the_count() -> None:
    for cut in range(len(RELAY_ZEROS) + 1):
        verdict, completion = outcome(chop(RELAY_ZEROS, [cut]))
        assert verdict == "ok", cut
        usage = completion.usage
        assert usage is not None
        assert (usage.prompt_tokens, usage.completion_tokens) == (471 + 12, 80), cut
        assert (usage.cached_tokens, usage.cache_write_tokens) == (12, 0), cut


#: ``message_delta`` always carries ``output_tokens``, and its count is final: a 0 there
#: after message_start's 1 is the answer's count (the anthropic SDK reports 0 too).
FINAL_OUTPUT_ZERO = body(
    start(usage={"input_tokens": 25, "output_tokens": 1}),
    message_delta("end_turn", usage={"input_tokens": 0, "output_tokens": 0}),
    STOP,
)


def test_a_zero_output_count_in_message_delta_is_final() -> None:
    for cut in range(len(FINAL_OUTPUT_ZERO) + 1):
        verdict, completion = outcome(chop(FINAL_OUTPUT_ZERO, [cut]))
        assert verdict == "ok", cut
        usage = completion.usage
        assert usage is not None
        counts = (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)
        assert counts == (25, 0, 25), cut


def test_a_count_after_a_zero_replaces_it() -> None:
    zeros_first = body(
        start(usage={"input_tokens": 0, "output_tokens": 0}),
        block(0),
        text(0, "hi"),
        stop_block(0),
        message_delta("end_turn", usage={"input_tokens": 61, "output_tokens": 9}),
        STOP,
    )
    usage = ok(zeros_first).usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (61, 9, 70)


def test_a_message_stop_that_says_more_is_kept_as_a_gateway_event() -> None:
    metrics = {"inputTokenCount": 3, "outputTokenCount": 5, "invocationLatency": 120}
    stop = {"type": "message_stop", "amazon-bedrock-invocationMetrics": metrics}
    plain = body(start(), block(0), text(0, "hi"), stop_block(0), message_delta(), STOP)
    said = body(start(), block(0), text(0, "hi"), stop_block(0), message_delta(), stop)
    assert ok(plain).events == ()
    completion = ok(said)
    assert completion.events == (GatewayEvent(name="message_stop", data=stop),)
    assert completion.done and completion.content == "hi"


def test_comments_and_pings_are_no_events() -> None:
    plain = body(
        start(), block(0), text(0, "a"), text(0, "b"), stop_block(0), message_delta(), STOP
    )
    assert ok(COMMENTS_AND_PINGS) == ok(plain)


@pytest.mark.parametrize(
    "name", ["text_usage", "thinking", "tool", "interleaved", "server_tools", "unknown"]
)
def test_frames_without_event_lines_decode_as_named_ones(name: str) -> None:
    named = BODIES[name]
    unnamed = b"".join(
        b"\n".join(line for line in frame_.split(b"\n") if not line.startswith(b"event:")) + b"\n\n"
        for frame_ in named.split(b"\n\n")
        if frame_
    )
    assert b"event:" not in unnamed
    assert ok(unnamed) == ok(named)


@pytest.mark.parametrize(
    ("raw", "shared"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause_turn"),
        ("model_context_window_exceeded", "length"),
        ("a_reason_from_the_future", "a_reason_from_the_future"),
    ],
)
def test_stop_reasons_map_to_shared_finish_reasons_and_stay_distinguishable(
    raw: str, shared: str
) -> None:
    data = body(start(), block(0), text(0, "x"), stop_block(0), message_delta(raw), STOP)
    completion = ok(data)
    assert (completion.finish_reason, completion.stop_reason) == (shared, raw)


def test_stop_sequence_is_kept() -> None:
    data = body(
        start(), block(0), text(0, "x"), message_delta("stop_sequence", stop_sequence="###"), STOP
    )
    completion = ok(data)
    assert (completion.finish_reason, completion.stop_sequence) == ("stop", "###")


def test_an_error_event_after_200_is_a_gateway_error_with_the_partial_answer() -> None:
    verdict, partial = outcome([ERROR_AFTER_TEXT])
    assert verdict == "GatewayStreamError"
    assert partial.content == "Partial"


def test_the_gateway_error_carries_the_error_type() -> None:
    from sse_core import GatewayStreamError, decode

    with pytest.raises(GatewayStreamError) as info:
        decode(ERROR_AFTER_TEXT, protocol="anthropic")
    assert info.value.type == "overloaded_error"
    assert "Overloaded" in str(info.value)


def test_message_stop_ends_the_stream_whatever_follows() -> None:
    completion = ok(STOPPED_THEN_MORE)
    assert (completion.content, completion.done) == ("done", True)


def test_a_stop_reason_then_eof_without_message_stop_is_complete() -> None:
    completion = ok(STOP_REASON_NO_MESSAGE_STOP)
    assert (completion.content, completion.finish_reason, completion.done) == (
        "fine",
        "stop",
        False,
    )


def test_eof_with_neither_stop_reason_nor_message_stop_is_incomplete() -> None:
    verdict, partial = outcome([CUT])
    assert verdict == "IncompleteStreamError"
    assert partial.content == "cut he"


def test_a_cut_tool_call_is_incomplete_with_its_input_as_it_arrived() -> None:
    verdict, partial = outcome([CUT_TOOL])
    assert verdict == "IncompleteStreamError"
    (call,) = partial.tool_calls
    assert (call.name, call.arguments) == ("f", '{"a": 1')  # not closed, not repaired


def test_a_broken_frame_is_a_protocol_error_with_the_partial_answer() -> None:
    verdict, partial = outcome([BROKEN_FRAME])
    assert verdict == "StreamProtocolError"
    assert partial.content == "so far"


def test_the_incomplete_error_names_the_protocols_end_markers() -> None:
    from sse_core import IncompleteStreamError, decode

    with pytest.raises(
        IncompleteStreamError, match="without a stop_reason and without message_stop"
    ):
        decode(CUT, protocol="anthropic")


def test_signed_and_redacted_reasoning_blocks_keep_their_order() -> None:
    completion = ok(MIXED_REASONING)
    assert completion.reasoning_blocks == (
        ReasoningBlock(text="first", signature="sig1"),
        ReasoningBlock(redacted=REDACTED),
        ReasoningBlock(text="second", signature="sig2"),
    )
    assert completion.reasoning == "firstsecond"
    assert completion.tool_calls[0].arguments == "{}"
