"""Anthropic Messages requests: check them, and answer them with the same assistant.

A Messages body is translated into the chat-completions body the rule-based assistant
already answers (system to a system message, ``tool_use`` blocks to tool calls,
``tool_result`` blocks to tool messages, tools' ``input_schema`` to parameters,
``tool_choice`` and ``thinking`` to their chat equivalents), so both protocols say the
same thing for the same conversation. What only this protocol has is decided here:
the stop sequence that ended the answer, the raw ``stop_reason``, and the cache counts.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from sse_emulator.assistant.messages_rules import MIN_BUDGET, check_rules
from sse_emulator.assistant.reply import Reply
from sse_emulator.assistant.respond import respond
from sse_emulator.assistant.tokens import content_text, text_pieces
from sse_emulator.schemas import first_issue
from sse_emulator.schemas.wording import anthropic_message

#: The API's documented test string: a user message holding it gets its thinking redacted.
REDACTED_TRIGGER = "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING"
_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


@dataclass(frozen=True, slots=True, kw_only=True)
class MessagesAnswer:
    """The assistant's reply with what the Messages API says beyond it.

    Attributes:
        reply: What is said (reasoning, content, refusal, tool calls, counts).
        stop_reason: ``end_turn``, ``max_tokens``, ``tool_use``, ``stop_sequence`` or
            ``refusal``.
        stop_sequence: The stop sequence that ended the text, if one did.
        input_tokens: Prompt tokens neither read from nor written to the cache.
        cache_read: Prompt tokens read from the cache.
        cache_write: Prompt tokens written to the cache.
        redacted: The thinking is sent encrypted, as a ``redacted_thinking`` block.
        warm: ``max_tokens`` 0: the prompt is read (and cached) and nothing is generated, no
            content block at all ("Prompt caching": pre-warming the cache).
    """

    reply: Reply
    stop_reason: str
    stop_sequence: str | None
    input_tokens: int
    cache_read: int
    cache_write: int
    redacted: bool = False
    warm: bool = False


def check_body(body: Any, *, strict: bool = False) -> str | None:
    """What is wrong with a Messages body, as the API words it, or ``None``.

    Args:
        body: The decoded JSON body.
        strict: Check it against anthropic-python's ``MessageCreateParams`` too (after the
            shape checks here, before the rules no type can say).
    """
    if not isinstance(body, dict):
        return "the request body must be a JSON object"
    missing = [field for field in ("model", "max_tokens", "messages") if field not in body]
    max_tokens: Any = body.get("max_tokens")
    wrong: str | None
    if missing:
        wrong = f"{missing[0]}: Field required"
    elif not isinstance(body["model"], str) or not body["model"]:
        wrong = "model: Input should be a valid string"
    elif type(max_tokens) is not int or max_tokens < 0:
        # 0 is taken: it fills the prompt cache without generating ("Prompt caching", pre-warming)
        wrong = "max_tokens: Input should be greater than or equal to 0"
    else:
        wrong = _check_messages(body["messages"])
    issue = first_issue("messages", body) if strict and wrong is None else None
    return wrong or (anthropic_message(issue) if issue else None) or check_rules(body)


#: The content block types the API takes in a request (others are refused, as it does:
#: a client that sends OpenAI's or LangChain's block shapes must be told).
CONTENT_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
    }
)


def _check_messages(messages: Any) -> str | None:
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        content = message.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            return f"messages.{i}.content: Input should be a valid string or list"
        wrong = _check_blocks(content, f"messages.{i}.content")
        if wrong is not None:
            return wrong
    return None


def _check_blocks(blocks: list[Any], where: str) -> str | None:
    for j, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in CONTENT_TYPES:
            expected = ", ".join(f"'{name}'" for name in sorted(CONTENT_TYPES))
            return (
                f"{where}.{j}: Input tag '{kind}' found using 'type' does not match any of "
                f"the expected tags: {expected}"
            )
        inner = block.get("content") if kind == "tool_result" else None
        if isinstance(inner, list):
            wrong = _check_blocks(inner, f"{where}.{j}.content")
            if wrong is not None:
                return wrong
    return None


def answer(body: dict[str, Any]) -> MessagesAnswer:
    """Answer a checked Messages body.

    Args:
        body: A body :func:`check_body` accepted.

    Returns:
        The answer; the same body always gives the same answer.
    """
    chat = chat_body(body)
    reply = respond(chat)
    warm = body["max_tokens"] == 0
    if warm:  # nothing generated: the stop is the token limit, 0 output tokens
        usage = dataclasses.replace(reply.usage, completion_tokens=0, reasoning_tokens=0)
        reply = dataclasses.replace(
            reply, reasoning=(), content=(), refusal=(), tool_calls=(), usage=usage
        )
        reply = dataclasses.replace(reply, finish_reason="length")
    users = [m["content"] for m in chat["messages"] if m["role"] == "user"]
    reply, sequence = _cut_at_stop(reply, body.get("stop_sequences"))
    if sequence is not None:
        reason = "stop_sequence"
    elif reply.refusal:
        reason = "refusal"
    else:
        reason = _STOP_REASONS.get(reply.finish_reason, "end_turn")
    usage = reply.usage
    read = write = 0
    if _mentions_cache(body):
        read = usage.cached_tokens
        write = (usage.prompt_tokens - read) // 2
    return MessagesAnswer(
        reply=reply,
        stop_reason=reason,
        stop_sequence=sequence,
        input_tokens=usage.prompt_tokens - read - write,
        cache_read=read,
        cache_write=write,
        redacted=bool(reply.reasoning) and REDACTED_TRIGGER in (users[-1] if users else ""),
        warm=warm,
    )


def chat_body(body: dict[str, Any]) -> dict[str, Any]:
    """The chat-completions body that says what a Messages body says."""
    messages: list[dict[str, Any]] = []
    system = content_text(body.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for message in body["messages"]:
        messages += _chat_messages(message)
    chat: dict[str, Any] = {
        "model": body["model"],
        "messages": messages,
        "max_tokens": body["max_tokens"],
    }
    tools = _tools(body.get("tools"))
    if tools:
        chat["tools"] = tools
    chat.update(_tool_choice(body.get("tool_choice")))
    chat.update(_thinking(body.get("thinking")))
    chat.update(_output_format(body.get("output_config")))
    return chat


def _output_format(config: Any) -> dict[str, Any]:
    """Structured output (``output_config.format``) as chat completions' ``response_format``."""
    spec = config.get("format") if isinstance(config, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
        return {}
    return {"response_format": {"type": "json_schema", "json_schema": {"schema": spec["schema"]}}}


def _chat_messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    """One Messages turn as chat messages: tool results become ``tool`` messages."""
    role, content = message["role"], message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    text = content_text(content) if isinstance(content, str) else _texts(blocks)
    if role == "assistant":
        calls = [
            {
                "id": str(b.get("id")),
                "type": "function",
                "function": {"name": str(b.get("name")), "arguments": json.dumps(b.get("input"))},
            }
            for b in blocks
            if b.get("type") == "tool_use"
        ]
        turn: dict[str, Any] = {"role": "assistant", "content": text}
        return [turn | {"tool_calls": calls}] if calls else [turn]
    results = [
        {"role": "tool", "tool_call_id": str(b.get("tool_use_id")), "content": _result(b)}
        for b in blocks
        if b.get("type") == "tool_result"
    ]
    return results + ([{"role": "user", "content": text}] if text or not results else [])


def _texts(blocks: list[dict[str, Any]]) -> str:
    texts = [b.get("text") for b in blocks if b.get("type") == "text"]
    return "".join(text for text in texts if isinstance(text, str))


def _result(block: dict[str, Any]) -> str:
    content = block.get("content")
    text = content if isinstance(content, str) else content_text(content)
    return f"error: {text}" if block.get("is_error") is True else text


def _tools(tools: Any) -> list[dict[str, Any]]:
    """Client tools (with an ``input_schema``) as chat functions; server tools are left out."""
    found = []
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str) and "input_schema" in tool:
            function = {"name": tool["name"], "parameters": tool["input_schema"]}
            if isinstance(tool.get("description"), str):
                function["description"] = tool["description"]
            found.append({"type": "function", "function": function})
    return found


