"""A Gemini request from the core's turns (``sse_core.protocols.gemini``): the system
instruction, the contents and their roles, media, calls and their results, the thought
signatures of an earlier answer put back byte-exact, the settings in the API's names; the
registration (path, route, key header, body); and the history rules for Gemini's signed parts
on every protocol."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from sse_core import ConfigurationError, decode
from sse_core.protocols import anthropic, gemini, responses
from sse_core.protocols.history import GEMINI_SIGNED_PART, reasoning_name, signed
from sse_core.protocols.registry import request_shape, wire_protocol
from sse_core.protocols.turns import (
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)
from tests.core.gemini.gemini_wire import body, call, capture, chunk, text, thought

ASK = Turn(role="user", parts=(TextPart(text="weather in Paris?"),))
SIG = "EgAeGg2Xut2J+/CUiB=="
TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather.",
        "parameters": {"type": "object"},
    },
}


def build(*turns: Turn, model: str = "gemini-3-pro-preview", **params: Any) -> dict[str, Any]:
    return gemini.contents_body(model, turns or (ASK,), params)


def item(kind: str, part: dict[str, Any], **fields: Any) -> dict[str, Any]:
    made = {"type": gemini.SIGNED_PART, "kind": kind, "position": 0, "offset": None, "call": None}
    return {**made, **fields, "part": part}


def signed_call(index: int = 0, **function: Any) -> dict[str, Any]:
    fc = {"name": "get_weather", "args": {"city": "Paris"}, **function}
    return item("function_call", {"functionCall": fc, "thoughtSignature": SIG}, call=index)


def loop(*answer: Any, result: str = "sunny") -> tuple[Turn, ...]:
    called = Turn(role="assistant", parts=answer)
    ids = [part.id for part in answer if isinstance(part, ToolUsePart)]
    results = tuple(ToolResultPart(call_id=call_id, content=result) for call_id in ids)
    return ASK, called, Turn(role="tool", parts=results)


def test_the_protocol_is_registered_with_its_route_key_header_and_body() -> None:
    found = wire_protocol("gemini")
    assert found is gemini.GEMINI and found.turns_body is gemini.contents_body
    assert found.json_mode and found.sends_reasoning_back
    assert found.key_env == ("GOOGLE_API_KEY", "GEMINI_API_KEY")
    shape = request_shape("gemini")
    assert shape.auth == "x-goog-api-key"
    assert shape.path("https://generativelanguage.googleapis.com") == "/v1beta/models"
    assert shape.path("http://127.0.0.1:8000/gemini/v1beta/") == "/models"
    assert shape.path("https://proxy.example/v1") == "/models"
    assert shape.route is not None
    assert shape.route("/v1beta/models", "models/gemini-3-pro-preview", True) == (
        "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    )
    assert (
        shape.route("/models", "gemini-2.5-flash", False)
        == "/models/gemini-2.5-flash:generateContent"
    )
    payload = {"model": "m", "contents": [], "stream_options": {"include_usage": True}}
    sent = shape.body(payload, {"safetySettings": []}, streaming=True, include_usage=True)
    assert sent == {"contents": [], "safetySettings": []}


def test_system_turns_are_the_instruction_and_roles_alternate_merged() -> None:
    sent = build(
        Turn(role="system", parts=(TextPart(text="Be brief."),)),
        ASK,
        Turn(role="user", parts=(TextPart(text=""), TextPart(text="And Rome?"))),
        Turn(role="assistant", parts=(TextPart(text="Sunny."),)),
    )
    assert sent["model"] == "gemini-3-pro-preview"
    assert sent["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert sent["contents"] == [
        {"role": "user", "parts": [{"text": "weather in Paris?"}, {"text": "And Rome?"}]},
        {"role": "model", "parts": [{"text": "Sunny."}]},
    ]
    assert "generationConfig" not in sent and "tools" not in sent
    with pytest.raises(ConfigurationError, match="system message can carry text only"):
        build(Turn(role="system", parts=(ImagePart(url="https://x/y.png"),)), ASK)


def test_images_and_documents_are_inline_data_or_file_data() -> None:
    parts = (
        ImagePart(data="iVBOR", media_type="image/jpeg"),
        ImagePart(url="data:image/webp;base64,UklGR"),
        ImagePart(url="https://example.com/cat.png"),
        DocumentPart(data="JVBER"),
        DocumentPart(text="plain words"),
        DocumentPart(url="https://example.com/a.pdf"),
    )
    sent = build(Turn(role="user", parts=parts))
    assert sent["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "image/jpeg", "data": "iVBOR"}},
        {"inlineData": {"mimeType": "image/webp", "data": "UklGR"}},
        {"fileData": {"fileUri": "https://example.com/cat.png"}},
        {"inlineData": {"mimeType": "application/pdf", "data": "JVBER"}},
        {"text": "plain words"},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/a.pdf"}},
    ]
    with pytest.raises(ConfigurationError, match="assistant message cannot carry"):
        build(ASK, Turn(role="assistant", parts=(ImagePart(url="https://x/y.png"),)))


def test_a_call_goes_back_with_its_signature_and_the_result_by_the_calls_name() -> None:
    turns = loop(
        ReasoningPart(text="I should call it.", item=signed_call()),
        ToolUsePart(id="gemini_call_0", name="get_weather", input={"city": "Paris"}),
    )
    sent = build(*turns)
    assert sent["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                    "thoughtSignature": SIG,
                }
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"result": "sunny"}}}
            ],
        },
    ]


def test_gemini_s_own_call_id_goes_back_and_a_failed_tool_says_error() -> None:
    answer = Turn(
        role="assistant",
        parts=(
            RawPart(block=signed_call(1, id="fc_9")),  # LangChain keeps the item as a raw block
            ToolUsePart(id="gemini_call_0", name="get_time", input='{"zone": "CET"}'),
            ToolUsePart(id="fc_9", name="get_weather", input={"city": "Paris"}),
        ),
    )
    results = Turn(
        role="tool",
        parts=(
            ToolResultPart(call_id="gemini_call_0", content=(TextPart(text="12:00"),)),
            ToolResultPart(call_id="fc_9", content="down", is_error=True),
        ),
    )
    model_parts, user_parts = (c["parts"] for c in build(ASK, answer, results)["contents"][1:])
    assert model_parts == [
        {"functionCall": {"name": "get_time", "args": {"zone": "CET"}}},
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "fc_9"},
            "thoughtSignature": SIG,
        },
    ]
    assert user_parts == [
        {"functionResponse": {"name": "get_time", "response": {"result": "12:00"}}},
        {"functionResponse": {"name": "get_weather", "response": {"error": "down"}, "id": "fc_9"}},
    ]


def test_a_result_that_answers_no_call_is_refused() -> None:
    orphan = Turn(role="tool", parts=(ToolResultPart(call_id="call_x", content="?"),))
    with pytest.raises(ConfigurationError, match="answers call 'call_x'"):
        build(ASK, orphan)


def test_signed_text_and_thoughts_go_back_as_they_came_never_merged() -> None:
    tail = {"text": "", "thoughtSignature": SIG}
    middle = {"text": " world", "thoughtSignature": "T2"}
    summary = {"text": "Thinking.", "thought": True, "thoughtSignature": "T1"}
    answer = Turn(
        role="assistant",
        parts=(
            ReasoningPart(text="Thinking.", item=item("thought", summary, position=0, offset=0)),
            ReasoningPart(item=item("text", middle, position=2, offset=5)),
            ReasoningPart(item=item("text", tail, position=3, offset=11)),
            ReasoningPart(text="unsigned thoughts go nowhere"),
            TextPart(text="Hello"),
            TextPart(text=" world"),
        ),
    )
    parts = build(ASK, answer)["contents"][1]["parts"]
    assert parts == [summary, {"text": "Hello"}, middle, tail]


def test_a_changed_signed_text_goes_without_its_signature_named() -> None:
    signed_text = item("text", {"text": "Hello", "thoughtSignature": SIG}, offset=0)
    answer = Turn(role="assistant", parts=(RawPart(block=signed_text), TextPart(text="Howdy")))
    with pytest.warns(UserWarning, match="text at 0, whose text was changed"):
        parts = build(ASK, answer, ASK)["contents"][1]["parts"]
    assert parts == [{"text": "Howdy"}]


def test_another_protocol_s_reasoning_is_left_out_named() -> None:
    answer = Turn(
        role="assistant",
        parts=(
            ReasoningPart(text="t", signature="anthropic-sig"),
            ReasoningPart(text="t", item={"type": "reasoning", "id": "rs_1", "summary": []}),
            RawPart(block={"type": "redacted_thinking", "data": "x"}),
            TextPart(text="Hi."),
        ),
    )
    with pytest.warns(UserWarning) as said:
        sent = build(ASK, answer, ASK)
    assert sent["contents"][1] == {"role": "model", "parts": [{"text": "Hi."}]}
    message = str(said[0].message)
    assert "Anthropic's signed thinking" in message and "'rs_1'" in message
    assert "'redacted_thinking' block, which Gemini has no part for" in message


def test_gemini_s_signed_parts_are_left_out_named_by_the_other_protocols() -> None:
    part = ReasoningPart(text="t", item=signed_call())
    assert part.item is not None and part.item["type"] == GEMINI_SIGNED_PART == gemini.SIGNED_PART
    assert signed(part) and reasoning_name(part) == (
        "Gemini's thought signature on a function_call part (position 0)"
    )
    turns = loop(part, ToolUsePart(id="call_1", name="get_weather", input={"city": "Paris"}))
    with pytest.warns(UserWarning, match="Gemini's thought signature on a function_call"):
        sent = anthropic.messages_body("claude-sonnet-4-5", turns, {})
    assert [block["type"] for block in sent["messages"][1]["content"]] == ["tool_use"]
    with pytest.warns(UserWarning, match="Gemini's thought signature on a function_call"):
        made = responses.responses_body("gpt-5", turns, {"store": True})
    assert [i["type"] for i in made["input"][1:]] == ["function_call", "function_call_output"]


def test_settings_in_generation_config_with_thinking_by_model() -> None:
    sent = build(
        temperature=0.3,
        top_p=0.9,
        top_k=40,
        max_tokens=256,
        stop="END",
        seed=7,
        reasoning_effort="low",
        safetySettings=[{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
    )
    assert sent["generationConfig"] == {
        "temperature": 0.3,
        "topP": 0.9,
        "topK": 40,
        "maxOutputTokens": 256,
        "stopSequences": ["END"],
        "seed": 7,
        "thinkingConfig": {"thinkingLevel": "LOW", "includeThoughts": True},
    }
    assert sent["safetySettings"][0]["threshold"] == "BLOCK_NONE"
    flash = build(model="gemini-2.5-flash", reasoning_effort="high")["generationConfig"]
    assert flash == {"thinkingConfig": {"thinkingBudget": 24576, "includeThoughts": True}}
    off = build(model="gemini-2.5-flash", reasoning_effort="none")["generationConfig"]
    assert off == {"thinkingConfig": {"thinkingBudget": 0}}
    own = build(
        reasoning_effort="high", generationConfig={"thinkingConfig": {"includeThoughts": False}}
    )
    assert own["generationConfig"]["thinkingConfig"] == {
        "thinkingLevel": "HIGH",
        "includeThoughts": False,
    }
    assert "candidateCount" not in str(build(temperature=1))


def test_structured_output_and_json_mode() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    made = build(
        response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    )
    assert made["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseJsonSchema": schema,
    }
    mode = build(response_format={"type": "json_object"})["generationConfig"]
    assert mode == {"responseMimeType": "application/json"}
    assert "generationConfig" not in build(response_format={"type": "text"})


def test_tools_and_the_choice() -> None:
    search = {"googleSearch": {}}
    sent = build(tools=[TOOL, search], tool_choice="required", parallel_tool_calls=False)
    assert sent["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Weather.",
                    "parametersJsonSchema": {"type": "object"},
                }
            ]
        },
        search,
    ]
    assert sent["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    named = build(
        tools=[TOOL], tool_choice={"type": "function", "function": {"name": "get_weather"}}
    )
    assert named["toolConfig"]["functionCallingConfig"] == {
        "mode": "ANY",
        "allowedFunctionNames": ["get_weather"],
    }
    assert build(tools=[TOOL], tool_choice="none")["toolConfig"]["functionCallingConfig"] == {
        "mode": "NONE"
    }
    assert "toolConfig" not in build(tool_choice="required")  # no tools, no choice


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"logit_bias": {"1": 2}}, "logit_bias is no setting of a Gemini API request"),
        ({"logprobs": True}, "responseLogprobs"),
        ({"frobnicate": 1}, "frobnicate is no setting"),
        ({"reasoning_effort": "extreme"}, "reasoning_effort must be one of"),
        ({"tools": [TOOL], "tool_choice": {"type": "function"}}, "names none"),
        ({"response_format": {"type": "xml"}}, "response_format must be json_schema"),
    ],
)
def test_a_setting_gemini_has_no_field_for_is_refused_by_name(
    params: dict[str, Any], said: str
) -> None:
    with pytest.raises(ConfigurationError, match=said):
        build(**params)


def test_a_decoded_answer_goes_back_byte_exact() -> None:
    """The decoder's items, as each adapter keeps them, rebuild the signed parts as sent."""
    streamed = body(
        chunk(thought("Plan."), thought(" Call.", thoughtSignature="T1")),
        chunk(text("Checking"), call("get_weather", {"city": "Paris"}, thoughtSignature=SIG)),
        chunk(finish="STOP"),
    )
    answer = decode(streamed, protocol="gemini")
    calls = answer.tool_calls
    parts: list[Any] = [ReasoningPart(text=b.text, item=b.item) for b in answer.reasoning_blocks]
    parts.append(TextPart(text=answer.content))
    parts += [ToolUsePart(id=c.id or "", name=c.name or "", input=c.arguments) for c in calls]
    sent = build(*loop(*parts))
    assert sent["contents"][1]["parts"] == [
        {"text": " Call.", "thought": True, "thoughtSignature": "T1"},
        {"text": "Checking"},
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
            "thoughtSignature": SIG,
        },
    ]


def test_a_real_capture_s_final_signed_empty_part_goes_back() -> None:
    answer = decode(
        capture("vercel-ai__gemini3-pro-text-signature-on-empty-final-part.payloads.jsonl"),
        protocol="gemini",
    )
    (block,) = answer.reasoning_blocks
    assert block.item is not None and block.item["kind"] == "text"
    turn = Turn(
        role="assistant",
        parts=(ReasoningPart(item=block.item), TextPart(text=answer.content)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parts = build(ASK, turn, ASK)["contents"][1]["parts"]
    assert parts == [{"text": answer.content}, block.item["part"]]
    assert parts[-1]["thoughtSignature"] == block.signature


def test_an_item_without_its_part_sends_nothing_of_it() -> None:
    broken = {k: v for k, v in item("thought", {}).items() if k != "part"}
    answer = Turn(role="assistant", parts=(ReasoningPart(item=broken), TextPart(text="Hi.")))
    assert build(ASK, answer, ASK)["contents"][1]["parts"] == [{"text": "Hi."}]
