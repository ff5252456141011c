"""LlamaIndex messages as the core's turns (:mod:`sse_core.protocols.turns`): SSELLM's one
mapping of its messages, whatever the protocol.

A protocol module then makes its request of the turns, with its own rules
(:attr:`sse_core.protocols.WireProtocol.turns_body`: which roles alternate, where the system
prompt goes, what of an earlier answer goes back and how), so SSELLM and ChatSSE send the same
request for the same conversation. What is read here is LlamaIndex's:

- roles: system and developer messages are system turns; tool messages tool turns (their
  ``additional_kwargs["tool_call_id"]`` is the call they answer, required, ``is_error`` from
  ``additional_kwargs["is_error"]``); assistant, chatbot and model messages assistant turns;
  user messages user turns; a function message (OpenAI's retired function-call result) is
  refused, naming the tool message that answers a tool call;
- a message's ``additional_kwargs["name"]`` is its turn's ``name`` (chat completions'
  ``name``; not a tool result's);
- blocks: text (an empty one is left out), images (base64 from bytes, a path or a data URL;
  an http URL as a URL), documents (text types as text, others as base64, typed as LlamaIndex
  found them, else by the path's or URL's suffix), ``ThinkingBlock``\\ s
  of an assistant turn as the model sent them (a signed one with its
  ``additional_information["signature"]``, a redacted one with its ``data``),
  ``ToolCallBlock``\\ s, else legacy ``additional_kwargs["tool_calls"]``, as tool calls with
  the arguments the model wrote (after the message's other blocks): a JSON object as the
  object, any other text as it was, never repaired (each protocol sends such a text as it
  can, as ChatSSE sends an invalid call's); citations are not sent back;
- an image's ``detail`` goes with it (OpenAI's APIs read it; the others have none);
- with ``openai_parts`` (OpenAILike's content parts, chat completions), a user message's
  ``AudioBlock`` is OpenAI's ``input_audio`` part, and a document with a ``title`` (not a
  text one) OpenAI's ``file`` part that keeps it as its ``filename`` (raw parts: the core's
  parts have no audio); audio anywhere else is refused; cache points are not read
  (OpenAILike sends none);
- a ``CachePoint`` puts ``cache_control`` on the part before it, and a message's
  ``additional_kwargs["cache_control"]`` on its last part (a breakpoint caches everything
  before it); a protocol without prompt caching leaves them out.
"""

from __future__ import annotations

import base64
import dataclasses
import mimetypes
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    AudioBlock,
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
from llamaindex_sse._tools import sent_arguments, to_call_dict
from sse_core import ConfigurationError
from sse_core.protocols import gemini
from sse_core.protocols.turns import (
    DocumentPart,
    ImagePart,
    Part,
    RawPart,
    ReasoningPart,
    Role,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)

__all__ = ["PASSBACK", "BodyOfTurns", "openai_tool", "to_turns", "turns_request"]

#: A protocol module's body builder: (model, turns, settings) to the request body.
BodyOfTurns = Callable[[str, Sequence[Turn], dict[str, Any]], dict[str, Any]]

#: The parts a ``CachePoint`` may follow (reasoning cannot be cached).
_CACHEABLE = (TextPart, ImagePart, DocumentPart, ToolUsePart, ToolResultPart)
#: The setting of a protocol that sends an earlier answer's reasoning back on request (chat
#: completions' ``reasoning_content``), named as SSELLM's field.
PASSBACK = "reasoning_passback"
_SYSTEM_ROLES = frozenset({MessageRole.SYSTEM, MessageRole.DEVELOPER})
_ASSISTANT_ROLES = frozenset({MessageRole.ASSISTANT, MessageRole.CHATBOT, MessageRole.MODEL})


def to_turns(messages: Sequence[object], *, openai_parts: bool = False) -> list[Turn]:
    """The conversation as turns.

    Args:
        messages: The conversation: ChatMessages, or mappings of their fields.
        openai_parts: Audio and a document's ``title`` on user turns as
            OpenAI's content parts, and no cache points (see the module).

    Raises:
        ConfigurationError: A block no protocol carries (video; audio without
            ``openai_parts`` or outside a user message), a ``CachePoint`` with no block
            before it (unless ``openai_parts``), a tool message without its
            ``tool_call_id``, or a function message.
        TypeError: A message is neither a ChatMessage nor a mapping of its fields.
    """
    turns: list[Turn] = []
    for given in messages:
        message = as_message(given)
        if message.role == MessageRole.TOOL:
            turns.append(Turn(role="tool", parts=(_tool_result(message, openai_parts),)))
            continue
        if message.role == MessageRole.FUNCTION:
            raise ConfigurationError(
                "a function message cannot be sent in a request: it is OpenAI's retired "
                "function-call result, which no protocol here takes; answer a tool call with a "
                "tool message (role='tool', additional_kwargs={'tool_call_id': <the call's id>})"
            )
        role: Role = (
            "system"
            if message.role in _SYSTEM_ROLES
            else "assistant"
            if message.role in _ASSISTANT_ROLES
            else "user"
        )
        name = message.additional_kwargs.get("name")
        parts = _parts(message, role, openai_parts=openai_parts)
        turns.append(Turn(role=role, parts=parts, name=name if isinstance(name, str) else ""))
    return turns


