"""OpenAI's documented rules on a Responses API request, worded as the API words them.

A broken rule is a :class:`Refusal`: the HTTP status and the ``invalid_request_error``'s
message, ``param`` and ``code``, which the server sends in OpenAI's error body.
docs/emulator.md lists each rule (R1-R19) with its source. The checks run in that order;
the first rule broken is the one reported.
"""

from __future__ import annotations

import json
from typing import Any

from sse_emulator.assistant.chat_rules import does_not_reason
from sse_emulator.assistant.conversations import ResponseStore, StoredResponse
from sse_emulator.assistant.responses_input_rules import Refusal, check_input_items
from sse_emulator.schemas import first_issue
from sse_emulator.schemas.wording import openai_refusal

#: Every body parameter of ``POST /v1/responses`` (the API reference; openai-python 2.54's
#: ``ResponseCreateParams``); any other is refused as unknown.
PARAMETERS = frozenset(
    {
        "background",
        "context_management",
        "conversation",
        "include",
        "input",
        "instructions",
        "max_output_tokens",
        "max_tool_calls",
        "metadata",
        "model",
        "moderation",
        "parallel_tool_calls",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning",
        "safety_identifier",
        "service_tier",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "text",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "truncation",
        "user",
    }
)
#: The ``include`` values the API takes (``ResponseIncludable``), in its order.
INCLUDABLE = (
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
)
#: ``reasoning.effort`` and ``reasoning.summary`` values (``ReasoningEffort``, ``Reasoning``).
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
SUMMARIES = ("auto", "concise", "detailed")
TOOL_CHOICES = ("none", "auto", "required")
#: The ``tool_choice`` object types (``ToolChoiceAllowed``, ``ToolChoiceTypes``, ...).
TOOL_CHOICE_TYPES = (
    "allowed_tools",
    "function",
    "mcp",
    "custom",
    "apply_patch",
    "shell",
    "file_search",
    "web_search_preview",
    "computer",
    "computer_use_preview",
    "computer_use",
    "web_search_preview_2025_03_11",
    "image_generation",
    "code_interpreter",
)
FORMAT_TYPES = ("text", "json_schema", "json_object")
#: The smallest ``max_output_tokens`` the API takes.
MIN_OUTPUT_TOKENS = 16
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}


def check_responses_rules(
    body: dict[str, Any], store: ResponseStore, *, strict: bool = False
) -> Refusal | None:
    """The first rule a Responses body breaks, or ``None``.

    Args:
        body: The decoded JSON object.
        store: The stored responses (``previous_response_id`` and items sent by id).
        strict: Check the body against openai-python's ``ResponseCreateParams`` too (after
            R4, before the rules no type can say).
    """
    history = store.get(body.get("previous_response_id"))
    return (
        _check_parameters(body)
        or _check_model(body)
        or _check_input(body.get("input"))
        or (_check_schema(body) if strict else None)
        or _check_stream_options(body)
        or _check_max_output_tokens(body.get("max_output_tokens"))
        or _check_range(body, "temperature", 2)
        or _check_range(body, "top_p", 1)
        or _check_reasoning(body.get("reasoning"))
        or _check_effort_taken(body)
        or _check_include(body.get("include"))
        or _check_format(body.get("text"))
        or _check_tool_choice(body)
        or _check_one_conversation(body)
        or _check_previous(body, history)
        or check_input_items(body, history, store)
    )


def _check_parameters(body: dict[str, Any]) -> Refusal | None:
    for key in body:
        if key not in PARAMETERS:
            near = _nearest(key)
            hint = f" Did you mean '{near}'?" if near else ""
            return Refusal(f"Unknown parameter: '{key}'.{hint}", key, "unknown_parameter")
    return None


def _nearest(key: str) -> str | None:
    """The known parameter at most two edits from ``key``, if one is (the API's hint)."""
    distance, name = min((_edits(key, name), name) for name in PARAMETERS)
    return name if distance <= 2 else None


