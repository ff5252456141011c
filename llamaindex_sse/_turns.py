"""LlamaIndex messages as the core's turns (:mod:`sse_core.protocols.turns`): the one
outbound mapping that does not depend on the protocol.

A protocol module then makes its request of the turns, with its own rules
(:func:`sse_core.protocols.anthropic.messages_body`), so SSELLM and ChatSSE send the same
request for the same conversation. What is read here is LlamaIndex's:

- roles: system and developer messages are system turns; tool and function messages tool
  turns (their ``additional_kwargs["tool_call_id"]`` is the call they answer, required,
  ``is_error`` from ``additional_kwargs["is_error"]``); assistant, chatbot and model
  messages assistant turns; the rest user turns;
- blocks: text (an empty one is left out), images (base64 from bytes, a path or a data URL;
  an http URL as a URL), documents (PDF as base64, plain text as text), ``ThinkingBlock``\\ s
  of an assistant turn as the model sent them (a signed one with its
  ``additional_information["signature"]``, a redacted one with its ``data``),
  ``ToolCallBlock``\\ s, else legacy ``additional_kwargs["tool_calls"]``, as tool calls with
  the input the tool was called with (after the message's other blocks); citations are not
  sent back;
- a ``CachePoint`` puts ``cache_control`` on the part before it, and a message's
  ``additional_kwargs["cache_control"]`` on its last part (a breakpoint caches everything
  before it).
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    CachePoint,
    ChatMessage,
    CitationBlock,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from llamaindex_sse._outbound import Headers, as_message
from llamaindex_sse._reasoning import reasoning_part
from llamaindex_sse._tools import parse_arguments, to_call_dict
from sse_core import ConfigurationError
from sse_core.protocols import gemini
from sse_core.protocols.turns import (
    DocumentPart,
    ImagePart,
    Part,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)

__all__ = ["BodyOfTurns", "openai_tool", "to_turns", "turns_request"]

#: A protocol module's body builder: (model, turns, settings) to the request body.
BodyOfTurns = Callable[[str, Sequence[Turn], dict[str, Any]], dict[str, Any]]

#: The parts a ``CachePoint`` may follow (reasoning cannot be cached).
_CACHEABLE = (TextPart, ImagePart, DocumentPart, ToolUsePart, ToolResultPart)
_SYSTEM_ROLES = frozenset({MessageRole.SYSTEM, MessageRole.DEVELOPER})
_TOOL_ROLES = frozenset({MessageRole.TOOL, MessageRole.FUNCTION})
_ASSISTANT_ROLES = frozenset({MessageRole.ASSISTANT, MessageRole.CHATBOT, MessageRole.MODEL})


def to_turns(messages: Sequence[object]) -> list[Turn]:
    """The conversation as turns.

    Raises:
        ConfigurationError: A block no protocol carries (audio, video), a ``CachePoint``
            with no block before it, or a tool message without its ``tool_call_id``.
        TypeError: A message is neither a ChatMessage nor a mapping of its fields.
    """
    turns: list[Turn] = []
    for given in messages:
        message = as_message(given)
        if message.role in _SYSTEM_ROLES:
            turns.append(Turn(role="system", parts=_parts(message, assistant=False)))
        elif message.role in _TOOL_ROLES:
            turns.append(Turn(role="tool", parts=(_tool_result(message),)))
        elif message.role in _ASSISTANT_ROLES:
            turns.append(Turn(role="assistant", parts=_parts(message, assistant=True)))
        else:
            turns.append(Turn(role="user", parts=_parts(message, assistant=False)))
    return turns


def _parts(message: ChatMessage, *, assistant: bool) -> tuple[Part, ...]:
    """The parts of one message, ``cache_control`` placed."""
    parts: list[Part] = []
    calls: list[Part] = []
    for block in message.blocks:
        if isinstance(block, CachePoint):
            _cache_last(parts, block.cache_control.model_dump(exclude_none=True))
        elif isinstance(block, ToolCallBlock):
            if assistant:
                calls.append(_tool_use(block, len(calls)))
        else:
            part = _part(block, assistant)
            if part is not None:
                parts.append(part)
    if assistant:
        parts.extend(calls or _legacy_calls(message.additional_kwargs))
        parts[:0] = _google_signed(message)
    cache = message.additional_kwargs.get("cache_control")
    if isinstance(cache, Mapping):
        _cache_last(parts, dict(cache))
    return tuple(parts)


def _signature(given: object) -> str | None:
    """A thought signature as the Gemini API's JSON spells it (google-genai holds bytes)."""
    if isinstance(given, bytes) and given:
        return base64.b64encode(given).decode("ascii")
    return given if isinstance(given, str) and given else None


def _google_signed(message: ChatMessage) -> list[Part]:
    """llama-index GoogleGenAI's thought signatures, kept apart from their parts (its
    ``additional_kwargs["thought_signatures"]``, one per block), as the core's signed-part
    items: Gemini takes them back on their parts, other APIs leave them out."""
    given = message.additional_kwargs.get("thought_signatures")
    if not isinstance(given, list):
        return []
    found: list[Part] = []
    offset = calls = 0
    for block, signed in zip(message.blocks, given, strict=False):
        signature = _signature(signed)
        if isinstance(block, TextBlock):
            if signature is not None:
                item = gemini.signed_text_item(offset, block.text, signature)
                found.append(ReasoningPart(item=item))
            offset += len(block.text)
        elif isinstance(block, ToolCallBlock):
            if signature is not None:
                args = block.tool_kwargs
                item = gemini.signed_call_item(calls, block.tool_name, args, signature)
                found.append(ReasoningPart(item=item))
            calls += 1
        elif isinstance(block, ThinkingBlock) and signature is not None and block.content:
            item = gemini.signed_text_item(0, block.content, signature)
            thought = {**item, "kind": "thought", "offset": None}
            thought["part"] = {**item["part"], "thought": True}
            found.append(ReasoningPart(item=thought))
    return found


