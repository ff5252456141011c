"""Chat completions' body from neutral turns (``turns_body``): its message shape, the rules of
turns (a call no result answers, another API's signed reasoning) and reasoning passback as a
rule of turns; what it builds, the emulator (as strict as OpenAI's published request types)
takes."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from sse_core import ChatClient, ConfigurationError
from sse_core.protocols import wire_protocol
from sse_core.protocols.chat_completions import PASSBACK, turns_body
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

CALL = ToolUsePart(id="call_1", name="weather", input={"city": "Paris"})
LOOP = [
    Turn(role="system", parts=(TextPart(text="be brief"), TextPart(text=" and kind"))),
    Turn(role="user", parts=(TextPart(text="weather in Paris?"),), name="ada"),
    Turn(role="assistant", parts=(ReasoningPart(text="call it"), CALL)),
    Turn(role="tool", parts=(ToolResultPart(call_id="call_1", content="sunny"),)),
]


def test_a_tool_loop_is_openais_message_shape() -> None:
    body = turns_body("m", LOOP, {"max_tokens": 50, "temperature": None})
    assert body == {
        "model": "m",
        "max_tokens": 50,
        "messages": [
            {"role": "system", "content": "be brief and kind"},
            {"role": "user", "content": "weather in Paris?", "name": "ada"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        ],
    }
    assert wire_protocol("chat_completions").turns_body is turns_body


def test_reasoning_goes_back_when_asked_and_only_after_the_last_user_turn() -> None:
    earlier = Turn(role="assistant", parts=(ReasoningPart(text="old"), TextPart(text="hi")))
    turns = [Turn(role="user", parts=(TextPart(text="a"),)), earlier, *LOOP[1:]]
    sent = turns_body("m", turns, {PASSBACK: True})["messages"]
    assert "reasoning_content" not in sent[1]  # before the last user turn
    assert sent[3]["reasoning_content"] == "call it"
    assert PASSBACK not in turns_body("m", turns, {PASSBACK: True})
    plain = turns_body("m", turns, {PASSBACK: False})["messages"]
    assert all("reasoning_content" not in message for message in plain)


def test_another_apis_signed_reasoning_is_left_out_and_named() -> None:
    signed = ReasoningPart(text="t", signature="sig")
    turns = [*LOOP[:2], Turn(role="assistant", parts=(signed, TextPart(text="ok")))]
    with pytest.warns(UserWarning, match="Anthropic's signed thinking"):
        sent = turns_body("m", turns, {PASSBACK: True})["messages"]
    assert sent[-1] == {"role": "assistant", "content": "ok"}


def test_an_unanswered_call_in_a_thread_that_goes_on_is_left_out() -> None:
    turns = [*LOOP[:3], Turn(role="user", parts=(TextPart(text="never mind"),))]
    with pytest.warns(UserWarning, match="'call_1'"):
        sent = turns_body("m", turns, {})["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]


def test_parts_are_openai_parts() -> None:
    user = Turn(
        role="user",
        parts=(
            TextPart(text="look"),
            ImagePart(url="https://x/cat.png"),
            ImagePart(data="AAAA", media_type="image/jpeg"),
            DocumentPart(data="JVBERi0=", media_type="application/pdf"),
            DocumentPart(text="a note"),
            RawPart(
                block={"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}}
            ),
        ),
    )
    (sent,) = turns_body("m", [user], {})["messages"]
    assert sent["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://x/cat.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0="}},
        {"type": "text", "text": "a note"},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
    ]
    with pytest.raises(ConfigurationError, match="not by URL"):
        turns_body("m", [Turn(role="user", parts=(DocumentPart(url="https://x/a.pdf"),))], {})


def test_tool_keys_go_only_with_tools() -> None:
    body = turns_body("m", LOOP[:2], {"tools": [], "tool_choice": "auto"})
    assert "tools" not in body and "tool_choice" not in body


def test_a_tool_result_of_parts_and_invalid_arguments_as_given() -> None:
    bad = ToolUsePart(id="c2", name="f", input="{not json")
    result = ToolResultPart(call_id="c2", content=(TextPart(text="a"), TextPart(text="b")))
    turns = [LOOP[1], Turn(role="assistant", parts=(bad,)), Turn(role="tool", parts=(result,))]
    sent = turns_body("m", turns, {})["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == "{not json"
    assert sent[2] == {"role": "tool", "tool_call_id": "c2", "content": "ab"}


def test_the_strict_emulator_takes_every_body_it_builds(emulator: Any) -> None:
    turns = [
        *LOOP,
        Turn(role="assistant", parts=(TextPart(text="It is sunny."),)),
        Turn(role="user", parts=(TextPart(text="echo: thanks"),)),
    ]
    tools = [
        {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}
    ]
    body = turns_body("emulator", turns, {"tools": tools, PASSBACK: True, "max_tokens": 40})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ChatClient(base_url=emulator.base_url(), api_key="k") as client:
            assert client.complete(body).content == "thanks"
