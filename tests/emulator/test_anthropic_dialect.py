"""The ``anthropic`` dialect over real loopback HTTP: Anthropic's Messages wire, exactly.

Each stream is read with the tests' own event reader (``emu_wire``), for the exact frames,
and assembled by :func:`read`, a small reader of the Messages events written here from the
API's documentation (never the decoder's code: the emulator's tests import no decoder).
``tests/e2e/test_anthropic_emulator.py`` checks what the core's decoder makes of it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from tests.emulator.emu_wire import Event, events

PATH = "/anthropic/v1/messages"
HEADERS = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"}
WEATHER = {
    "name": "get_weather",
    "description": "Get the weather for a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
TIME = {
    "name": "get_time",
    "description": "Get the time in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def body_of(content: Any = "echo: Hello there", **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "claude-emulated",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": content}],
        "stream": True,
    }
    return body | fields


def post(
    client: httpx.Client,
    content: Any = "echo: Hello there",
    *,
    headers: dict[str, str] | None = None,
    path: str = PATH,
    **fields: Any,
) -> httpx.Response:
    return client.post(path, json=body_of(content, **fields), headers=HEADERS | (headers or {}))


def typed(response: httpx.Response) -> list[tuple[str | None, dict[str, Any]]]:
    """Each event's name and its JSON data; the name always equals the data's type."""
    found = [(e.event, e.json()) for e in events(response.content)]
    assert all(name == data["type"] for name, data in found)
    return found


def names(response: httpx.Response) -> list[str | None]:
    return [name for name, _ in typed(response)]


def deltas(response: httpx.Response, kind: str) -> list[dict[str, Any]]:
    return [
        data["delta"]
        for name, data in typed(response)
        if name == "content_block_delta" and data["delta"]["type"] == kind
    ]


@dataclass
class ToolUse:
    id: str
    name: str
    arguments: str


@dataclass
class Thinking:
    text: str = ""
    signature: str | None = None
    redacted: str | None = None


@dataclass
class Read:
    """A Messages stream assembled from its events: blocks by index, usage last-wins."""

    id: str | None = None
    model: str | None = None
    blocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    stop_reason: str | None = None
    stop_sequence: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    done: bool = False
    error: dict[str, Any] | None = None
    others: list[str] = field(default_factory=list)

    def _of(self, kind: str) -> list[dict[str, Any]]:
        return [self.blocks[i] for i in sorted(self.blocks) if self.blocks[i]["type"] == kind]

    @property
    def content(self) -> str:
        return "".join(block["text"] for block in self._of("text"))

    @property
    def reasoning(self) -> str:
        return "".join(block["thinking"] for block in self._of("thinking"))

    @property
    def reasoning_blocks(self) -> list[Thinking]:
        return [
            Thinking(redacted=b["data"])
            if b["type"] == "redacted_thinking"
            else Thinking(text=b["thinking"], signature=b["signature"])
            for b in (self.blocks[i] for i in sorted(self.blocks))
            if b["type"] in ("thinking", "redacted_thinking")
        ]

    @property
    def tool_calls(self) -> list[ToolUse]:
        return [ToolUse(b["id"], b["name"], b["partial_json"]) for b in self._of("tool_use")]

    def take(self, data: dict[str, Any]) -> None:
        kind = data["type"]
        if kind == "message_start":
            message = data["message"]
            self.id, self.model = message["id"], message["model"]
            for i, block in enumerate(message["content"]):
                self.blocks[i] = block | _arguments(block, json.dumps(block.get("input")))
            self.stop_reason = message["stop_reason"]
            self.usage |= message["usage"]
        elif kind == "content_block_start":
            block = data["content_block"]
            self.blocks[data["index"]] = block | _arguments(block, "")
        elif kind == "content_block_delta":
            self._delta(self.blocks[data["index"]], data["delta"])
        elif kind == "message_delta":
            self.stop_reason = data["delta"]["stop_reason"]
            self.stop_sequence = data["delta"]["stop_sequence"]
            self.usage |= data["usage"]
        elif kind in ("message_stop", "error"):
            self.done, self.error = True, data.get("error")
        elif kind not in ("ping", "content_block_stop"):
            self.others.append(kind)

    @staticmethod
    def _delta(block: dict[str, Any], delta: dict[str, Any]) -> None:
        key = {
            "text_delta": "text",
            "thinking_delta": "thinking",
            "signature_delta": "signature",
            "input_json_delta": "partial_json",
        }[delta["type"]]
        block[key] = block.get(key, "") + delta[key]


def _arguments(block: dict[str, Any], start: str) -> dict[str, Any]:
    return {"partial_json": start} if block["type"] == "tool_use" else {}


def read(body: bytes) -> Read:
    """Assemble a Messages stream (any line ending, a BOM, comments, unnamed frames).

    Raises:
        ValueError: An event's data is not JSON.
    """
    text = body.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    found = Read()
    for event in events(text):
        if event.data:
            data = json.loads(event.text)
            found.take(data if "type" in data else {"type": event.event} | data)
    return found


def decoded(response: httpx.Response) -> Read:
    assert response.status_code == 200, response.text
    return read(response.content)


def test_a_text_answer_is_anthropic_s_event_sequence(client: httpx.Client) -> None:
    response = post(client)
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert re.fullmatch(r"req_011[0-9A-Za-z]{21}", response.headers["request-id"])
    assert names(response) == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert b'event: ping\ndata: {"type": "ping"}\n\n' in response.content
    (_, start), (_, block) = typed(response)[:2]
    message = start["message"]
    assert re.fullmatch(r"msg_01[0-9A-Za-z]{22}", message["id"])
    assert (message["type"], message["role"], message["model"]) == (
        "message",
        "assistant",
        "claude-emulated",
    )
    assert (message["content"], message["stop_reason"], message["stop_sequence"]) == (
        [],
        None,
        None,
    )
    assert block == {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    assert [d["text"] for d in deltas(response, "text_delta")] == ["Hello", " there"]
    completion = decoded(response)
    assert (completion.content, completion.stop_reason, completion.stop_sequence) == (
        "Hello there",
        "end_turn",
        None,
    )
    assert (completion.id, completion.model, completion.done) == (
        message["id"],
        "claude-emulated",
        True,
    )


def test_usage_comes_in_message_start_and_cumulative_in_message_delta(
    client: httpx.Client,
) -> None:
    response = post(client, "count to 7")
    found = dict(typed(response))
    start = found["message_start"]["message"]["usage"]
    final = found["message_delta"]
    assert start["input_tokens"] > 0 and start["output_tokens"] == 1
    assert (start["cache_creation_input_tokens"], start["cache_read_input_tokens"]) == (0, 0)
    assert final["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert final["usage"] == {
        "input_tokens": start["input_tokens"],
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 7,  # every text delta so far, not an increment
    }
    usage = decoded(response).usage
    assert (usage["input_tokens"], usage["output_tokens"]) == (start["input_tokens"], 7)


def test_cache_control_reports_cache_reads_and_writes(client: httpx.Client) -> None:
    turns = [
        {"role": "user", "content": "hello there, how are you today?"},
        {"role": "assistant", "content": "Fine, thanks for asking."},
        {"role": "user", "content": [{"type": "text", "text": "echo: again"}]},
    ]
    system = [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
    cached = post(client, messages=turns, system=system)
    plain = post(client, messages=turns, system="You are terse.")
    start = dict(typed(cached))["message_start"]["message"]["usage"]
    plain_start = dict(typed(plain))["message_start"]["message"]["usage"]
    read, write = start["cache_read_input_tokens"], start["cache_creation_input_tokens"]
    assert read > 0 and write > 0 and start["input_tokens"] > 0
    assert start["cache_creation"]["ephemeral_5m_input_tokens"] == write
    assert start["input_tokens"] + read + write == plain_start["input_tokens"]
    usage = decoded(cached).usage
    assert (usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]) == (read, write)
    assert decoded(cached).content == decoded(plain).content == "again"


@pytest.mark.parametrize(
    ("fields", "model"),
    [
        ({"thinking": {"type": "enabled", "budget_tokens": 2048}}, "claude-emulated"),
        ({}, "claude-think"),  # a think model reasons unasked, as in every dialect
    ],
)
def test_thinking_streams_a_signed_block_first(
    client: httpx.Client, fields: dict[str, Any], model: str
) -> None:
    response = post(client, "echo: done", model=model, **fields)
    found = typed(response)
    starts = [d["content_block"]["type"] for n, d in found if n == "content_block_start"]
    assert starts == ["thinking", "text"]
    thinking = [d for n, d in found if n == "content_block_delta" and d["index"] == 0]
    assert [d["delta"]["type"] for d in thinking[-1:]] == ["signature_delta"]
    assert len(thinking) > 2 and all(d["delta"]["type"] == "thinking_delta" for d in thinking[:-1])
    signature = thinking[-1]["delta"]["signature"]
    after_signature = found[found.index(("content_block_delta", thinking[-1])) + 1]
    assert after_signature == ("content_block_stop", {"type": "content_block_stop", "index": 0})
    completion = decoded(response)
    reasoning = "".join(d["delta"]["thinking"] for d in thinking[:-1])
    assert completion.reasoning == reasoning and reasoning
    assert [(b.text, b.signature) for b in completion.reasoning_blocks] == [(reasoning, signature)]
    assert completion.content == "done"


def test_thinking_disabled_wins_over_a_think_model(client: httpx.Client) -> None:
    response = post(client, "echo: x", model="claude-think", thinking={"type": "disabled"})
    assert deltas(response, "thinking_delta") == []
    assert decoded(response).reasoning == ""


def test_tool_use_blocks_stream_their_input_in_several_pieces(client: httpx.Client) -> None:
    response = post(client, "What is the weather in Paris and Tokyo?", tools=[WEATHER])
    found = typed(response)
    heads = [d["content_block"] for n, d in found if n == "content_block_start"]
    assert [(h["type"], h["name"], h["input"]) for h in heads] == [
        ("tool_use", "get_weather", {}),
        ("tool_use", "get_weather", {}),
    ]
    assert all(re.fullmatch(r"toolu_01[0-9A-Za-z]{22}", h["id"]) for h in heads)
    for index, city in enumerate(("Paris", "Tokyo")):
        pieces = [
            d["delta"]["partial_json"]
            for n, d in found
            if n == "content_block_delta" and d["index"] == index
        ]
        assert pieces[0] == "" and len([p for p in pieces if p]) >= 2
        assert json.loads("".join(pieces)) == {"city": city}
    assert dict(found)["message_delta"]["delta"]["stop_reason"] == "tool_use"
    completion = decoded(response)
    assert [(c.id, c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [
        (heads[0]["id"], "get_weather", {"city": "Paris"}),
        (heads[1]["id"], "get_weather", {"city": "Tokyo"}),
    ]
    assert completion.stop_reason == "tool_use"


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "any"}, ["get_weather"]),
        ({"type": "tool", "name": "get_time"}, ["get_time"]),
        ({"type": "none"}, []),
        ({"type": "auto", "disable_parallel_tool_use": True}, []),
    ],
)
def test_tool_choice(client: httpx.Client, choice: dict[str, Any], expected: list[str]) -> None:
    response = post(client, "echo: hi", tools=[WEATHER, TIME], tool_choice=choice)
    assert [c.name for c in decoded(response).tool_calls] == expected


def test_disable_parallel_tool_use_makes_one_call(client: httpx.Client) -> None:
    choice = {"type": "auto", "disable_parallel_tool_use": True}
    response = post(client, "weather in Paris and Tokyo", tools=[WEATHER], tool_choice=choice)
    assert [json.loads(c.arguments) for c in decoded(response).tool_calls] == [{"city": "Paris"}]


def test_a_tool_result_round_trip_is_answered_from_the_result(client: httpx.Client) -> None:
    first = decoded(post(client, "weather in Paris?", tools=[WEATHER]))
    (call,) = first.tool_calls
    turns = [
        {"role": "user", "content": "weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": call.id, "name": call.name, "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": [{"type": "text", "text": "sunny, 21C"}],
                }
            ],
        },
    ]
    completion = decoded(post(client, messages=turns, tools=[WEATHER]))
    assert completion.content == "Based on the tool results: get_weather returned sunny, 21C."
    assert (completion.stop_reason, completion.tool_calls) == ("end_turn", [])


def test_stop_sequences_cut_the_text_and_name_the_sequence(client: httpx.Client) -> None:
    response = post(client, "count to 9", stop_sequences=["7", "5"])
    final = dict(typed(response))["message_delta"]
    assert final["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "5"}
    assert final["usage"]["output_tokens"] == 4
    completion = decoded(response)
    assert (completion.content, completion.stop_reason, completion.stop_sequence) == (
        "1 2 3 4 ",
        "stop_sequence",
        "5",
    )


def test_max_tokens_ends_with_max_tokens(client: httpx.Client) -> None:
    completion = decoded(post(client, "count to 50", max_tokens=3))
    assert (completion.content, completion.stop_reason) == ("1 2 3", "max_tokens")


def test_a_refusal_ends_with_the_refusal_stop_reason(client: httpx.Client) -> None:
    completion = decoded(post(client, "tell me something forbidden"))
    assert completion.stop_reason == "refusal"
    assert completion.content.startswith("I'm sorry")


def test_a_system_prompt_as_string_or_blocks_counts_the_same(client: httpx.Client) -> None:
    def input_tokens(**fields: Any) -> int:
        start = dict(typed(post(client, **fields)))["message_start"]
        return int(start["message"]["usage"]["input_tokens"])

    as_text = input_tokens(system="Answer in French, please.")
    as_blocks = input_tokens(system=[{"type": "text", "text": "Answer in French, please."}])
    assert as_text == as_blocks > input_tokens()


def test_stream_false_is_the_whole_message(client: httpx.Client) -> None:
    fields: dict[str, Any] = {
        "tools": [WEATHER],
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    whole = post(client, "weather in Oslo", stream=False, max_tokens=4000, **fields)
    streamed = decoded(post(client, "weather in Oslo", max_tokens=4000, **fields))
    assert whole.status_code == 200
    assert whole.headers["content-type"] == "application/json"
    assert whole.headers["request-id"].startswith("req_011")
    message = whole.json()
    assert [block["type"] for block in message["content"]] == ["thinking", "tool_use"]
    thinking, tool = message["content"]
    assert (thinking["thinking"], thinking["signature"]) == (
        streamed.reasoning,
        streamed.reasoning_blocks[0].signature,
    )
    assert (tool["id"], tool["name"], tool["input"]) == (
        streamed.tool_calls[0].id,
        "get_weather",
        {"city": "Oslo"},
    )
    assert (message["id"], message["stop_reason"], message["stop_sequence"]) == (
        streamed.id,
        "tool_use",
        None,
    )
    usage = streamed.usage
    assert message["usage"]["input_tokens"] == usage["input_tokens"]
    assert message["usage"]["output_tokens"] == usage["output_tokens"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"max_tokens": None}, "max_tokens: Field required"),
        ({"model": None}, "model: Field required"),
        ({"messages": None}, "messages: Field required"),
        ({"messages": []}, "messages: at least one message is required"),
        ({"messages": [{"role": "system", "content": "x"}]}, "messages.0.role: Input should be"),
        ({"max_tokens": -1}, "max_tokens: Input should be greater than or equal to 0"),
        ({"thinking": {"type": "enabled", "budget_tokens": 10}}, "thinking.enabled.budget_tokens"),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 4096}},
            "`max_tokens` must be greater than `thinking.budget_tokens`",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
            "messages.0.content.0: Input tag 'image_url' found using 'type' does not match",
        ),
        (
            {"messages": [{"role": "user", "content": 5}]},
            "messages.0.content: Input should be a valid string or list",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "x"},
                            {
                                "type": "tool_result",
                                "tool_use_id": "t",
                                "content": [{"type": "file"}],
                            },
                        ],
                    }
                ]
            },
            "messages.0.content.1.content.0: Input tag 'file' found",
        ),
    ],
)
def test_a_bad_body_is_anthropic_s_invalid_request_error(
    client: httpx.Client, change: dict[str, Any], message: str
) -> None:
    body = body_of()
    for key, value in change.items():
        if value is None:
            del body[key]
        else:
            body[key] = value
    response = client.post(PATH, json=body, headers=HEADERS)
    assert_error(response, 400, "invalid_request_error", message)


def test_anthropic_version_is_required(client: httpx.Client) -> None:
    response = client.post(PATH, json=body_of(), headers={"x-api-key": "k"})
    assert_error(response, 400, "invalid_request_error", "anthropic-version: header is required")


def test_a_body_that_is_not_json_is_an_invalid_request(client: httpx.Client) -> None:
    response = client.post(PATH, content=b"{not json", headers=HEADERS)
    assert_error(response, 400, "invalid_request_error", "There was an error parsing the body")


def assert_error(response: httpx.Response, status: int, kind: str, message: str) -> None:
    """Anthropic's error body, its request id the same as the ``request-id`` header."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body == {
        "type": "error",
        "error": {"type": kind, "message": body["error"]["message"]},
        "request_id": response.headers["request-id"],
    }
    assert body["error"]["message"].startswith(message)
    assert response.headers["request-id"].startswith("req_011")


