"""LangChain messages to an Anthropic Messages body (pure): system on top, roles alternating,
images, thinking passed back byte-exact, tool_use / tool_result round trips, tools and
tool_choice in Anthropic's shape."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel, Field

from langchain_sse._anthropic_outbound import (
    anthropic_tool_choice,
    convert_anthropic_messages,
    format_anthropic_tools,
)

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/ABC=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"


def test_system_messages_go_on_top_as_blocks_and_the_roles_follow() -> None:
    # Several system messages: one text block each, as SSELLM and llama-index's Anthropic
    # send them (nothing joined with a separator the user did not write).
    system, messages = convert_anthropic_messages(
        [SystemMessage("be brief"), SystemMessage("be kind"), HumanMessage("hi")]
    )
    assert system == [{"type": "text", "text": "be brief"}, {"type": "text", "text": "be kind"}]
    assert convert_anthropic_messages([SystemMessage("be brief")])[0] == "be brief"
    assert messages == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_a_system_block_with_cache_control_keeps_the_blocks() -> None:
    cached = {"type": "text", "text": "a long preamble", "cache_control": {"type": "ephemeral"}}
    system, _ = convert_anthropic_messages([SystemMessage([cached]), HumanMessage("hi")])
    assert system == [cached]


def test_no_system_message_sends_no_system() -> None:
    system, _ = convert_anthropic_messages([HumanMessage("hi")])
    assert system is None


@pytest.mark.parametrize(
    ("part", "source"),
    [
        (
            {"type": "image", "base64": "iVBORw0K", "mime_type": "image/png"},
            {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
        ),
        (
            {"type": "image", "source_type": "base64", "data": "R0lGOD", "mime_type": "image/gif"},
            {"type": "base64", "media_type": "image/gif", "data": "R0lGOD"},
        ),
        (
            {"type": "image", "url": "https://example.org/cat.png"},
            {"type": "url", "url": "https://example.org/cat.png"},
        ),
        (
            {"type": "image", "source_type": "url", "url": "https://example.org/dog.jpg"},
            {"type": "url", "url": "https://example.org/dog.jpg"},
        ),
        (
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ"}},
            {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"},
        ),
        (
            {"type": "image_url", "image_url": {"url": "https://example.org/a.webp"}},
            {"type": "url", "url": "https://example.org/a.webp"},
        ),
    ],
    ids=["v1-base64", "v0-base64", "v1-url", "v0-url", "openai-data-url", "openai-url"],
)
def test_images_become_anthropic_image_sources(
    part: dict[str, Any], source: dict[str, Any]
) -> None:
    _, messages = convert_anthropic_messages(
        [HumanMessage([{"type": "text", "text": "what?"}, part])]
    )
    assert messages[0]["content"] == [
        {"type": "text", "text": "what?"},
        {"type": "image", "source": source},
    ]


def test_anthropic_shaped_blocks_pass_through_with_cache_control() -> None:
    document = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "the manual"},
        "cache_control": {"type": "ephemeral"},
    }
    _, messages = convert_anthropic_messages([HumanMessage([document])])
    assert messages[0]["content"] == [document]


def test_thinking_and_redacted_thinking_go_back_byte_exact_with_the_tool_use() -> None:
    thinking = {"type": "thinking", "thinking": "Let me check.\n", "signature": SIGNATURE}
    redacted = {"type": "redacted_thinking", "data": REDACTED}
    answer = AIMessage(
        content=[thinking, redacted, {"type": "text", "text": "Checking.", "index": 2}],
        tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_01"}],
    )
    _, messages = convert_anthropic_messages([HumanMessage("weather?"), answer])
    assert messages[1] == {
        "role": "assistant",
        "content": [
            thinking,
            redacted,
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
        ],
    }
    assert messages[1]["content"][0] is not thinking  # a copy: the request owns its blocks


def test_a_tool_use_block_in_the_content_is_not_sent_twice() -> None:
    use = {"type": "tool_use", "id": "toolu_02", "name": "add", "input": {"a": 2, "b": 3}}
    answer = AIMessage(
        content=[use], tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "toolu_02"}]
    )
    _, messages = convert_anthropic_messages([HumanMessage("add"), answer])
    assert messages[1]["content"] == [use]


def test_parallel_tool_results_share_one_user_message_with_is_error() -> None:
    answer = AIMessage(
        content="",
        tool_calls=[
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_a"},
            {"name": "add", "args": {"a": 2, "b": 3}, "id": "toolu_b"},
        ],
    )
    _, messages = convert_anthropic_messages(
        [
            HumanMessage("weather in Paris and add 2 and 3"),
            answer,
            ToolMessage("18 C", tool_call_id="toolu_a"),
            ToolMessage("no such tool", tool_call_id="toolu_b", status="error"),
            HumanMessage("thanks"),
        ]
    )
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [b["type"] for b in messages[1]["content"]] == ["tool_use", "tool_use"]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "18 C"},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_b",
            "content": "no such tool",
            "is_error": True,
        },
        {"type": "text", "text": "thanks"},
    ]


def test_an_empty_assistant_turn_is_left_out() -> None:
    _, messages = convert_anthropic_messages([HumanMessage("a"), AIMessage(""), HumanMessage("b")])
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    ]


def test_what_the_protocol_cannot_carry_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="FunctionMessage"):
        convert_anthropic_messages([FunctionMessage("x", name="f")])
    with pytest.raises(ValueError, match="content part"):
        # (LangChain's own validation refuses it too; a message built without it reaches us)
        convert_anthropic_messages([HumanMessage.model_construct(content=[42])])


class GetWeather(BaseModel):
    """Weather in a city."""

    city: str = Field(description="The city")


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_tools_in_anthropic_shape_from_every_kind() -> None:
    native = {
        "name": "search",
        "description": "Search the web",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "cache_control": {"type": "ephemeral"},
    }
    openai = {
        "type": "function",
        "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}},
    }
    tools = format_anthropic_tools([GetWeather, add, native, openai])
    assert tools[0]["name"] == "GetWeather"
    assert tools[0]["description"] == "Weather in a city."
    assert tools[0]["input_schema"]["properties"]["city"]["type"] == "string"
    assert tools[0]["input_schema"]["required"] == ["city"]
    assert tools[1]["name"] == "add"
    assert set(tools[1]["input_schema"]["properties"]) == {"a", "b"}
    assert tools[2] == native
    assert tools[3] == {"name": "noop", "input_schema": {"type": "object", "properties": {}}}


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        (None, None, None),
        ("auto", None, {"type": "auto"}),
        ("any", None, {"type": "any"}),
        ("required", None, {"type": "any"}),
        (True, None, {"type": "any"}),
        ("none", None, {"type": "none"}),
        ("get_weather", None, {"type": "tool", "name": "get_weather"}),
        ({"type": "function", "function": {"name": "add"}}, None, {"type": "tool", "name": "add"}),
        ({"type": "tool", "name": "add"}, None, {"type": "tool", "name": "add"}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("any", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("none", False, {"type": "none"}),
        ("auto", True, {"type": "auto"}),
    ],
)
def test_tool_choice_in_anthropic_shape(
    choice: Any, parallel: bool | None, expected: dict[str, Any] | None
) -> None:
    assert anthropic_tool_choice(choice, parallel) == expected


@pytest.mark.parametrize("choice", ["", False])
def test_a_tool_choice_naming_nothing_is_refused(choice: Any) -> None:
    with pytest.raises(ValueError, match="tool_choice"):
        anthropic_tool_choice(choice)
