"""ChatSSE's chat-completions request (:mod:`langchain_sse._outbound`): LangChain messages
through the core's turns (:func:`langchain_sse._turns.to_turns`) to the body the core makes
of them (:func:`sse_core.protocols.chat_completions.turns_body`), and the body built from the
settings and the call. The core's own rules of that body: tests/core/protocols/
test_chat_turns.py; the strict emulator's answer to a ChatOpenAI-made history: the last test.
"""

from __future__ import annotations

import json
import warnings
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

from langchain_sse import ChatSSE
from langchain_sse._outbound import Outbound
from langchain_sse._protocols import model_request
from sse_emulator import Emulator
from tests.adapters.histories import THE_PROTOCOLS, chatsse, last_body, sent_ids

PNG = "iVBORw0KGgo="
CALL = {"name": "f", "args": {}, "id": "c1"}


def _model(**fields: Any) -> ChatSSE:
    return ChatSSE(model="m", base_url="http://gw.test/v1", api_key="k", **fields)


def _request(
    messages: list[BaseMessage], model: ChatSSE | None = None, call: dict[str, Any] | None = None
) -> Outbound:
    return model_request(model or _model(), messages, None, {} if call is None else call)


def _sent(messages: list[BaseMessage], **fields: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = _request(messages, _model(**fields)).payload["messages"]
    return sent


def test_plain_roles() -> None:
    messages: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage("Hi", name="ada"),
        AIMessage("Hello", name="bot"),
        ChatMessage(role="developer", content="Note"),
        ChatMessage(role="user", content="More"),
        ChatMessage(role="assistant", content="Sure"),
        ChatMessage(role="system", content="Rule", name="admin"),
    ]
    assert _sent(messages) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi", "name": "ada"},
        {"role": "assistant", "content": "Hello", "name": "bot"},
        # A developer message is a system turn, sent as a system message (the core's shape;
        # OpenAI takes either role for the instructions).
        {"role": "system", "content": "Note"},
        {"role": "user", "content": "More"},
        {"role": "assistant", "content": "Sure"},
        {"role": "system", "content": "Rule", "name": "admin"},
    ]


def test_a_tool_results_name_is_not_sent() -> None:
    messages: list[BaseMessage] = [
        HumanMessage("go"),
        AIMessage("", tool_calls=[CALL]),
        ToolMessage("1", tool_call_id="c1", name="f"),
    ]
    assert _sent(messages)[2] == {"role": "tool", "tool_call_id": "c1", "content": "1"}


def test_a_function_message_is_refused_naming_the_tool_message() -> None:
    with pytest.raises(ValueError, match=r"FunctionMessage.*ToolMessage"):
        _request([HumanMessage("hi"), FunctionMessage(name="f", content="42")])
    with pytest.raises(ValueError, match=r"role='function'.*ToolMessage"):
        _request([HumanMessage("hi"), ChatMessage(role="function", content="42")])


def test_assistant_tool_calls_and_tool_results() -> None:
    call = AIMessage(
        "",
        tool_calls=[{"name": "get_weather", "args": {"city": "Zürich"}, "id": "call_1"}],
        invalid_tool_calls=[
            {"name": "broken", "args": '{"x": ', "id": "call_2", "error": None,
             "type": "invalid_tool_call"}
        ],
    )  # fmt: skip
    messages: list[BaseMessage] = [
        HumanMessage("weather?"),
        call,
        ToolMessage("sunny", tool_call_id="call_1", status="error"),
        ToolMessage("unreadable arguments", tool_call_id="call_2"),
    ]
    assert _sent(messages)[1:] == [
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
        {"role": "tool", "tool_call_id": "call_2", "content": "unreadable arguments"},
    ]  # fmt: skip


def test_v1_reasoning_and_tool_call_blocks_never_go_back() -> None:
    message = AIMessage(
        content=[
            {"type": "reasoning", "reasoning": "secret thoughts"},
            {"type": "text", "text": "Answer", "annotations": [], "id": "b1"},
            {"type": "tool_call", "name": "f", "args": {}, "id": "c1"},
        ],
        tool_calls=[CALL],
    )
    (_, sent) = _sent([HumanMessage("q"), message])
    assert sent["content"] == "Answer"
    assert "reasoning_content" not in sent
    assert "secret" not in str(sent)
    assert sent["tool_calls"][0]["id"] == "c1"


def _loop() -> list[BaseMessage]:
    old = AIMessage("Earlier", additional_kwargs={"reasoning_content": "old thoughts"})
    call = AIMessage("", additional_kwargs={"reasoning_content": "I should call f."},
                     tool_calls=[CALL])  # fmt: skip
    v1 = AIMessage(
        content=[{"type": "reasoning", "reasoning": "v1 thoughts"}, {"type": "text", "text": "ok"}]
    )
    return [
        HumanMessage("first"),
        old,
        HumanMessage("second"),
        call,
        ToolMessage("1", tool_call_id="c1"),
        v1,
    ]


