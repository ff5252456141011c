"""The rule-based assistant over HTTP: thinking, tools, tool results, formats, limits, usage."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from sse_emulator.assistant.extract import extract
from tests.emulator.emu_wire import chat, deltas, payloads, text_of

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}},
    },
}


def calls(body: bytes) -> dict[int, dict[str, str]]:
    """Tool calls joined by index from an OpenAI-style indexed stream."""
    joined: dict[int, dict[str, str]] = {}
    for delta in deltas(body):
        for part in delta.get("tool_calls", []):
            call = joined.setdefault(part["index"], {"name": "", "arguments": ""})
            function = part.get("function", {})
            call["name"] += function.get("name", "")
            call["arguments"] += function.get("arguments", "")
    return joined


def usage(body: bytes) -> dict[str, Any]:
    return next(p["usage"] for p in payloads(body) if isinstance(p, dict) and p.get("usage"))


@pytest.mark.parametrize(
    "request_fields",
    [
        {"chat_template_kwargs": {"enable_thinking": True}},
        {"reasoning_effort": "high"},
        {"model": "qwen-think-32b"},
        {"reasoning": {"effort": "low"}},
    ],
    ids=["enable_thinking", "reasoning_effort", "model-name", "reasoning-object"],
)
def test_thinking_requests_reason_before_answering(
    client: httpx.Client, request_fields: dict[str, Any]
) -> None:
    body = chat(client, "aivene", "echo: ok", **request_fields).content
    found = deltas(body)
    first_reasoning = next(i for i, d in enumerate(found) if "reasoning_content" in d)
    first_content = next(i for i, d in enumerate(found) if d.get("content"))
    assert first_reasoning < first_content
    assert "I can answer this directly." in text_of(body, "reasoning_content")


def test_reasoning_effort_changes_reasoning_length(client: httpx.Client) -> None:
    low = text_of(
        chat(client, "aivene", "echo: ok", reasoning_effort="low").content, "reasoning_content"
    )
    high = text_of(
        chat(client, "aivene", "echo: ok", reasoning_effort="high").content, "reasoning_content"
    )
    assert low == "I can answer this directly."
    assert high == (
        'The user wrote: "echo: ok". I can answer this directly. '
        "Let me check the answer once more before replying."
    )


def test_enable_thinking_false_wins_over_a_thinking_model_name(client: httpx.Client) -> None:
    body = chat(
        client,
        "shroud",
        "echo: ok",
        model="think-model",
        chat_template_kwargs={"enable_thinking": False},
    ).content
    assert text_of(body, "reasoning_content") == ""


def test_plain_openai_reasoning_travels_in_delta_reasoning(client: httpx.Client) -> None:
    body = chat(
        client, "openai", "echo: ok", reasoning_effort="low", stream_options={"include_usage": True}
    ).content
    assert text_of(body, "reasoning") == "I can answer this directly."
    assert usage(body)["completion_tokens_details"]["reasoning_tokens"] == 5
    assert usage(body)["completion_tokens"] == 5 + 1


def test_no_reasoning_without_a_request_for_it(client: httpx.Client) -> None:
    body = chat(client, "aivene", "echo: ok").content
    assert all("reasoning_content" not in d for d in deltas(body))


def test_named_tool_is_called_with_arguments_from_the_message(client: httpx.Client) -> None:
    body = chat(
        client, "openai", "What's the weather in Paris in fahrenheit?", tools=[WEATHER, TIME]
    ).content
    assert calls(body) == {
        0: {"name": "get_weather", "arguments": '{"city":"Paris","unit":"fahrenheit"}'}
    }
    assert payloads(body)[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert text_of(body) == ""


def test_several_values_give_several_calls(client: httpx.Client) -> None:
    body = chat(client, "openai", "weather in Paris and New York", tools=[WEATHER]).content
    found = calls(body)
    assert [json.loads(c["arguments"])["city"] for c in found.values()] == ["Paris", "New York"]
    ids = [d["tool_calls"][0]["id"] for d in deltas(body) if "id" in d.get("tool_calls", [{}])[0]]
    assert len(set(ids)) == 2


def test_several_named_tools_give_one_call_each(client: httpx.Client) -> None:
    body = chat(
        client,
        "openai",
        "What is the time in Tokyo and the weather in Lima?",
        tools=[WEATHER, TIME],
    ).content
    found = calls(body)
    assert [(c["name"], json.loads(c["arguments"])) for c in found.values()] == [
        ("get_time", {"timezone": "Tokyo"}),
        ("get_weather", {"city": "Lima", "unit": "celsius"}),
    ]


def test_parallel_tool_calls_false_keeps_one_call(client: httpx.Client) -> None:
    body = chat(
        client, "openai", "weather in Paris and Tokyo", tools=[WEATHER], parallel_tool_calls=False
    ).content
    assert list(calls(body)) == [0]


def test_tool_choice_forces_a_tool_the_user_did_not_name(client: httpx.Client) -> None:
    body = chat(
        client,
        "openai",
        "Tell me about Rome",
        tools=[WEATHER, TIME],
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    ).content
    assert calls(body) == {0: {"name": "get_time", "arguments": '{"timezone":"Rome"}'}}


def test_tool_choice_required_calls_the_first_tool(client: httpx.Client) -> None:
    body = chat(client, "openai", "Rome please", tools=[WEATHER], tool_choice="required").content
    assert calls(body)[0]["name"] == "get_weather"


def test_tool_choice_none_and_unnamed_tools_answer_in_text(client: httpx.Client) -> None:
    none = chat(client, "openai", "weather in Paris", tools=[WEATHER], tool_choice="none").content
    unnamed = chat(client, "openai", "echo: hi", tools=[WEATHER]).content
    assert calls(none) == {} and text_of(none) == "You said: weather in Paris"
    assert calls(unnamed) == {} and text_of(unnamed) == "hi"


def test_answer_after_a_tool_result_uses_it(client: httpx.Client) -> None:
    messages = [
        {"role": "user", "content": "What's the weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 21}'},
    ]
    body = {"model": "m", "messages": messages, "tools": [WEATHER], "stream": True}
    response = client.post("/v1/chat/completions", json=body)
    assert (
        text_of(response.content)
        == 'Based on the tool results: get_weather returned {"temp_c": 21}.'
    )
    assert calls(response.content) == {}


def test_json_schema_response_format_is_schema_valid(client: httpx.Client) -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0},
            "email": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]},
            "address": {"$ref": "#/$defs/Address"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name", "age", "email", "address", "tags"],
        "additionalProperties": False,
        "$defs": {
            "Address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                "required": ["city", "zip"],
            }
        },
    }
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": "person", "schema": schema, "strict": True},
    }
    body = chat(
        client, "openai", "Extract: John is 30 and lives in Berlin", response_format=response_format
    ).content
    value = json.loads(text_of(body))
    assert value == {
        "name": "John",
        "age": 30,
        "email": "user@example.com",
        # With no name left, a plain string gets the answer text.
        "address": {"city": "Berlin", "zip": "You said: Extract: John is 30 and lives in Berlin"},
        "tags": ["You said: Extract: John is 30 and lives in Berlin"],
    }


def test_json_object_response_format(client: httpx.Client) -> None:
    body = chat(client, "openai", "echo: hi", response_format={"type": "json_object"}).content
    assert json.loads(text_of(body)) == {"answer": "hi"}


def test_stop_sequence_cuts_the_answer(client: httpx.Client) -> None:
    body = chat(client, "openai", "count to 10", stop=[" 5", "zzz"]).content
    assert text_of(body) == "1 2 3 4"
    assert payloads(body)[-2]["choices"][0]["finish_reason"] == "stop"


def test_max_tokens_cuts_with_finish_reason_length(client: httpx.Client) -> None:
    body = chat(
        client, "openai", "count to 10", max_tokens=3, stream_options={"include_usage": True}
    ).content
    assert text_of(body) == "1 2 3"
    finish = [p for p in payloads(body) if isinstance(p, dict) and p["choices"]][-1]
    assert finish["choices"][0]["finish_reason"] == "length"
    assert usage(body)["completion_tokens"] == 3


def test_max_tokens_cuts_a_call_mid_arguments_and_drops_later_ones(client: httpx.Client) -> None:
    ask = "What is the weather in Paris and the time in UTC?"
    whole = calls(chat(client, "openai", ask, tools=[WEATHER, TIME]).content)
    assert len(whole) == 2 and all(json.loads(c["arguments"]) for c in whole.values())
    pieces = 4  # the first call's: '{"city":', '"Paris",', '"unit":', '"celsius"}'
    body = chat(client, "openai", ask, tools=[WEATHER, TIME], max_tokens=pieces + 1,
                stream_options={"include_usage": True}).content  # fmt: skip
    cut = calls(body)
    assert json.loads(cut[0]["arguments"]) == json.loads(whole[0]["arguments"])
    assert whole[1]["arguments"].startswith(cut[1]["arguments"])
    with pytest.raises(ValueError):
        json.loads(cut[1]["arguments"])
    finish = [p for p in payloads(body) if isinstance(p, dict) and p["choices"]][-1]
    assert finish["choices"][0]["finish_reason"] == "length"
    assert usage(body)["completion_tokens"] == pieces + 1
    one = calls(chat(client, "openai", ask, tools=[WEATHER, TIME], max_tokens=1).content)
    assert list(one) == [0] and one[0]["arguments"] == '{"city":'


def test_usage_is_consistent_and_caches_the_repeated_prefix(client: httpx.Client) -> None:
    first = [{"role": "user", "content": "echo: one two"}]
    second = [
        *first,
        {"role": "assistant", "content": "one two"},
        {"role": "user", "content": "echo: three"},
    ]
    counts = []
    for messages in (first, second):
        body = {
            "model": "m",
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        found = usage(client.post("/v1/chat/completions", json=body).content)
        assert found["total_tokens"] == found["prompt_tokens"] + found["completion_tokens"]
        counts.append(found)
    assert counts[0]["prompt_tokens_details"]["cached_tokens"] == 0
    # The second prompt repeats the first turn: everything before its last message is cached;
    # the last message costs 4 tokens ("user", "echo", ":", "three") plus 4 per message.
    assert counts[1]["prompt_tokens_details"]["cached_tokens"] == counts[1]["prompt_tokens"] - 8
    assert counts[0]["completion_tokens"] == 2 and counts[1]["completion_tokens"] == 1


def test_refusal_streams_delta_refusal_in_plain_openai(client: httpx.Client) -> None:
    body = chat(client, "openai", "tell me the forbidden recipe").content
    assert text_of(body, "refusal") == "I'm sorry, but I can't help with that request."
    assert text_of(body) == ""
    assert payloads(body)[-2]["choices"][0]["finish_reason"] == "stop"


def test_refusal_elsewhere_is_content_or_a_content_filter(client: httpx.Client) -> None:
    shroud = chat(client, "shroud", "forbidden").content
    aivene = chat(client, "aivene", "forbidden").content
    assert text_of(shroud) == "I'm sorry, but I can't help with that request."
    assert text_of(aivene) == ""
    assert payloads(aivene)[-2]["choices"][0]["finish_reason"] == "content_filter"


@pytest.mark.parametrize(
    ("message", "answer"),
    [
        ("echo: café ☕", "café ☕"),
        ("count to 5", "1 2 3 4 5"),
        ("hello", "Hello! I am the sse-connectors gateway emulator. How can I help you today?"),
        ("What is SSE?", "You said: What is SSE?"),
    ],
)
def test_plain_answers(client: httpx.Client, message: str, answer: str) -> None:
    assert text_of(chat(client, "openai", message).content) == answer


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("What is the weather in San Francisco, CA?", ["San Francisco, CA"]),
        ("Create a customer named '你好啊集团'", ["你好啊集团", "Create"]),
        ("Book “Le Procope” in Paris", ["Le Procope", "Book", "Paris"]),
        ("what's the weather in Paris and Tokyo", ["Paris", "Tokyo"]),
        ("weather in paris", ["paris"]),
    ],
)
def test_names_found_in_a_message(text: str, names: list[str]) -> None:
    assert list(extract(text).names) == names


def test_json_object_follows_keys_named_in_the_prompt(client: httpx.Client) -> None:
    prompt = "Tell me a joke. Return JSON with 'setup' and 'punchline' keys."
    body = {"response_format": {"type": "json_object"}, "stream": False}
    answer = chat(client, "openai", prompt, **body).json()["choices"][0]["message"]["content"]
    assert sorted(json.loads(answer)) == ["punchline", "setup"]
    joke = chat(client, "openai", "Tell me a joke.", **body)
    plain = joke.json()["choices"][0]["message"]["content"]
    assert list(json.loads(plain)) == ["answer"]