def _edits(a: str, b: str) -> int:
    """The Levenshtein distance between two strings."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _missing(param: str) -> Refusal:
    return Refusal(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")


def _wrong_type(param: str, expected: str, value: Any) -> Refusal:
    got = "null" if value is None else _JSON_TYPES.get(type(value), "a number")
    message = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
    return Refusal(message, param, "invalid_type")


def _invalid_value(param: str, value: Any, supported: tuple[str, ...]) -> Refusal:
    *rest, last = (f"'{v}'" for v in supported)
    message = f"Invalid value: '{value}'. Supported values are: {', '.join(rest)}, and {last}."
    return Refusal(message, param, "invalid_value")


def _check_model(body: dict[str, Any]) -> Refusal | None:
    model = body.get("model")
    if model is None:
        return _missing("model")
    return None if isinstance(model, str) else _wrong_type("model", "a string", model)


def _check_input(items: Any) -> Refusal | None:
    if items is None or isinstance(items, str):
        return None
    if not isinstance(items, list):
        return _wrong_type("input", "one of a string or array of input items", items)
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return _wrong_type(f"input[{i}]", "an object", item)
    return None


def _check_stream_options(body: dict[str, Any]) -> Refusal | None:
    if body.get("stream_options") is not None and body.get("stream") is not True:
        return Refusal(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )
    return None


def _check_max_output_tokens(value: Any) -> Refusal | None:
    if value is None:
        return None
    if type(value) is not int:
        return _wrong_type("max_output_tokens", "an integer", value)
    if value < MIN_OUTPUT_TOKENS:
        return Refusal(
            "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= "
            f"{MIN_OUTPUT_TOKENS}, but got {value} instead.",
            "max_output_tokens",
            "integer_below_min_value",
        )
    return None


def _check_range(body: dict[str, Any], param: str, top: int) -> Refusal | None:
    value = body.get(param)
    if value is None:
        return None
    if type(value) not in (int, float):
        return _wrong_type(param, "a decimal", value)
    shown_value = json.dumps(value)
    if value > top:
        return Refusal(
            f"Invalid '{param}': decimal above maximum value. Expected a value <= {top}, but "
            f"got {shown_value} instead.",
            param,
            "decimal_above_max_value",
        )
    if value < 0:
        return Refusal(
            f"Invalid '{param}': decimal below minimum value. Expected a value >= 0, but got "
            f"{shown_value} instead.",
            param,
            "decimal_below_min_value",
        )
    return None


def _check_reasoning(reasoning: Any) -> Refusal | None:
    if not isinstance(reasoning, dict):
        return None
    effort, summary = reasoning.get("effort"), reasoning.get("summary")
    if effort is not None and effort not in EFFORTS:
        return _invalid_value("reasoning.effort", effort, EFFORTS)
    if summary is not None and summary not in SUMMARIES:
        return _invalid_value("reasoning.summary", summary, SUMMARIES)
    return None


def _check_include(include: Any) -> Refusal | None:
    for i, value in enumerate(include if isinstance(include, list) else []):
        if value not in INCLUDABLE:
            return _invalid_value(f"include[{i}]", value, INCLUDABLE)
    return None


def _check_format(text: Any) -> Refusal | None:
    spec = text.get("format") if isinstance(text, dict) else None
    if not isinstance(spec, dict):
        return None
    kind = spec.get("type")
    if kind not in FORMAT_TYPES:
        return _invalid_value("text.format.type", kind, FORMAT_TYPES)
    if kind == "json_schema":
        for field in ("name", "schema"):
            if spec.get(field) is None:
                return _missing(f"text.format.{field}")
    return None


def _check_tool_choice(body: dict[str, Any]) -> Refusal | None:
    choice = body.get("tool_choice")
    if choice is None:
        return None
    if isinstance(choice, str):
        return (
            None if choice in TOOL_CHOICES else _invalid_value("tool_choice", choice, TOOL_CHOICES)
        )
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in TOOL_CHOICE_TYPES:
        return _invalid_value("tool_choice.type", kind, TOOL_CHOICE_TYPES)
    if kind != "function" or not isinstance(choice, dict):
        return None
    tools = body.get("tools")
    names = {
        t.get("name")
        for t in (tools if isinstance(tools, list) else [])
        if isinstance(t, dict) and t.get("type") == "function"
    }
    if choice.get("name") in names:
        return None
    return Refusal(
        f"Tool choice 'function' with name '{choice.get('name')}' not found in 'tools' parameter.",
        "tool_choice",
    )


def _check_schema(body: dict[str, Any]) -> Refusal | None:
    issue = first_issue("responses", body)
    if issue is None:
        return None
    message, param, code = openai_refusal(issue)
    return Refusal(message, param, code)


def _check_effort_taken(body: dict[str, Any]) -> Refusal | None:
    """A model that does not reason takes no ``reasoning.effort``."""
    reasoning, model = body.get("reasoning"), body.get("model")
    effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
    if effort is None or not does_not_reason(model):
        return None
    return Refusal(
        "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        "reasoning.effort",
        "unsupported_parameter",
    )


def _check_one_conversation(body: dict[str, Any]) -> Refusal | None:
    """``previous_response_id`` or ``conversation``, not both."""
    if body.get("previous_response_id") is None or body.get("conversation") is None:
        return None
    return Refusal(
        "Mutually exclusive parameters: Ensure you are only providing one of: "
        "'previous_response_id' or 'conversation'.",
        None,
        "mutually_exclusive_parameters",
    )


def _check_previous(body: dict[str, Any], history: StoredResponse | None) -> Refusal | None:
    previous = body.get("previous_response_id")
    if previous is None or history is not None:
        return None
    return Refusal(
        f"Previous response with id '{previous}' not found.",
        "previous_response_id",
        "previous_response_not_found",
    )