def test_the_key_is_checked_in_x_api_key_or_as_a_bearer_token() -> None:
    secret = "sk-ant-emulator-0123456789"
    with Emulator(api_key=secret) as emulator, httpx.Client(base_url=emulator.url) as http:
        version = {"anthropic-version": "2023-06-01"}
        body = body_of()
        ok = http.post(PATH, json=body, headers=version | {"x-api-key": secret})
        bearer = http.post(PATH, json=body, headers=version | {"authorization": f"Bearer {secret}"})
        wrong = http.post(PATH, json=body, headers=version | {"x-api-key": "sk-ant-wrong"})
        missing = http.post(PATH, json=body, headers=version)
        assert (ok.status_code, bearer.status_code) == (200, 200)
        assert_error(wrong, 401, "authentication_error", "invalid x-api-key")
        assert_error(missing, 401, "authentication_error", "invalid x-api-key")
        assert secret not in repr(emulator.requests)
        assert emulator.requests[0].header("x-api-key") == "***6789"


def test_the_root_and_the_prefix_serve_the_same_dialect(
    client: httpx.Client, emulator: Emulator
) -> None:
    root = post(client, path="/v1/messages")
    prefixed = post(client)
    assert decoded(root) == decoded(prefixed)
    assert [r.dialect for r in emulator.requests] == ["anthropic", "anthropic"]
    assert emulator.base_url("anthropic") == emulator.url + "/anthropic"
    assert client.get("/_emulator/health").json()["dialects"]["anthropic"] == "/anthropic"
    assert client.post("/anthropic/v1/chat/completions", json=body_of()).status_code == 404


