"""The Messages request both adapters send on ``protocol="anthropic"``: the path, the key in
``x-api-key`` (or a Bearer token), the settings in Anthropic's names, ``max_tokens`` by
default with room beside a thinking budget, system text on top, user turns merged, images,
signed and redacted thinking passed back byte-exact with the tool calls, tool results (an
error one flagged) in one user turn, and tool_choice in each shape. (How each framework's own
message and tool kinds map: tests/langchain/test_anthropic_outbound.py and
tests/llamaindex/test_anthropic_requests.py; that both adapters send the same body for the
same conversation: test_request_agreement.py.)"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from tests.adapters.conftest import Driver

KEY = "sk-ant-emulator-secret-key"
THINK = {"type": "enabled", "budget_tokens": 1024}
SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/ABC=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
    "rkJggg=="
)
REPLY = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    b'"model":"claude","usage":{"input_tokens":1}}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def on_messages(driver: Driver, emulator: Emulator, **fields: Any) -> Any:
    params: dict[str, Any] = {"model": "claude-emulated", "protocol": "anthropic",
                              "base_url": emulator.base_url("anthropic"), "api_key": KEY,
                              "timeout": 10.0, "max_retries": 0}  # fmt: skip
    return driver.make(**(params | fields))


def sent_over(driver: Driver, prompt: Any, tools: Any = (), *, fields: Any = None,
              **offer: Any) -> tuple[dict[str, Any], httpx.Request]:  # fmt: skip
    """The body and request ``driver``'s model sent for ``prompt``, over a recording
    transport answered with an empty message."""
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=REPLY)

    model = driver.make(model="claude-x", base_url="http://gateway.test", api_key=KEY,
                        protocol="anthropic", max_retries=0,
                        http_client=httpx.Client(transport=httpx.MockTransport(reply)),
                        **(fields or {}))  # fmt: skip
    driver.answer(model, "ask", prompt, tools, **offer)
    (request,) = seen
    return httpx.Response(200, content=request.content).json(), request


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


# -- what the gateway saw ----------------------------------------------------------------


def test_the_emulator_sees_a_messages_request(driver: Driver, emulator: Emulator) -> None:
    model = on_messages(driver, emulator, temperature=0.5, stop=["END"],
                        model_kwargs={"top_k": 5, "metadata": {"user_id": "u-1"}},
                        extra_body={"service_tier": "auto"})  # fmt: skip
    driver.answer(model, "ask", [{"role": "system", "text": "Be brief."}, "say hi"])
    record = emulator.last_request
    assert record is not None and record.status == 200
    assert record.path == "/anthropic/v1/messages"
    assert record.header("x-api-key") == "***" + KEY[-4:]  # (the record masks it)
    assert record.header("anthropic-version") == "2023-06-01"
    assert record.header("authorization") is None
    assert record.json() == {
        "model": "claude-emulated",
        "max_tokens": 1024,
        "temperature": 0.5,
        "stop_sequences": ["END"],
        "top_k": 5,
        "metadata": {"user_id": "u-1"},
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [text("say hi")]}],
        "service_tier": "auto",
        "stream": True,
    }


def test_with_thinking_the_settings_the_api_takes_are_sent(
    driver: Driver, emulator: Emulator
) -> None:
    model = on_messages(driver, emulator, max_tokens=2048, temperature=1.0, stop=["9"],
                        thinking=THINK, model_kwargs={"top_p": 0.97})  # fmt: skip
    driver.answer(model, "ask", "count to 3")
    record = emulator.last_request
    assert record is not None and record.status == 200
    assert record.json() == {
        "model": "claude-emulated",
        "max_tokens": 2048,
        "temperature": 1.0,
        "stop_sequences": ["9"],
        "thinking": THINK,
        "top_p": 0.97,  # within what the API takes with thinking on (top_k is not)
        "messages": [{"role": "user", "content": [text("count to 3")]}],
        "stream": True,
    }


def test_max_tokens_defaults_with_room_beside_a_thinking_budget(
    driver: Driver, emulator: Emulator
) -> None:
    driver.ask(on_messages(driver, emulator), "echo: hi")
    assert emulator.requests[-1].json()["max_tokens"] == 1024
    budget = {"type": "enabled", "budget_tokens": 2000}
    driver.ask(on_messages(driver, emulator, thinking=budget), "echo: hi")
    assert emulator.requests[-1].json()["max_tokens"] == 3024
    driver.ask(on_messages(driver, emulator, thinking=THINK, max_tokens=5000), "echo: hi")
    assert emulator.requests[-1].json()["max_tokens"] == 5000


def test_a_base_url_ending_in_v1_or_an_explicit_path_is_not_doubled(
    driver: Driver, emulator: Emulator
) -> None:
    url = emulator.base_url("anthropic")
    assert driver.ask(on_messages(driver, emulator, base_url=url + "/v1"), "echo: hi") == "hi"
    assert emulator.requests[-1].path == "/anthropic/v1/messages"  # not /v1/v1/messages
    assert driver.ask(on_messages(driver, emulator, path="/v1/messages"), "echo: hi") == "hi"
    assert emulator.requests[-1].path == "/anthropic/v1/messages"
    explicit = on_messages(driver, emulator, base_url=emulator.url, path="/v1/messages")
    assert driver.ask(explicit, "echo: hi") == "hi"
    assert emulator.requests[-1].path == "/v1/messages"


def test_the_key_is_sent_as_the_gateway_checks_it(driver: Driver) -> None:
    with Emulator(api_key=KEY) as guarded:
        assert driver.ask(on_messages(driver, guarded), "echo: hi") == "hi"  # x-api-key
        assert guarded.requests[-1].header("authorization") is None
        assert driver.ask(on_messages(driver, guarded, auth="bearer"), "echo: hi") == "hi"
        record = guarded.requests[-1]
        assert record.header("x-api-key") is None
        assert record.header("authorization") == "Bearer ***" + KEY[-4:]
        with pytest.raises(driver.error("AuthenticationError")):
            driver.ask(on_messages(driver, guarded, api_key="sk-wrong"))


def test_the_key_goes_in_x_api_key_byte_exact(driver: Driver) -> None:
    _, request = sent_over(driver, "hi")
    assert request.url == "http://gateway.test/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert "authorization" not in request.headers


# -- the conversation --------------------------------------------------------------------


def test_system_text_goes_on_top_and_user_turns_merge(driver: Driver) -> None:
    one, _ = sent_over(driver, [{"role": "system", "text": "Be terse."}, "one", "two"])
    assert one["system"] == "Be terse."
    assert one["messages"] == [{"role": "user", "content": [text("one"), text("two")]}]
    systems = [{"role": "system", "text": "be brief"}, {"role": "system", "text": "be kind"}]
    two, _ = sent_over(driver, [*systems, "hi"])
    assert two["system"] == [text("be brief"), text("be kind")]  # nothing joined
    none, _ = sent_over(driver, "hi")
    assert "system" not in none


def test_images_become_anthropic_image_sources(driver: Driver) -> None:
    asked = {"role": "user", "text": "what?", "images": [("image/png", PNG), "https://e.org/a.png"]}
    body, _ = sent_over(driver, [asked])
    assert body["messages"][0]["content"] == [
        text("what?"),
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": "https://e.org/a.png"}},
    ]


THINKING = {"type": "thinking", "thinking": "Let me check.\n", "signature": SIGNATURE}
ASSISTANT = {
    "role": "assistant",
    "thinking": [THINKING, {"type": "redacted_thinking", "data": REDACTED}],
    "text": "Checking.",
    "calls": [("toolu_a", "get_weather", {"city": "Paris"}), ("toolu_b", "add", {"a": 2, "b": 3})],
}
RESULTS = [
    {"role": "tool", "id": "toolu_a", "text": "18 C"},
    {"role": "tool", "id": "toolu_b", "text": "no such tool", "error": True},
]


@pytest.mark.parametrize("thinking", [None, THINK], ids=["plain", "thinking"])
def test_thinking_and_tool_calls_go_back_byte_exact_with_the_results(
    driver: Driver, thinking: Any
) -> None:
    loop = ["weather in Paris and add 2 and 3", ASSISTANT, *RESULTS, "thanks"]
    fields = {"thinking": thinking} if thinking else {}
    body, _ = sent_over(driver, loop, (get_weather, add), fields=fields, parallel=True)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        THINKING,
        {"type": "redacted_thinking", "data": REDACTED},
        text("Checking."),
        {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_b", "name": "add", "input": {"a": 2, "b": 3}},
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "18 C"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "no such tool",
         "is_error": True},
        text("thanks"),
    ]  # fmt: skip
    assert [tool["name"] for tool in body["tools"]] == ["get_weather", "add"]
    assert body["tools"][0]["input_schema"]["properties"]["city"]["type"] == "string"


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        (None, True, None),  # the API's default: not sent
        ("auto", True, None),
        ("required", True, {"type": "any"}),
        ("any", True, {"type": "any"}),
        ("none", True, {"type": "none"}),
        ("get_weather", True, {"type": "tool", "name": "get_weather"}),
        ({"type": "function", "function": {"name": "add"}}, True, {"type": "tool", "name": "add"}),
        ({"type": "tool", "name": "add"}, True, {"type": "tool", "name": "add"}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("none", False, {"type": "none"}),
        ("get_weather", False, {"type": "tool", "name": "get_weather",
                                "disable_parallel_tool_use": True}),
    ],
)  # fmt: skip
def test_tool_choice_in_anthropic_shape(
    driver: Driver, choice: Any, parallel: bool, expected: dict[str, Any] | None
) -> None:
    offer = {"parallel": parallel} | ({} if choice is None else {"tool_choice": choice})
    body, _ = sent_over(driver, "weather in Paris?", (get_weather, add), **offer)
    assert body.get("tool_choice") == expected


def test_max_tokens_reads_as_sent_and_follows_the_thinking_set_later(driver: Driver) -> None:
    """Both adapters show the max_tokens the protocol's rule fills in (1024 after thinking's
    budget), as ChatAnthropic and llama-index's Anthropic show theirs; while the field still
    holds it, the rule fills it for the thinking of the moment. A value the user gave is
    sent as given."""
    thinking = {"type": "enabled", "budget_tokens": 1024}
    model = driver.make(model="claude-x", base_url="http://gateway.test", api_key=KEY,
                        protocol="anthropic", thinking=thinking)  # fmt: skip
    assert model.max_tokens == 2048
    sent, _ = sent_over(driver, "hi", fields={"thinking": thinking})
    assert sent["max_tokens"] == 2048
    wider = {"type": "enabled", "budget_tokens": 4000}
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=REPLY)

    model = driver.make(model="claude-x", base_url="http://gateway.test", api_key=KEY,
                        protocol="anthropic", max_retries=0,
                        http_client=httpx.Client(transport=httpx.MockTransport(reply)))  # fmt: skip
    assert model.max_tokens == 1024
    setattr(model, driver.renamed.get("thinking", "thinking"), wider)  # set after construction
    driver.answer(model, "ask", "hi")
    assert httpx.Response(200, content=seen[-1].content).json()["max_tokens"] == 5024
    given, _ = sent_over(driver, "hi", fields={"thinking": thinking, "max_tokens": 3000})
    assert given["max_tokens"] == 3000