def test_reasoning_passback_only_after_the_last_user_message() -> None:
    sent = _sent(_loop(), reasoning_passback=True)
    assert "reasoning_content" not in sent[1]
    assert sent[3]["reasoning_content"] == "I should call f."
    assert sent[5]["reasoning_content"] == "v1 thoughts"
    assert all("reasoning_content" not in m for m in _sent(_loop()))
    assert "reasoning_passback" not in _request(_loop(), _model(reasoning_passback=True)).payload


def test_reasoning_passback_goes_through_chatsse_to_the_gateway(mock_model: Any) -> None:
    model, recorder = mock_model(reasoning_passback=True)
    model.invoke(_loop())
    sent = recorder.payload()["messages"]
    assert [m.get("reasoning_content") for m in sent] == [
        None, None, None, "I should call f.", None, "v1 thoughts"
    ]  # fmt: skip


def test_multimodal_user_parts() -> None:
    message = HumanMessage(
        content=[
            "Look:",
            {"type": "text", "text": "this", "id": "x"},
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
            {"type": "image", "url": "https://example.test/a.png"},
            {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
            {"type": "image_url", "image_url": "data:image/png;base64," + PNG},
            {"type": "audio", "base64": "UklG", "mime_type": "audio/wav"},
            {"type": "file", "file_id": "file-1"},
            {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
        ]
    )  # fmt: skip
    (sent,) = _sent([message])
    data_url = {"url": "data:image/png;base64," + PNG}
    assert sent["content"] == [
        {"type": "text", "text": "Look:"},
        {"type": "text", "text": "this"},
        {"type": "image_url", "image_url": data_url},
        {"type": "image_url", "image_url": {"url": "https://example.test/a.png"}},
        {"type": "image_url", "image_url": data_url},
        {"type": "image_url", "image_url": data_url},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
        {"type": "file", "file": {"file_id": "file-1"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
    ]  # fmt: skip


def test_an_image_detail_and_a_file_name_go_out() -> None:
    message = HumanMessage(
        content=[
            {"type": "image_url", "image_url": {"url": "https://example.test/b.png",
                                                "detail": "low"}},
            {"type": "file", "base64": "JVBE", "mime_type": "application/pdf",
             "filename": "a.pdf"},
        ]
    )  # fmt: skip
    (sent,) = _sent([message])
    assert sent["content"] == [
        {"type": "image_url", "image_url": {"url": "https://example.test/b.png", "detail": "low"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE",
                                  "filename": "a.pdf"}},
    ]  # fmt: skip


def test_text_only_lists_become_strings_except_for_users() -> None:
    parts: list[str | dict[str, Any]] = [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b"},
    ]
    sent = _sent(
        [
            SystemMessage(content=parts),
            HumanMessage(content=parts),
            AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "t"}]),
            ToolMessage(parts, tool_call_id="t"),
        ]
    )
    assert sent[0]["content"] == "ab"
    assert sent[1]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert sent[3]["content"] == "ab"


def test_tool_results_with_images_keep_their_parts() -> None:
    image = {"type": "image", "base64": PNG, "mime_type": "image/png"}
    result = ToolMessage([{"type": "text", "text": "x"}, image], tool_call_id="t")
    sent = _sent([AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "t"}]), result])
    assert sent[1]["content"][1]["type"] == "image_url"


def test_non_standard_blocks_are_unwrapped() -> None:
    wrapped = {"type": "non_standard", "value": {"type": "image_url", "image_url": {"url": "u"}}}
    (sent,) = _sent([HumanMessage(content=[wrapped])])
    assert sent["content"] == [{"type": "image_url", "image_url": {"url": "u"}}]


def test_unsupported_message_types_are_refused() -> None:
    with pytest.raises(ValueError, match="RemoveMessage"):
        _request([RemoveMessage(id="x")])


def _build(call: dict[str, Any], **fields: Any) -> Outbound:
    given = {"temperature": 0.2, "model_kwargs": {"temperature": 0.3, "seed": 1}, **fields}
    return _request([HumanMessage("hi")], _model(**given), call)


