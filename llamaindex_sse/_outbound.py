"""LlamaIndex values to the OpenAI request shape, and tool calls back: pure, no I/O.

Messages become OpenAI chat messages (text, images, audio and files as content parts on user
turns; ``ToolCallBlock``s as ``tool_calls``; tool results with their ``tool_call_id``);
``ThinkingBlock``s are dropped unless reasoning passback is on, when they travel as
``reasoning_content`` (the DeepSeek / vLLM field). Tools become OpenAI function tools.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.base.llms.types import (
    AudioBlock,
    CachePoint,
    ChatMessage,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from llama_index.core.llms.llm import ToolSelection
from llama_index.core.llms.utils import parse_partial_json

from sse_core import ConfigurationError

if TYPE_CHECKING:
    from llama_index.core.tools.types import BaseTool

__all__ = [
    "keep_first_tool_call",
    "to_openai_messages",
    "to_openai_tools",
    "tool_choice_payload",
    "tool_selections",
]

# Roles other frameworks use for the model's own turns.
_ASSISTANT_ALIASES = frozenset({MessageRole.CHATBOT, MessageRole.MODEL})
_STRING_ROLES = frozenset({"assistant", "system", "developer", "tool", "function"})
_CHOICES = frozenset({"auto", "none", "required"})


def to_openai_messages(
    messages: Sequence[ChatMessage], *, reasoning_passback: bool = False
) -> list[dict[str, Any]]:
    """The ``messages`` of a chat-completions request.

    Raises:
        ConfigurationError: A block this API cannot carry (video, citations), or media on a
            turn that takes text only.
    """
    return [_message(message, reasoning_passback) for message in messages]


def _message(message: ChatMessage, reasoning_passback: bool) -> dict[str, Any]:
    role = "assistant" if message.role in _ASSISTANT_ALIASES else message.role.value
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    thinking: list[str] = []
    for block in message.blocks:
        if isinstance(block, ToolCallBlock):
            calls.append(_tool_call(block, len(calls)))
        elif isinstance(block, ThinkingBlock):
            thinking.append(block.content or "")
        elif not isinstance(block, CachePoint):
            parts.append(_part(block))
    text_only = all(part["type"] == "text" for part in parts)
    if not text_only and role in _STRING_ROLES:
        raise ConfigurationError(
            f"a {role} message can carry text only, got {_kinds(parts)}; "
            "send images, audio and files in a user message"
        )
    text = "".join(part["text"] for part in parts) if text_only else ""
    result: dict[str, Any] = {"role": role, "content": text if text_only else parts}
    kwargs = message.additional_kwargs
    if role == "assistant":
        _assistant_extras(result, calls, thinking if reasoning_passback else [], kwargs)
    if "tool_call_id" in kwargs:
        result["tool_call_id"] = kwargs["tool_call_id"]
    if isinstance(kwargs.get("name"), str):
        result["name"] = kwargs["name"]
    return result


def _assistant_extras(
    result: dict[str, Any],
    calls: list[dict[str, Any]],
    thinking: list[str],
    kwargs: dict[str, Any],
) -> None:
    """Tool calls (from blocks, else legacy ``additional_kwargs``) and passed-back reasoning."""
    legacy = kwargs.get("tool_calls")
    if not calls and legacy:
        calls = [_legacy_call(call) for call in legacy]
    if calls:
        result["tool_calls"] = calls
        if not result["content"]:
            result["content"] = None  # OpenAI: null content beside tool calls
    if thinking:
        result["reasoning_content"] = "".join(thinking)


def _kinds(parts: list[dict[str, Any]]) -> str:
    return ", ".join(sorted({str(part["type"]) for part in parts if part["type"] != "text"}))


def _part(block: ContentBlock) -> dict[str, Any]:
    """A content part for one block."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock):
        url = str(block.url) if block.url else _data_url(block)
        image: dict[str, Any] = {"url": url}
        if block.detail:
            image["detail"] = block.detail
        return {"type": "image_url", "image_url": image}
    if isinstance(block, AudioBlock):
        data = block.resolve_audio(as_base64=True).read().decode("ascii")
        return {"type": "input_audio", "input_audio": {"data": data, "format": block.format}}
    if isinstance(block, DocumentBlock):
        data = block._get_b64_string(block.resolve_document())
        file = {
            "filename": block.title,
            "file_data": f"data:{block._guess_mimetype()};base64,{data}",
        }
        return {"type": "file", "file": file}
    raise ConfigurationError(
        f"a {type(block).__name__} cannot be sent to a chat-completions gateway; "
        "expected text, image, audio, document, tool-call or thinking blocks"
    )


