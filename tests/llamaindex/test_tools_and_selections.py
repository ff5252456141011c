"""Tools both ways (pure): LlamaIndex tools to the request, tool calls back to selections."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
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
from sse_emulator import Emulator
from tests.llamaindex.li_support import Feed, LLMFactory


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


# --- tools that are not tools -------------------------------------------------------------------

JUNK_ENTRIES = [("x", "str"), (add, "function"), ({"type": "function"}, "dict"), (None, "NoneType")]


@pytest.mark.parametrize(("junk", "kind"), JUNK_ENTRIES)
def test_an_entry_that_is_not_a_tool_is_a_type_error_saying_what_is_accepted(
    junk: object, kind: str
) -> None:
    tool = FunctionTool.from_defaults(add)
    with pytest.raises(TypeError) as info:
        offer_tools([tool, junk], [], parallel=False, required=False, choice=None, strict=None)  # type: ignore[list-item]
    message = str(info.value)
    assert f"got {kind} at tools[1]" in message
    assert "LlamaIndex tools" in message and "FunctionTool.from_defaults" in message
    assert "{'type'" not in message  # the type is named, never the value


@pytest.mark.parametrize(
    ("tools", "hint"),
    [("x", ""), (FunctionTool.from_defaults(add), "wrap one tool in a list"), ({"a": 1}, "")],
)
def test_tools_that_are_no_list_is_a_type_error(tools: object, hint: str) -> None:
    with pytest.raises(TypeError, match="tools must be a list of LlamaIndex tools") as info:
        offer_tools(tools, [], parallel=False, required=False, choice=None, strict=None)  # type: ignore[arg-type]
    assert hint in str(info.value)


def test_no_tools_and_real_tools_still_pass() -> None:
    assert offer_tools(None, [], parallel=False, required=False, choice=None, strict=None) == {  # type: ignore[arg-type]
        "messages": []
    }
    assert offer_tools((), [], parallel=False, required=False, choice=None, strict=None) == {
        "messages": []
    }
    request = offer_tools(
        (t for t in [FunctionTool.from_defaults(add)]),  # type: ignore[arg-type]
        [],
        parallel=False,
        required=False,
        choice=None,
        strict=None,
    )
    assert [spec["function"]["name"] for spec in request["tools"]] == ["add"]


ENTRY_POINTS = [
    "chat_with_tools",
    "stream_chat_with_tools",
    "achat_with_tools",
    "astream_chat_with_tools",
    "predict_and_call",
    "apredict_and_call",
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_tool_entry_point_refuses_junk_before_any_request(
    entry: str, make_llm: LLMFactory, emulator: Emulator
) -> None:
    llm = make_llm()
    method = getattr(llm, entry)
    with pytest.raises(TypeError, match=r"LlamaIndex tools .* got str at tools\[0\]"):
        result = method(["x"], user_msg="weather in Paris?")
        if inspect.iscoroutine(result):
            asyncio.run(result)
    assert emulator.requests == []
    # the same model, given a real tool, calls it
    tool = FunctionTool.from_defaults(add)
    response = llm.chat_with_tools([tool], user_msg="add 2 and 3", tool_required=True)
    assert llm.get_tool_calls_from_response(response)[0].tool_name == "add"