def test_the_body_takes_settings_then_model_kwargs_then_call_kwargs() -> None:
    out = _build({"seed": 2, "model": "other"})
    assert out.payload == {
        "model": "other",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.3,  # None settings are not sent; model_kwargs win over them
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


def test_strict_goes_in_each_function_and_json_schema() -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    said = {"type": "function", "function": {"name": "g", "parameters": {}, "strict": False}}
    schema = {"type": "json_schema", "json_schema": {"name": "S", "schema": {}}}
    out = _build({"tools": [tool, said], "response_format": schema, "strict": True})
    assert [t["function"]["strict"] for t in out.payload["tools"]] == [True, False]
    assert all("strict" not in t for t in out.payload["tools"])  # the function's, not the tool's
    assert out.payload["response_format"]["json_schema"]["strict"] is True
    assert "strict" not in tool["function"]  # the bound dicts are not changed


def test_usage_extra_body_query_and_timeout_are_the_calls() -> None:
    model = _model(extra_body={"a": 1, "b": 1})
    call = {"stream_usage": False, "extra_body": {"b": 2}, "extra_query": {"v": "1"},
            "timeout": 5}  # fmt: skip
    out = _request([HumanMessage("hi")], model, call)
    assert out.include_usage is False
    assert out.payload["a"] == 1 and out.payload["b"] == 2 and out.whole_body
    assert out.query == {"v": "1"} and out.timeout == 5
    asked = _request([HumanMessage("hi")], call={"stream_options": {"include_usage": True}})
    assert asked.include_usage is True


def test_a_chatopenai_history_is_accepted_by_the_strict_emulator(emulator: Emulator) -> None:
    # As ChatOpenAI keeps a chat-completions tool loop: the answer's id and metadata, refusal
    # None and the gateway's reasoning in additional_kwargs, tool_calls with their type, a
    # ToolMessage answering each call.
    asked = AIMessage(
        content="",
        id="chatcmpl-1",
        additional_kwargs={"refusal": None, "reasoning_content": "Two cities: two calls."},
        response_metadata={"finish_reason": "tool_calls", "model_name": "gpt-5"},
        tool_calls=[
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1",
             "type": "tool_call"},
            {"name": "get_weather", "args": {"city": "Rome"}, "id": "call_2",
             "type": "tool_call"},
        ],
        usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    )  # fmt: skip
    history: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage("Weather in Paris and Rome?", name="ada"),
        asked,
        ToolMessage("Sunny", tool_call_id="call_1", name="get_weather"),
        ToolMessage("Rainy", tool_call_id="call_2", name="get_weather"),
    ]
    model = chatsse(emulator, "chat_completions", reasoning_passback=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing of it is left out
        answer = model.invoke(history)
    model.close()
    assert answer.content or answer.tool_calls
    sent = last_body(emulator)["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Two cities: two calls.",
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
        ],
    }  # fmt: skip
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]
    assert sent[1]["name"] == "ada"


def test_the_strict_emulator_takes_a_followup_after_the_tool_loop(emulator: Emulator) -> None:
    # The same loop answered, then a new question: the reasoning stays home (before the last
    # user message), and the request is accepted.
    asked = AIMessage(
        "",
        additional_kwargs={"refusal": None, "reasoning_content": "Call it."},
        tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}],
    )
    history: list[BaseMessage] = [
        HumanMessage("Weather in Paris?"),
        asked,
        ToolMessage("Sunny", tool_call_id="call_1"),
        AIMessage("Sunny in Paris.", additional_kwargs={"refusal": None}),
        HumanMessage("Thanks!"),
    ]
    model = chatsse(emulator, "chat_completions", reasoning_passback=True)
    model.invoke(history)
    model.close()
    sent = last_body(emulator)["messages"]
    assert all("reasoning_content" not in message for message in sent)


def test_the_request_reaches_a_gateway_unchanged_by_the_transport(mock_model: Any) -> None:
    model, recorder = mock_model()
    model.invoke([HumanMessage("hi", name="ada")])
    assert recorder.payload()["messages"] == [{"role": "user", "content": "hi", "name": "ada"}]


@pytest.mark.parametrize("protocol", THE_PROTOCOLS)
def test_an_answered_invalid_tool_call_goes_back_on_every_protocol(
    emulator: Emulator, protocol: str
) -> None:
    # A call whose arguments were no JSON, answered by its ToolMessage: the call goes back
    # with the answer (its raw text where the API takes text, else no arguments), so the
    # result answers a call the request holds.
    asked = AIMessage(
        "",
        invalid_tool_calls=[
            {"name": "get_weather", "args": '{"city": ', "id": "call_1", "error": None,
             "type": "invalid_tool_call"}
        ],
    )  # fmt: skip
    history: list[BaseMessage] = [
        HumanMessage("Weather in Paris?"),
        asked,
        ToolMessage("Error: the arguments were no JSON", tool_call_id="call_1", status="error"),
    ]
    plain = {"anthropic": {"thinking": None}, "gemini": {"model": "gemini-2.5-flash"}}
    model = chatsse(emulator, protocol, **plain.get(protocol, {}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing of it is left out
        model.invoke(history)
    model.close()
    body = last_body(emulator)
    if protocol == "gemini":  # no ids: the call is named
        assert "get_weather" in json.dumps(body["contents"])
    else:
        assert sent_ids(protocol, body) == ["call_1"]
