"""Real Gemini API captures (``fixtures/``, each with its source in ``fixtures/SOURCES.md``)
decode to what the API said, whole and byte by byte; each cut before its last frame is a cut
answer."""

from __future__ import annotations

import json

import pytest

from sse_core import IncompleteStreamError, ToolCall, Usage
from sse_core.events import ErrorFrame, GatewayEvent, ReasoningSignature
from sse_core.protocols.gemini import GENERATED_ID_PREFIX, SIGNED_PART, GenerateContentDecoder
from tests.core.gemini.gemini_wire import FIXTURES, capture, captures, decoded, events, outcome

CAPTURES = captures()


def _signatures(name: str) -> list[ReasoningSignature]:
    return [e for e in events([CAPTURES[name]]) if type(e) is ReasoningSignature]


def _payloads(name: str) -> list[dict[str, object]]:
    data = CAPTURES[name]
    lines = [
        line for line in data.replace(b"\r\n", b"\n").split(b"\n") if line.startswith(b"data: ")
    ]
    return [json.loads(line[6:]) for line in lines]


def test_every_fixture_has_its_source() -> None:
    sources = (FIXTURES / "SOURCES.md").read_text()
    names = sorted(p.name for p in FIXTURES.iterdir() if p.name != "SOURCES.md")
    assert names and all(f"**{name}**" in sources for name in names)
    assert len(CAPTURES) == len(names) - 1  # every stream; the error body is decoded whole


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_byte_by_byte_equals_whole(name: str) -> None:
    data = CAPTURES[name]
    assert outcome(data[i : i + 1] for i in range(len(data))) == outcome([data])
    assert events(data[i : i + 1] for i in range(len(data))) == events([data])


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_a_capture_cut_before_its_last_frame_is_a_cut_answer(name: str) -> None:
    data = CAPTURES[name]
    last = data.rstrip(b"\r\n").rfind(b"data: ")  # 0 for one frame: nothing arrived
    verdict, partial = outcome([data[:last]])
    assert verdict == IncompleteStreamError.__name__
    assert partial is not None and not partial.done


def test_signed_function_call_with_crlf_frames_and_a_finish_message() -> None:
    name = "louter__gemini25-flash-signed-function-call-finish-message.sse"
    assert CAPTURES[name].endswith(b"}\r\n\r\n")
    result = decoded(CAPTURES[name])
    assert result.tool_calls == (
        ToolCall(
            index=0,
            id=f"{GENERATED_ID_PREFIX}0",
            name="getWeather",
            arguments='{"location":"Tokyo"}',
        ),
    )
    assert (result.finish_reason, result.stop_reason) == ("tool_calls", "STOP")
    assert result.usage == Usage(
        prompt_tokens=83, completion_tokens=118, total_tokens=201, reasoning_tokens=104
    )
    assert (result.id, result.model) == ("qpc2afWVFJK4vr0Pq6WiyAU", "gemini-2.5-flash")
    (signature,) = _signatures(name)
    (part,) = _payloads(name)[0]["candidates"][0]["content"]["parts"]  # type: ignore[index]
    assert signature.signature == part["thoughtSignature"]  # byte-exact
    assert signature.item == {
        "type": SIGNED_PART,
        "kind": "function_call",
        "position": 0,
        "offset": None,
        "call": 0,
        "part": part,
    }
    assert result.reasoning_blocks[0].signature == part["thoughtSignature"]
    finish_message = {"index": 0, "finishMessage": "Model generated function call(s)."}
    assert result.events == (GatewayEvent(name="candidate", data=finish_message),)


def test_japanese_text_in_two_frames() -> None:
    result = decoded(CAPTURES["louter__gemini25-flash-japanese-text-two-frames.sse"])
    assert result.content == "今日の東京の天気は曇りで、気温は22度です。\n"
    assert result.usage == Usage(prompt_tokens=138, completion_tokens=15, total_tokens=153)
    assert (result.finish_reason, result.done) == ("stop", True)


