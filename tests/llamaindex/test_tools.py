"""Tools both ways (pure): LlamaIndex tools to the request, tool calls back to selections."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from li_support import Feed
from llama_index.core.base.llms.types import ChatMessage, TextBlock, ToolCallBlock
from llama_index.core.tools import FunctionTool

from llamaindex_sse._tools import (
    add_user_message,
    keep_first_tool_call,
    offer_tools,
    parse_arguments,
    select_tool_calls,
    to_openai_tools,
    to_tool_choice,
)
from sse_core import ToolCallDelta


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


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
    assert to_tool_choice(choice, required) == expected


ARGUMENTS = json.dumps({"city": "Paris", "days": [1, 2], "note": 'say "hi"\n', "deep": {"x": None}})


@given(st.integers(min_value=0, max_value=len(ARGUMENTS)))
def test_tool_selections_never_raise_on_partial_arguments(cut: int) -> None:
    stream = Feed()
    response = stream.add([ToolCallDelta(index=0, id="c1", name="f", arguments=ARGUMENTS[:cut])])
    assert response is not None
    (selection,) = select_tool_calls(response.message)
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
    (selection,) = select_tool_calls(message)
    assert isinstance(selection.tool_kwargs, dict)


def test_tool_selections_read_legacy_additional_kwargs() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    message = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [call]})
    (selection,) = select_tool_calls(message)
    assert (selection.tool_id, selection.tool_name, selection.tool_kwargs) == ("c1", "f", {"x": 1})


def test_tool_request_offers_the_tools() -> None:
    messages = [ChatMessage(role="user", content="add")]
    request = offer_tools(
        [FunctionTool.from_defaults(add)],
        messages,
        parallel=True,
        required=False,
        choice="add",
        strict=None,
    )
    assert request["messages"] is messages
    assert request["tool_choice"] == {"type": "function", "function": {"name": "add"}}
    assert request["parallel_tool_calls"] is True
    assert [t["function"]["name"] for t in request["tools"]] == ["add"]
    empty = offer_tools([], messages, parallel=False, required=True, choice=None, strict=None)
    assert empty == {"messages": messages}


def test_with_user_message_copies_the_history() -> None:
    history = [ChatMessage(role="system", content="s")]
    messages = add_user_message(history, "hi")
    assert [m.content for m in messages] == ["s", "hi"] and len(history) == 1
    assert add_user_message(None, ChatMessage(role="user", content="x"))[0].content == "x"
    assert add_user_message(history, None) == history


def test_keep_first_tool_call_drops_the_others_everywhere() -> None:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for i in (1, 2)
    ]
    message = ChatMessage(
        role="assistant",
        blocks=[
            TextBlock(text="t"),
            ToolCallBlock(tool_call_id="c1", tool_name="f", tool_kwargs="{}"),
            ToolCallBlock(tool_call_id="c2", tool_name="f", tool_kwargs="{}"),
        ],
        additional_kwargs={"tool_calls": calls},
    )
    keep_first_tool_call(message)
    assert [type(b) for b in message.blocks] == [TextBlock, ToolCallBlock]
    assert [c["id"] for c in message.additional_kwargs["tool_calls"]] == ["c1"]
    single = ChatMessage(role="assistant", blocks=[message.blocks[1]])
    keep_first_tool_call(single)
    assert len(single.blocks) == 1


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"x": 1}, {"x": 1}),
        ('{"x": 1}', {"x": 1}),
        ('{"x": [1, 2', {"x": [1, 2]}),
        ("", {}),
        ("   ", {}),
        ("[1, 2]", {}),
        (None, {}),
        (7, {}),
    ],
)
def test_parse_arguments(arguments: Any, expected: dict[str, Any]) -> None:
    assert parse_arguments(arguments) == expected
