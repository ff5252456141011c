"""The ``responses`` dialect over real loopback HTTP: OpenAI's Responses stream, exactly.

Each stream is read with the tests' own event reader (``emu_wire``), for the exact frames,
and assembled by :func:`read`, a small reader of the Responses events written here from
the API reference (never the decoder's code: the emulator's tests import no decoder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from sse_emulator import Emulator
from tests.emulator.emu_wire import events

PATH = "/v1/responses"
HEADERS = {"Authorization": "Bearer sk-test"}
FAULT = "X-Emulator-Fault"
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the weather for a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
THINK: dict[str, Any] = {"reasoning": {"effort": "low", "summary": "auto"}}


def body_of(prompt: Any = "echo: Hello there", **fields: Any) -> dict[str, Any]:
    return {"model": "gpt-5-emulated", "input": prompt, "stream": True} | fields


def post(
    client: httpx.Client,
    prompt: Any = "echo: Hello there",
    *,
    fault: str | None = None,
    **fields: Any,
) -> httpx.Response:
    headers = HEADERS | ({FAULT: fault} if fault else {})
    return client.post(PATH, json=body_of(prompt, **fields), headers=headers)


def typed(body: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    """Each event's name and its JSON data; the name always equals the data's type."""
    found = [(e.event, e.json()) for e in events(body) if e.text != "[DONE]"]
    assert all(name == data["type"] for name, data in found), found
    return found


def names(body: bytes) -> list[str | None]:
    return [name for name, _ in typed(body)]


@dataclass
class Call:
    call_id: str = ""
    name: str = ""
    arguments: str = ""
    done: str | None = None


@dataclass
class Read:
    """What a Responses stream said, assembled per ``output_index``."""

    text: dict[int, str] = field(default_factory=dict)
    refusal: str = ""
    reasoning: str = ""
    calls: dict[int, Call] = field(default_factory=dict)
    items: dict[int, dict[str, Any]] = field(default_factory=dict)
    response: dict[str, Any] | None = None
    terminal: str | None = None
    error: dict[str, Any] | None = None

    @property
    def content(self) -> str:
        return "".join(self.text[i] for i in sorted(self.text))


def read(body: bytes) -> Read:
    """Assemble a Responses stream from its events, as the API reference describes them."""
    found = Read()
    for _, data in typed(body):
        kind, index = data["type"], data.get("output_index", -1)
        if kind == "response.output_text.delta":
            found.text[index] = found.text.get(index, "") + data["delta"]
        elif kind == "response.refusal.delta":
            found.refusal += data["delta"]
        elif kind == "response.reasoning_summary_text.delta":
            found.reasoning += data["delta"]
        elif kind == "response.output_item.added" and data["item"]["type"] == "function_call":
            item = data["item"]
            found.calls[index] = Call(call_id=item["call_id"], name=item["name"])
        elif kind == "response.function_call_arguments.delta":
            found.calls[index].arguments += data["delta"]
        elif kind == "response.function_call_arguments.done":
            found.calls[index].done = data["arguments"]
        elif kind == "response.output_item.done":
            found.items[index] = data["item"]
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            found.response, found.terminal = data["response"], kind
        elif kind == "error":
            found.error, found.terminal = data, kind
    return found


def test_a_text_answer_streams_as_the_api_sends_it(client: httpx.Client) -> None:
    response = post(client)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["x-request-id"].startswith("req_")
    assert names(response.content) == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    found = typed(response.content)
    assert [data["sequence_number"] for _, data in found] == list(range(len(found)))
    assert b"[DONE]" not in response.content
    created = found[0][1]["response"]
    assert created["status"] == "in_progress" and created["output"] == []
    assert created["usage"] is None and created["object"] == "response"
    added = found[2][1]["item"]
    assert added["type"] == "message" and added["status"] == "in_progress"
    assert added["content"] == [] and added["role"] == "assistant"
    delta = found[4][1]
    assert delta["item_id"] == added["id"] and delta["content_index"] == 0
    assert delta["logprobs"] == [] and delta["obfuscation"]
    answer = read(response.content)
    assert answer.content == "Hello there"
    final = answer.response
    assert final is not None and final["status"] == "completed"
    assert final["id"].startswith("resp_") and final["id"] == created["id"]
    assert final["incomplete_details"] is None and final["error"] is None
    assert final["output"] == [answer.items[0]]
    part = answer.items[0]["content"][0]
    assert part == {"type": "output_text", "annotations": [], "logprobs": [], "text": "Hello there"}
    usage = final["usage"]
    assert usage["output_tokens"] == 2 and usage["output_tokens_details"]["reasoning_tokens"] == 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    assert usage["input_tokens_details"] == {"cached_tokens": 0}


def test_reasoning_streams_its_summary_and_seals_it_when_asked(client: httpx.Client) -> None:
    include = ["reasoning.encrypted_content"]
    response = post(client, "What is up?", include=include, store=False, **THINK)
    seen = names(response.content)
    assert seen[2:5] == [
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
    ]
    at = seen.index("response.reasoning_summary_text.done")
    assert seen[at : at + 3] == [
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
    ]
    found = typed(response.content)
    assert "encrypted_content" not in found[2][1]["item"]
    answer = read(response.content)
    reasoning = answer.items[0]
    assert reasoning["type"] == "reasoning" and reasoning["id"].startswith("rs_")
    assert reasoning["summary"] == [{"type": "summary_text", "text": answer.reasoning}]
    assert reasoning["encrypted_content"].startswith("gAAAAA")
    assert answer.content == "You said: What is up?"
    assert answer.response is not None
    assert answer.response["output"][0] == reasoning
    assert answer.response["reasoning"] == {"effort": "low", "summary": "auto"}
    deltas = seen.count("response.reasoning_summary_text.delta")
    assert answer.response["usage"]["output_tokens_details"]["reasoning_tokens"] == deltas


def test_reasoning_without_a_summary_is_an_empty_item_and_none_is_no_reasoning(
    client: httpx.Client,
) -> None:
    quiet = read(post(client, reasoning={"effort": "medium"}).content)
    assert quiet.items[0] == {"id": quiet.items[0]["id"], "type": "reasoning", "summary": []}
    assert quiet.response is not None
    assert quiet.response["usage"]["output_tokens_details"]["reasoning_tokens"] > 0
    choices: list[dict[str, Any]] = [{"reasoning": {"effort": "none"}}, {}]
    for fields in choices:
        plain = read(post(client, **fields).content)
        assert [item["type"] for item in plain.items.values()] == ["message"]


def test_function_calls_stream_by_output_index(client: httpx.Client) -> None:
    response = post(client, "weather in Paris and Tokyo", tools=[WEATHER])
    answer = read(response.content)
    assert [item["type"] for item in answer.items.values()] == ["function_call"] * 2
    assert [json.loads(call.arguments) for call in answer.calls.values()] == [
        {"city": "Paris"},
        {"city": "Tokyo"},
    ]
    for index, call in answer.calls.items():
        assert call.done == call.arguments and call.name == "get_weather"
        assert call.call_id.startswith("call_")
        item = answer.items[index]
        assert item["call_id"] == call.call_id and item["arguments"] == call.arguments
        assert item["id"].startswith("fc_") and item["status"] == "completed"
    added = [d for n, d in typed(response.content) if n == "response.output_item.added"]
    assert added[0]["item"]["arguments"] == "" and added[0]["item"]["status"] == "in_progress"
    done = [d for n, d in typed(response.content) if n == "response.function_call_arguments.done"]
    assert done[0]["name"] == "get_weather"
    single = read(
        post(
            client, "weather in Paris and Tokyo", tools=[WEATHER], parallel_tool_calls=False
        ).content
    )
    assert len(single.calls) == 1


def test_a_tool_loop_answers_from_the_function_call_output(client: httpx.Client) -> None:
    first = read(post(client, "What is the weather in Paris?", tools=[WEATHER]).content)
    call = first.items[0]
    turn = [
        {"role": "user", "content": "What is the weather in Paris?"},
        call,
        {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny, 21 C"},
    ]
    answer = read(post(client, turn, tools=[WEATHER]).content)
    assert answer.content == "Based on the tool results: get_weather returned Sunny, 21 C."


def test_structured_output_fills_the_json_schema(client: httpx.Client) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city", "days"],
    }
    text = {"format": {"type": "json_schema", "name": "trip", "schema": schema, "strict": True}}
    answer = read(post(client, "A trip to Paris for 3 days", text=text).content)
    assert json.loads(answer.content) == {"city": "Paris", "days": 3}
    assert answer.response is not None and answer.response["text"] == text


def test_max_output_tokens_ends_with_response_incomplete(client: httpx.Client) -> None:
    response = post(client, "count to 40", max_output_tokens=16)
    answer = read(response.content)
    assert answer.terminal == "response.incomplete"
    assert answer.response is not None
    assert answer.response["status"] == "incomplete"
    assert answer.response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert answer.content == " ".join(str(n) for n in range(1, 17))
    assert answer.items[0]["status"] == "incomplete"
    assert answer.response["usage"]["output_tokens"] == 16


def test_a_refusal_is_a_refusal_part(client: httpx.Client) -> None:
    response = post(client, "tell me something forbidden")
    seen = names(response.content)
    assert "response.refusal.delta" in seen and "response.refusal.done" in seen
    answer = read(response.content)
    assert answer.refusal == "I'm sorry, but I can't help with that request."
    assert answer.items[0]["content"] == [{"type": "refusal", "refusal": answer.refusal}]


def test_without_stream_the_whole_response_object_comes_back(client: httpx.Client) -> None:
    streamed = read(post(client, "weather in Paris", tools=[WEATHER], **THINK).content)
    whole = client.post(
        PATH,
        json={"model": "gpt-5-emulated", "input": "weather in Paris", "tools": [WEATHER]} | THINK,
        headers=HEADERS,
    )
    assert whole.status_code == 200 and whole.headers["content-type"] == "application/json"
    assert whole.json() == streamed.response


def test_previous_response_id_continues_a_stored_response(client: httpx.Client) -> None:
    first = read(post(client, "What is the weather in Paris?", tools=[WEATHER]).content)
    assert first.response is not None
    call = first.items[0]
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "Rain"}
    second = read(
        post(client, [output], tools=[WEATHER], previous_response_id=first.response["id"]).content
    )
    assert second.content == "Based on the tool results: get_weather returned Rain."
    assert second.response is not None
    assert second.response["previous_response_id"] == first.response["id"]
    assert second.response["usage"]["input_tokens_details"]["cached_tokens"] > 0


def test_the_same_request_gives_the_same_bytes(client: httpx.Client) -> None:
    body: dict[str, Any] = {"tools": [WEATHER], **THINK}
    assert (
        post(client, "weather in Paris", **body).content
        == post(client, "weather in Paris", **body).content
    )


def test_no_obfuscation_when_the_stream_options_say_so(client: httpx.Client) -> None:
    options = {"include_obfuscation": False}
    response = post(client, stream_options=options)
    assert all("obfuscation" not in data for _, data in typed(response.content))


def test_routing_keeps_every_protocol_apart(client: httpx.Client, emulator: Emulator) -> None:
    assert emulator.base_url("responses") == emulator.url + "/v1"
    assert client.get("/_emulator/health").json()["dialects"]["responses"] == "/v1"
    chat = client.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "echo: hi"}]},
    )
    assert chat.json()["object"] == "chat.completion"
    assert post(client).status_code == 200
    assert client.get(PATH).status_code == 405
    assert client.post("/shroud/v1/responses", json=body_of()).status_code == 404
    assert [r.dialect for r in emulator.requests] == ["openai", "responses", "responses", None]


def test_a_wrong_key_is_openai_s_401() -> None:
    with Emulator(api_key="sk-right") as emu, httpx.Client(base_url=emu.url, timeout=5.0) as http:
        wrong = http.post(PATH, json=body_of(), headers={"Authorization": "Bearer sk-wrong"})
        right = http.post(PATH, json=body_of(), headers={"Authorization": "Bearer sk-right"})
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "invalid_api_key"
    assert set(wrong.json()["error"]) == {"message", "type", "param", "code"}
    assert right.status_code == 200
