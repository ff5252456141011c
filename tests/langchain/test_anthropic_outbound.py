"""LangChain messages to an Anthropic Messages body (pure), LangChain's own kinds: a system
block with cache_control, images in every LangChain spelling, Anthropic-shaped blocks passed
through, passed-back blocks copied, tool_use blocks not doubled, empty assistant turns left
out, what the protocol cannot carry refused, tools of every kind, LangChain's tool_choice
spellings. (The body both adapters send for the same conversation:
tests/adapters/test_messages_request.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
)
from pydantic import BaseModel, Field

from langchain_sse._anthropic_outbound import (
    anthropic_tool_choice,
    convert_anthropic_messages,
    format_anthropic_tools,
)

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/ABC=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"


def test_a_system_block_with_cache_control_keeps_the_blocks() -> None:
    cached = {"type": "text", "text": "a long preamble", "cache_control": {"type": "ephemeral"}}
    system, _ = convert_anthropic_messages([SystemMessage([cached]), HumanMessage("hi")])
    assert system == [cached]


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


def test_passed_back_blocks_are_copies_without_their_index() -> None:
    # (The blocks themselves, byte-exact beside the tool calls, for both adapters:
    # tests/adapters/test_messages_request.py.)
    thinking = {"type": "thinking", "thinking": "Let me check.\n", "signature": SIGNATURE}
    answer = AIMessage(content=[thinking, {"type": "text", "text": "Checking.", "index": 1}])
    _, messages = convert_anthropic_messages([HumanMessage("weather?"), answer])
    assert messages[1]["content"] == [thinking, {"type": "text", "text": "Checking."}]
    assert messages[1]["content"][0] is not thinking  # a copy: the request owns its blocks


def test_a_tool_use_block_in_the_content_is_not_sent_twice() -> None:
    use = {"type": "tool_use", "id": "toolu_02", "name": "add", "input": {"a": 2, "b": 3}}
    answer = AIMessage(
        content=[use], tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "toolu_02"}]
    )
    _, messages = convert_anthropic_messages([HumanMessage("add"), answer])
    assert messages[1]["content"] == [use]


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
        (True, None, {"type": "any"}),
        ("any", None, {"type": "any"}),
        ("auto", True, {"type": "auto"}),
    ],
)
def test_langchains_own_tool_choice_spellings(
    choice: Any, parallel: bool | None, expected: dict[str, Any] | None
) -> None:
    # (Every shape on the wire, for both adapters: tests/adapters/test_messages_request.py.)
    assert anthropic_tool_choice(choice, parallel) == expected


@pytest.mark.parametrize("choice", ["", False])
def test_a_tool_choice_naming_nothing_is_refused(choice: Any) -> None:
    with pytest.raises(ValueError, match="tool_choice"):
        anthropic_tool_choice(choice)