def test_anthropic_is_not_a_default_dialect_for_chat_completions() -> None:
    with pytest.raises(ValueError, match="unknown dialect 'anthropic'"):
        Emulator(dialect="anthropic")


def test_the_event_reader_sees_every_frame_named(client: httpx.Client) -> None:
    found: list[Event] = events(post(client, "count to 3").content)
    assert all(e.event is not None and len(e.data) == 1 for e in found)


def test_the_magic_string_redacts_the_thinking(client: httpx.Client) -> None:
    content = "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECC"
    thinking: dict[str, Any] = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    response = post(client, content, **thinking)
    found = typed(response)
    (redacted,) = [d for n, d in found if n == "content_block_start" and d["index"] == 0]
    assert set(redacted["content_block"]) == {"type", "data"}
    assert redacted["content_block"]["type"] == "redacted_thinking"
    assert [d["index"] for n, d in found if n == "content_block_delta"] == [1] * len(
        deltas(response, "text_delta")
    )
    completion = decoded(response)
    assert [b.redacted for b in completion.reasoning_blocks] == [redacted["content_block"]["data"]]
    assert completion.reasoning == "" and completion.content.startswith("You said: ")
    whole = post(client, content, stream=False, **thinking).json()
    assert whole["content"][0] == redacted["content_block"]


def test_a_get_on_the_messages_path_is_an_anthropic_405(client: httpx.Client) -> None:
    response = client.get(PATH, headers=HEADERS)
    assert_error(response, 405, "invalid_request_error", "use POST")
