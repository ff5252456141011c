"""A Messages API body's content, for telemetry's content capture (the ``prompt`` fact)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.protocols import prompt
from sse_core.protocols.prompt import Part, Prompt

__all__ = ["read_prompt"]


def read_prompt(body: Mapping[str, Any]) -> Prompt:
    """``system`` (a string or text blocks), the messages' blocks (``text``, ``thinking``,
    ``tool_use``, ``tool_result``; another block is a part of its type) and the tools
    (a server tool by its type)."""
    messages: list[dict[str, Any]] = []
    for said in body.get("messages") or ():
        if isinstance(said, Mapping):
            messages.append(prompt.message(said.get("role"), _parts(said.get("content"))))
    tools = prompt.tools_of(body.get("tools"), "input_schema", _custom)
    return Prompt(prompt.texts(body.get("system")), messages, tools)


def _custom(entry: Mapping[str, Any]) -> bool:
    """A tool of one's own (no type, or ``custom``), not a server tool."""
    return "input_schema" in entry or entry.get("type") in (None, "custom")


def _parts(content: object) -> list[Part]:
    if not isinstance(content, list):
        return prompt.texts(content)
    parts: list[Part] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(prompt.text(block.get("text")))
        elif kind == "thinking":
            parts.append(prompt.reasoning(block.get("thinking")))
        elif kind == "tool_use":
            parts.append(prompt.tool_call(block.get("id"), block.get("name"), block.get("input")))
        elif kind == "tool_result":
            parts.append(prompt.tool_result(block.get("tool_use_id"), block.get("content")))
        else:
            source = block.get("source")
            media = source.get("media_type") if isinstance(source, Mapping) else None
            parts.append(prompt.other(kind, mime_type=media))
    return parts
