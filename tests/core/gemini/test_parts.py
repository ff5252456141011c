"""A candidate's parts to StreamEvents: text, thought summaries, thought signatures and the
signed part they carry, whole and streamed function calls, other parts, citations."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sse_core import ReasoningBlock, ToolCall
from sse_core.events import (
    Citation,
    GatewayEvent,
    ReasoningDelta,
    ReasoningSignature,
    TextDelta,
    ToolCallDelta,
)
from sse_core.pipeline.tool_calls import NAMELESS_CALL
from sse_core.protocols.gemini import GENERATED_ID_PREFIX, SIGNED_PART
from tests.core.gemini.gemini_wire import (
    body,
    call,
    candidate,
    chunk,
    decoded,
    events,
    text,
    thought,
    usage,
)


def _of(kind: type, found: list[Any]) -> list[Any]:
    return [event for event in found if type(event) is kind]


def test_text_parts_are_the_answer_and_thought_parts_its_reasoning() -> None:
    data = body(
        chunk(thought("Let me think. ")),
        chunk(thought("Done."), text("The answer")),
        chunk(text(" is 4."), finish="STOP", counts=usage()),
    )
    found = events([data])
    assert _of(ReasoningDelta, found) == [
        ReasoningDelta(text="Let me think. "),
        ReasoningDelta(text="Done."),
    ]
    assert _of(TextDelta, found) == [TextDelta(text="The answer"), TextDelta(text=" is 4.")]
    result = decoded(data)
    assert (result.content, result.reasoning) == ("The answer is 4.", "Let me think. Done.")
    assert result.reasoning_blocks == ()  # nothing signed: the reasoning text says it all


def test_empty_text_parts_give_no_delta() -> None:
    found = events([body(chunk(text(""), thought(""), finish="STOP"))])
    assert not _of(TextDelta, found) and not _of(ReasoningDelta, found)


def test_a_signature_on_a_thought_part_closes_the_reasoning_with_the_part() -> None:
    signed = thought(" step two", thoughtSignature="c2lnLTE=")
    found = events(
        [body(chunk(thought("step one")), chunk(signed), chunk(text("ok"), finish="STOP"))]
    )
    (signature,) = _of(ReasoningSignature, found)
    assert signature.signature == "c2lnLTE="
    assert signature.item == {
        "type": SIGNED_PART,
        "kind": "thought",
        "position": 1,
        "offset": len("step one"),
        "call": None,
        "part": signed,
    }
    assert found.index(signature) == found.index(ReasoningDelta(text=" step two")) + 1
    result = decoded(
        body(chunk(thought("step one")), chunk(signed), chunk(text("ok"), finish="STOP"))
    )
    assert result.reasoning_blocks == (
        ReasoningBlock(text="step one step two", signature="c2lnLTE=", item=signature.item),
    )


def test_a_signature_on_the_last_empty_text_part_says_where_the_text_ends() -> None:
    """Gemini 3 streams its answer, then an empty text part carrying the signature (the
    real captures do too)."""
    last = text("", thoughtSignature="ZW5k")
    found = events([body(chunk(text("Hello")), chunk(text(", world")), chunk(last, finish="STOP"))])
    (signature,) = _of(ReasoningSignature, found)
    assert signature.item is not None
    assert (signature.item["kind"], signature.item["position"]) == ("text", 2)
    assert (signature.item["offset"], signature.item["call"]) == (len("Hello, world"), None)
    assert signature.item["part"] is not None and signature.item["part"] == last


def test_a_signature_on_a_text_part_keeps_the_text_byte_exact_in_the_part() -> None:
    signed = text("Paris.", thoughtSignature="dGV4dA==")
    found = events([body(chunk(text("It is "), signed, finish="STOP"))])
    (signature,) = _of(ReasoningSignature, found)
    assert signature.item is not None and signature.item["offset"] == len("It is ")
    assert signature.item["part"]["text"] == "Paris."


def test_parallel_function_calls_signature_on_the_first_only() -> None:
    """Gemini 3 signs the first call of a step; the calls are numbered in order, each with its
    own id where it gave one, else a stable generated one."""
    first = call("get_weather", {"city": "Paris"}, thoughtSignature="c2lnLWNhbGw=")
    second = call("get_weather", {"city": "Tokyo"}, id="call-tokyo")
    data = body(chunk(thought("Two cities.")), chunk(first, second, finish="STOP", counts=usage()))
    found = events([data])
    assert _of(ToolCallDelta, found) == [
        ToolCallDelta(index=0, id=f"{GENERATED_ID_PREFIX}0", name="get_weather",
                      arguments='{"city":"Paris"}'),
        ToolCallDelta(index=1, id="call-tokyo", name="get_weather", arguments='{"city":"Tokyo"}'),
    ]  # fmt: skip
    (signature,) = _of(ReasoningSignature, found)
    assert signature.item is not None
    assert (signature.item["kind"], signature.item["call"], signature.item["offset"]) == (
        "function_call",
        0,
        None,
    )
    assert signature.item["part"] == first
    result = decoded(data)
    assert result.finish_reason == "tool_calls" and result.stop_reason == "STOP"
    assert [tc.name for tc in result.tool_calls] == ["get_weather", "get_weather"]
    assert result.reasoning_blocks[0].text == "Two cities."
    assert result.reasoning_blocks[0].signature == "c2lnLWNhbGw="


def test_a_call_without_args_has_empty_object_arguments() -> None:
    result = decoded(body(chunk(call("read_theme"), finish="STOP")))
    assert result.tool_calls == (
        ToolCall(index=0, id=f"{GENERATED_ID_PREFIX}0", name="read_theme", arguments="{}"),
    )


@pytest.mark.parametrize(
    ("args", "arguments"),
    [
        ({}, "{}"),
        ({"a": [1, {"b": None}]}, '{"a":[1,{"b":null}]}'),
        ([1, 2], "[1,2]"),
        ("x", '"x"'),
    ],
)
def test_call_arguments_are_the_args_as_json_text(args: Any, arguments: str) -> None:
    (tool,) = decoded(body(chunk(call("f", args), finish="STOP"))).tool_calls
    assert tool.arguments == arguments
    assert (tool.arguments_error is None) == isinstance(args, dict)


def test_a_call_without_a_name_is_no_call() -> None:
    found = events([body(chunk(call(None, {"x": 1}, id="c1"), finish="STOP"))])
    assert not _of(ToolCallDelta, found)
    (kept,) = [e for e in found if type(e) is GatewayEvent and e.name == NAMELESS_CALL]
    assert kept.data == {"index": 0, "id": "c1", "arguments": '{"x":1}'}


def _streamed(*pieces: Any, more: bool = True) -> dict[str, Any]:
    function: dict[str, Any] = {"partialArgs": list(pieces)}
    if more:
        function["willContinue"] = True
    return {"functionCall": function}


def _string(path: str, value: str, more: bool = False) -> dict[str, Any]:
    piece: dict[str, Any] = {"jsonPath": path, "stringValue": value}
    if more:
        piece["willContinue"] = True
    return piece


def test_streamed_arguments_open_with_the_name_and_close_whole() -> None:
    """Vertex AI's streamFunctionCallArguments: name first, values by JSON path, a string in
    pieces while they say willContinue, ``functionCall: {}`` closing the call."""
    opening = {"functionCall": {"name": "cook", "willContinue": True}, "thoughtSignature": "c2ln"}
    data = body(
        chunk(opening),
        chunk(_streamed(_string("$.recipe.items[0].name", "Lasa", more=True))),
        chunk(_streamed(_string("$.recipe.items[0].name", "gna"))),
        chunk(_streamed({"jsonPath": "$.recipe.items[0].grams", "numberValue": 500})),
        chunk({"functionCall": {"willContinue": True}}),
        chunk(_streamed({"jsonPath": "$.recipe.items[1].name", "stringValue": "Salt"})),
        chunk(_streamed({"jsonPath": "$.recipe.vegan", "boolValue": False})),
        chunk(_streamed({"jsonPath": "$.recipe['note.s']", "nullValue": "NULL_VALUE"})),
        chunk({"functionCall": {}}),
        chunk(text(""), finish="STOP"),
    )
    found = events([data])
    calls = _of(ToolCallDelta, found)
    assert calls[0] == ToolCallDelta(index=0, id=f"{GENERATED_ID_PREFIX}0", name="cook")
    assert json.loads(calls[1].arguments) == {
        "recipe": {
            "items": [{"name": "Lasagna", "grams": 500}, {"name": "Salt"}],
            "vegan": False,
            "note.s": None,
        }
    }
    (signature,) = _of(ReasoningSignature, found)
    assert signature.item is not None and signature.item["call"] == 0
    assert decoded(data).finish_reason == "tool_calls"


def test_a_streamed_call_closes_at_the_next_call_and_at_the_finish() -> None:
    data = body(
        chunk({"functionCall": {"name": "a", "willContinue": True}}),
        chunk(_streamed(_string("$.x", "1"))),
        chunk({"functionCall": {"name": "b", "willContinue": True}}),
        chunk(_streamed(_string("$.y", "2"), more=False)),  # no terminal {} after it
        chunk({"functionCall": {"name": "c", "willContinue": True}}),
        chunk(_streamed(_string("$.z", "3")), finish="STOP"),
    )
    result = decoded(data)
    assert [(tc.name, json.loads(tc.arguments)) for tc in result.tool_calls] == [
        ("a", {"x": "1"}),
        ("b", {"y": "2"}),
        ("c", {"z": "3"}),
    ]


@pytest.mark.parametrize(
    "piece",
    [
        {"jsonPath": "$", "stringValue": "root"},
        {"jsonPath": "items[0]", "stringValue": "no $"},
        {"jsonPath": "$.a[99999]", "stringValue": "past the end"},
        {"jsonPath": "$.a[" + "9" * 50 + "]", "stringValue": "an index no array has"},
        {"jsonPath": "$.x", "stringValue": 5},
        {"jsonPath": 7, "stringValue": "path no string"},
        "not an object",
    ],
)
def test_partial_arguments_that_cannot_be_placed_are_kept(piece: Any) -> None:
    data = body(
        chunk({"functionCall": {"name": "f", "willContinue": True}}),
        chunk(_streamed(_string("$.ok", "yes"), piece, more=False), finish="STOP"),
    )
    found = events([data])
    (tool,) = decoded(data).tool_calls
    assert json.loads(tool.arguments) == {"ok": "yes"}
    (kept,) = [e for e in found if type(e) is GatewayEvent and e.name == "functionCall.partialArgs"]
    assert kept.data["call"] == 0 and len(kept.data["partialArgs"]) == 1


def test_a_path_through_a_value_of_another_kind_is_kept() -> None:
    data = body(
        chunk({"functionCall": {"name": "f", "willContinue": True}}),
        chunk(_streamed(_string("$.a", "text"), _string("$.a.b", "under a string"), more=False)),
        chunk(text(""), finish="STOP"),
    )
    found = events([data])
    (kept,) = [e for e in found if type(e) is GatewayEvent and e.name == "functionCall.partialArgs"]
    assert kept.data["partialArgs"] == [{"path": ["a", "b"], "value": "under a string"}]


def test_pieces_of_no_open_call_are_kept_not_called() -> None:
    stray = _streamed(_string("$.x", "1"))
    found = events([body(chunk(stray, finish="STOP"))])
    assert not _of(ToolCallDelta, found)
    (kept,) = [e for e in found if type(e) is GatewayEvent and e.name == "functionCall"]
    assert kept.data == {"candidate": 0, "position": 0, "part": stray}


def test_a_stream_cut_inside_a_streamed_call_leaves_its_arguments_unsaid() -> None:
    found = events([body(
        chunk({"functionCall": {"name": "f", "willContinue": True}}),
        chunk(_streamed(_string("$.x", "1"))),
    )])  # fmt: skip
    assert _of(ToolCallDelta, found) == [
        ToolCallDelta(index=0, id=f"{GENERATED_ID_PREFIX}0", name="f")
    ]


@pytest.mark.parametrize(
    "part",
    [
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/f.pdf"}},
        {"somethingNew": {"x": 1}},
    ],
)
def test_other_parts_are_gateway_events_named_by_their_kind(part: dict[str, Any]) -> None:
    found = events([body(chunk(text("a"), part, text("b"), finish="STOP"))])
    (kind,) = part
    (kept,) = [e for e in found if type(e) is GatewayEvent and e.name == kind]
    assert kept.data == {"candidate": 0, "position": 1, "part": part}
    assert decoded(body(chunk(text("a"), part, text("b"), finish="STOP"))).content == "ab"


def test_a_signed_image_part_is_kept_and_its_signature_given() -> None:
    image = {"inlineData": {"mimeType": "image/png", "data": "AAAA"}, "thoughtSignature": "aW1n"}
    found = events([body(chunk(image, finish="STOP"))])
    (signature,) = _of(ReasoningSignature, found)
    assert signature.item is not None and signature.item["kind"] == "inlineData"
    assert [e.name for e in found if type(e) is GatewayEvent] == ["inlineData"]


def test_parts_that_are_no_objects_are_kept() -> None:
    found = events([body(chunk("just text", 7, None, finish="STOP"))])
    kept = [e for e in found if type(e) is GatewayEvent and e.name == "part"]
    assert [e.data["part"] for e in kept] == ["just text", 7, None]


def test_citations_from_either_api_each_once_as_sent() -> None:
    vertex = {"startIndex": 0, "endIndex": 5, "uri": "https://a.example", "license": "mit"}
    gemini = {"startIndex": 6, "endIndex": 9, "uri": "https://b.example"}
    data = body(
        {"candidates": [candidate([text("Hello")], citationMetadata={"citations": [vertex]})]},
        {"candidates": [candidate([text(" you")], citationMetadata={"citations": [vertex]})]},
        {"candidates": [candidate([], "STOP", citationMetadata={"citationSources": [gemini, 3]})]},
    )
    found = events([data])
    assert _of(Citation, found) == [Citation(citation=vertex), Citation(citation=gemini)]
    assert decoded(data).citations == (vertex, gemini)
    (odd,) = [e for e in found if type(e) is GatewayEvent and e.name == "citationMetadata"]
    assert odd.data == {"candidate": 0, "citation": 3}


def test_the_candidates_other_fields_are_kept_when_they_change() -> None:
    ratings = [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}]
    data = body(
        {"candidates": [candidate([text("a")], safetyRatings=ratings)]},
        {"candidates": [candidate([text("b")], safetyRatings=ratings)]},
        {"candidates": [candidate([], "STOP", safetyRatings=ratings, finishMessage="done",
                                  groundingMetadata={"webSearchQueries": ["q"]})]},
    )  # fmt: skip
    kept = [e.data for e in events([data]) if type(e) is GatewayEvent]
    assert kept == [
        {"index": 0, "safetyRatings": ratings},
        {"index": 0, "safetyRatings": ratings, "finishMessage": "done",
         "groundingMetadata": {"webSearchQueries": ["q"]}},
    ]  # fmt: skip
