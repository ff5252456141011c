"""LlamaIndex messages and tools to the OpenAI request shape, and tool calls back (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from llama_index.core.base.llms.types import (
    ChatMessage,
    ImageBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    VideoBlock,
)
from llama_index.core.tools import FunctionTool

from llamaindex_sse._convert import ResponseStream
from llamaindex_sse._outbound import (
    to_openai_messages,
    to_openai_tools,
    tool_choice_payload,
    tool_selections,
)
from sse_core import ConfigurationError, ToolCallDelta


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_plain_messages_keep_role_and_text() -> None:
    messages = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", content="Hi"),
        ChatMessage(role="assistant", content="Hello"),
    ]
    assert to_openai_messages(messages) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
    ]


def test_assistant_tool_calls_and_tool_results_round_trip() -> None:
    assistant = ChatMessage(
        role="assistant",
        blocks=[
            ThinkingBlock(content="I should add."),
            TextBlock(text=""),
            ToolCallBlock(tool_call_id="call_1", tool_name="add", tool_kwargs='{"a": 1, "b": 2}'),
            ToolCallBlock(tool_call_id="call_2", tool_name="add", tool_kwargs={"a": 3, "b": 4}),
        ],
    )
    result = ChatMessage(role="tool", content="3", additional_kwargs={"tool_call_id": "call_1"})
    assert to_openai_messages([assistant, result]) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 3, "b": 4}'},
                },
            ],
        },
        {"role": "tool", "content": "3", "tool_call_id": "call_1"},
    ]


def test_thinking_is_sent_back_only_when_passback_is_on() -> None:
    message = ChatMessage(
        role="assistant", blocks=[ThinkingBlock(content="hmm"), TextBlock(text="Hi")]
    )
    assert to_openai_messages([message]) == [{"role": "assistant", "content": "Hi"}]
    assert to_openai_messages([message], reasoning_passback=True) == [
        {"role": "assistant", "content": "Hi", "reasoning_content": "hmm"}
    ]


def test_legacy_tool_calls_in_additional_kwargs_are_sent() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    message = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [call]})
    assert to_openai_messages([message]) == [
        {"role": "assistant", "content": None, "tool_calls": [call]}
    ]


def test_a_streamed_message_is_sent_back_as_the_gateway_wrote_it() -> None:
    stream = ResponseStream()
    stream.add([ToolCallDelta(index=0, id="call_9", name="add", arguments='{"a": 1')])
    last = stream.add([ToolCallDelta(index=0, arguments=', "b": 2}')])
    assert last is not None
    (sent,) = to_openai_messages([last.message])
    assert sent["tool_calls"][0]["function"]["arguments"] == '{"a": 1, "b": 2}'
    assert sent["content"] is None


def test_user_images_become_content_parts() -> None:
    message = ChatMessage(
        role="user",
        blocks=[TextBlock(text="What is this?"), ImageBlock(url="https://x.test/a.png")],
    )
    assert to_openai_messages([message]) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
            ],
        }
    ]


def test_unsupported_blocks_raise_a_clear_error() -> None:
    video = ChatMessage(role="user", blocks=[VideoBlock(url="https://x.test/v.mp4")])
    with pytest.raises(ConfigurationError, match="VideoBlock"):
        to_openai_messages([video])
    image = ChatMessage(role="system", blocks=[ImageBlock(url="https://x.test/a.png")])
    with pytest.raises(ConfigurationError, match="text only"):
        to_openai_messages([image])


def test_chatbot_and_model_roles_are_the_assistant() -> None:
    messages = [ChatMessage(role=MessageRole.CHATBOT, content="a")]
    assert to_openai_messages(messages)[0]["role"] == "assistant"


def test_tools_become_openai_function_tools() -> None:
    tool = FunctionTool.from_defaults(add)
    (spec,) = to_openai_tools([tool], strict=True)
    assert spec["type"] == "function"
    assert spec["function"]["name"] == "add"
    assert spec["function"]["strict"] is True
    assert set(spec["function"]["parameters"]["properties"]) == {"a", "b"}


@pytest.mark.parametrize(
    ("choice", "required", "expected"),
    [
        (None, False, "auto"),
        (None, True, "required"),
        ("none", False, "none"),
        ("add", False, {"type": "function", "function": {"name": "add"}}),
        (
            {"type": "function", "function": {"name": "x"}},
            False,
            {"type": "function", "function": {"name": "x"}},
        ),
    ],
)
def test_tool_choice(choice: Any, required: bool, expected: Any) -> None:
    assert tool_choice_payload(choice, required) == expected


ARGUMENTS = json.dumps({"city": "Paris", "days": [1, 2], "note": 'say "hi"\n', "deep": {"x": None}})


@given(st.integers(min_value=0, max_value=len(ARGUMENTS)))
def test_tool_selections_never_raise_on_partial_arguments(cut: int) -> None:
    stream = ResponseStream()
    response = stream.add([ToolCallDelta(index=0, id="c1", name="f", arguments=ARGUMENTS[:cut])])
    assert response is not None
    (selection,) = tool_selections(response.message)
    assert selection.tool_id == "c1" and selection.tool_name == "f"
    assert isinstance(selection.tool_kwargs, dict)
    if cut == len(ARGUMENTS):
        assert selection.tool_kwargs == json.loads(ARGUMENTS)


@given(st.text(max_size=40))
def test_tool_selections_never_raise_on_any_text(arguments: str) -> None:
    message = ChatMessage(
        role="assistant",
        blocks=[ToolCallBlock(tool_call_id="c", tool_name="f", tool_kwargs=arguments)],
    )
    (selection,) = tool_selections(message)
    assert isinstance(selection.tool_kwargs, dict)


def test_tool_selections_read_legacy_additional_kwargs() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    message = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [call]})
    (selection,) = tool_selections(message)
    assert (selection.tool_id, selection.tool_name, selection.tool_kwargs) == ("c1", "f", {"x": 1})
