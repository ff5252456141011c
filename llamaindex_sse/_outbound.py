"""LlamaIndex messages and call arguments to the request body: pure, no I/O.

Messages become OpenAI chat messages (text, images, audio and files as content parts on user
turns; ``ToolCallBlock``s as ``tool_calls``; tool results with their ``tool_call_id``);
``ThinkingBlock``s are dropped unless reasoning passback is on, when they travel as
``reasoning_content`` (the DeepSeek / vLLM field). :func:`build_request` puts them together
with the model's settings and the call's keyword arguments. Tools: :mod:`._tools`.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from collections.abc import Mapping, Sequence
from typing import Any

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
from pydantic import ValidationError

from llamaindex_sse._reasoning import signed_reasoning
from llamaindex_sse._tools import to_call_dict
from sse_core import ConfigurationError
from sse_core._choices import refuse_choices
from sse_core.protocols.history import warn_left_out

__all__ = ["Headers", "as_message", "build_request", "to_openai_messages"]

#: Per-call headers (``extra_headers=``), or None.
Headers = dict[str, str] | None

# Roles other frameworks use for the model's own turns.
_ASSISTANT_ALIASES = frozenset({MessageRole.CHATBOT, MessageRole.MODEL})
_STRING_ROLES = frozenset({"assistant", "system", "developer", "tool", "function"})


def to_openai_messages(
    messages: Sequence[ChatMessage], *, reasoning_passback: bool = False
) -> list[dict[str, Any]]:
    """The ``messages`` of a chat-completions request.

    Raises:
        ConfigurationError: A block this API cannot carry (video, citations), or media on a
            turn that takes text only.
        TypeError: A message is neither a ChatMessage nor a mapping of its fields.
    """
    return [_to_openai_message(as_message(message), reasoning_passback) for message in messages]


def as_message(message: object) -> ChatMessage:
    """A ChatMessage, or a mapping of its fields (``{"role": "user", "content": "hi"}``)."""
    if isinstance(message, ChatMessage):
        return message
    if isinstance(message, Mapping):
        try:
            return ChatMessage.model_validate(message)
        except ValidationError as exc:  # said without the input
            detail = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)
            )
            raise TypeError(f"a message mapping that is no ChatMessage: {detail}") from None
    raise TypeError(f"messages must be ChatMessage objects, got {type(message).__name__}")


def _to_openai_message(message: ChatMessage, reasoning_passback: bool) -> dict[str, Any]:
    role = "assistant" if message.role in _ASSISTANT_ALIASES else message.role.value
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    thinking: list[str] = []
    for block in message.blocks:
        if isinstance(block, ToolCallBlock):
            calls.append(_to_tool_call(block, len(calls)))
        elif isinstance(block, ThinkingBlock):
            thinking.append(block.content or "")
        elif not isinstance(block, CachePoint):
            parts.append(_to_part(block))
    text_only = all(part["type"] == "text" for part in parts)
    if not text_only and role in _STRING_ROLES:
        raise ConfigurationError(
            f"a {role} message can carry text only, got {_list_kinds(parts)}; "
            "send images, audio and files in a user message"
        )
    text = "".join(part["text"] for part in parts) if text_only else ""
    result: dict[str, Any] = {"role": role, "content": text if text_only else parts}
    kwargs = message.additional_kwargs
    if role == "assistant":
        _add_assistant_extras(result, calls, thinking if reasoning_passback else [], kwargs)
    if "tool_call_id" in kwargs:
        result["tool_call_id"] = kwargs["tool_call_id"]
    if isinstance(kwargs.get("name"), str):
        result["name"] = kwargs["name"]
    return result


def _add_assistant_extras(
    result: dict[str, Any],
    calls: list[dict[str, Any]],
    thinking: list[str],
    kwargs: dict[str, Any],
) -> None:
    """Tool calls (from blocks, else legacy ``additional_kwargs``) and passed-back reasoning."""
    legacy = kwargs.get("tool_calls")
    if not calls and legacy:
        calls = [to_call_dict(call) for call in legacy]
    if calls:
        result["tool_calls"] = calls
        if not result["content"]:
            result["content"] = None  # OpenAI: null content beside tool calls
    if thinking:
        result["reasoning_content"] = "".join(thinking)


def _list_kinds(parts: list[dict[str, Any]]) -> str:
    return ", ".join(sorted({str(part["type"]) for part in parts if part["type"] != "text"}))


def _to_part(block: ContentBlock) -> dict[str, Any]:
    """A content part for one block."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock):
        url = str(block.url) if block.url else _to_data_url(block)
        image: dict[str, Any] = {"url": url}
        if block.detail:
            image["detail"] = block.detail
        return {"type": "image_url", "image_url": image}
    if isinstance(block, AudioBlock):
        data = block.resolve_audio(as_base64=True).read().decode("ascii")
        return {"type": "input_audio", "input_audio": {"data": data, "format": block.format}}
    if isinstance(block, DocumentBlock):
        return {"type": "file", "file": {"filename": block.title, "file_data": _to_file(block)}}
    raise ConfigurationError(
        f"a {type(block).__name__} cannot be sent to a chat-completions gateway; "
        "expected text, image, audio, document, tool-call or thinking blocks"
    )


