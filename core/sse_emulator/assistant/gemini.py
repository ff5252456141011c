"""Gemini ``generateContent`` requests, answered with the same assistant as every dialect.

A Gemini body is translated into the chat-completions body the rule-based assistant already
answers: ``systemInstruction`` to a system message, ``user`` contents to user messages (their
``functionResponse`` parts to tool messages answering the calls of the turn before), ``model``
contents to assistant turns (their ``functionCall`` parts to tool calls; thought parts are
not said again), ``tools[].functionDeclarations`` to chat tools (a ``Schema`` read as the
JSON schema it stands for), ``toolConfig.functionCallingConfig`` to ``tool_choice``, and
``generationConfig`` (``maxOutputTokens``, ``stopSequences``, ``responseMimeType`` with a
schema, ``thinkingConfig``) to their chat equivalents. So every protocol says the same thing
for the same conversation; what only this protocol has is decided here: the response id,
whether the thoughts are shown, whether the answer is signed, and how it finished.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sse_emulator.assistant.gemini_fields import normalized
from sse_emulator.assistant.reply import Reply, request_digest
from sse_emulator.assistant.respond import respond

#: ``thinkingLevel`` as the assistant's reasoning effort (``MINIMAL`` thinks close to nothing).
_LEVELS: dict[str, str | None] = {"MINIMAL": None, "LOW": "low", "MEDIUM": "medium", "HIGH": "high"}


@dataclass(frozen=True, slots=True, kw_only=True)
class GeminiCall:
    """One function call of the answer, whole (Gemini sends ``args`` as an object).

    Attributes:
        name: The function's name.
        args: Its arguments.
        pieces: How many output tokens its arguments took.
    """

    name: str
    args: dict[str, Any]
    pieces: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GeminiAnswer:
    """The assistant's reply with what the Gemini API says beyond it.

    Attributes:
        reply: What is said (reasoning, content, refusal, tool calls, counts).
        model: The model the URL names (``modelVersion``).
        response_id: The ``responseId`` (the same for the same request, streamed or not).
        text: The text pieces (the answer, or the refusal, which Gemini says as text).
        calls: The whole function calls (one cut by ``maxOutputTokens`` is left out).
        show_thoughts: The thoughts go out as ``thought`` parts (``includeThoughts``).
        signed: The answer carries a ``thoughtSignature`` (Gemini 3, or when it thought).
        finish_reason: ``STOP`` or ``MAX_TOKENS``.
    """

    reply: Reply
    model: str
    response_id: str
    text: tuple[str, ...]
    calls: tuple[GeminiCall, ...]
    show_thoughts: bool
    signed: bool
    finish_reason: str

    @property
    def output_tokens(self) -> int:
        """``candidatesTokenCount``: what was generated, thoughts aside."""
        return self.reply.usage.completion_tokens - self.reply.usage.reasoning_tokens


def answer(body: dict[str, Any], model: str) -> GeminiAnswer:
    """Answer a request body the rules accepted.

    Args:
        body: The request body.
        model: The model the URL names.

    Returns:
        The answer; the same body and model always give the same answer.
    """
    request: dict[str, Any] = normalized(body)
    config = request.get("generationConfig") or {}
    thinking = config.get("thinkingConfig") or {}
    reply = respond(chat_body(request, model))
    calls = tuple(
        call
        for call in (_whole(c.name, c.arguments, len(c.pieces)) for c in reply.tool_calls)
        if call
    )
    return GeminiAnswer(
        reply=reply,
        model=model,
        response_id=_response_id(body, model),
        text=reply.refusal or reply.content,
        calls=calls,
        show_thoughts=thinking.get("includeThoughts") is True and bool(reply.reasoning),
        signed=model.startswith("gemini-3") or bool(reply.reasoning),
        finish_reason="MAX_TOKENS" if reply.finish_reason == "length" else "STOP",
    )


def _whole(name: str, arguments: str, pieces: int) -> GeminiCall | None:
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return None  # cut by the token limit: Gemini sends no partial call
    return GeminiCall(name=name, args=args if isinstance(args, dict) else {}, pieces=pieces)


def _response_id(body: dict[str, Any], model: str) -> str:
    """23 URL-safe base64 characters from the body and model, like the API's ids."""
    digest = hashlib.sha256(f"{model}\n{request_digest(body)}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:17]).decode("ascii").rstrip("=")


def chat_body(request: dict[str, Any], model: str) -> dict[str, Any]:
    """The chat-completions body that says what a (normalized) Gemini request says."""
    chat: dict[str, Any] = {"model": model, "messages": chat_messages(request)}
    tools = _tools(request)
    if tools:
        chat["tools"] = tools
    chat.update(_tool_choice(request))
    config = request.get("generationConfig") or {}
    if config.get("maxOutputTokens") is not None:
        chat["max_completion_tokens"] = int(float(config["maxOutputTokens"]))
    if config.get("stopSequences"):
        chat["stop"] = list(config["stopSequences"])
    response_format = _response_format(config)
    if response_format is not None:
        chat["response_format"] = response_format
    effort = thinking_effort(model, config.get("thinkingConfig") or {})
    if effort is None:
        chat["chat_template_kwargs"] = {"enable_thinking": False}
    else:
        chat["reasoning_effort"] = effort
    return chat


def chat_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """``systemInstruction`` and ``contents`` as chat messages."""
    messages: list[dict[str, Any]] = []
    system = _texts((request.get("systemInstruction") or {}).get("parts") or [])
    if system:
        messages.append({"role": "system", "content": system})
    calls: list[tuple[str, str]] = []
    for index, content in enumerate(request.get("contents") or []):
        parts = content.get("parts") or []
        if content.get("role") == "model":
            turn, calls = _model_turn(parts, index)
            messages.append(turn)
        else:
            messages += _user_turn(parts, calls)
    return messages


def _model_turn(
    parts: list[dict[str, Any]], index: int
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A model content as an assistant message, and the ids and names of its calls."""
    calls = [part["functionCall"] for part in parts if part.get("functionCall") is not None]
    ids = [(f"call_{index}_{j}", str(call.get("name"))) for j, call in enumerate(calls)]
    turn: dict[str, Any] = {"role": "assistant", "content": _texts(parts)}
    if calls:
        turn["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(call.get("args") or {})},
            }
            for (call_id, name), call in zip(ids, calls, strict=True)
        ]
    return turn, ids


def _user_turn(parts: list[dict[str, Any]], calls: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """A user content: its function responses as tool messages, then its text."""
    responses = [
        part["functionResponse"] for part in parts if part.get("functionResponse") is not None
    ]
    messages: list[dict[str, Any]] = []
    for position, response in enumerate(responses):
        name = response.get("name")
        by_name = [call_id for call_id, called in calls if called == name]
        by_position = calls[position][0] if position < len(calls) else f"call_{name}"
        result = json.dumps(response.get("response") or {}, ensure_ascii=False)
        call_id = by_name[0] if len(by_name) == 1 else by_position
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    text = _texts(parts)
    if text or not responses:
        messages.append({"role": "user", "content": text})
    return messages


def _texts(parts: list[Any]) -> str:
    """The text of a content's parts, thoughts left out."""
    texts = [
        part.get("text")
        for part in parts
        if isinstance(part, dict) and part.get("thought") is not True
    ]
    return "".join(text for text in texts if isinstance(text, str))


def _tools(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Function declarations as chat tools, only the allowed ones when ``ANY`` or ``VALIDATED``
    names them."""
    config = (request.get("toolConfig") or {}).get("functionCallingConfig") or {}
    allowed = set(config.get("allowedFunctionNames") or [])
    tools: list[dict[str, Any]] = []
    for tool in request.get("tools") or []:
        for declaration in tool.get("functionDeclarations") or []:
            name = declaration.get("name")
            if allowed and name not in allowed:
                continue
            schema = declaration.get("parametersJsonSchema")
            if schema is None:
                schema = json_schema(declaration.get("parameters") or {})
            function = {"name": name, "parameters": schema}
            if isinstance(declaration.get("description"), str):
                function["description"] = declaration["description"]
            tools.append({"type": "function", "function": function})
    return tools


def _tool_choice(request: dict[str, Any]) -> dict[str, Any]:
    """``NONE`` calls nothing; ``ANY`` must call (the one allowed function, if one is named)."""
    config = (request.get("toolConfig") or {}).get("functionCallingConfig") or {}
    mode = str(config.get("mode") or "AUTO").upper()
    allowed = config.get("allowedFunctionNames") or []
    if mode == "NONE":
        return {"tool_choice": "none"}
    if mode == "ANY" and len(allowed) == 1:
        return {"tool_choice": {"type": "function", "function": {"name": allowed[0]}}}
    return {"tool_choice": "required"} if mode == "ANY" else {}


def json_schema(schema: Any) -> Any:
    """A Gemini ``Schema`` as the JSON schema it stands for (its types are upper case)."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            result[key] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            result[key] = {name: json_schema(item) for name, item in value.items()}
        elif key in ("items", "anyOf"):
            result[key] = json_schema(value)
        else:
            result[key] = value
    return result


def _response_format(config: dict[str, Any]) -> dict[str, Any] | None:
    """``responseMimeType: application/json`` with its schema, as ``response_format``."""
    if config.get("responseMimeType") != "application/json":
        return None
    schema = config.get("responseJsonSchema")
    if schema is None and config.get("responseSchema") is not None:
        schema = json_schema(config["responseSchema"])
    if not isinstance(schema, dict):
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}


def thinking_effort(model: str, thinking: dict[str, Any]) -> str | None:
    """How hard the request asks the model to think ("Thinking" guide), or ``None``.

    A ``thinkingLevel`` names it; a ``thinkingBudget`` of 0 turns thinking off and -1 is
    dynamic; without either, a model thinks as it does by default: Gemini 3 at its high
    level, Gemini 2.5 dynamically (Flash-Lite not at all), a model named ``think`` too.
    """
    level = thinking.get("thinkingLevel")
    if isinstance(level, str) and level.upper() in _LEVELS:
        return _LEVELS[level.upper()]
    budget = thinking.get("thinkingBudget")
    if budget is not None:
        return _budget_effort(int(float(budget)))
    if model.startswith("gemini-3"):
        return "high"
    if model.startswith("gemini-2.5"):
        return None if "flash-lite" in model else "medium"
    return "medium" if "think" in model.lower() else None


def _budget_effort(tokens: int) -> str | None:
    """0 turns thinking off, -1 is dynamic, a bigger budget thinks longer."""
    if tokens in (0, -1):
        return None if tokens == 0 else "medium"
    return "low" if tokens < 4096 else "medium" if tokens < 16384 else "high"
