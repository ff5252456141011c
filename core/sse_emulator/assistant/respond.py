"""The deterministic rule-based assistant: one request body in, one :class:`Reply` out.

Rules, in order (``docs/emulator.md`` lists them for users):

0. A ReAct prompt (format instructions and a tool list in the system prompt) is
   answered in its Thought / Action / Action Input format (:mod:`.react`), unless its
   question is ``echo: X`` (a test scripting the steps itself).
1. After tool results (the last message has role ``tool``) it answers from them.
2. A last user message containing ``forbidden`` is refused.
3. Offered tools are called as :mod:`sse_emulator.assistant.tools` decides.
4. Otherwise it answers from the last user message: ``echo: X`` answers ``X``,
   ``count to N`` answers ``1 2 ... N``, a greeting is greeted back, and anything
   else is answered with ``You said: <message>``.

A ``response_format`` turns the answer into schema-valid JSON; thinking (requested by
``chat_template_kwargs.enable_thinking``, ``reasoning_effort``, a ``reasoning`` object
or a model name containing ``think``) adds reasoning first; ``stop`` and
``max_tokens``/``max_completion_tokens`` cut the output.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from sse_emulator.assistant.extract import extract
from sse_emulator.assistant.react import find_react_prompt, react_question, react_text
from sse_emulator.assistant.reply import PlannedCall, Reply, TokenCounts, request_digest
from sse_emulator.assistant.schema_fill import SchemaFiller
from sse_emulator.assistant.tokens import content_text, prompt_tokens, text_pieces
from sse_emulator.assistant.tools import plan_tool_calls

#: A last user message containing this word is refused.
REFUSAL_TRIGGER = "forbidden"
REFUSAL_TEXT = "I'm sorry, but I can't help with that request."
GREETING = "Hello! I am the sse-connectors gateway emulator. How can I help you today?"
_ECHO = re.compile(r"^\s*(?:echo|repeat)\s*:\s?(.*)$", re.I | re.S)
_COUNT = re.compile(r"\bcount (?:from 1 )?to (\d{1,5})\b", re.I)
_HELLO = re.compile(r"^\s*(?:hello|hi|hey)\b", re.I)
_MAX_COUNT = 10000


def respond(body: dict[str, Any]) -> Reply:
    """Answer one chat-completions request.

    Args:
        body: The decoded request body; ``messages`` must be a non-empty list.

    Returns:
        The :class:`Reply`; the same body always gives the same Reply.
    """
    messages: list[Any] = body["messages"]
    digest = request_digest(body)
    react = find_react_prompt(messages)
    # "echo: X" scripts the answer, so a test can write its own ReAct steps.
    if react is not None and not _ECHO.match(react_question(react, messages)):
        text = react_text(react, messages, digest, _answer)
        effort = thinking_effort(body)
        return _finish(body, digest, _reasoning(effort, text, (), False, ""), text, "", ())
    last = messages[-1] if isinstance(messages[-1], dict) else {}
    user_text = _last_user_text(messages)
    calls: tuple[PlannedCall, ...] = ()
    refusal = ""
    answer = ""
    if last.get("role") == "tool":
        answer = _from_tool_results(messages)
    elif REFUSAL_TRIGGER in user_text.lower():
        refusal = REFUSAL_TEXT
    else:
        calls = plan_tool_calls(body, user_text, digest)
        answer = "" if calls else _formatted(body, user_text, _answer(user_text))
    effort = thinking_effort(body)
    reasoning = _reasoning(effort, user_text, calls, last.get("role") == "tool", refusal)
    return _finish(body, digest, reasoning, answer, refusal, calls)


def thinking_effort(body: dict[str, Any]) -> str | None:
    """How hard the request asks the assistant to think, or ``None`` for not at all.

    Args:
        body: The request body.

    Returns:
        ``"low"``, ``"medium"`` or ``"high"``; an explicit ``enable_thinking: false``
        wins over everything else.
    """
    kwargs = body.get("chat_template_kwargs")
    if isinstance(kwargs, dict) and "enable_thinking" in kwargs:
        return "medium" if kwargs["enable_thinking"] is True else None
    reasoning = body.get("reasoning")
    effort = body.get("reasoning_effort")
    if isinstance(reasoning, dict):
        if reasoning.get("enabled") is False:
            return None
        effort = reasoning.get("effort", effort or "medium")
    if isinstance(effort, str) and effort != "none":
        if effort in ("minimal", "xhigh", "max"):
            return "low" if effort == "minimal" else "high"
        return effort if effort in ("low", "high") else "medium"
    return "medium" if "think" in str(body.get("model") or "").lower() else None


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def _answer(text: str) -> str:
    """The plain-text answer to a user message."""
    if match := _ECHO.match(text):
        return match.group(1)
    if match := _COUNT.search(text):
        return " ".join(str(n) for n in range(1, min(int(match.group(1)), _MAX_COUNT) + 1))
    if _HELLO.match(text) or not text.strip():
        return GREETING
    return f"You said: {text}"


_KEY_NAME = re.compile(r"[\"'`]([A-Za-z_][\w-]{0,40})[\"'`]")
_KEYS_WORD = re.compile(r"\b(?:keys?|fields?|properties)\b", re.I)


def _named_keys(text: str) -> list[str]:
    """Keys a prompt asks for by name ("as JSON with 'setup' and 'punchline' keys")."""
    if not _KEYS_WORD.search(text):
        return []
    return list(dict.fromkeys(_KEY_NAME.findall(text)))


def _formatted(body: dict[str, Any], text: str, answer: str) -> str:
    """Apply ``response_format``: schema-valid JSON, or the answer unchanged."""
    response_format = body.get("response_format")
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind == "json_object":
        keys = _named_keys(text) or ["answer"]
        return json.dumps(dict.fromkeys(keys, answer), ensure_ascii=False)
    if kind == "json_schema" and isinstance(response_format, dict):
        spec = response_format.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if isinstance(schema, dict):
            value = SchemaFiller(extract(text), schema, text=answer).fill(schema)
            return json.dumps(value, ensure_ascii=False)
    return answer


def _from_tool_results(messages: list[Any]) -> str:
    """Answer from the tool messages that follow the last assistant message."""
    names: dict[str, str] = {}
    results: list[tuple[str, str]] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            results = []
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict):
                    names[str(call.get("id"))] = str(function.get("name"))
        elif message.get("role") == "tool":
            name = names.get(str(message.get("tool_call_id")), "the tool")
            results.append((name, content_text(message.get("content"))))
    found = "; ".join(f"{name} returned {result}" for name, result in results)
    return f"Based on the tool results: {found}."


def _reasoning(
    effort: str | None, text: str, calls: tuple[PlannedCall, ...], after_tools: bool, refusal: str
) -> str:
    """The reasoning text for a thinking request: longer for a higher effort."""
    if effort is None:
        return ""
    if calls:
        plan = f"I should call {', '.join(call.name for call in calls)}."
    elif after_tools:
        plan = "The tool results are in, so I can answer from them."
    elif refusal:
        plan = "This request is not allowed, so I must decline."
    else:
        plan = "I can answer this directly."
    short = text if len(text) <= 60 else text[:57] + "..."
    sentences = {"low": [plan], "medium": [f'The user wrote: "{short}".', plan]}
    check = "Let me check the answer once more before replying."
    return " ".join(sentences.get(effort, [f'The user wrote: "{short}".', plan, check]))


def _finish(
    body: dict[str, Any],
    digest: str,
    reasoning_text: str,
    answer: str,
    refusal_text: str,
    calls: tuple[PlannedCall, ...],
) -> Reply:
    """Cut the output by ``stop`` and the token limit, then count usage."""
    answer, _ = _apply_stop(answer, body.get("stop"))
    reasoning, content = text_pieces(reasoning_text), text_pieces(answer)
    finish = "tool_calls" if calls else "stop"
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    if isinstance(limit, int) and limit > 0:
        if len(reasoning) + len(content) + sum(len(c.pieces) for c in calls) > limit:
            finish = "length"
        reasoning = reasoning[:limit]
        content = content[: max(0, limit - len(reasoning))]
        calls = _cut_calls(calls, limit - len(reasoning) - len(content))
    refusal = text_pieces(refusal_text)
    messages = body["messages"]
    tools = body.get("tools") if isinstance(body.get("tools"), list) else []
    prompt, cached = prompt_tokens(messages, tools or [])
    spent = len(reasoning) + len(content) + len(refusal) + sum(len(c.pieces) for c in calls)
    usage = TokenCounts(
        prompt_tokens=prompt,
        completion_tokens=spent,
        cached_tokens=cached,
        reasoning_tokens=len(reasoning),
    )
    return Reply(
        model=str(body.get("model") or "emulator"),
        digest=digest,
        reasoning=reasoning,
        content=content,
        refusal=refusal,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
    )


def _cut_calls(calls: tuple[PlannedCall, ...], room: int) -> tuple[PlannedCall, ...]:
    """The calls that fit in ``room`` argument pieces: the one the limit falls in is cut
    mid-arguments (as a model stopped at ``max_tokens`` cuts it), later ones dropped."""
    kept: list[PlannedCall] = []
    for call in calls:
        if room <= 0:
            break
        pieces = call.pieces[:room]
        room -= len(call.pieces)
        cut = len(pieces) < len(call.pieces)
        kept.append(replace(call, pieces=pieces, arguments="".join(pieces)) if cut else call)
    return tuple(kept)


def _apply_stop(text: str, stop: Any) -> tuple[str, bool]:
    """Cut ``text`` before the first stop sequence; report whether one was found."""
    sequences = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
    cuts = [text.find(s) for s in sequences if isinstance(s, str) and s and s in text]
    return (text[: min(cuts)], True) if cuts else (text, False)