def _data_url(block: ImageBlock) -> str:
    data = block.resolve_image(as_base64=True).read().decode("ascii")
    return f"data:{block.image_mimetype or 'image/png'};base64,{data}"


def _tool_call(block: ToolCallBlock, position: int) -> dict[str, Any]:
    arguments = block.tool_kwargs
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": block.tool_call_id or f"call_{position}",
        "type": "function",
        "function": {"name": block.tool_name, "arguments": arguments},
    }


def _legacy_call(call: Any) -> dict[str, Any]:
    """A tool call kept in ``additional_kwargs`` (a dict, or an OpenAI SDK object)."""
    if hasattr(call, "model_dump"):
        call = call.model_dump(exclude_none=True)
    return dict(call) if isinstance(call, Mapping) else {"value": call}


def to_openai_tools(
    tools: Sequence[BaseTool], *, strict: bool | None = None
) -> list[dict[str, Any]]:
    """OpenAI function tools for LlamaIndex tools."""
    specs = []
    for tool in tools:
        spec = tool.metadata.to_openai_tool(skip_length_check=True)
        if strict is not None:
            spec["function"]["strict"] = strict
        specs.append(spec)
    return specs


def tool_choice_payload(tool_choice: str | dict[str, Any] | None, tool_required: bool) -> Any:
    """``tool_choice`` for the request: a tool name becomes a forced function choice."""
    if tool_choice is None:
        return "required" if tool_required else "auto"
    if isinstance(tool_choice, str) and tool_choice not in _CHOICES:
        return {"type": "function", "function": {"name": tool_choice}}
    return tool_choice


def keep_first_tool_call(message: ChatMessage) -> None:
    """Drop every tool call of ``message`` but the first (parallel calls not allowed)."""
    calls = [block for block in message.blocks if isinstance(block, ToolCallBlock)]
    if len(calls) > 1:
        message.blocks = [
            block
            for block in message.blocks
            if not isinstance(block, ToolCallBlock) or block is calls[0]
        ]
        legacy = message.additional_kwargs.get("tool_calls")
        if isinstance(legacy, list):
            message.additional_kwargs["tool_calls"] = legacy[:1]


def tool_selections(message: ChatMessage) -> list[ToolSelection]:
    """The tool calls of an assistant message; arguments still streaming parse as far as
    they go (an unparsable prefix gives ``{}``), so this never raises on a partial call."""
    calls: list[tuple[str, str, Any]] = [
        (block.tool_call_id or "", block.tool_name, block.tool_kwargs)
        for block in message.blocks
        if isinstance(block, ToolCallBlock)
    ]
    if not calls:
        for call in message.additional_kwargs.get("tool_calls") or []:
            data = _legacy_call(call)
            function = data.get("function") or {}
            calls.append(
                (str(data.get("id") or ""), function.get("name") or "", function.get("arguments"))
            )
    return [
        ToolSelection(tool_id=call_id, tool_name=name, tool_kwargs=_arguments(arguments))
        for call_id, name, arguments in calls
    ]


def _arguments(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        parsed = parse_partial_json(arguments)
    except (ValueError, TypeError):
        return {}
    return parsed if isinstance(parsed, dict) else {}
