"""What a request asks, in OpenTelemetry's GenAI message shape: for telemetry's content capture.

A protocol reads its own request body into a :class:`Prompt` (its ``prompt`` fact): the
system instructions as parts, the conversation as ``{"role", "parts"}`` messages, and the
tool definitions as ``{"type", "name", "description", "parameters"}``, the shapes of the
conventions' ``gen_ai.system_instructions``, ``gen_ai.input.messages`` and
``gen_ai.tool.definitions``. Parts are built with the helpers below, so every protocol's
reading says a text, a tool call, its result and reasoning the same way; what has no part of
its own (an image, a document, a server tool's block) is a part of its own ``type`` with no
payload (media are not copied into a span).

The readers are lenient: a body the API would refuse still reads (what is not understood is
left out), and they never raise on a shape they do not know.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Prompt",
    "PromptReader",
    "message",
    "other",
    "reasoning",
    "text",
    "texts",
    "tool",
    "tool_call",
    "tool_result",
]

Part = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Prompt:
    """A request's content: system instruction parts, messages and tool definitions."""

    system: list[Part] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)


#: Reads a request body into its :class:`Prompt` (a protocol's ``prompt`` fact).
PromptReader = Callable[[Mapping[str, Any]], Prompt]


def text(content: object) -> Part:
    """A text part."""
    return {"type": "text", "content": content if isinstance(content, str) else ""}


def reasoning(content: object) -> Part:
    """A reasoning part (a thought summary, a thinking block)."""
    return {"type": "reasoning", "content": content if isinstance(content, str) else ""}


def tool_call(call_id: object, name: object, arguments: object) -> Part:
    """A tool call the model made: ``arguments`` as sent (a JSON text or an object)."""
    part: Part = {"type": "tool_call", "name": name if isinstance(name, str) else ""}
    if isinstance(call_id, str) and call_id:
        part["id"] = call_id
    part["arguments"] = _decoded(arguments)
    return part


def tool_result(call_id: object, response: object) -> Part:
    """A tool's result sent back: ``response`` as sent (a text, parts or an object)."""
    part: Part = {"type": "tool_call_response"}
    if isinstance(call_id, str) and call_id:
        part["id"] = call_id
    part["response"] = response
    return part


def other(kind: object, **facts: object) -> Part:
    """A part with no shape of its own (an image, a document, a server tool's block), by its
    type and the small facts given (a MIME type), never its payload."""
    part: Part = {"type": kind if isinstance(kind, str) and kind else "unknown"}
    part.update({k: v for k, v in facts.items() if isinstance(v, str) and v})
    return part


def message(role: object, parts: list[Part]) -> dict[str, Any]:
    """A message; one that holds only tool results is the conventions' ``tool`` message."""
    said = role if isinstance(role, str) and role else "user"
    if parts and all(part["type"] == "tool_call_response" for part in parts):
        said = "tool"
    return {"role": said, "parts": parts}


def texts(content: object, kinds: Iterable[str] = ("text",)) -> list[Part]:
    """The text parts of a content that is a string or a list of typed blocks (``kinds``:
    the block types holding a ``text``); a block of another type is :func:`other`."""
    if isinstance(content, str):
        return [text(content)] if content else []
    found: list[Part] = []
    if isinstance(content, list):
        wanted = set(kinds)
        for block in content:
            if isinstance(block, str):
                found.append(text(block))
            elif isinstance(block, Mapping):
                kind = block.get("type")
                found.append(text(block.get("text")) if kind in wanted else other(kind))
    return found


def tool(name: object, description: object = None, parameters: object = None) -> dict[str, Any]:
    """A function tool's definition."""
    found: dict[str, Any] = {"type": "function", "name": name if isinstance(name, str) else ""}
    if isinstance(description, str) and description:
        found["description"] = description
    if isinstance(parameters, Mapping):
        found["parameters"] = parameters
    return found


def tools_of(
    entries: object, schema: str, is_function: Callable[[Mapping[str, Any]], bool]
) -> list[dict[str, Any]]:
    """The definitions of a body's flat tool list: a function tool (``is_function``) by its
    name, description and parameters (under ``schema``); another (a server or built-in tool)
    by its type and name."""
    found: list[dict[str, Any]] = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, Mapping):
            continue
        if is_function(entry):
            found.append(tool(entry.get("name"), entry.get("description"), entry.get(schema)))
        else:
            found.append({"type": entry.get("type"), "name": entry.get("name", "")})
    return found


def _decoded(arguments: object) -> object:
    """Arguments as an object where they are JSON text, else as they are."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments
