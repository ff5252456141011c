"""The Responses stream, event by event: every kind of event, how a stream ends, and what
happens when the deltas and the final output disagree. Each body of ``BODIES`` is also fed
split at every byte (``test_splits``)."""

from __future__ import annotations

import json

import pytest

from sse_core import (
    GatewayStreamError,
    IncompleteStreamError,
    ReasoningBlock,
    StreamDecoder,
    StreamEnd,
    StreamProtocolError,
    TextDelta,
    ToolCallDelta,
    Usage,
    decode,
)
from tests.core.responses.responses_wire import (
    MODEL,
    RESPONSE_ID,
    USAGE,
    added,
    arguments,
    arguments_done,
    body,
    call_item,
    completed,
    created,
    failed,
    frame,
    in_progress,
    incomplete,
    item_done,
    message_item,
    outcome,
    part_added,
    reasoning_item,
    reasoning_text,
    refusal,
    summary,
    text,
    text_done,
)

SEALED = "gAAAAABo" + "x" * 40 + "/+=="  # an encrypted_content as the API seals it
HELLO = body(
    created(),
    in_progress(),
    added(0, message_item()),
    part_added(0),
    text(0, "Hel"),
    text(0, "lo"),
    text_done(0, "Hello"),
    item_done(0, message_item(text="Hello")),
    completed([item_done(0, message_item(text="Hello"))["item"]]),
)
REASONED = body(
    created(),
    added(0, reasoning_item()),
    summary(0, "**Plan**"),
    summary(0, " add", at=0),
    summary(0, "Then answer", at=1),
    item_done(0, reasoning_item(summary=["**Plan** add", "Then answer"], encrypted=SEALED)),
    added(1, message_item()),
    text(1, "4"),
    item_done(1, message_item(text="4")),
    completed(),
)
TWO_CALLS = body(
    created(),
    added(0, call_item("call_a", "get_weather")),
    added(1, call_item("call_b", "get_time")),
    arguments(0, '{"city":'),
    arguments(1, '{"tz":'),
    arguments(0, '"Paris"}'),
    arguments(1, '"UTC"}'),
    arguments_done(0, '{"city":"Paris"}', "fc_call_a"),
    arguments_done(1, '{"tz":"UTC"}', "fc_call_b"),
    item_done(0, call_item("call_a", "get_weather", '{"city":"Paris"}')),
    item_done(1, call_item("call_b", "get_time", '{"tz":"UTC"}')),
    completed(),
)
ONLY_IN_DONE = body(
    created(),
    added(0, call_item("call_1", "lookup")),
    arguments_done(0, '{"q":"x"}', "fc_call_1"),
    item_done(0, call_item("call_1", "lookup", '{"q":"x"}')),
    completed(),
)
CHANGING_IDS = body(
    created(),
    added(0, message_item("msg_a")),
    text(0, "one ", item_id="msg_b"),
    text(0, "two", item_id="msg_c"),
    added(1, call_item("call_1", "f", item_id="fc_a")),
    arguments(1, '{"a":', item_id="fc_b"),
    arguments(1, "1}", item_id="fc_c"),
    completed(),
)
COMPLETED_BUT_INCOMPLETE = body(
    created(),
    added(0, message_item()),
    text(0, "cut"),
    {
        "type": "response.completed",
        "response": {
            **completed()["response"],
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
        },
    },
)
LOST_TOKENS = body(
    created(),
    added(0, message_item()),
    text(0, "The quick "),
    text(0, "fox"),
    text_done(0, "The quick brown fox"),
    completed(),
)
EMPTY_FINAL = body(  # vLLM: the deltas are the answer, output is []
    created(),
    added(0, message_item()),
    text(0, "hi"),
    added(1, call_item("call_1", "f")),
    arguments(1, "{}"),
    completed([]),
)
REORDERED_FINAL = body(  # LiteLLM: the final output in another order
    created(),
    added(0, message_item("msg_1")),
    text(0, "Let me check."),
    added(1, call_item("call_1", "f")),
    arguments(1, '{"x":1}'),
    completed(
        [
            {**call_item("call_1", "f", '{"x":1}'), "status": "completed"},
            {**message_item("msg_1", "Let me check."), "status": "completed"},
        ]
    ),
)
ONLY_IN_FINAL = body(
    created(),
    added(0, message_item()),
    text(0, "ok"),
    completed(
        [
            message_item(text="ok"),
            call_item("call_9", "late", '{"n":9}'),
        ]
    ),
)
BODIES = {
    "hello": HELLO,
    "hello-unnamed": body(
        *[json.loads(f.split(b"data: ", 1)[1]) for f in HELLO.split(b"\n\n") if f], named=False
    ),
    "reasoned": REASONED,
    "two-calls": TWO_CALLS,
    "only-in-done": ONLY_IN_DONE,
    "changing-ids": CHANGING_IDS,
    "completed-but-incomplete": COMPLETED_BUT_INCOMPLETE,
    "lost-tokens": LOST_TOKENS,
    "empty-final": EMPTY_FINAL,
    "reordered-final": REORDERED_FINAL,
    "only-in-final": ONLY_IN_FINAL,
    "incomplete": body(created(), added(0, message_item()), text(0, "a"), incomplete()),
    "filtered": body(
        created(), added(0, message_item()), text(0, "a"), incomplete("content_filter")
    ),
    "failed": body(created(), added(0, message_item()), text(0, "part"), failed()),
    "error": body(
        created(),
        text(0, "part"),
        {"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "param": None},
    ),
    "done-without-terminal": body(created(), text(0, "a")) + b"data: [DONE]\n\n",
    "cut": body(created(), added(0, message_item()), text(0, "a")),
}


def test_text_metadata_and_usage() -> None:
    result = decode(HELLO, protocol="responses")
    assert result.content == "Hello" and result.done
    assert (result.finish_reason, result.stop_reason) == ("stop", "completed")
    assert (result.id, result.model, result.created) == (RESPONSE_ID, MODEL, 1741476542)
    assert result.usage == Usage(
        prompt_tokens=36,
        completion_tokens=87,
        total_tokens=123,
        cached_tokens=8,
        reasoning_tokens=64,
    )
    assert result.usage is not None and result.usage.raw == USAGE
    assert result.events == ()  # nothing disagreed, nothing unknown


def test_frames_without_event_lines_decode_alike() -> None:
    assert decode(BODIES["hello-unnamed"], protocol="responses") == decode(
        HELLO, protocol="responses"
    )


def test_reasoning_summary_parts_and_the_item_kept_byte_exact() -> None:
    result = decode(REASONED, protocol="responses")
    assert result.reasoning == "**Plan** add\n\nThen answer"
    (block,) = result.reasoning_blocks
    expected = {
        **reasoning_item(summary=["**Plan** add", "Then answer"], encrypted=SEALED),
        "status": "completed",
    }
    assert block == ReasoningBlock(
        text="**Plan** add\n\nThen answer", signature=SEALED, item=expected
    )
    assert block.item is not None and block.item["encrypted_content"] == SEALED
    assert block.item["id"] == "rs_1" and result.content == "4"


def test_raw_reasoning_text_is_reasoning() -> None:
    data = body(
        created(),
        added(0, reasoning_item()),
        reasoning_text(0, "step 1"),
        reasoning_text(0, ", 2"),
        completed(),
    )
    result = decode(data, protocol="responses")
    assert result.reasoning == "step 1, 2" and result.reasoning_blocks == ()  # never closed


def test_a_reasoning_item_without_encrypted_content_keeps_its_id_unsigned() -> None:
    data = body(created(), added(0, reasoning_item()), item_done(0, reasoning_item()), completed())
    (block,) = decode(data, protocol="responses").reasoning_blocks
    assert block.signature is None and block.item is not None and block.item["id"] == "rs_1"


def test_interleaved_argument_deltas_of_two_calls_stay_two_calls() -> None:
    result = decode(TWO_CALLS, protocol="responses")
    assert [(c.index, c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (0, "call_a", "get_weather", '{"city":"Paris"}'),
        (1, "call_b", "get_time", '{"tz":"UTC"}'),
    ]
    assert result.finish_reason == "tool_calls" and result.events == ()


def test_arguments_only_in_done_are_the_arguments() -> None:
    (call,) = decode(ONLY_IN_DONE, protocol="responses").tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "lookup", '{"q":"x"}')


def test_arguments_only_in_the_done_item() -> None:
    data = body(
        created(),
        added(0, call_item("c", "f")),
        item_done(0, call_item("c", "f", '{"a":2}')),
        completed(),
    )
    (call,) = decode(data, protocol="responses").tool_calls
    assert call.arguments == '{"a":2}'


def test_item_ids_that_change_on_every_event_do_not_split_anything() -> None:
    result = decode(CHANGING_IDS, protocol="responses")
    assert result.content == "one two"
    assert [(c.index, c.id, c.arguments) for c in result.tool_calls] == [(0, "call_1", '{"a":1}')]


def test_events_without_output_index_follow_their_item_id() -> None:
    first = {**text(0, "a", item_id="msg_1")}
    del first["output_index"]
    data = body(created(), added(0, message_item("msg_1")), first, completed())
    assert decode(data, protocol="responses").content == "a"


def test_a_completed_event_whose_status_is_incomplete_is_incomplete() -> None:
    result = decode(COMPLETED_BUT_INCOMPLETE, protocol="responses")
    assert (result.finish_reason, result.stop_reason, result.content) == (
        "length",
        "max_output_tokens",
        "cut",
    )


@pytest.mark.parametrize(
    ("reason", "finish"),
    [
        ("max_output_tokens", "length"),
        ("content_filter", "content_filter"),
        ("something_new", "something_new"),
    ],
)
def test_incomplete_gives_its_reason(reason: str, finish: str) -> None:
    result = decode(body(created(), text(0, "a"), incomplete(reason)), protocol="responses")
    assert (result.finish_reason, result.stop_reason, result.done) == (finish, reason, True)
    assert result.usage is not None and result.usage.completion_tokens == 87


def test_failed_is_a_gateway_stream_error_with_the_partial_answer() -> None:
    with pytest.raises(GatewayStreamError) as info:
        decode(BODIES["failed"], protocol="responses")
    error = info.value
    assert error.code == "server_error" and "The model failed." in str(error)
    assert error.partial.content == "part"


def test_the_error_event_is_a_gateway_stream_error() -> None:
    with pytest.raises(GatewayStreamError) as info:
        decode(BODIES["error"], protocol="responses")
    assert info.value.code == "rate_limit_exceeded" and "slow down" in str(info.value)
    assert info.value.partial.content == "part"


def test_an_error_event_with_a_nested_error_and_one_in_text() -> None:
    nested = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
            "message": "too long",
        },
    }
    with pytest.raises(GatewayStreamError) as info:
        decode(body(created(), nested), protocol="responses")
    assert (
        info.value.code == "context_length_exceeded" and info.value.type == "invalid_request_error"
    )
    with pytest.raises(GatewayStreamError, match="upstream gone"):
        decode(frame(created()) + b"event: error\ndata: upstream gone\n\n", protocol="responses")


