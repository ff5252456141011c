"""Support for the history tests: continue a conversation on each protocol and check what was
sent against the strict emulator (accepted, and no call or item sent twice).

Each target is one protocol's model, of ChatSSE or SSELLM, on the session's emulator (strict:
every request checked against the providers' published request types, tests/conftest.py).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_emulator import Emulator
from tests.adapters.conftest import DIALECTS

#: What each protocol's target model is asked with: a model that reasons on each (thinking on
#: Anthropic checks the signatures sent back; Responses' gpt-5 takes reasoning items back).
TARGETS: dict[str, dict[str, Any]] = {
    "chat_completions": {"model": "gpt-5"},
    "anthropic": {
        "model": "claude-sonnet-4-5",
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    },
    "responses": {"model": "gpt-5", "reasoning_effort": "low"},
    # Gemini 3 checks the call signatures sent back (the emulator's G13, G14).
    "gemini": {"model": "gemini-3-pro-preview", "reasoning_effort": "low"},
}
THE_PROTOCOLS = tuple(TARGETS)


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def chatsse(emulator: Emulator, protocol: str, **fields: Any) -> ChatSSE:
    """ChatSSE speaking ``protocol`` to the emulator."""
    target = {**TARGETS[protocol], **fields}
    return ChatSSE(
        base_url=emulator.base_url(DIALECTS[protocol]),
        api_key="sk-test",
        protocol=protocol,
        max_retries=0,
        timeout=10.0,
        **target,
    )


def ssellm(emulator: Emulator, protocol: str, **fields: Any) -> SSELLM:
    """SSELLM speaking ``protocol`` to the emulator."""
    target = {**TARGETS[protocol], **fields}
    if "thinking" in target:
        target["thinking_dict"] = target.pop("thinking")
    return SSELLM(
        base_url=emulator.base_url(DIALECTS[protocol]),
        api_key="sk-test",
        protocol=protocol,
        max_retries=0,
        timeout=10.0,
        **target,
    )


def last_body(emulator: Emulator) -> dict[str, Any]:
    """The body of the emulator's last request, after checking it was answered (200)."""
    record = emulator.last_request
    assert record is not None
    assert record.status == 200, record.body[:2000]
    body: dict[str, Any] = record.json()
    return body


def sent_ids(protocol: str, body: dict[str, Any]) -> list[str]:
    """The ids of the calls and items ``body`` sends (each must be sent once)."""
    if protocol == "chat_completions":
        return [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
    if protocol == "anthropic":
        blocks = [
            b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
        ]
        return [str(b["id"]) for b in blocks if b.get("type") in ("tool_use", "server_tool_use")]
    if protocol == "gemini":  # a call's id is sent only when Gemini gave one
        parts = [p for content in body["contents"] for p in content["parts"]]
        return [str(p["functionCall"]["id"]) for p in parts if "id" in p.get("functionCall", {})]
    items = [item for item in body["input"] if isinstance(item, dict)]
    calls = [str(i["call_id"]) for i in items if i.get("type") == "function_call"]
    return calls + [str(i["id"]) for i in items if "id" in i]


def assert_sent_once(protocol: str, body: dict[str, Any]) -> None:
    """No call and no item twice (the API refuses a duplicate item, vercel/ai#15503)."""
    ids = sent_ids(protocol, body)
    assert len(ids) == len(set(ids)), json.dumps(body)[:3000]


@contextmanager
def left_out() -> Iterator[list[str]]:
    """The messages of the ``left out of the ... request`` warnings said inside."""
    said: list[str] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield said
    said.extend(str(w.message) for w in seen if "left out of the" in str(w.message))


def continued(
    run: Callable[[], Any], emulator: Emulator, protocol: str
) -> tuple[dict[str, Any], list[str]]:
    """Run a call that continues a history; the body the emulator answered (accepted, each id
    once) and the warnings of what was left out."""
    with left_out() as said:
        run()
    body = last_body(emulator)
    assert_sent_once(protocol, body)
    return body, said
