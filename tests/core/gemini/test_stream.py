"""A Gemini stream as a whole: how it ends (a finish reason, a blocked prompt, an error, a cut),
its usage and metadata, several candidates, named events, whole answers."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core import IncompleteStreamError, StreamProtocolError, Usage
from sse_core.events import (
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    StreamEnd,
    TextDelta,
    UsageUpdate,
)
from sse_core.protocols.gemini import FINISH_REASONS, GenerateContentDecoder, gemini_usage
from tests.core.gemini.gemini_wire import (
    MODEL,
    RESPONSE_ID,
    body,
    call,
    candidate,
    chunk,
    decoded,
    encoded,
    error,
    events,
    frame,
    outcome,
    text,
    usage,
)


@pytest.mark.parametrize(
    ("reason", "shared"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("LANGUAGE", "LANGUAGE"),
        ("OTHER", "OTHER"),
        ("MALFORMED_FUNCTION_CALL", "MALFORMED_FUNCTION_CALL"),
        ("UNEXPECTED_TOOL_CALL", "UNEXPECTED_TOOL_CALL"),
        ("TOO_MANY_TOOL_CALLS", "TOO_MANY_TOOL_CALLS"),
        ("FINISH_REASON_UNSPECIFIED", "FINISH_REASON_UNSPECIFIED"),
        ("A_REASON_NOT_KNOWN_YET", "A_REASON_NOT_KNOWN_YET"),
    ],
)
def test_finish_reasons_in_the_shared_words_gemini_s_own_kept(reason: str, shared: str) -> None:
    result = decoded(body(chunk(text("Hi")), chunk(finish=reason)))
    assert (result.finish_reason, result.stop_reason, result.content) == (shared, reason, "Hi")
    assert FINISH_REASONS.get(reason, reason) == shared


def test_stop_after_a_function_call_is_tool_calls_and_max_tokens_stays_length() -> None:
    assert decoded(body(chunk(call("f", {}), finish="STOP"))).finish_reason == "tool_calls"
    assert decoded(body(chunk(call("f", {}), finish="MAX_TOKENS"))).finish_reason == "length"


def test_a_repeated_finish_reason_says_nothing_more() -> None:
    found = events([body(chunk(text("a"), finish="STOP"), chunk(finish="STOP"))])
    assert [e for e in found if type(e) is Finish] == [Finish(reason="stop", stop_reason="STOP")]


def test_a_blocked_prompt_ends_the_answer_by_a_content_filter() -> None:
    feedback = {"blockReason": "SAFETY", "safetyRatings": [{"category": "HARM", "blocked": True}]}
    data = body({"promptFeedback": feedback, "usageMetadata": usage(answer=None)})
    found = events([data])
    assert found[:2] == [
        GatewayEvent(name="promptFeedback", data=feedback),
        Finish(reason="content_filter", stop_reason="SAFETY"),
    ]
    assert found[-1] == StreamEnd()
    result = decoded(data)
    assert (result.content, result.finish_reason, result.stop_reason) == (
        "",
        "content_filter",
        "SAFETY",
    )
    assert result.done


def test_prompt_feedback_without_a_block_is_kept_not_an_end() -> None:
    feedback: dict[str, Any] = {"safetyRatings": []}
    found = events([body({"promptFeedback": feedback, **chunk(text("ok"))})])
    assert GatewayEvent(name="promptFeedback", data=feedback) in found
    assert not [e for e in found if type(e) in (Finish, StreamEnd)]


def test_a_stream_that_ends_without_a_finish_reason_was_cut() -> None:
    data = body(chunk(text("Hello"), counts=usage()), chunk(text(", wor"), counts=usage()))
    found = events([data])
    assert not [e for e in found if type(e) in (Finish, StreamEnd)]
    verdict, partial = outcome([data])
    assert verdict == IncompleteStreamError.__name__
    assert partial is not None and partial.content == "Hello, wor" and not partial.done


def test_a_body_cut_inside_its_last_frame_is_cut_too() -> None:
    data = body(chunk(text("Hello"), finish="STOP"))
    verdict, _ = outcome([data[:-20]])
    assert verdict in (StreamProtocolError.__name__, IncompleteStreamError.__name__)


def test_a_complete_stream_ends_with_stream_end_at_the_end_of_the_body() -> None:
    decoder = GenerateContentDecoder()
    found: list[Any] = []
    decoder.data_into(encoded(chunk(text("a"), finish="STOP")), found)
    assert not decoder.done  # more frames may follow (usage, grounding): read to the end
    assert decoder.flush() == [StreamEnd()] and decoder.done
    assert decoder.flush() == []


def test_usage_repeated_on_every_frame_the_last_wins() -> None:
    data = body(
        chunk(text("a"), counts=usage(9, 1, thoughtsTokenCount=100)),
        chunk(text("b"), counts=usage(9, 1, thoughtsTokenCount=100)),  # unchanged: no report
        chunk(text("c"), counts=usage(9, 3, thoughtsTokenCount=100)),
        chunk(finish="STOP", counts=usage(9, 7, thoughtsTokenCount=100, cachedContentTokenCount=4)),
    )
    reports = [e.usage for e in events([data]) if type(e) is UsageUpdate]
    assert [(u.completion_tokens, u.total_tokens) for u in reports] == [
        (101, 110),
        (103, 112),
        (107, 120),
    ]
    assert decoded(data).usage == Usage(
        prompt_tokens=9, completion_tokens=107, total_tokens=120, cached_tokens=4,
        reasoning_tokens=100,
    )  # fmt: skip


def test_usage_without_any_count_is_no_report() -> None:
    """Vertex AI sends ``{"trafficType": ...}`` alone until the last frame."""
    data = body(
        chunk(text("a"), counts={"trafficType": "ON_DEMAND"}),
        chunk(finish="STOP", counts={"promptTokenCount": 3, "trafficType": "ON_DEMAND"}),
        chunk(counts={"trafficType": "ON_DEMAND"}),
    )
    reports = [e.usage for e in events([data]) if type(e) is UsageUpdate]
    assert [u.prompt_tokens for u in reports] == [3]


def test_usage_counts_the_way_the_other_protocols_count() -> None:
    """Gemini's total is prompt + tool-use prompt + candidates + thoughts (a real capture's:
    17 + 308 + 37 + 333 = 695): the prompt holds what the model read, the output its
    thoughts, as OpenAI's and Anthropic's counts do."""
    raw = {
        "promptTokenCount": 17, "toolUsePromptTokenCount": 308, "candidatesTokenCount": 37,
        "thoughtsTokenCount": 333, "totalTokenCount": 695, "cachedContentTokenCount": 5,
    }  # fmt: skip
    counted = gemini_usage(raw)
    assert (counted.prompt_tokens, counted.completion_tokens) == (325, 370)
    assert counted.total_tokens == 325 + 370 == raw["totalTokenCount"]
    assert (counted.reasoning_tokens, counted.cached_tokens, counted.raw) == (333, 5, raw)
    assert gemini_usage({"promptTokenCount": 2, "responseTokenCount": 3}).total_tokens == 5
    assert gemini_usage({"promptTokenCount": True, "totalTokenCount": "9"}) == Usage()


def test_metadata_from_the_response_id_model_and_create_time() -> None:
    data = body(
        chunk(text("a"), createTime="2026-04-02T17:03:50.399550Z"),
        chunk(text("b"), createTime="2026-04-02T17:03:50.399550Z"),
        chunk(finish="STOP", createTime="2026-04-02T19:03:50+02:00"),
    )
    found = [e for e in events([data]) if type(e) is Metadata]
    assert found == [Metadata(id=RESPONSE_ID, model=MODEL, created=1775149430)]
    result = decoded(data)
    assert (result.id, result.model, result.created) == (RESPONSE_ID, MODEL, 1775149430)


@pytest.mark.parametrize("when", ["yesterday", "2026-13-99T99:99:99Z", 1775149430, None])
def test_a_create_time_that_is_no_time_is_none(when: object) -> None:
    assert decoded(body(chunk(finish="STOP", createTime=when))).created is None


def test_the_responses_other_fields_are_kept_when_they_change() -> None:
    data = body(chunk(text("a"), modelStatus={"stage": "PREVIEW"}),
                chunk(finish="STOP", modelStatus={"stage": "PREVIEW"}))  # fmt: skip
    kept = [e for e in events([data]) if type(e) is GatewayEvent]
    assert kept == [GatewayEvent(name="response", data={"modelStatus": {"stage": "PREVIEW"}})]


def test_an_error_frame_mid_stream_ends_it_with_googles_status_and_code() -> None:
    failure = error(500, "INTERNAL", "An internal error has occurred.")
    data = body(chunk(text("partial")), failure, chunk(text("never read"), finish="STOP"))
    found = events([data])
    assert found[-1] == ErrorFrame(
        message="An internal error has occurred.", type="INTERNAL", code=500, data=failure
    )
    assert TextDelta(text="never read") not in found
    verdict, partial = outcome([data])
    assert verdict == "GatewayStreamError" and partial is not None and partial.content == "partial"


@pytest.mark.parametrize(
    ("payload", "message", "kind", "code"),
    [
        ({"error": {"message": "m", "status": "UNAVAILABLE", "code": 503}}, "m", "UNAVAILABLE",
         503),
        ({"error": {"code": 400, "status": "INVALID_ARGUMENT"}},
         '{"code":400,"status":"INVALID_ARGUMENT"}', "INVALID_ARGUMENT", 400),
        ({"error": "quota"}, "quota", None, None),
        ({"error": {"message": "m", "code": True, "status": 7}}, "m", None, None),
    ],
)  # fmt: skip
def test_error_objects_of_every_shape(
    payload: Any, message: str, kind: str | None, code: Any
) -> None:
    (frame_,) = events([body(payload)])
    assert isinstance(frame_, ErrorFrame)
    assert (frame_.message, frame_.type, frame_.code) == (message, kind, code)


def test_an_error_event_as_a_relay_names_it() -> None:
    data = frame(chunk(text("a"))) + frame({"message": "upstream died", "code": 502}, name="error")
    assert events([data])[-1] == ErrorFrame(
        message="upstream died", code=502, data={"error": {"message": "upstream died", "code": 502}}
    )
    assert events([frame("plain text", name="error")])[-1].message == "plain text"  # type: ignore[union-attr]


def test_other_named_events_are_the_relays_own() -> None:
    data = frame({"credits": 3}, name="relay.cost") + body(chunk(text("a"), finish="STOP"))
    found = events([data])
    assert found[0] == GatewayEvent(name="relay.cost", data={"credits": 3})
    assert decoded(data).content == "a"


def test_keep_alives_comments_and_done_are_nothing() -> None:
    data = b": ping\n\ndata: \n\n" + body(chunk(text("a"), finish="STOP")) + b"data: [DONE]\n\n"
    assert [e for e in events([data]) if type(e) is not Metadata] == [
        TextDelta(text="a"), Finish(reason="stop", stop_reason="STOP"), StreamEnd(),
    ]  # fmt: skip


def test_a_frame_that_is_no_json_object_is_a_protocol_error() -> None:
    for data in (b"data: {not json\n\n", b'data: "text"\n\n', b"data: 42\n\n", b"data: []\n\n"):
        with pytest.raises(StreamProtocolError):
            events([data])


def test_a_frame_holding_an_array_of_responses_is_read_through() -> None:
    data = b"data: " + encoded([chunk(text("a")), chunk(finish="STOP")]) + b"\n\n"
    assert decoded(data).content == "a"


def test_cloud_code_assist_envelope_is_read_through() -> None:
    data = body({"response": chunk(text("hi"), finish="STOP"), "traceId": "t1"})
    found = events([data])
    assert decoded(data).content == "hi"
    assert GatewayEvent(name="response", data={"traceId": "t1"}) in found


def test_several_candidates_are_several_choices() -> None:
    data = body(
        {"candidates": [candidate([text("A1")]), candidate([text("B1")], index=1)]},
        {"candidates": [candidate([text("B2")], "STOP", index=1)]},
        {"candidates": [candidate([call("f", {})], "STOP")], "usageMetadata": usage()},
    )
    found = events([data])
    assert TextDelta(text="B2", choice=1) in found and found[-1] == StreamEnd()
    result = decoded(data)
    first, second = result.choices
    assert (first.content, first.finish_reason, len(first.tool_calls)) == ("A1", "tool_calls", 1)
    assert (second.index, second.content, second.finish_reason) == (1, "B1B2", "stop")


def test_one_candidate_finished_and_another_not_is_no_stream_end() -> None:
    data = body({"candidates": [candidate([text("A")], "STOP"), candidate([text("B")], index=1)]})
    assert StreamEnd() not in events([data])


# --- whole answers ---


def test_a_whole_answer_is_decoded_and_ends_with_stream_end() -> None:
    whole = chunk(text("Hello"), call("f", {"a": 1}, thoughtSignature="c2ln"), finish="STOP",
                  counts=usage())  # fmt: skip
    found = GenerateContentDecoder().decode_whole(encoded(whole))
    assert found[-1] == StreamEnd()
    assert [type(e).__name__ for e in found][:4] == [
        "Metadata", "TextDelta", "ToolCallDelta", "ReasoningSignature",
    ]  # fmt: skip


def test_a_whole_array_answer_as_stream_generate_content_sends_without_sse() -> None:
    array = encoded([chunk(text("a")), chunk(text("b"), finish="STOP")])
    found = GenerateContentDecoder().decode_whole(array)
    assert [e.text for e in found if type(e) is TextDelta] == ["a", "b"]
    assert found[-1] == StreamEnd()


def test_a_whole_error_body_or_an_array_ending_in_one() -> None:
    failure = error()
    (only,) = GenerateContentDecoder().decode_whole(encoded(failure))
    assert isinstance(only, ErrorFrame) and (only.type, only.code) == ("RESOURCE_EXHAUSTED", 429)
    found = GenerateContentDecoder().decode_whole(encoded([chunk(text("a")), failure]))
    assert type(found[-1]) is ErrorFrame and StreamEnd() not in found


@pytest.mark.parametrize(
    "data", [b"{}", b"[]", b"[1, 2]", b'"text"', b"not json", b'{"id": "x"}', b"[{}]"]
)
def test_a_whole_body_that_is_no_answer_is_a_protocol_error(data: bytes) -> None:
    with pytest.raises(StreamProtocolError):
        GenerateContentDecoder().decode_whole(data)


def test_candidates_without_an_index_are_their_place_in_the_list() -> None:
    """Google leaves index 0 out (proto3's default); a relay that drops every index still
    keeps the candidates apart by their place."""
    data = body(
        {"candidates": [candidate([text("A")]), candidate([text("B")])]},
        {"candidates": [candidate([], "STOP"), candidate([], "STOP", index=1)]},
    )
    assert [c.content for c in decoded(data).choices] == ["A", "B"]
