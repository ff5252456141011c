"""The core's request rules and the emulator's checks, tested against one table: each request
the real API refuses is refused by the emulator (its 400), and the core, given the same
request, either refuses it before sending (a ConfigurationError naming what is wrong) or
mends it as the protocol's own client does into a body the emulator answers. So a request an
adapter builds is one the API accepts."""

from __future__ import annotations

import warnings
from typing import Any

import httpx
import pytest

from sse_core import ConfigurationError
from sse_core.protocols.anthropic import messages_body
from sse_core.protocols.chat_completions import chat_body
from sse_core.protocols.responses import responses_body
from sse_core.protocols.turns import TextPart, Turn
from sse_emulator import Emulator

ASK = [{"role": "user", "content": "hi"}]
CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
THINK = {"type": "enabled", "budget_tokens": 1024}
OPEN = {"type": "object", "properties": {"a": {"type": "string"}}}

#: id: (the chat request as the caller gives it, refused by the emulator as it is)
CHAT: dict[str, dict[str, Any]] = {
    "unknown-effort": {"model": "gpt-4o", "messages": ASK, "reasoning_effort": "maximum"},
    "effort-to-a-model-that-does-not-reason": {
        "model": "gpt-4.1",
        "messages": ASK,
        "reasoning_effort": "low",
    },
    "max-tokens-on-a-reasoning-model": {"model": "o3-mini", "messages": ASK, "max_tokens": 50},
    "orphan-tool-message": {
        "model": "gpt-4o",
        "messages": [*ASK, {"role": "tool", "tool_call_id": "call_9", "content": "1"}],
    },
    "tool-calls-without-their-tool-messages": {  # an interrupted answer, then a new question
        "model": "gpt-4o",
        "messages": [
            *ASK,
            {"role": "assistant", "content": "Let me see.", "tool_calls": [CALL]},
            *ASK,
        ],
    },
    "tool-message-for-another-call": {
        "model": "gpt-4o",
        "messages": [
            *ASK,
            {"role": "assistant", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_2", "content": "1"},
        ],
    },
}
#: id: (the Messages request's settings, given to the core's builder with one user turn)
MESSAGES: dict[str, dict[str, Any]] = {
    "forced-tool-with-thinking": {"thinking": THINK, "tools": [TOOL], "tool_choice": "required"},
    "temperature-with-thinking": {"thinking": THINK, "temperature": 0.2},
    "top-k-with-thinking": {"thinking": THINK, "top_k": 5},
    "low-top-p-with-thinking": {"thinking": THINK, "top_p": 0.5},
    "budget-below-the-floor": {"thinking": {"type": "enabled", "budget_tokens": 512}},
    "budget-not-below-max-tokens": {"thinking": THINK, "max_tokens": 1024},
    "open-object-in-the-format": {
        "output_config": {"format": {"type": "json_schema", "schema": OPEN}}
    },
    "temperature-above-one": {"temperature": 1.5},
    "forced-tool-without-its-name": {"tools": [TOOL], "tool_choice": {"type": "tool"}},
}


def _post(client: httpx.Client, path: str, body: dict[str, Any]) -> int:
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01", "authorization": "Bearer k"}
    return client.post(path, json=body, headers=headers).status_code


@pytest.mark.parametrize("case", sorted(CHAT))
def test_chat_requests_the_api_refuses(emulator: Emulator, case: str) -> None:
    given = CHAT[case]
    with httpx.Client(base_url=emulator.url, timeout=10) as client:
        assert _post(client, "/v1/chat/completions", {**given, "stream": True}) == 400
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # what is left out is said
                built = chat_body(given, None, streaming=True, include_usage=True)
        except ConfigurationError:
            return  # refused before it was sent
        assert _post(client, "/v1/chat/completions", built) == 200


@pytest.mark.parametrize("case", sorted(MESSAGES))
def test_messages_requests_the_api_refuses(emulator: Emulator, case: str) -> None:
    settings = MESSAGES[case]
    raw = {"model": "claude", "max_tokens": 4096, "messages": ASK, **settings}
    if raw.get("tools"):
        raw["tools"] = [{"name": "f", "input_schema": {"type": "object"}}]
        raw["tool_choice"] = {"type": "any"} if raw.get("thinking") else raw["tool_choice"]
    with httpx.Client(base_url=emulator.url, timeout=10) as client:
        assert _post(client, "/v1/messages", raw) == 400
        turns = [Turn(role="user", parts=(TextPart(text="hi"),))]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # a mended setting is said
                built = messages_body("claude", turns, settings)
        except ConfigurationError:
            return  # refused before it was sent
        assert _post(client, "/v1/messages", {**built, "stream": False}) == 200


#: id: (the Responses request's settings, given to the core's builder with one user turn, and
#: the model)
RESPONSES: dict[str, tuple[str, dict[str, Any]]] = {
    "previous-response-id-with-conversation": (
        "gpt-5",
        {"previous_response_id": "resp_1", "conversation": "conv_1", "store": True},
    ),
    "effort-to-a-model-that-does-not-reason": ("gpt-4o", {"reasoning": {"effort": "low"}}),
    "reasoning-effort-to-gpt-5-chat": ("gpt-5-chat-latest", {"reasoning_effort": "low"}),
}


@pytest.mark.parametrize("case", sorted(RESPONSES))
def test_responses_requests_the_api_refuses(emulator: Emulator, case: str) -> None:
    model, settings = RESPONSES[case]
    raw = {"model": model, "input": "hi", **settings}
    if "reasoning_effort" in raw:
        raw["reasoning"] = {"effort": raw.pop("reasoning_effort")}
    with httpx.Client(base_url=emulator.url, timeout=10) as client:
        assert _post(client, "/v1/responses", raw) == 400
        turns = [Turn(role="user", parts=(TextPart(text="hi"),))]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # a mended setting is said
                built = responses_body(model, turns, settings)
        except ConfigurationError:
            return  # refused before it was sent
        assert _post(client, "/v1/responses", built) == 200
