"""Both adapters send the same Messages request for the same conversation and settings
(``protocol="anthropic"``): the request rules are the core's, so a body that differs by
adapter is a rule one adapter holds apart. Each case is a conversation (neutral turns the
drivers spell each framework's way), the model's settings and the tools offered; the body
is the JSON each adapter sent, captured by a recording transport."""

from __future__ import annotations

import json
import warnings
from typing import Any

import httpx
import pytest

from tests.adapters.conftest import DRIVERS

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/ABC=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
    "rkJggg=="
)
THINK = {"type": "enabled", "budget_tokens": 1024}


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


SYSTEM = {"role": "system", "text": "Be terse."}
ASK = "What is the weather in Paris?"
IMAGES = {"role": "user", "text": "What is this?",
          "images": [("image/png", PNG), "https://example.org/cat.png"]}  # fmt: skip
ASSISTANT = {
    "role": "assistant",
    "thinking": [
        {"type": "thinking", "thinking": "Let me check.\n", "signature": SIGNATURE},
        {"type": "redacted_thinking", "data": REDACTED},
    ],
    "text": "Checking.",
    "calls": [("toolu_a", "get_weather", {"city": "Paris"}), ("toolu_b", "add", {"a": 2, "b": 3})],
}
RESULTS = [
    {"role": "tool", "id": "toolu_a", "text": "18 C"},
    {"role": "tool", "id": "toolu_b", "text": "no such tool", "error": True},
]
LOOP = [SYSTEM, ASK, ASSISTANT, *RESULTS, "thanks"]
TOOLS = (get_weather, add)

#: id: (conversation, settings, tools, how they are offered)
CASES: dict[str, tuple[Any, dict[str, Any], tuple[Any, ...], dict[str, Any]]] = {
    "user-text": ("hi", {}, (), {}),
    "system": ([SYSTEM, "hi"], {}, (), {}),
    "two-systems": ([SYSTEM, {"role": "system", "text": "Be kind."}, "hi"], {}, (), {}),
    "images": ([IMAGES], {}, (), {}),
    "tool-loop": (LOOP, {}, TOOLS, {"parallel": True}),
    "stop-sequences": ("count", {"stop": ["7", "END"]}, (), {}),
    "temperature": ("hi", {"temperature": 0.3, "max_tokens": 200}, (), {}),
    "thinking": ("hi", {"thinking": THINK}, (), {}),
    "thinking-max-tokens": ("hi", {"thinking": THINK, "max_tokens": 5000}, (), {}),
    "thinking-loop": (LOOP, {"thinking": THINK}, TOOLS, {"parallel": True}),
    "tools-no-choice": (ASK, {}, TOOLS, {"parallel": True}),
    "parallel-off": (ASK, {}, TOOLS, {"parallel": False}),
    "choice-auto": (ASK, {}, TOOLS, {"tool_choice": "auto", "parallel": True}),
    "choice-required": (ASK, {}, TOOLS, {"tool_choice": "required", "parallel": True}),
    "choice-any": (ASK, {}, TOOLS, {"tool_choice": "any", "parallel": True}),
    "choice-none": (ASK, {}, TOOLS, {"tool_choice": "none", "parallel": True}),
    "choice-name": (ASK, {}, TOOLS, {"tool_choice": "get_weather", "parallel": True}),
    "choice-openai": (
        ASK,
        {},
        TOOLS,
        {"tool_choice": {"type": "function", "function": {"name": "add"}}, "parallel": True},
    ),
    "choice-anthropic": (
        ASK,
        {},
        TOOLS,
        {"tool_choice": {"type": "tool", "name": "add"}, "parallel": True},
    ),
    "choice-name-parallel-off": (ASK, {}, TOOLS, {"tool_choice": "get_weather", "parallel": False}),
    "thinking-choice-required": (
        ASK,
        {"thinking": THINK},
        TOOLS,
        {"tool_choice": "required", "parallel": True},
    ),
    "reasoning-effort": ("hi", {"reasoning_effort": "low"}, (), {}),
}

#: What Anthropic sends back for any request: a short answer.
REPLY = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    b'"model":"claude","usage":{"input_tokens":1}}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)


def sent(name: str, case: str) -> tuple[dict[str, Any], list[str]]:
    """The request body the ``name`` adapter sent for ``case``, and the warnings it gave
    (a setting the API refuses is mended with a warning)."""
    prompt, settings, tools, offer = CASES[case]
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=REPLY)

    driver = DRIVERS[name]
    model = driver.make(model="claude", base_url="http://gw.test", api_key="k",
                        protocol="anthropic", max_retries=0,
                        http_client=httpx.Client(transport=httpx.MockTransport(reply)),
                        **settings)  # fmt: skip
    with warnings.catch_warnings(record=True) as given:
        warnings.simplefilter("always")
        driver.answer(model, "ask", prompt, tools, **dict(offer))
    (request,) = seen
    body = json.loads(request.content)
    assert isinstance(body, dict)
    # A ResourceWarning is the collector finding some earlier test's socket, not this call's.
    said = [w for w in given if not issubclass(w.category, ResourceWarning)]
    return rules(body), [str(warning.message) for warning in said]


def rules(body: dict[str, Any]) -> dict[str, Any]:
    """The body with each tool as its name, parameters and required ones: how a Python
    function becomes a JSON schema and a description is each framework's own (LlamaIndex's
    FunctionTool keeps pydantic's titles and starts the description with the signature)."""
    tools = [
        (t["name"], sorted(t["input_schema"]["properties"]), t["input_schema"].get("required"))
        for t in body.get("tools", [])
    ]
    return body | ({"tools": tools} if tools else {})


@pytest.mark.parametrize("case", sorted(CASES))
def test_both_adapters_send_the_same_body(case: str) -> None:
    assert sent("ChatSSE", case) == sent("SSELLM", case)
