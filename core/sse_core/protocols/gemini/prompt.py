"""A Gemini body's content and sampling settings, for telemetry (the ``prompt`` and
``sampling`` facts)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.protocols import prompt
from sse_core.protocols.prompt import Part, Prompt

__all__ = ["read_prompt", "sampling"]

#: ``generationConfig`` keys, under chat completions' names (``gen_ai.request.*``).
_SAMPLING = (
    ("max_tokens", "maxOutputTokens"),
    ("temperature", "temperature"),
    ("top_p", "topP"),
    ("stop", "stopSequences"),
)


def sampling(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body's ``generationConfig`` sampling settings, by chat completions' names."""
    config = body.get("generationConfig")
    if not isinstance(config, Mapping):
        return {}
    return {ours: config[theirs] for ours, theirs in _SAMPLING if theirs in config}


def read_prompt(body: Mapping[str, Any]) -> Prompt:
    """``systemInstruction``'s parts, the ``contents`` (``model`` is the assistant), and the
    function declarations (a built-in tool, such as ``googleSearch``, by its key)."""
    instruction = body.get("systemInstruction")
    system = _parts(instruction.get("parts")) if isinstance(instruction, Mapping) else []
    messages: list[dict[str, Any]] = []
    for content in body.get("contents") or ():
        if isinstance(content, Mapping):
            role = content.get("role")
            said = "assistant" if role == "model" else role
            messages.append(prompt.message(said, _parts(content.get("parts"))))
    tools: list[dict[str, Any]] = []
    for entry in body.get("tools") or ():
        if not isinstance(entry, Mapping):
            continue
        for key, value in entry.items():
            if key != "functionDeclarations":
                tools.append({"type": key, "name": key})
                continue
            for declared in value if isinstance(value, list) else ():
                if isinstance(declared, Mapping):
                    schema = declared.get("parametersJsonSchema", declared.get("parameters"))
                    name, description = declared.get("name"), declared.get("description")
                    tools.append(prompt.tool(name, description, schema))
    return Prompt(system, messages, tools)


def _parts(parts: object) -> list[Part]:
    found: list[Part] = []
    for part in parts if isinstance(parts, list) else ():
        if not isinstance(part, Mapping):
            continue
        if "text" in part:
            said = part.get("text")
            found.append(prompt.reasoning(said) if part.get("thought") else prompt.text(said))
        elif isinstance(call := part.get("functionCall"), Mapping):
            found.append(prompt.tool_call(call.get("id"), call.get("name"), call.get("args")))
        elif isinstance(result := part.get("functionResponse"), Mapping):
            found.append(prompt.tool_result(result.get("id"), result.get("response")))
        else:
            kind = next((key for key in part if key != "thoughtSignature"), None)
            data = part.get(kind) if kind else None
            mime = data.get("mimeType") if isinstance(data, Mapping) else None
            found.append(prompt.other(kind, mime_type=mime))
    return found
