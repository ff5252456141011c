"""The Messages API's rules for a request that no shape of it shows: what thinking takes and
refuses, the thinking budget, tool results and their calls, cache breakpoints.

:func:`check_request` mends what the API's own clients mend (with a warning, as they warn)
and refuses, before anything is sent, what cannot be mended; the emulator refuses the same
requests as the API does (docs/emulator.md).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from sse_core.errors import ConfigurationError

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "MAX_CACHE_BREAKPOINTS",
    "MIN_THINKING_BUDGET",
    "check_request",
    "default_max_tokens",
    "forced_tools",
    "thinking_on",
]

#: ``max_tokens`` when none is set (the protocol requires one; ChatAnthropic's default).
DEFAULT_MAX_TOKENS = 1024
#: The smallest ``thinking.budget_tokens`` the API takes (extended-thinking docs).
MIN_THINKING_BUDGET = 1024
#: The most blocks with ``cache_control`` in one request (prompt-caching docs).
MAX_CACHE_BREAKPOINTS = 4
#: The thinking types that turn thinking on.
_THINKING_ON = frozenset({"enabled", "adaptive"})
#: The blocks a tool loop's assistant turn starts with, with thinking on.
_THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})


def thinking_on(thinking: object) -> bool:
    """Whether ``thinking`` turns thinking on (``enabled`` or ``adaptive``)."""
    return isinstance(thinking, Mapping) and thinking.get("type") in _THINKING_ON


def forced_tools(thinking: Mapping[str, Any] | None) -> bool:
    """Whether a forced tool choice may be sent: not with thinking on (the API refuses it)."""
    return not thinking_on(thinking)


def default_max_tokens(thinking: Mapping[str, Any] | None) -> int:
    """:data:`DEFAULT_MAX_TOKENS`, after the thinking budget when thinking is on."""
    budget = thinking.get("budget_tokens") if isinstance(thinking, Mapping) else None
    if type(budget) is int and budget > 0:
        return budget + DEFAULT_MAX_TOKENS
    return DEFAULT_MAX_TOKENS


def check_request(body: dict[str, Any]) -> None:
    """Make ``body`` one the API accepts, or refuse it: with thinking on, a forced tool choice
    becomes ``auto`` and a ``temperature`` other than 1, a ``top_k`` or a ``top_p`` below
    0.95 are not sent (each with a warning: the API refuses them, and llama-index's Anthropic
    LLM and langchain-anthropic do the same); a tool loop whose assistant turn holds no
    thinking (another protocol's answer, or one cut before its signature) is sent without
    thinking, with a warning (the API refuses it with thinking on, and advises to disable
    thinking); what cannot be mended is refused.

    Raises:
        ConfigurationError: A ``temperature`` or ``top_p`` outside 0 to 1; a thinking budget
            below :data:`MIN_THINKING_BUDGET`
            or not below ``max_tokens``; a tool result that answers no tool call of the
            message before it; more than :data:`MAX_CACHE_BREAKPOINTS` ``cache_control``
            blocks.
    """
    _check_ranges(body)
    thinking = body.get("thinking")
    if thinking_on(thinking) and _unthought_loop(body["messages"]):
        warnings.warn(
            "thinking is not sent: the assistant turn before these tool results holds no "
            "thinking block (an answer of another protocol, or one cut before its signature), "
            "and with thinking on the API refuses a tool loop without it ('a final assistant "
            "message must start with a thinking block'; its advice: disable thinking)",
            UserWarning,
            stacklevel=3,
        )
        del body["thinking"]
    elif isinstance(thinking, Mapping) and thinking_on(thinking):
        _check_thinking(body, thinking)
    _check_tool_results(body["messages"])
    _check_cache_breakpoints(body)


def _unthought_loop(turns: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the conversation ends in tool results whose assistant turn does not start with
    a thinking block ("Extended thinking", preserving thinking blocks)."""
    last = turns[-1] if turns else {}
    content = last.get("content")
    results = isinstance(content, list) and any(
        isinstance(block, Mapping) and block.get("type") == "tool_result" for block in content
    )
    if last.get("role") != "user" or not results or len(turns) < 2:
        return False
    before = turns[-2].get("content")
    first = before[0] if isinstance(before, list) and before else {}
    return not (isinstance(first, Mapping) and first.get("type") in _THINKING_BLOCKS)


def _check_ranges(body: Mapping[str, Any]) -> None:
    """``temperature`` and ``top_p`` from 0 to 1 (the "Messages" reference: "Ranges from 0.0 to
    1.0"; OpenAI's ``temperature`` goes to 2, so a setting carried over is refused by name)."""
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if value is not None and not (isinstance(value, (int, float)) and 0 <= value <= 1):
            raise ConfigurationError(
                f"{name} must be between 0 and 1 on the Anthropic Messages API, got {value!r}"
            )


def _adjusted(what: str) -> None:
    warnings.warn(
        f"{what}: the Anthropic Messages API refuses it with thinking on (set thinking to "
        "None to send it)",
        UserWarning,
        stacklevel=4,
    )


def _check_thinking(body: dict[str, Any], thinking: Mapping[str, Any]) -> None:
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") in ("any", "tool"):
        _adjusted(f"tool_choice {dict(choice)!r} is sent as 'auto' (a tool call is not sure)")
        body["tool_choice"] = {**{k: v for k, v in choice.items() if k != "name"}, "type": "auto"}
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        _adjusted(f"temperature {temperature!r} is not sent")
        del body["temperature"]
    if "top_k" in body:
        _adjusted(f"top_k {body.pop('top_k')!r} is not sent")
    top_p = body.get("top_p")
    if top_p is not None and not (isinstance(top_p, (int, float)) and 0.95 <= top_p <= 1):
        _adjusted(f"top_p {body.pop('top_p')!r} is not sent (it may be 0.95 to 1)")
    budget = thinking.get("budget_tokens")
    if thinking.get("type") != "enabled" or budget is None:
        return
    if type(budget) is not int or budget < MIN_THINKING_BUDGET:
        raise ConfigurationError(
            f"thinking.budget_tokens must be an integer of at least {MIN_THINKING_BUDGET}, "
            f"got {budget!r}"
        )
    max_tokens = body.get("max_tokens")
    if type(max_tokens) is int and max_tokens <= budget:
        raise ConfigurationError(
            f"max_tokens ({max_tokens}) must be above thinking.budget_tokens ({budget}): "
            "raise max_tokens, or leave it unset to send the budget plus "
            f"{DEFAULT_MAX_TOKENS}"
        )


def _check_tool_results(turns: Sequence[Mapping[str, Any]]) -> None:
    """Each tool result answers a tool call of the message right before it."""
    for at, turn in enumerate(turns):
        content = turn.get("content")
        if turn.get("role") != "user" or not isinstance(content, list):
            continue
        answered = [
            block.get("tool_use_id")
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "tool_result"
        ]
        if not answered:
            continue
        before = turns[at - 1].get("content") if at else None
        called = {
            block.get("id")
            for block in (before if isinstance(before, list) else ())
            if isinstance(block, Mapping) and block.get("type") in ("tool_use", "server_tool_use")
        }
        missing = [call_id for call_id in answered if call_id not in called]
        if missing:
            raise ConfigurationError(
                f"a tool result answers tool call {missing[0]!r}, which the assistant "
                "message before it does not make: send the AI message with its tool calls "
                "before their results"
            )


def _cache_count(blocks: object) -> int:
    """The blocks of ``blocks`` (a list) with ``cache_control``, a tool result's too."""
    if not isinstance(blocks, list):
        return 0
    return sum(
        (block.get("cache_control") is not None) + _cache_count(block.get("content"))
        for block in blocks
        if isinstance(block, Mapping)
    )


def _check_cache_breakpoints(body: Mapping[str, Any]) -> None:
    found = _cache_count(body.get("system")) + _cache_count(body.get("tools"))
    found += _cache_count(body.get("messages"))
    if found > MAX_CACHE_BREAKPOINTS:
        raise ConfigurationError(
            f"at most {MAX_CACHE_BREAKPOINTS} blocks may carry cache_control in an Anthropic "
            f"Messages request, got {found}"
        )