def test_failed_then_error_reports_the_first() -> None:
    data = body(
        created(),
        failed("server_error", "first"),
        {"type": "error", "code": "x", "message": "second"},
    )
    with pytest.raises(GatewayStreamError, match="first"):
        decode(data, protocol="responses")


@pytest.mark.parametrize("name", ["done-without-terminal", "cut"])
def test_a_stream_without_a_terminal_event_is_incomplete(name: str) -> None:
    with pytest.raises(
        IncompleteStreamError, match=r"without a terminal event \(response.completed"
    ) as info:
        decode(BODIES[name], protocol="responses")
    assert info.value.partial.content == "a" and not info.value.partial.done


def test_nothing_after_the_terminal_event_is_read() -> None:
    decoder = StreamDecoder(protocol="responses")
    events = decoder.feed(HELLO)
    assert decoder.done and events[-1] == StreamEnd()
    assert decoder.feed(frame(text(0, " more"))) == [] and decoder.finish() == []


def test_deltas_that_lost_tokens_are_what_streamed_and_the_final_text_the_answer() -> None:
    # A whole answer is the final text (tests/core/responses/test_final_text.py); the deltas
    # stay what a stream showed, and the mismatch keeps both.
    result = decode(LOST_TOKENS, protocol="responses")
    assert result.content == "The quick brown fox"
    events = StreamDecoder(protocol="responses").feed(LOST_TOKENS)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The quick fox"
    (mismatch,) = result.events
    assert mismatch.name == "response.output_mismatch"
    assert (
        mismatch.data["streamed"] == "The quick fox"
        and mismatch.data["final"] == "The quick brown fox"
    )
    assert (mismatch.data["output_index"], mismatch.data["part"], mismatch.data["event"]) == (
        0,
        "content",
        "response.output_text.done",
    )


