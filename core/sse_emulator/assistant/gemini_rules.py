"""Google's documented rules on a Gemini ``generateContent`` request, worded as the API words them.

A broken rule is a :class:`Refusal`: every one is a 400 ``INVALID_ARGUMENT`` with the API's
message (and, for a field the parser refuses, its ``BadRequest`` details). docs/emulator.md
lists each rule (G1-G14) with its source; the checks run in that order and the first rule
broken is the one reported. G1 (the body is a JSON object) is the server's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sse_emulator.assistant.gemini_fields import Violation, normalized, violations
from sse_emulator.assistant.thought_signatures import accepted

#: The ``@type`` of the details naming each refused field.
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
_PRE = "* GenerateContentRequest."
_DATA = (
    "text",
    "inlineData",
    "functionCall",
    "functionResponse",
    "fileData",
    "executableCode",
    "codeExecutionResult",
)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")
_NAME_RULE = (
    "[FIELD_INVALID] Invalid function name. Must start with a letter or an underscore. Must be "
    "a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), or dashes (-), with a "
    "maximum length of 64."
)
_MISSING_SIGNATURE = (
    "Function call is missing a thought_signature in functionCall parts. This is required for "
    "tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position {position}. "
    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
_RESPONSE_AFTER_CALL = (
    "Please ensure that function response turn comes immediately after a function call turn."
)
_CALL_AFTER_USER = (
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn."
)
_RESPONSE_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)
#: The largest ``stopSequences`` list the API takes.
MAX_STOP_SEQUENCES = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """A request the API refuses: a 400 ``INVALID_ARGUMENT``.

    Attributes:
        message: The error's ``message``.
        details: The error's ``details`` (empty for most rules).
    """

    message: str
    details: tuple[dict[str, Any], ...] = field(default=())


def check_gemini_rules(body: dict[str, Any], model: str) -> Refusal | None:
    """The first rule a request body (a JSON object) breaks, or ``None``.

    Args:
        body: The decoded body, as sent (camelCase or snake_case names).
        model: The model the URL names (``gemini-3-flash-preview``).
    """
    found = violations(body)
    if found:
        return _parser_refusal(found)
    request: dict[str, Any] = normalized(body)
    contents: list[Any] = request.get("contents") or []
    message = (
        _check_contents(contents)
        or _check_names(request.get("tools") or [])
        or _check_generation(request.get("generationConfig") or {})
        or _check_thinking(_thinking(request), model)
        or _check_tool_config(request)
        or _check_turns(contents)
        or (_check_signatures(contents) if model.startswith("gemini-3") else None)
    )
    return None if message is None else Refusal(message=message)


def _parser_refusal(found: list[Violation]) -> Refusal:
    """G2, G3: every field the JSON parser refuses, named in the message and the details."""
    named = [
        ({"field": v.field} if v.field else {}) | {"description": v.description} for v in found
    ]
    details = ({"@type": BAD_REQUEST, "fieldViolations": named},)
    return Refusal(message="\n".join(v.description for v in found), details=details)


def _check_contents(contents: list[Any]) -> str | None:
    """G4-G7: contents given, each with parts, each part one datum, roles user or model."""
    if not contents:
        return f"{_PRE}contents: contents is not specified\n"
    for i, content in enumerate(contents):
        parts = content.get("parts") or []
        if not parts:
            return f"{_PRE}contents[{i}].parts: contents.parts must not be empty.\n"
        wrong = _check_parts(parts, f"contents[{i}]")
        if wrong is not None:
            return wrong
    for content in contents:
        if content.get("role") not in (None, "", "user", "model"):
            return "Please use a valid role: user, model."
    return None


def _check_parts(parts: list[dict[str, Any]], where: str) -> str | None:
    """G6: each part holds exactly one datum (its ``data`` oneof)."""
    for j, part in enumerate(parts):
        data = [name for name in _DATA if part.get(name) is not None]
        if not data:
            return (
                f"{_PRE}{where}.parts[{j}].data: required oneof field 'data' must have one "
                "initialized field\n"
            )
        if len(data) > 1:
            return (
                "Invalid JSON payload received. Oneof field 'data' is already set. Cannot set "
                f"'{data[1]}'"
            )
    return None


def _check_names(tools: list[Any]) -> str | None:
    """G8: every function declaration's name is one the API takes."""
    for i, tool in enumerate(tools):
        for j, declaration in enumerate(tool.get("functionDeclarations") or []):
            name = declaration.get("name")
            if not isinstance(name, str) or not _NAME.match(name):
                where = f"tools[{i}].function_declarations[{j}].name"
                return f"The GenerateContentRequest proto is invalid:\n  * {where}: {_NAME_RULE}"
    return None


def _check_generation(config: dict[str, Any]) -> str | None:
    """G9: the sampling settings in their ranges, one candidate, at most five stop sequences."""
    for name, top in (("temperature", 2.0), ("topP", 1.0)):
        value = _number(config.get(name))
        if value is not None and not 0 <= value <= top:
            snake_name = "top_p" if name == "topP" else name
            return (
                f"{_PRE}generation_config.{snake_name}: {snake_name} must be in the range "
                f"[0.0, {top}].\n"
            )
    tokens = _number(config.get("maxOutputTokens"))
    if tokens is not None and tokens < 1:
        return f"{_PRE}generation_config.max_output_tokens: max_output_tokens must be positive.\n"
    candidates = _number(config.get("candidateCount"))
    if candidates is not None and candidates < 1:
        return f"{_PRE}generation_config.candidate_count: candidate_count must be positive.\n"
    if candidates is not None and candidates > 1:
        return "Multiple candidates is not enabled for this model"
    if len(config.get("stopSequences") or []) > MAX_STOP_SEQUENCES:
        return (
            f"{_PRE}generation_config.stop_sequences: the number of stop_sequences must be at "
            f"most {MAX_STOP_SEQUENCES}.\n"
        )
    return None


