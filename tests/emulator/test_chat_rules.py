"""OpenAI's chat-completions request rules, over real loopback HTTP: the emulator refuses
what the API refuses, with its 400 and error body, on every dialect, and answers the
request next to it (a 200, so the check is not broader than the API's).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

QUESTION = {"role": "user", "content": "What is the weather in Paris?"}
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
SPASS = {"SPASS-User-Id": "u1"}


def body_of(messages: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    return {"model": "emulator", "messages": messages or [QUESTION]} | fields


def send(client: httpx.Client, body: dict[str, Any], prefix: str = "") -> httpx.Response:
    headers = SPASS if prefix == "/spass" else {}
    return client.post(f"{prefix}/v1/chat/completions", json=body, headers=headers)


def refused(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    """The ``error`` of OpenAI's 400 (plain OpenAI's shape, with ``param``)."""
    response = send(client, body)
    assert response.status_code == 400, response.text
    found = response.json()
    assert list(found) == ["error"]
    error = dict(found["error"])
    assert list(error) == ["message", "type", "param", "code"]
    assert error["type"] == "invalid_request_error"
    return error


def answered(client: httpx.Client, body: dict[str, Any]) -> None:
    response = send(client, body)
    assert response.status_code == 200, response.text


def loop(tool_call_id: str = "call_1", calls: list[Any] | None = None) -> list[dict[str, Any]]:
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [CALL] if calls is None else calls,
    }
    return [QUESTION, assistant, {"role": "tool", "tool_call_id": tool_call_id, "content": "Sunny"}]


# 1. stream_options only with stream.


@pytest.mark.parametrize("stream", [None, False])
def test_stream_options_without_stream_is_refused(client: httpx.Client, stream: Any) -> None:
    fields: dict[str, Any] = {"stream_options": {"include_usage": True}}
    if stream is not None:
        fields["stream"] = stream
    assert refused(client, body_of(**fields)) == {
        "message": "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        "type": "invalid_request_error",
        "param": "stream_options",
        "code": None,
    }


@pytest.mark.parametrize(
    "fields",
    [
        {"stream": True, "stream_options": {"include_usage": True}},
        {"stream": False, "stream_options": None},
        {"stream": False},
    ],
)
def test_stream_options_with_stream_or_none_is_answered(
    client: httpx.Client, fields: dict[str, Any]
) -> None:
    answered(client, body_of(**fields))


# 2. A tool message answers a call of the assistant message before it.


def test_a_tool_message_after_no_calls_is_refused(client: httpx.Client) -> None:
    alone = [QUESTION, {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"}]
    for messages in (alone, loop(calls=[])):
        assert refused(client, body_of(messages)) == {
            "message": "Invalid parameter: messages with role 'tool' must be a response to a "
            "preceeding message with 'tool_calls'.",
            "type": "invalid_request_error",
            "param": f"messages.[{len(messages) - 1}].role",
            "code": None,
        }
    late = [*loop(), {"role": "user", "content": "And now?"}, loop()[2]]
    assert refused(client, body_of(late))["param"] == "messages.[4].role"


def test_a_tool_message_for_another_call_is_refused(client: httpx.Client) -> None:
    error = refused(client, body_of(loop("call_9")))
    assert error["message"] == (
        "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous "
        "message."
    )
    assert error["param"] == "messages.[2].tool_call_id"


def test_tool_messages_for_the_calls_before_them_are_answered(client: httpx.Client) -> None:
    second = CALL | {"id": "call_2"}
    both = [
        *loop(calls=[CALL, second]),
        {"role": "tool", "tool_call_id": "call_2", "content": "Rain"},
    ]
    answered(client, body_of(both, tools=[WEATHER]))


# 3. reasoning_effort takes OpenAI's values only.


def test_an_unknown_reasoning_effort_is_refused(client: httpx.Client) -> None:
    assert refused(client, body_of(reasoning_effort="maximum")) == {
        "message": "Invalid value: 'maximum'. Supported values are: 'none', 'minimal', 'low', "
        "'medium', 'high', 'xhigh', and 'max'.",
        "type": "invalid_request_error",
        "param": "reasoning_effort",
        "code": "invalid_value",
    }


@pytest.mark.parametrize("effort", ["none", "minimal", "low", "medium", "high", "xhigh", "max"])
def test_each_reasoning_effort_openai_takes_is_answered(client: httpx.Client, effort: str) -> None:
    answered(client, body_of(reasoning_effort=effort))


# 4. max_tokens is refused by reasoning models.


@pytest.mark.parametrize(
    "model", ["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5.1", "openai/gpt-5-mini"]
)
def test_max_tokens_to_a_reasoning_model_is_refused(client: httpx.Client, model: str) -> None:
    assert refused(client, body_of(model=model, max_tokens=50)) == {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }


@pytest.mark.parametrize(
    ("model", "field"),
    [
        ("gpt-5", "max_completion_tokens"),
        ("o3-mini", "max_completion_tokens"),
        ("gpt-4o", "max_tokens"),
        ("emulator", "max_tokens"),
        ("gpt-50-turbo-lookalike", "max_tokens"),
        ("o10", "max_tokens"),
    ],
)
def test_the_token_limit_each_model_takes_is_answered(
    client: httpx.Client, model: str, field: str
) -> None:
    answered(client, body_of(model=model, **{field: 50}))


# Every dialect applies the rules, in its own error shape.


@pytest.mark.parametrize("prefix", ["/shroud", "/streamchat", "/spass", "/gateway", "/aivene"])
def test_every_dialect_refuses_in_its_own_shape(client: httpx.Client, prefix: str) -> None:
    response = send(client, body_of(stream_options={"include_usage": True}), prefix)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith("The 'stream_options' parameter is only allowed")
    assert error["type"] == "invalid_request_error" and "param" not in error
    assert (
        send(
            client, body_of(stream=True, stream_options={"include_usage": True}), prefix
        ).status_code
        == 200
    )
