"""OpenAI Responses API requests, answered with the same assistant as every other dialect.

A Responses body is translated into the chat-completions body the rule-based assistant
already answers: ``instructions`` to a system message, ``input`` (a string, or items:
messages with text parts, ``function_call`` items to an assistant turn's tool calls,
``function_call_output`` items to tool messages; reasoning and server-tool items are not
said again) after the conversation a ``previous_response_id`` names, flat function
``tools`` to chat tools, ``tool_choice``, ``text.format`` to ``response_format``,
``reasoning`` and ``max_output_tokens``. So every protocol says the same thing for the
same conversation; what only this protocol has is decided here: the response and item
ids, the status and its reason, whether the reasoning is summarised and sealed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sse_emulator.assistant.conversations import StoredResponse
from sse_emulator.assistant.reply import Reply, request_digest
from sse_emulator.assistant.respond import respond
from sse_emulator.assistant.tokens import content_text

#: The ``include`` value that asks for the reasoning's ``encrypted_content``.
ENCRYPTED = "reasoning.encrypted_content"
_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponsesAnswer:
    """The assistant's reply with what the Responses API says beyond it.

    Attributes:
        body: The request body (the response object echoes its settings).
        reply: What is said (reasoning, content, refusal, tool calls, counts).
        messages: The conversation answered, as chat messages, this answer's turn included
            (what a stored response carries over), without the ``instructions``.
        id: The response id (``resp_`` and 48 hex digits, as the API's).
        question: The last user text (a web search's query).
        summary: The reasoning is streamed as a summary (``reasoning.summary`` was asked).
        encrypted: The reasoning item carries ``encrypted_content`` (asked in ``include``).
        effort: The reasoning effort echoed in the response object, if any.
    """

    body: dict[str, Any]
    reply: Reply
    messages: tuple[dict[str, Any], ...]
    id: str
    question: str
    summary: bool
    encrypted: bool
    effort: str | None

    @property
    def status(self) -> str:
        """``incomplete`` when ``max_output_tokens`` cut the answer, else ``completed``."""
        return "incomplete" if self.reply.finish_reason == "length" else "completed"

    def item_id(self, prefix: str, index: int = 0) -> str:
        """An output item's id: ``prefix`` (``rs``, ``msg``, ``fc``, ``ws``) and 48 hex digits."""
        seed = f"{self.id}:{prefix}:{index}".encode()
        return f"{prefix}_{hashlib.sha256(seed).hexdigest()[:48]}"

    def stored(self, history: StoredResponse | None) -> StoredResponse:
        """This response as the store keeps it (the conversation it continued included)."""
        items = {self.item_id("rs"), self.item_id("msg")}
        items |= {self.item_id("fc", i) for i in range(len(self.reply.tool_calls))}
        calls = {call.id for call in self.reply.tool_calls} | input_call_ids(self.body)
        return StoredResponse(
            id=self.id,
            messages=self.messages,
            item_ids=frozenset(items) | (history.item_ids if history else frozenset()),
            call_ids=frozenset(calls) | (history.call_ids if history else frozenset()),
        )


def answer(body: dict[str, Any], history: StoredResponse | None = None) -> ResponsesAnswer:
    """Answer a Responses body the rules accepted.

    Args:
        body: The request body.
        history: The stored response ``previous_response_id`` names, if any.

    Returns:
        The answer; the same body (and history) always gives the same answer.
    """
    conversation = list(history.messages) if history else []
    conversation += input_messages(body.get("input"))
    if not conversation or conversation[-1].get("role") == "assistant":
        conversation.append({"role": "user", "content": ""})
    chat = chat_body(body, conversation)
    reply = respond(chat)
    users = [m for m in conversation if m.get("role") == "user"]
    reasoning = body.get("reasoning")
    reasoning = reasoning if isinstance(reasoning, dict) else {}
    include = body.get("include")
    return ResponsesAnswer(
        body=body,
        reply=reply,
        messages=(*conversation, _assistant_turn(reply)),
        id=_response_id(body),
        question=content_text(users[-1].get("content")) if users else "",
        summary=reasoning.get("summary") in ("auto", "concise", "detailed"),
        encrypted=isinstance(include, list) and ENCRYPTED in include,
        effort=_effort(body) if reply.reasoning or reasoning else None,
    )


def _response_id(body: dict[str, Any]) -> str:
    """``resp_`` and 48 hex digits from the body, streamed or not (the same ids either way)."""
    asked = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    return "resp_" + hashlib.sha256(request_digest(asked).encode()).hexdigest()[:48]


def chat_body(body: dict[str, Any], conversation: list[dict[str, Any]]) -> dict[str, Any]:
    """The chat-completions body that says what a Responses body says."""
    instructions = body.get("instructions")
    system = [{"role": "system", "content": instructions}] if instructions else []
    chat: dict[str, Any] = {"model": body.get("model"), "messages": system + conversation}
    tools = [_chat_tool(t) for t in body.get("tools") or [] if _is_function(t)]
    if tools:
        chat["tools"] = tools
    choice = body.get("tool_choice")
    if choice in ("none", "auto", "required"):
        chat["tool_choice"] = choice
    elif isinstance(choice, dict) and choice.get("type") == "function":
        chat["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
    if body.get("parallel_tool_calls") is False:
        chat["parallel_tool_calls"] = False
    effort = _effort(body)
    if effort is not None:
        chat["reasoning_effort"] = effort
    if isinstance(body.get("max_output_tokens"), int):
        chat["max_completion_tokens"] = body["max_output_tokens"]
    response_format = _response_format(body.get("text"))
    if response_format is not None:
        chat["response_format"] = response_format
    return chat


def input_messages(items: Any) -> list[dict[str, Any]]:
    """``input`` as chat messages: a string is one user message; function calls join the
    assistant turn before them (or open one), their outputs become tool messages."""
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    messages: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") in _ROLES:
            content = item.get("content")
            text = content if isinstance(content, str) else content_text(content)
            messages.append({"role": _ROLES[item["role"]], "content": text})
        elif kind == "function_call":
            _add_call(messages, item)
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else content_text(output)
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": text})
    return messages


def input_call_ids(body: dict[str, Any]) -> set[str]:
    """The ``call_id`` of every ``function_call`` item of a body's ``input``."""
    items = body.get("input")
    return {
        str(item.get("call_id"))
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict) and item.get("type") == "function_call"
    }


def _add_call(messages: list[dict[str, Any]], item: dict[str, Any]) -> None:
    call = {
        "id": item.get("call_id"),
        "type": "function",
        "function": {"name": item.get("name"), "arguments": item.get("arguments") or ""},
    }
    if messages and messages[-1].get("role") == "assistant":
        messages[-1].setdefault("tool_calls", []).append(call)
    else:
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})