def _thinking(request: dict[str, Any]) -> dict[str, Any]:
    config = request.get("generationConfig") or {}
    thinking = config.get("thinkingConfig")
    return thinking if isinstance(thinking, dict) else {}


def _check_thinking(thinking: dict[str, Any], model: str) -> str | None:
    """G10: a thinking level or a budget, each as the model takes it."""
    level, budget = thinking.get("thinkingLevel"), _number(thinking.get("thinkingBudget"))
    if level is not None and budget is not None:
        return "You can only set only one of thinking budget and thinking level."
    if level is not None:
        if not model.startswith("gemini-3") and model.startswith(("gemini-1", "gemini-2")):
            return "Thinking level is not supported for this model."
        if str(level).upper() == "MINIMAL" and "-pro" in model:
            return (
                "Thinking level MINIMAL is not supported for this model. Please retry with "
                "other thinking level."
            )
    return _check_budget(budget, model) if budget is not None else None


def _check_budget(budget: float, model: str) -> str | None:
    """The budget ranges of the "Thinking" guide: -1 is dynamic, 0 turns thinking off."""
    pro, lite = "-pro" in model, "flash-lite" in model
    if budget == 0 and model.startswith("gemini-3"):
        return "Request contains an invalid argument."
    if budget == 0 and pro:
        return "Budget 0 is invalid. This model only works in thinking mode."
    low, high = (128, 32768) if pro else (512, 24576) if lite else (1, 24576)
    if budget in (-1, 0) or low <= budget <= high:
        return None
    return f"The thinking budget ({int(budget)}) is invalid."


def _check_tool_config(request: dict[str, Any]) -> str | None:
    """G11: ``allowedFunctionNames`` only with ``ANY`` or ``VALIDATED``, each a declared one."""
    tool_config = request.get("toolConfig") or {}
    config = tool_config.get("functionCallingConfig") or {}
    allowed = config.get("allowedFunctionNames") or []
    mode = str(config.get("mode") or "AUTO").upper()
    where = f"{_PRE}tool_config.function_calling_config.allowed_function_names"
    if allowed and mode not in ("ANY", "VALIDATED"):
        return f"{where}: allowed_function_names may be set only when mode is ANY or VALIDATED.\n"
    declared = {
        declaration.get("name")
        for tool in request.get("tools") or []
        for declaration in tool.get("functionDeclarations") or []
    }
    for i, name in enumerate(allowed):
        if name not in declared:
            return f"{where}[{i}]: function '{name}' is not declared in tools.\n"
    return None


def _check_turns(contents: list[Any]) -> str | None:
    """G12: a function-call turn follows a user turn and is answered, call for response."""
    for i, content in enumerate(contents):
        before = contents[i - 1] if i else None
        calls, responses = _count(content, "functionCall"), _count(content, "functionResponse")
        if responses and (before is None or not _count(before, "functionCall")):
            return _RESPONSE_AFTER_CALL
        if responses and responses != _count(before, "functionCall"):
            return _RESPONSE_COUNT
        if calls and (before is None or _is_model(before)):
            return _CALL_AFTER_USER
        after = contents[i + 1] if i + 1 < len(contents) else None
        if calls and after is not None and _count(after, "functionResponse") != calls:
            return _RESPONSE_COUNT
    return None


def _check_signatures(contents: list[Any]) -> str | None:
    """G13, G14 (Gemini 3): signatures the emulator issued, on every call of the turn."""
    for content in contents:
        for part in content.get("parts") or [] if _is_model(content) else []:
            signature = part.get("thoughtSignature")
            if signature is not None and not accepted(signature):
                return "Corrupted thought signature."
    for index, first_call in _steps_of_the_current_turn(contents):
        if first_call.get("thoughtSignature") is None:
            name = (first_call.get("functionCall") or {}).get("name")
            return _MISSING_SIGNATURE.format(name=name, position=index + 1)
    return None


def _steps_of_the_current_turn(contents: list[Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each function-call step since the last user message that is not function responses
    ("Thought signatures": only the current turn is validated), with its first call part."""
    users = [i for i, c in enumerate(contents) if not _is_model(c) and _asks(c)]
    start = max(users, default=-1)
    for index in range(start + 1, len(contents)):
        content = contents[index]
        calls = [p for p in content.get("parts") or [] if p.get("functionCall") is not None]
        if _is_model(content) and calls:
            yield index, calls[0]


def _asks(content: dict[str, Any]) -> bool:
    """Whether a user turn holds more than function responses (a new question)."""
    return any(part.get("functionResponse") is None for part in content.get("parts") or [])


def _is_model(content: Any) -> bool:
    return isinstance(content, dict) and content.get("role") == "model"


def _count(content: Any, kind: str) -> int:
    if not isinstance(content, dict):
        return 0
    return sum(1 for part in content.get("parts") or [] if part.get(kind) is not None)


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