def _tool_choice(choice: Any) -> dict[str, Any]:
    """``auto``, ``any`` (must call one), a named ``tool``, or ``none``."""
    if not isinstance(choice, dict):
        return {}
    kind = choice.get("type")
    chat: dict[str, Any] = {}
    if kind == "any":
        chat["tool_choice"] = "required"
    elif kind == "none":
        chat["tool_choice"] = "none"
    elif kind == "tool":
        chat["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
    if choice.get("disable_parallel_tool_use") is True:
        chat["parallel_tool_calls"] = False
    return chat


def _thinking(thinking: Any) -> dict[str, Any]:
    """``enabled`` thinks harder for a bigger budget; ``disabled`` wins over a think model."""
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind == "disabled":
        return {"chat_template_kwargs": {"enable_thinking": False}}
    if kind == "adaptive":
        return {"reasoning_effort": "medium"}
    if kind != "enabled" or not isinstance(thinking, dict):
        return {}
    budget = thinking.get("budget_tokens")
    budget = budget if type(budget) is int else MIN_BUDGET
    return {"reasoning_effort": "low" if budget < 4096 else "medium" if budget < 16384 else "high"}


def _cut_at_stop(reply: Reply, sequences: Any) -> tuple[Reply, str | None]:
    """Cut the text before the earliest stop sequence, and say which one it was."""
    text = reply.text
    found = [
        (text.find(s), i, s)
        for i, s in enumerate(sequences if isinstance(sequences, list) else [])
        if isinstance(s, str) and s and s in text
    ]
    if not found:
        return reply, None
    position, _, sequence = min(found)
    content = text_pieces(text[:position])
    spent = reply.usage.completion_tokens - len(reply.content) + len(content)
    usage = dataclasses.replace(reply.usage, completion_tokens=spent)
    return dataclasses.replace(reply, content=content, usage=usage, finish_reason="stop"), sequence


def _mentions_cache(value: Any) -> bool:
    """Whether ``cache_control`` appears anywhere in the request (prompt caching asked for)."""
    if isinstance(value, dict):
        return "cache_control" in value or any(_mentions_cache(v) for v in value.values())
    if isinstance(value, list):
        return any(_mentions_cache(v) for v in value)
    return False
