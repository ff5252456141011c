"""Each dialect's exact wire shape, byte for byte, as its seed document prints it."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from tests.emulator.emu_wire import chat, events, payloads

CREATED = 1715000000
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
USAGE = {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def wire(response: httpx.Response) -> list[str]:
    """The exact data text of every event."""
    return [event.text for event in events(response.content)]


def first_id(response: httpx.Response) -> str:
    return str(payloads(response.content)[0]["id"])


def test_openai_plain_stream_is_exactly_openai_shape(client: httpx.Client) -> None:
    response = chat(client, "openai", stream_options={"include_usage": True})
    chunk_id = first_id(response)
    assert re.fullmatch(r"chatcmpl-[0-9a-f]{24}", chunk_id)
    env = {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "test-model",
        "system_fingerprint": "fp_emulator",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**env, "choices": [choice], "usage": None}

    usage = {
        **USAGE,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    expected = [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Hello"}),
        chunk({"content": " there"}),
        chunk({}, "stop"),
        {**env, "choices": [], "usage": usage},
    ]
    assert wire(response) == [dumps(item) for item in expected] + ["[DONE]"]
    assert response.content.endswith(b"data: [DONE]\n\n")
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"


def test_openai_without_include_usage_has_no_usage_at_all(client: httpx.Client) -> None:
    data = payloads(chat(client, "openai").content)
    assert data[-1] == "[DONE]"
    assert all("usage" not in item for item in data[:-1])
    assert data[-2]["choices"][0]["finish_reason"] == "stop"


def test_shroud_stream_matches_seed_000(client: httpx.Client) -> None:
    response = chat(client, "shroud", stream_options={"include_usage": True})
    env = {
        "id": first_id(response),
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "test-model",
    }
    expected = [
        {**env, "choices": [{"index": 0, "delta": {"role": "assistant"}}]},
        {**env, "choices": [{"index": 0, "delta": {"content": "Hello"}}]},
        {**env, "choices": [{"index": 0, "delta": {"content": " there"}}]},
        {**env, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**env, "choices": [], "usage": USAGE},
    ]
    assert wire(response) == [dumps(item) for item in expected] + ["[DONE]"]
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["connection"] == "keep-alive"


def test_shroud_usage_chunk_only_with_include_usage(client: httpx.Client) -> None:
    data = payloads(chat(client, "shroud").content)
    assert [item for item in data if isinstance(item, dict) and "usage" in item] == []
    assert data[-1] == "[DONE]"


def test_shroud_reasoning_content_when_thinking_enabled(client: httpx.Client) -> None:
    response = chat(client, "shroud", chat_template_kwargs={"enable_thinking": True})
    deltas = [p["choices"][0]["delta"] for p in payloads(response.content)[:-1]]
    reasoning = [d for d in deltas if "reasoning_content" in d]
    assert reasoning and deltas.index(reasoning[0]) == 1  # right after the role chunk
    assert "".join(d["reasoning_content"] for d in reasoning) == (
        'The user wrote: "echo: Hello there". I can answer this directly.'
    )
    assert "".join(d.get("content", "") for d in deltas) == "Hello there"


def test_streamchat_text_stream_matches_seed_001(client: httpx.Client) -> None:
    response = chat(client, "streamchat")
    chunk_id = first_id(response)
    assert re.fullmatch(
        r"stream:chat:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}", chunk_id
    )

    def chunk(n: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": chunk_id,
            "object": "chat.completion",
            "created": CREATED + n,
            "model": "",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    expected = [
        chunk(0, {"content": "Hello"}),
        chunk(1, {"content": " there"}),
        chunk(2, {"content": ""}, "stop"),
    ]
    assert wire(response) == [dumps(item) for item in expected]  # no [DONE]: the server closes
    assert response.headers["content-type"] == "text/event-stream"


def test_streamchat_tool_call_is_whole_in_one_delta(client: httpx.Client) -> None:
    response = chat(client, "streamchat", "What's the weather in Singapore?", tools=[WEATHER_TOOL])
    data = payloads(response.content)
    assert len(data) == 2
    call = data[0]["choices"][0]["delta"]["tool_calls"][0]
    assert re.fullmatch(r"call_[0-9a-f]{24}", call["id"])
    assert data[0]["choices"][0] == {
        "index": 0,
        "delta": {
            "tool_calls": [
                {
                    "index": 0,
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Singapore"}'},
                }
            ]
        },
        "finish_reason": None,
    }
    assert data[1]["choices"][0] == {
        "index": 0,
        "delta": {"content": ""},
        "finish_reason": "tool_calls",
    }


def test_streamchat_usage_rides_on_the_final_chunk(client: httpx.Client) -> None:
    data = payloads(chat(client, "streamchat", stream_options={"include_usage": True}).content)
    assert [item.get("usage") for item in data] == [None, None, USAGE]


def test_spass_stream_matches_seed_002(client: httpx.Client) -> None:
    response = chat(client, "spass")
    env = {"id": first_id(response), "object": "chat.completion.chunk"}
    expected = [
        dumps({**env, "choices": [{"delta": {"content": "Hello"}}]}),
        dumps({**env, "choices": [{"delta": {"content": " there"}}]}),
        dumps({**env, "choices": [{"delta": {}, "finish_reason": "stop"}]}),
        dumps(USAGE),
        "[DONE]",
    ]
    assert wire(response) == expected
    assert [event.event for event in events(response.content)] == [
        None,
        None,
        None,
        "spass.cost",
        None,
    ]
    assert response.headers["x-rust-api-applied"] == "true"


@pytest.mark.parametrize(
    ("headers", "path_suffix", "body_extra"),
    [
        ({"SPASS-User-Id": ""}, "", {}),
        ({}, "?user_id=u1", {}),
        ({}, "", {"user_id": "u1"}),
    ],
    ids=["missing-header", "user-id-in-query", "user-id-in-body"],
)
def test_spass_user_id_rules_give_400_invalid_field(
    client: httpx.Client, headers: dict[str, str], path_suffix: str, body_extra: dict[str, Any]
) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    all_headers = {"SPASS-User-Id": "user-1", **headers}
    response = client.post(
        "/spass/v1/chat/completions" + path_suffix, json={**body, **body_extra}, headers=all_headers
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_field"
    assert error["type"] == "invalid_request_error"
    assert "SPASS-User-Id" in error["message"]


def test_spass_header_absent_entirely_is_400(client: httpx.Client) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    response = client.post("/spass/v1/chat/completions", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_field"


def test_spass_c1_chat_sends_conversation_id_header(client: httpx.Client) -> None:
    response = chat(client, "spass", path="/spass/c1/chat")
    again = chat(client, "spass", path="/spass/c1/chat")
    assert response.status_code == 200
    assert re.fullmatch(r"conv_[0-9a-f]{24}", response.headers["x-conversation-id"])
    assert again.headers["x-conversation-id"] == response.headers["x-conversation-id"]
    assert response.headers["x-rust-api-applied"] == "true"
    assert payloads(response.content)[-1] == "[DONE]"


def test_spass_tool_calls_stream_in_pieces_without_index(client: httpx.Client) -> None:
    response = chat(client, "spass", "What's the weather in Tokyo?", tools=[WEATHER_TOOL])
    deltas = [p["choices"][0]["delta"] for p in payloads(response.content)[:3]]
    call_id = deltas[0]["tool_calls"][0]["id"]
    assert deltas == [
        {
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"function": {"arguments": '{"city":'}}]},
        {"tool_calls": [{"function": {"arguments": '"Tokyo"}'}}]},
    ]


def test_gateway_stream_matches_seed_003(client: httpx.Client) -> None:
    response = chat(client, "gateway")
    env = {"id": first_id(response), "object": "chat.completion.chunk"}
    expected = [
        {**env, "choices": [{"delta": {"content": "Hello"}, "index": 0}]},
        {**env, "choices": [{"delta": {"content": " there"}, "index": 0}]},
        {**env, "choices": [{"delta": {}, "index": 0, "finish_reason": "stop"}]},
    ]
    assert wire(response) == [dumps(item) for item in expected] + ["[DONE]"]
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["connection"] == "keep-alive"
    assert response.headers["x-accel-buffering"] == "no"


def test_gateway_error_before_streaming_is_standard_json(client: httpx.Client) -> None:
    response = client.post("/gateway/v1/chat/completions", content=b"{not json")
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert set(error) == {"message", "type", "code"}
    assert error["code"] == "invalid_json"


def test_aivene_stream_matches_seed_004(client: httpx.Client) -> None:
    response = chat(client, "aivene", stream_options={"include_usage": True})
    chunk_id = first_id(response)
    assert re.fullmatch(r"ilbs_[0-9a-z]{24}", chunk_id)
    env = {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "test-model",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**env, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    usage = {**USAGE, "prompt_tokens_details": {"cached_tokens": 0}}
    expected = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hello"}),
        chunk({"content": " there"}),
        chunk({}, "stop"),
        {**env, "choices": [], "usage": usage},
    ]
    assert wire(response) == [dumps(item) for item in expected] + ["[DONE]"]


def test_aivene_tool_call_streams_by_index_like_the_seed(client: httpx.Client) -> None:
    response = chat(client, "aivene", "What's the weather in Tokyo?", tools=[WEATHER_TOOL])
    data = payloads(response.content)
    deltas = [p["choices"][0]["delta"] for p in data[:-1]]
    call_id = deltas[1]["tool_calls"][0]["id"]
    assert deltas == [
        {"role": "assistant", "content": ""},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '"Tokyo"}'}}]},
        {},
    ]
    assert data[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert data[-1] == "[DONE]"


def test_aivene_cache_write_tokens_for_anthropic_style_models(client: httpx.Client) -> None:
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "echo: hi"},
    ]
    body = {
        "model": "claude-sonnet",
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    usage = payloads(client.post("/aivene/v1/chat/completions", json=body).content)[-2]["usage"]
    details = usage["prompt_tokens_details"]
    assert details["cached_tokens"] > 0
    assert details["cached_tokens"] + details["cache_write_tokens"] == usage["prompt_tokens"]