def _assistant_turn(reply: Reply) -> dict[str, Any]:
    """The answer as the assistant message a later turn continues from."""
    turn: dict[str, Any] = {"role": "assistant", "content": reply.refusal_text or reply.text}
    if reply.tool_calls:
        turn["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return turn


def _is_function(tool: Any) -> bool:
    return isinstance(tool, dict) and tool.get("type") == "function" and "name" in tool


def _chat_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A flat Responses function tool as a chat tool (hosted tools are not the assistant's)."""
    function = {"name": tool["name"], "parameters": tool.get("parameters") or {}}
    if isinstance(tool.get("description"), str):
        function["description"] = tool["description"]
    return {"type": "function", "function": function}


def _effort(body: dict[str, Any]) -> str | None:
    """The reasoning effort asked: ``reasoning.effort`` (``medium`` when ``reasoning`` is
    given without one, as reasoning models default to), ``none`` for no reasoning."""
    reasoning = body.get("reasoning")
    if not isinstance(reasoning, dict):
        return "medium" if "think" in str(body.get("model") or "").lower() else None
    effort = reasoning.get("effort")
    return effort if isinstance(effort, str) else "medium"


def _response_format(text: Any) -> dict[str, Any] | None:
    """``text.format`` as chat's ``response_format``."""
    spec = text.get("format") if isinstance(text, dict) else None
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "json_schema" and isinstance(spec, dict):
        schema = {"name": spec.get("name"), "schema": spec.get("schema")}
        return {"type": "json_schema", "json_schema": schema}
    return None
