"""A Responses API body's content, for telemetry's content capture (the ``prompt`` fact)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.protocols import prompt
from sse_core.protocols.prompt import Part, Prompt

__all__ = ["read_prompt"]

_TEXTS = ("input_text", "output_text", "text")


def read_prompt(body: Mapping[str, Any]) -> Prompt:
    """``instructions`` and ``system``/``developer`` messages are the instructions; the
    input's items (messages, ``function_call``, ``function_call_output``, ``reasoning``
    summaries; another item is a part of its type) are the messages, each run of items of
    one role one message; function tools are definitions, a built-in tool by its type."""
    system = prompt.texts(body.get("instructions"))
    messages: list[dict[str, Any]] = []
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, Mapping):
            continue
        role, parts = _item(item)
        if role in ("system", "developer"):
            system += parts
        elif messages and messages[-1]["role"] == role and role == "assistant":
            messages[-1]["parts"] += parts
        else:
            messages.append(prompt.message(role, parts))
    tools = prompt.tools_of(body.get("tools"), "parameters", _function)
    return Prompt(system, messages, tools)


def _function(entry: Mapping[str, Any]) -> bool:
    return entry.get("type") == "function"


def _item(item: Mapping[str, Any]) -> tuple[str, list[Part]]:
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        return role if isinstance(role, str) else "user", prompt.texts(item.get("content"), _TEXTS)
    if kind == "function_call":
        call = prompt.tool_call(item.get("call_id"), item.get("name"), item.get("arguments"))
        return "assistant", [call]
    if kind == "function_call_output":
        return "tool", [prompt.tool_result(item.get("call_id"), item.get("output"))]
    if kind == "reasoning":
        summary = item.get("summary")
        said = [s.get("text") for s in summary or () if isinstance(s, Mapping)]
        return "assistant", [prompt.reasoning("\n\n".join(t for t in said if isinstance(t, str)))]
    return "assistant", [prompt.other(kind)]