def test_text_only_in_done_is_the_text() -> None:
    data = body(
        created(), added(0, message_item()), text(0, "Hel"), text_done(0, "Hello"), completed()
    )
    events = StreamDecoder(protocol="responses").feed(data)
    assert [e for e in events if isinstance(e, TextDelta)] == [
        TextDelta(text="Hel"),
        TextDelta(text="lo"),
    ]


def test_an_empty_final_output_leaves_the_deltas() -> None:
    result = decode(EMPTY_FINAL, protocol="responses")
    assert result.content == "hi" and [c.arguments for c in result.tool_calls] == ["{}"]
    assert result.events == () and result.finish_reason == "tool_calls"


def test_a_reordered_final_output_is_matched_by_id() -> None:
    result = decode(REORDERED_FINAL, protocol="responses")
    assert result.content == "Let me check." and result.events == ()
    assert [(c.id, c.arguments) for c in result.tool_calls] == [("call_1", '{"x":1}')]


def test_a_call_only_in_the_final_output_is_not_lost() -> None:
    result = decode(ONLY_IN_FINAL, protocol="responses")
    assert result.content == "ok"
    assert [(c.index, c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (0, "call_9", "late", '{"n":9}')
    ]
    assert result.finish_reason == "tool_calls"


def test_a_refusal() -> None:
    data = body(
        created(),
        added(0, message_item()),
        refusal(0, "I can't"),
        refusal(0, " help."),
        completed(),
    )
    result = decode(data, protocol="responses")
    assert result.refusal == "I can't help." and result.content == ""


def test_annotations_are_citations_as_sent() -> None:
    cited = {
        "type": "url_citation",
        "start_index": 0,
        "end_index": 2,
        "url": "https://example.com",
        "title": "Ex",
    }
    event = {
        "type": "response.output_text.annotation.added",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "annotation_index": 0,
        "annotation": cited,
    }
    final = {
        **message_item(text="ok"),
        "content": [{"type": "output_text", "text": "ok", "annotations": [cited]}],
    }
    data = body(
        created(), added(0, message_item()), text(0, "ok"), event, item_done(0, final), completed()
    )
    assert decode(data, protocol="responses").citations == (cited,)  # not twice


def test_server_tool_items_are_gateway_events_never_tool_calls() -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}
    data = body(
        created(),
        added(0, search),
        {"type": "response.web_search_call.in_progress", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_1"},
        item_done(0, {**search, "action": {"type": "search", "query": "x"}}),
        added(1, {"type": "mcp_call", "id": "mcp_1", "name": "t", "arguments": ""}),
        {
            "type": "response.mcp_call_arguments.delta",
            "output_index": 1,
            "item_id": "mcp_1",
            "delta": "{}",
        },
        added(2, {"type": "image_generation_call", "id": "ig_1"}),
        {
            "type": "response.image_generation_call.partial_image",
            "output_index": 2,
            "partial_image_b64": "AAA",
        },
        added(3, {"type": "something_new", "id": "x_1"}),
        completed([{**search, "status": "completed"}]),
    )
    result = decode(data, protocol="responses")
    assert result.tool_calls == () and result.finish_reason == "stop"
    names = [event.name for event in result.events]
    assert names == [
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.completed",
        "response.output_item.done",
        "response.output_item.added",
        "response.mcp_call_arguments.delta",
        "response.output_item.added",
        "response.image_generation_call.partial_image",
        "response.output_item.added",
    ]


def test_unknown_events_are_kept_never_fatal() -> None:
    data = (
        body(created(), {"type": "response.brand_new", "x": 1})
        + b"event: vendor.note\ndata: plain text\n\n"
        + body(completed(), numbered=False)
    )
    result = decode(data, protocol="responses")
    assert [(e.name, e.data) for e in result.events] == [
        ("response.brand_new", {"type": "response.brand_new", "x": 1, "sequence_number": 1}),
        ("vendor.note", "plain text"),
    ]


def test_a_repeated_frame_is_dropped_by_its_sequence_number() -> None:
    again = frame({**text(0, "a"), "sequence_number": 2})
    data = (
        body(created(), added(0, message_item()), text(0, "a"))
        + again
        + frame({**text(0, "b"), "sequence_number": 3})
        + frame({**completed(), "sequence_number": 4})
    )
    assert decode(data, protocol="responses").content == "ab"


def test_a_number_going_back_with_other_data_is_decoded() -> None:
    data = (
        body(created(), added(0, message_item()), text(0, "a"))
        + frame({**text(0, "b"), "sequence_number": 1})
        + frame({**completed(), "sequence_number": 9})
    )
    assert decode(data, protocol="responses").content == "ab"


def test_a_gateway_that_numbers_every_frame_zero_loses_nothing() -> None:
    frames = [created(), added(0, message_item()), text(0, "a"), text(0, "a"), completed()]
    data = b"".join(frame({**f, "sequence_number": 0}) for f in frames)
    assert decode(data, protocol="responses").content == "aa"


@pytest.mark.parametrize(
    "bad",
    [
        b"event: response.output_text.delta\n"
        b'data: {"type":"response.output_text.delta","delta":"x"\n\n',
        b'data: {"type":"response.output_text.delta", delta}\n\n',
        b"event: response.completed\ndata: [1, 2]\n\n",
        b"data: not json\n\n",
    ],
)
def test_a_broken_frame_is_a_stream_protocol_error_never_a_spliced_answer(bad: bytes) -> None:
    data = (
        body(created(), added(0, message_item()), text(0, "a"))
        + bad
        + body(text(0, "b"), completed(), numbered=False)
    )
    with pytest.raises(StreamProtocolError, match="expected a JSON object") as info:
        decode(data, protocol="responses")
    assert info.value.partial.content == "a"


def test_a_proxy_error_frame_without_type() -> None:
    with pytest.raises(GatewayStreamError, match="upstream timeout"):
        decode(
            frame(created()) + b'data: {"error": {"message": "upstream timeout"}}\n\n',
            protocol="responses",
        )


def test_cut_arguments_are_flagged_never_repaired() -> None:
    data = body(
        created(), added(0, call_item("c", "f")), arguments(0, '{"city": "Par'), incomplete()
    )
    (call,) = decode(data, protocol="responses").tool_calls
    assert call.arguments == '{"city": "Par' and call.arguments_error is not None


def test_a_whole_response_decodes_to_the_same_events_ending_the_stream() -> None:
    whole = completed(
        [
            reasoning_item(summary=["think"], encrypted=SEALED),
            message_item(text="Hi"),
            call_item("c1", "f", "{}"),
        ]
    )["response"]
    decoder = StreamDecoder(protocol="responses")
    events = decoder.decode_whole(json.dumps(whole).encode())
    assert events[-1] == StreamEnd()
    assert ToolCallDelta(index=0, id="c1", name="f") in events
    result = decode(
        body(created(), {"type": "response.completed", "response": whole}), protocol="responses"
    )
    assert (result.content, result.reasoning, result.finish_reason) == ("Hi", "think", "tool_calls")
    assert result.reasoning_blocks[0].signature == SEALED


def test_a_whole_error_body_and_a_body_that_is_no_response() -> None:
    decoder = StreamDecoder(protocol="responses")
    (frame_,) = decoder.decode_whole(
        b'{"error": {"message": "bad key", "code": "invalid_api_key"}}'
    )
    assert frame_.code == "invalid_api_key"  # type: ignore[union-attr]
    with pytest.raises(StreamProtocolError, match="expected a response"):
        StreamDecoder(protocol="responses").decode_whole(b'{"id": "x"}')


def test_outcomes_of_every_body() -> None:
    verdicts = {name: outcome([data])[0] for name, data in BODIES.items()}
    assert verdicts == {
        **dict.fromkeys(BODIES, "ok"),
        "failed": "GatewayStreamError",
        "error": "GatewayStreamError",
        "done-without-terminal": "IncompleteStreamError",
        "cut": "IncompleteStreamError",
    }


def test_cache_writes_are_counted_when_the_gateway_reports_them() -> None:
    usage = {**USAGE, "input_tokens_details": {"cached_tokens": 8, "cache_write_tokens": 3}}
    result = decode(
        body(created(), added(0, message_item()), text(0, "Hi"), completed(usage=usage)),
        protocol="responses",
    )
    assert result.usage is not None and result.content == "Hi"
    assert (result.usage.cached_tokens, result.usage.cache_write_tokens) == (8, 3)
