"""OpenAI's documented rules on a chat-completions request, worded as the API words them.

A broken rule is a :class:`Refusal` (the 400 ``invalid_request_error``'s message, ``param``
and ``code``); the server sends it in the dialect's error body. docs/emulator.md lists each
rule with the page of OpenAI's documentation that states it. Every dialect applies them:
the gateways the dialects imitate forward these requests to models that refuse them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: The ``reasoning_effort`` values OpenAI takes, in its own order (openai-python's
#: ``ReasoningEffort``).
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
#: Reasoning models, which take ``max_completion_tokens`` and refuse ``max_tokens``.
_REASONING_MODEL = re.compile(r"(?:.*/)?(?:o1|o3|o4|gpt-5)(?:$|[-.:_])", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Refusal:
    """What the API says to a request that breaks a rule.

    Attributes:
        message: The error's ``message``.
        param: The error's ``param`` (the field at fault).
        code: The error's ``code``.
    """

    message: str
    param: str | None = None
    code: str | None = None


def check_chat_rules(body: dict[str, Any]) -> Refusal | None:
    """The first rule a chat body breaks, or ``None``.

    Args:
        body: A decoded body whose ``messages`` is a non-empty list of objects.
    """
    return (
        _check_stream_options(body)
        or _check_effort(body.get("reasoning_effort"))
        or _check_effort_taken(body)
        or _check_max_tokens(body)
        or _check_tool_messages(body["messages"])
        or _check_answered(body["messages"])
    )


def _check_stream_options(body: dict[str, Any]) -> Refusal | None:
    if body.get("stream_options") is not None and body.get("stream") is not True:
        return Refusal(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )
    return None


def _check_effort(effort: Any) -> Refusal | None:
    if effort is None or effort in EFFORTS:
        return None
    *rest, last = (f"'{value}'" for value in EFFORTS)
    return Refusal(
        f"Invalid value: '{effort}'. Supported values are: {', '.join(rest)}, and {last}.",
        "reasoning_effort",
        "invalid_value",
    )


#: Models that do not reason (OpenAI's GPT-3.5 and GPT-4 families, ChatGPT's and GPT-5's chat
#: models), which refuse an effort; another name (a gateway's own model) may reason.
_NOT_REASONING = re.compile(r"(?:.*/)?(?:gpt-3\.5|gpt-4|chatgpt-|gpt-5(?:\.\d+)?-chat)", re.I)


def does_not_reason(model: Any) -> bool:
    """Whether ``model`` names an OpenAI model known not to reason (gpt-4o, gpt-4.1,
    gpt-5-chat-latest, ...), which refuses an effort (C9, R18)."""
    return isinstance(model, str) and _NOT_REASONING.match(model) is not None


def _check_effort_taken(body: dict[str, Any]) -> Refusal | None:
    """A model that does not reason takes no ``reasoning_effort`` (C9)."""
    if body.get("reasoning_effort") is None or not does_not_reason(body.get("model")):
        return None
    return Refusal("Unrecognized request argument supplied: reasoning_effort")


def reasoning_model(model: Any) -> bool:
    """Whether ``model`` names an OpenAI reasoning model (o1, o3, o4, gpt-5 families)."""
    return isinstance(model, str) and _REASONING_MODEL.match(model) is not None


def _check_max_tokens(body: dict[str, Any]) -> Refusal | None:
    if body.get("max_tokens") is None or not reasoning_model(body.get("model")):
        return None
    return Refusal(
        "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead.",
        "max_tokens",
        "unsupported_parameter",
    )


def _check_tool_messages(messages: list[dict[str, Any]]) -> Refusal | None:
    """A ``tool`` message answers a call of the assistant message before its tool run."""
    asked: set[Any] | None = None  # the open calls, or None outside a tool run
    for i, message in enumerate(messages):
        role = message.get("role")
        if role != "tool":
            calls = message.get("tool_calls") if role == "assistant" else None
            ids = calls if isinstance(calls, list) else []
            asked = {c.get("id") for c in ids if isinstance(c, dict)} if ids else None
            continue
        if asked is None:
            return Refusal(
                "Invalid parameter: messages with role 'tool' must be a response to a "
                "preceeding message with 'tool_calls'.",
                f"messages.[{i}].role",
            )
        if message.get("tool_call_id") not in asked:
            return Refusal(
                f"Invalid parameter: 'tool_call_id' of '{message.get('tool_call_id')}' not "
                "found in 'tool_calls' of previous message.",
                f"messages.[{i}].tool_call_id",
            )
    return None


def _check_answered(messages: list[dict[str, Any]]) -> Refusal | None:
    """Each call of an assistant message with ``tool_calls`` is answered by a ``tool``
    message in the run right after it (one may end the conversation unanswered)."""
    for i, message in enumerate(messages):
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not isinstance(calls, list) or not calls or i == len(messages) - 1:
            continue
        answered = set()
        for later in messages[i + 1 :]:
            if later.get("role") != "tool":
                break
            answered.add(later.get("tool_call_id"))
        missing = [str(c.get("id")) for c in calls if isinstance(c, dict)]
        missing = [call_id for call_id in missing if call_id not in answered]
        if missing:
            return Refusal(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(missing)}",
                f"messages.[{i}].role",
            )
    return None