def _parts(message: ChatMessage, role: Role, *, openai_parts: bool = False) -> tuple[Part, ...]:
    """The parts of one message, ``cache_control`` placed."""
    assistant = role == "assistant"
    parts: list[Part] = []
    calls: list[Part] = []
    for block in message.blocks:
        if isinstance(block, CachePoint):
            if not openai_parts:  # OpenAILike sends none (nor does chat completions)
                _cache_last(parts, block.cache_control.model_dump(exclude_none=True))
        elif isinstance(block, ToolCallBlock):
            if assistant:
                calls.append(_tool_use(block, len(calls)))
        else:
            raw = _openai_part(block, role) if openai_parts else None
            part = raw or _part(block, assistant)
            if part is not None:
                parts.append(part)
    if assistant:
        parts.extend(calls or _legacy_calls(message.additional_kwargs))
        parts[:0] = _google_signed(message)
    cache = message.additional_kwargs.get("cache_control")
    if isinstance(cache, Mapping) and not openai_parts:
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


def _openai_part(block: ContentBlock, role: Role) -> RawPart | None:
    """OpenAILike's content part of a user message's block the core's parts do not hold whole
    (audio, a document's title); None for the others."""
    if isinstance(block, AudioBlock):
        if role != "user":
            raise ConfigurationError(
                f"a {role} message can carry text only, got an AudioBlock; send images, "
                "audio and files in a user message"
            )
        data = block.resolve_audio(as_base64=True).read().decode("ascii")
        return RawPart(
            block={"type": "input_audio", "input_audio": {"data": data, "format": block.format}}
        )
    if role != "user":
        return None
    if isinstance(block, DocumentBlock) and block.title:
        document = _document(block)
        if document.text is None:  # OpenAI's file part says when the type is not known
            kind = _mimetype(block) or "application/octet-stream"
            data_url = f"data:{kind};base64,{document.data}"
            return RawPart(
                block={"type": "file", "file": {"filename": block.title, "file_data": data_url}}
            )
    return None


def _image(block: ImageBlock) -> ImagePart:
    url = str(block.url) if block.url else ""
    detail = block.detail or ""  # OpenAI's APIs read it; the others have none
    inline = url.startswith("data:") and ";base64," in url
    if inline or (url and block.image is None and block.path is None):
        return ImagePart(url=url, detail=detail)  # a data URL, or one the gateway fetches
    data = block.resolve_image(as_base64=True).read().decode("ascii")
    return ImagePart(data=data, media_type=block.image_mimetype or "image/png", detail=detail)


def _mimetype(block: DocumentBlock) -> str | None:
    """A document's type as LlamaIndex found it when the block was made (from the bytes or
    the name's suffix), else from its path's or URL's suffix."""
    name = str(block.path or block.url or "")
    return block.document_mimetype or (mimetypes.guess_type(name)[0] if name else None)


def _document(block: DocumentBlock) -> DocumentPart:
    mimetype = _mimetype(block) or "application/pdf"
    raw = block.resolve_document().read()
    if mimetype.startswith("text/"):
        return DocumentPart(text=raw.decode("utf-8", "replace"))
    return DocumentPart(data=base64.b64encode(raw).decode("ascii"), media_type=mimetype)


def _tool_use(block: ToolCallBlock, position: int) -> ToolUsePart:
    return ToolUsePart(
        id=block.tool_call_id or f"call_{position}",
        name=block.tool_name,
        input=sent_arguments(block.tool_kwargs),  # what the model called the tool with
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
        parts.append(ToolUsePart(id=call_id, name=str(name), input=sent_arguments(given)))
    return parts


def _tool_result(message: ChatMessage, openai_parts: bool) -> ToolResultPart:
    kwargs = message.additional_kwargs
    call_id = kwargs.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ConfigurationError(
            "a tool message needs additional_kwargs['tool_call_id'] "
            "(the id of the tool call it answers)"
        )
    parts = _parts(message, "tool", openai_parts=openai_parts)
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
    *,
    passback: bool = False,
    openai_parts: bool = False,
) -> tuple[dict[str, Any], Headers]:
    """One call's request, the body the protocol module builds from the core's turns, and
    the call's headers.

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
        passback: Ask the protocol to send an earlier answer's reasoning back (its
            ``reasoning_passback`` setting: only for a protocol that takes it).
        openai_parts: Media as OpenAI's content parts (:func:`to_turns`).

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
    if passback:
        params[PASSBACK] = True
    turns = to_turns(messages, openai_parts=openai_parts)
    return body_of(model, turns, params), call_kwargs.get("extra_headers")