def _cache_last(parts: list[Part], cache_control: dict[str, Any]) -> None:
    if not parts:
        raise ConfigurationError("a CachePoint must follow the block it caches, got none")
    last = parts[-1]
    if not isinstance(last, _CACHEABLE):
        raise ConfigurationError(f"a {type(last).__name__} cannot carry a CachePoint")
    parts[-1] = dataclasses.replace(last, cache_control=cache_control)


def _part(block: ContentBlock, assistant: bool) -> Part | None:
    """A text, image, document or thinking part; None for what is not sent (empty text,
    citations, thinking outside an assistant turn)."""
    if isinstance(block, TextBlock):
        return TextPart(text=block.text) if block.text else None
    if isinstance(block, ThinkingBlock):
        return reasoning_part(block) if assistant else None
    if isinstance(block, CitationBlock):
        return None
    if isinstance(block, ImageBlock):
        return _image(block)
    if isinstance(block, DocumentBlock):
        return _document(block)
    raise ConfigurationError(
        f"a {type(block).__name__} cannot be sent in a request; expected text, image, "
        "document, tool-call or thinking blocks"
    )


def _image(block: ImageBlock) -> ImagePart:
    url = str(block.url) if block.url else ""
    inline = url.startswith("data:") and ";base64," in url
    if inline or (url and block.image is None and block.path is None):
        return ImagePart(url=url)  # a data URL, or one the gateway fetches
    data = block.resolve_image(as_base64=True).read().decode("ascii")
    return ImagePart(data=data, media_type=block.image_mimetype or "image/png")


def _document(block: DocumentBlock) -> DocumentPart:
    mimetype = block.document_mimetype or "application/pdf"  # guessed at construction
    raw = block.resolve_document().read()
    if mimetype.startswith("text/"):
        return DocumentPart(text=raw.decode("utf-8", "replace"))
    return DocumentPart(data=base64.b64encode(raw).decode("ascii"), media_type=mimetype)


def _tool_use(block: ToolCallBlock, position: int) -> ToolUsePart:
    return ToolUsePart(
        id=block.tool_call_id or f"call_{position}",
        name=block.tool_name,
        input=parse_arguments(block.tool_kwargs),  # what the tool was called with
    )


def _legacy_calls(kwargs: Mapping[str, Any]) -> list[Part]:
    """Tool calls kept in ``additional_kwargs["tool_calls"]``: OpenAI's or Anthropic's shape."""
    parts: list[Part] = []
    for at, call in enumerate(kwargs.get("tool_calls") or ()):
        data = to_call_dict(call)
        function = data.get("function")
        if isinstance(function, Mapping):
            name, given = function.get("name"), function.get("arguments")
        else:
            name, given = data.get("name"), data.get("input")
        call_id = data.get("id") or f"call_{at}"
        parts.append(ToolUsePart(id=call_id, name=str(name), input=parse_arguments(given)))
    return parts


def _tool_result(message: ChatMessage) -> ToolResultPart:
    kwargs = message.additional_kwargs
    call_id = kwargs.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ConfigurationError(
            f"a {message.role.value} message needs additional_kwargs['tool_call_id'] "
            "(the id of the tool call it answers)"
        )
    parts = _parts(message, assistant=False)
    plain = all(isinstance(p, TextPart) and p.cache_control is None for p in parts)
    content = "".join(p.text for p in parts if isinstance(p, TextPart)) if plain else parts
    return ToolResultPart(call_id=call_id, content=content, is_error=kwargs.get("is_error") is True)


def openai_tool(tool: Any) -> Any:
    """A tool as the core takes it: a LlamaIndex tool as its OpenAI function tool, a dict (in
    any protocol's own shape, server tools included) as given."""
    metadata = getattr(tool, "metadata", None)
    if callable(getattr(metadata, "to_openai_tool", None)):
        return metadata.to_openai_tool(skip_length_check=True)  # type: ignore[union-attr]
    return tool


def turns_request(
    body_of: BodyOfTurns,
    model: str,
    messages: Sequence[ChatMessage],
    settings: Mapping[str, Any],
    call_kwargs: Mapping[str, Any],
    names: Mapping[str, str] | None = None,
) -> tuple[dict[str, Any], Headers]:
    """One call's request in a protocol whose module builds the body from the core's turns
    (Anthropic Messages, Responses), and the call's headers.

    Args:
        body_of: The protocol's body builder.
        model: The model name.
        messages: The conversation.
        settings: The model's own parameters, then ``additional_kwargs``; None values are
            left out.
        call_kwargs: The call's keyword arguments: request parameters (None values left out,
            later ones win; tools as LlamaIndex tools or dicts), except ``extra_headers``,
            the headers of this call.
        names: SSELLM's names of settings the protocol module names otherwise.

    Raises:
        ConfigurationError: A message, tool, tool choice or setting the protocol cannot
            carry, or a rule of its API broken.
    """
    renamed = names or {}
    params: dict[str, Any] = {}
    for source in (settings, call_kwargs):
        for key, value in source.items():
            if value is not None and key != "extra_headers":
                params[renamed.get(key, key)] = value
    if params.get("tools"):
        params["tools"] = [openai_tool(tool) for tool in params["tools"]]
    return body_of(model, to_turns(messages), params), call_kwargs.get("extra_headers")