@pytest.mark.parametrize(
    ("name", "content", "counts"),
    [
        (
            "vercel-ai__gemini3-pro-text-signature-on-empty-final-part.payloads.jsonl",
            'There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y',
            (9, 23 + 302, 334, 302),
        ),
        (
            "vercel-ai__gemini3-flash-empty-text-signature-service-tier.payloads.jsonl",
            "4",
            (15, 1 + 52, 68, 52),
        ),
    ],
)
def test_the_signature_on_the_empty_last_text_part(
    name: str, content: str, counts: tuple[int, ...]
) -> None:
    result = decoded(CAPTURES[name])
    assert (result.content, result.reasoning, result.finish_reason) == (content, "", "stop")
    assert result.usage is not None
    usage = result.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == counts[:3]
    assert usage.reasoning_tokens == counts[3]
    (signature,) = _signatures(name)
    assert signature.item is not None
    assert (signature.item["kind"], signature.item["offset"]) == ("text", len(content))
    assert signature.item["part"]["text"] == ""
    (block,) = result.reasoning_blocks
    assert (block.text, block.signature) == ("", signature.signature)


def test_service_tier_stays_in_the_raw_usage() -> None:
    name = "vercel-ai__gemini3-flash-empty-text-signature-service-tier.payloads.jsonl"
    result = decoded(CAPTURES[name])
    assert result.usage is not None and result.usage.raw["serviceTier"] == "standard"


def test_a_blocked_prompt() -> None:
    result = decoded(CAPTURES["vercel-ai__gemini37-flash-prompt-blocked.payloads.jsonl"])
    assert (result.content, result.choices[0].index) == ("", 0)
    assert (result.finish_reason, result.stop_reason) == ("content_filter", "PROHIBITED_CONTENT")
    assert result.usage == Usage(prompt_tokens=9, total_tokens=9)
    assert result.events == (
        GatewayEvent(name="promptFeedback", data={"blockReason": "PROHIBITED_CONTENT"}),
    )


def test_search_grounding_counts_the_tool_use_prompt_as_input() -> None:
    name = "vercel-ai__gemini25-flash-search-tool-use-prompt-tokens.payloads.jsonl"
    result = decoded(CAPTURES[name])
    assert result.content == "The current date is Wednesday, August 26, 2026."
    assert result.usage == Usage(
        prompt_tokens=17 + 308, completion_tokens=37 + 333, total_tokens=695, reasoning_tokens=333
    )


def test_a_thought_a_signed_call_without_args_and_three_streamed_calls() -> None:
    name = "vercel-ai__vertex-gemini3-flash-thought-signed-call-streamed-args.payloads.jsonl"
    result = decoded(CAPTURES[name])
    assert result.reasoning.startswith("**Processing User Requests**\n\n")
    assert [(tc.index, tc.id, tc.name, tc.arguments) for tc in result.tool_calls] == [
        (0, "gemini_call_0", "read_theme", "{}"),
        (1, "gemini_call_1", "read_screen", '{"id":"A"}'),
        (2, "gemini_call_2", "read_screen", '{"id":"B"}'),
        (3, "gemini_call_3", "read_screen", '{"id":"C"}'),
    ]
    (block,) = result.reasoning_blocks
    assert block.text == result.reasoning and block.signature is not None
    assert block.signature.startswith("AY89a18a8/") and block.signature.endswith("CJA==")
    assert block.item is not None and (block.item["kind"], block.item["call"]) == (
        "function_call",
        0,
    )
    assert (result.finish_reason, result.created) == ("tool_calls", 1777924862)
    assert result.usage == Usage(
        prompt_tokens=249, completion_tokens=58 + 183, total_tokens=490, reasoning_tokens=183
    )


def test_streamed_array_arguments_without_a_closing_call() -> None:
    name = "vercel-ai__vertex-gemini3-flash-streamed-array-args-no-terminal-call.payloads.jsonl"
    result = decoded(CAPTURES[name])
    (call,) = result.tool_calls
    assert (call.id, call.name, call.arguments_error) == ("gemini_call_0", "writeItems", None)
    assert json.loads(call.arguments) == {
        "operations": [
            {
                "action": "add",
                "description": "Fresh red apple",
                "itemid": "apple_001",
                "price": 0.5,
            },
            {
                "action": "add",
                "description": "Ripe yellow banana",
                "itemid": "banana_001",
                "price": 0.3,
            },
        ]
    }
    assert result.finish_reason == "tool_calls" and not result.events


def test_googles_error_body() -> None:
    (error,) = GenerateContentDecoder().decode_whole(
        capture("vercel-ai__gemini-429-resource-exhausted.json")
    )
    assert isinstance(error, ErrorFrame)
    assert (error.message, error.type, error.code) == (
        "You exceeded your current quota, please check your plan.",
        "RESOURCE_EXHAUSTED",
        429,
    )
    assert error.data["error"]["details"][1]["retryDelay"] == "34.4s"