def _to_data_url(block: ImageBlock) -> str:
    data = block.resolve_image(as_base64=True).read().decode("ascii")
    return f"data:{block.image_mimetype or 'image/png'};base64,{data}"


def _to_file(block: DocumentBlock) -> str:
    """A document as a data URL: its bytes base64-encoded; its type as LlamaIndex found it
    when the block was made (``document_mimetype``, from the bytes or the name's suffix),
    else from the path's or URL's suffix, else ``application/octet-stream``."""
    data = base64.b64encode(block.resolve_document().read()).decode("ascii")
    name = str(block.path or block.url or "")
    mimetype = block.document_mimetype or mimetypes.guess_type(name)[0]
    return f"data:{mimetype or 'application/octet-stream'};base64,{data}"


def _to_tool_call(block: ToolCallBlock, position: int) -> dict[str, Any]:
    arguments = block.tool_kwargs
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": block.tool_call_id or f"call_{position}",
        "type": "function",
        "function": {"name": block.tool_name, "arguments": arguments},
    }


def build_request(
    model: str,
    messages: Sequence[ChatMessage],
    *,
    settings: Mapping[str, Any],
    call_kwargs: Mapping[str, Any],
    reasoning_passback: bool = False,
) -> tuple[dict[str, Any], Headers]:
    """The request body of one call, and its per-call headers.

    Args:
        model: The model name.
        messages: The conversation.
        settings: The model's own parameters (``temperature``, ``additional_kwargs``, ...),
            in order; None values are left out.
        call_kwargs: The call's keyword arguments: request parameters (None values left
            out, later ones win), except ``extra_headers``, the headers of this call.
        reasoning_passback: Send ThinkingBlocks back as ``reasoning_content``.

    Raises:
        ConfigurationError: ``n`` asks for more than one choice (the call's ``n`` wins).
    """
    if "n" in call_kwargs:
        refuse_choices(call_kwargs, "the call's keyword arguments")
    else:
        refuse_choices(settings, "SSELLM's additional_kwargs")
    given = [as_message(message) for message in messages]
    body: dict[str, Any] = {
        "model": model,
        "messages": to_openai_messages(given, reasoning_passback=reasoning_passback),
    }
    if not reasoning_passback:  # chat completions takes no signed reasoning back: said
        warn_left_out("chat completions", signed_reasoning(given))
    for key, value in settings.items():
        if value is not None:
            body[key] = value
    for key, value in call_kwargs.items():
        if value is not None and key != "extra_headers":
            body[key] = value
    return body, call_kwargs.get("extra_headers")
