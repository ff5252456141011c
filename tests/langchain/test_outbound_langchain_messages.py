"""The outbound mapping (:mod:`langchain_sse._outbound`): LangChain messages to
chat-completions dicts, and the request body built from the settings and the call."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)

from langchain_sse._outbound import Outbound, build_outbound, convert_messages

PNG = "iVBORw0KGgo="


def test_plain_roles() -> None:
    messages: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage("Hi", name="ada"),
        AIMessage("Hello"),
        ChatMessage(role="developer", content="Note"),
        FunctionMessage(name="f", content="42"),
    ]
    assert convert_messages(messages) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi", "name": "ada"},
        {"role": "assistant", "content": "Hello"},
        {"role": "developer", "content": "Note"},
        {"role": "function", "content": "42", "name": "f"},
    ]


def test_assistant_tool_calls_and_tool_results() -> None:
    call = AIMessage(
        "",
        tool_calls=[{"name": "get_weather", "args": {"city": "Zürich"}, "id": "call_1"}],
        invalid_tool_calls=[
            {"name": "broken", "args": '{"x": ', "id": "call_2", "error": None,
             "type": "invalid_tool_call"}
        ],
    )  # fmt: skip
    result = ToolMessage("sunny", tool_call_id="call_1", status="error")
    assert convert_messages([call, result]) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "Zürich"}'}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "broken", "arguments": '{"x": '}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ]  # fmt: skip


def test_v1_reasoning_and_tool_call_blocks_never_go_back() -> None:
    message = AIMessage(
        content=[
            {"type": "reasoning", "reasoning": "secret thoughts"},
            {"type": "text", "text": "Answer", "annotations": [], "id": "b1"},
            {"type": "tool_call", "name": "f", "args": {}, "id": "c1"},
        ],
        tool_calls=[{"name": "f", "args": {}, "id": "c1"}],
    )
    (sent,) = convert_messages([message])
    assert sent["content"] == "Answer"
    assert "reasoning_content" not in sent
    assert "secret" not in str(sent)
    assert sent["tool_calls"][0]["id"] == "c1"


def test_reasoning_passback_only_after_the_last_user_message() -> None:
    old = AIMessage("Earlier", additional_kwargs={"reasoning_content": "old thoughts"})
    call = AIMessage(
        "",
        additional_kwargs={"reasoning_content": "I should call f."},
        tool_calls=[{"name": "f", "args": {}, "id": "c1"}],
    )
    v1 = AIMessage(
        content=[{"type": "reasoning", "reasoning": "v1 thoughts"}, {"type": "text", "text": "ok"}]
    )
    messages: list[BaseMessage] = [
        HumanMessage("first"),
        old,
        HumanMessage("second"),
        call,
        ToolMessage("1", tool_call_id="c1"),
        v1,
    ]
    sent = convert_messages(messages, reasoning_passback=True)
    assert "reasoning_content" not in sent[1]
    assert sent[3]["reasoning_content"] == "I should call f."
    assert sent[5]["reasoning_content"] == "v1 thoughts"
    assert all("reasoning_content" not in m for m in convert_messages(messages))


def test_multimodal_user_parts() -> None:
    message = HumanMessage(
        content=[
            "Look:",
            {"type": "text", "text": "this", "id": "x"},
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
            {"type": "image", "url": "https://example.test/a.png"},
            {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
            {"type": "image_url", "image_url": "data:image/png;base64," + PNG},
            {"type": "image_url", "image_url": {"url": "https://example.test/b.png",
                                                "detail": "low"}},
            {"type": "audio", "base64": "UklG", "mime_type": "audio/wav"},
            {"type": "file", "base64": "JVBE", "mime_type": "application/pdf",
             "filename": "a.pdf"},
            {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
        ]
    )  # fmt: skip
    (sent,) = convert_messages([message])
    data_url = {"url": "data:image/png;base64," + PNG}
    assert sent["content"] == [
        {"type": "text", "text": "Look:"},
        {"type": "text", "text": "this"},
        {"type": "image_url", "image_url": data_url},
        {"type": "image_url", "image_url": {"url": "https://example.test/a.png"}},
        {"type": "image_url", "image_url": data_url},
        {"type": "image_url", "image_url": data_url},
        {"type": "image_url", "image_url": {"url": "https://example.test/b.png", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE",
                                  "filename": "a.pdf"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
    ]  # fmt: skip


def test_text_only_lists_become_strings_except_for_users() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    sent = convert_messages(
        [
            SystemMessage(content=parts),
            HumanMessage(content=parts),
            ToolMessage(parts, tool_call_id="t"),
        ]  # type: ignore[arg-type]
    )
    assert sent[0]["content"] == "ab"
    assert sent[1]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert sent[2]["content"] == "ab"


def test_tool_results_with_images_keep_their_parts() -> None:
    image = {"type": "image", "base64": PNG, "mime_type": "image/png"}
    (sent,) = convert_messages([ToolMessage([{"type": "text", "text": "x"}, image],
                                              tool_call_id="t")])  # fmt: skip
    assert sent["content"][1]["type"] == "image_url"


def test_non_standard_blocks_are_unwrapped() -> None:
    wrapped = {"type": "non_standard", "value": {"type": "image_url", "image_url": {"url": "u"}}}
    (sent,) = convert_messages([HumanMessage(content=[wrapped])])
    assert sent["content"] == [{"type": "image_url", "image_url": {"url": "u"}}]


def test_unsupported_message_types_are_refused() -> None:
    with pytest.raises(ValueError, match="RemoveMessage"):
        convert_messages([RemoveMessage(id="x")])


def _build(call_kwargs: dict[str, Any], **overrides: Any) -> Outbound:
    fields: dict[str, Any] = {
        "model": "m",
        "settings": {"temperature": 0.2, "max_tokens": None, "stop": []},
        "model_kwargs": {"temperature": 0.3, "seed": 1},
        "call_kwargs": call_kwargs,
        "disabled_params": None,
        "reasoning_passback": False,
    }
    return build_outbound([HumanMessage("hi")], **{**fields, **overrides})


def test_the_body_takes_settings_then_model_kwargs_then_call_kwargs() -> None:
    out = _build({"seed": 2, "model": "other"})
    assert out.payload == {
        "model": "other",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.3,  # None and [] settings are not sent; model_kwargs win over them
        "seed": 2,
    }
    assert out.headers is None


def test_langchain_keys_are_popped_and_extra_headers_become_headers() -> None:
    call = {"stream": True, "ls_structured_output_format": {}, "structured_output_format": {},
            "extra_headers": {"X-Trace": "t"}}  # fmt: skip
    out = _build(call)
    assert call == {}
    assert out.headers == {"X-Trace": "t"}
    assert not {"stream", "extra_headers", "ls_structured_output_format"} & set(out.payload)


def test_tool_fields_go_only_with_tools_and_disabled_params_last() -> None:
    bare = _build({"tools": [], "tool_choice": "auto", "parallel_tool_calls": False})
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(bare.payload)
    tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    disabled = {"parallel_tool_calls": None, "tool_choice": ["required"]}
    kept = _build({"tools": [tool], "tool_choice": "auto", "parallel_tool_calls": False},
                  disabled_params=disabled)  # fmt: skip
    assert kept.payload["tool_choice"] == "auto" and "parallel_tool_calls" not in kept.payload
    dropped = _build({"tools": [tool], "tool_choice": "required"}, disabled_params=disabled)
    assert "tool_choice" not in dropped.payload
