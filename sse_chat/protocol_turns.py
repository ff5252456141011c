"""The chat's requests in each protocol's words: the first question, the demo tool, and the
turn that carries the tool results back.

Chat completions take OpenAI's shapes (``tools`` with ``function``, an assistant message
with ``tool_calls``, then one ``tool`` message per result). Anthropic's Messages API wants
``max_tokens``, tools with ``input_schema``, an assistant turn of content blocks (its
thinking passed back with its signature, byte-exact, as the API requires for a tool loop),
and one user turn of ``tool_result`` blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_core import from_json, to_json

from sse_chat.options import ANTHROPIC
from sse_core import Completion, ReasoningBlock, ToolCall

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "anthropic_tool",
    "default_max_tokens",
    "first_payload",
    "thinking_of",
    "tool_turn",
]

#: Anthropic's API requires ``max_tokens``: the chat's default when --max-tokens is not given
#: (room for a reasoning model's thinking and its answer).
DEFAULT_MAX_TOKENS = 4096

RunTool = Callable[[str, str], Any]


def anthropic_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style function tool as Anthropic's ``{name, description, input_schema}``."""
    spec = tool["function"]
    return {
        "name": spec["name"],
        "description": spec.get("description", ""),
        "input_schema": spec.get("parameters") or {"type": "object", "properties": {}},
    }


def first_payload(
    protocol: str,
    *,
    model: str,
    prompt: str,
    tool: dict[str, Any] | None,
    max_tokens: int | None,
    thinking: int | None = None,
) -> dict[str, Any]:
    """The first request's body: the question, the tool if offered, ``max_tokens``, and
    Anthropic's ``thinking`` with a budget of ``thinking`` tokens when asked."""
    payload: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": prompt}]}
    if protocol == ANTHROPIC:
        payload["max_tokens"] = max_tokens or default_max_tokens(thinking)
        if thinking is not None:
            payload["thinking"] = thinking_of(thinking)
        if tool is not None:
            payload["tools"] = [anthropic_tool(tool)]
        return payload
    if max_tokens is not None:
        payload["max_tokens"] = max_tokens
    if tool is not None:
        payload["tools"] = [tool]
    return payload


def thinking_of(budget: int) -> dict[str, Any]:
    """Anthropic's ``thinking`` setting for a budget of tokens."""
    return {"type": "enabled", "budget_tokens": budget}


def default_max_tokens(thinking: int | None) -> int:
    """``max_tokens`` when none is given: the API wants it above the thinking budget."""
    if thinking is None or thinking < DEFAULT_MAX_TOKENS:
        return DEFAULT_MAX_TOKENS
    return thinking + DEFAULT_MAX_TOKENS


def tool_turn(protocol: str, completion: Completion, run_tool: RunTool) -> list[dict[str, Any]]:
    """The messages that follow an answer with tool calls: the answer itself, and the
    results of running each call locally."""
    calls = completion.tool_calls
    if protocol == ANTHROPIC:
        return _anthropic_turn(completion, calls, run_tool)
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": call.id, "content": _result(call, run_tool)}
        for call in calls
    ]
    return [assistant, *results]


def _result(call: ToolCall, run_tool: RunTool) -> str:
    return to_json(run_tool(call.name or "", call.arguments)).decode()


def _thinking(block: ReasoningBlock) -> dict[str, Any]:
    if block.redacted is not None:
        return {"type": "redacted_thinking", "data": block.redacted}
    return {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}


def _input(call: ToolCall) -> dict[str, Any]:
    """The call's input as an object (the API takes no other); ``{}`` for arguments that are
    not one (the tool then says the arguments are bad)."""
    try:
        parsed = from_json(call.arguments or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _anthropic_turn(
    completion: Completion, calls: tuple[ToolCall, ...], run_tool: RunTool
) -> list[dict[str, Any]]:
    blocks = [_thinking(block) for block in completion.reasoning_blocks]
    if completion.content:
        blocks.append({"type": "text", "text": completion.content})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c)} for c in calls]
    results = [
        {"type": "tool_result", "tool_use_id": call.id, "content": _result(call, run_tool)}
        for call in calls
    ]
    return [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]
