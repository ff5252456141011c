"""LangChain messages as the core's turns (:mod:`sse_core.protocols.turns`): the one outbound
mapping that does not depend on the protocol.

A protocol module then makes its request of the turns, with its own rules
(:func:`sse_core.protocols.anthropic.messages_body`), so ChatSSE and SSELLM send the same
request for the same conversation. What is read here is LangChain's, in all its shapes:

- content: strings, text blocks, images (LangChain's standard blocks, v0 and v1 shapes, and
  OpenAI's ``image_url`` with a data or http URL), files (LangChain's file blocks, v0 and v1,
  OpenAI's ``file`` part, ``text-plain``); a block LangChain has no type for, or one already
  in the protocol's shape (an image or document with a ``source``), is passed as given;
  ``cache_control`` on any block is kept;
- an AI message's reasoning, as the model sent it: ChatSSE keeps a signed answer's blocks in
  ``additional_kwargs["reasoning_blocks"]`` (Anthropic's own ``thinking`` /
  ``redacted_thinking`` dicts, put first); ChatAnthropic's messages hold them in ``content``;
  v1 content holds ``reasoning`` blocks with the signature in ``extras`` and redacted ones as
  ``non_standard``; ChatOpenAI's Responses reasoning item is in ``content`` (``responses/v1``),
  a v1 ``reasoning`` block with its ``id`` and ``encrypted_content`` (v1), or
  ``additional_kwargs["reasoning"]`` (v0);
- an AI message's text is its text: the answer's bookkeeping on a text block (ChatOpenAI's
  ``id`` and ``annotations``, ChatAnthropic's ``citations``, the stream's ``index``) is not
  sent back, as SSELLM sends no citations back (no API needs them to go on);
- an AI message's tool calls, once each: its ``tool_calls``, with a ``tool_use`` block (the
  Anthropic shape) or a ``function_call`` block (ChatOpenAI's ``responses/v1``) of the same id
  read as that call, not a second one;
- a block in a protocol's own shape is passed as given, without LangChain's stream bookkeeping
  (``index``; a server tool's ``partial_json``, read as its input as ChatAnthropic reads it);
- an AI message's ``invalid_tool_calls`` go back as calls with their raw argument text (each
  protocol sends a text input as it can: as given, or as no arguments);
- an AI message's ``additional_kwargs["reasoning_content"]`` (a gateway's plain reasoning) is
  its reasoning when it holds none in another shape: plain reasoning, which only chat
  completions' ``reasoning_passback`` sends back;
- a user message's ``non_standard`` block is its value; a LangChain data block no part holds
  (audio, a file by id) goes as OpenAI's part (``convert_to_openai_data_block``);
- a ``ToolMessage`` is a tool turn (``is_error`` from its ``status``);
- a message's ``name`` is its turn's (chat completions' ``name``; not a tool result's); a
  ``ChatMessage``'s role ``system`` or ``developer`` is a system turn, ``user`` and
  ``assistant`` their own; a ``FunctionMessage`` (OpenAI's retired ``function`` role) and any
  other role are refused by name (a ``ToolMessage`` answers a tool call).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_openai_data_block,
    is_data_content_block,
)

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

__all__ = ["to_turns"]

#: Blocks a model produced that never go back as content (tool calls go as tool calls).
_NOT_SENT = frozenset(
    {"tool_call", "tool_call_chunk", "invalid_tool_call", "server_tool_call_chunk", "refusal"}
)
#: LangChain's stream bookkeeping on a block, never part of the block the API sent.
_BOOKKEEPING = ("index", "partial_json")
#: The keys of a text block that a text part carries (others: the block goes as given).
_TEXT_KEYS = frozenset({"type", "text", "cache_control"})
#: LangChain's own keys on a block (its id, the stream's index), never the API's.
_LANGCHAINS = frozenset({"id", "index"})
#: The roles of a ``ChatMessage`` that a turn has.
_CHAT_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}


def to_turns(messages: Sequence[BaseMessage]) -> list[Turn]:
    """The conversation as turns.

    Raises:
        ValueError: For a message type or content part that no protocol carries.
    """
    return [_turn(message) for message in messages]


def _turn(message: BaseMessage) -> Turn:
    if isinstance(message, ToolMessage):
        return Turn(role="tool", parts=(_tool_result(message),))
    name = message.name or ""
    if isinstance(message, SystemMessage):
        return Turn(role="system", parts=_user_parts(message.content), name=name)
    if isinstance(message, AIMessage):
        return Turn(role="assistant", parts=_assistant_parts(message), name=name)
    if isinstance(message, HumanMessage):
        return Turn(role="user", parts=_user_parts(message.content), name=name)
    if isinstance(message, ChatMessage) and message.role in _CHAT_ROLES:
        role = _CHAT_ROLES[message.role]
        return Turn(role=role, parts=_user_parts(message.content), name=name)
    if isinstance(message, FunctionMessage):
        raise ValueError(
            "FunctionMessage cannot be sent in a request: it is OpenAI's retired function-call "
            "result, which no protocol here takes; answer a tool call with a ToolMessage "
            "(tool_call_id= the call's id)"
        )
    if isinstance(message, ChatMessage):
        raise ValueError(
            f"ChatMessage(role={message.role!r}) cannot be sent in a request: its role is one of "
            f"{', '.join(map(repr, _CHAT_ROLES))}; a tool call's result is a ToolMessage"
        )
    raise ValueError(
        f"{type(message).__name__} cannot be sent in a request (system, human, AI and tool "
        "messages can)"
    )


def _user_parts(content: str | list[Any]) -> tuple[Part, ...]:
    if isinstance(content, str):
        return (TextPart(text=content),)
    parts: list[Part] = []
    for given in content:
        if isinstance(given, str):
            parts.append(TextPart(text=given))
            continue
        if not isinstance(given, Mapping):
            raise ValueError(f"a message content part must be a str or a dict, not {given!r}")
        block: Mapping[str, Any] = given
        value = given.get("value")
        if given.get("type") == "non_standard" and isinstance(value, Mapping):
            block = value  # v1: a block LangChain has no type for, sent as it is
        if block.get("type") in _NOT_SENT:
            continue
        parts.append(_image(block) or _document(block) or _data(block) or _text_or_raw(block))
    return tuple(parts)


def _data(block: Mapping[str, Any]) -> RawPart | None:
    """A LangChain data block that no part holds (audio, a file by id) as OpenAI's part, as
    ``convert_to_openai_data_block`` makes it; None for another block (or one it refuses)."""
    if not is_data_content_block(dict(block)):
        return None
    try:
        return RawPart(block=convert_to_openai_data_block(dict(block)))
    except ValueError:
        return None


def _text_or_raw(block: Mapping[str, Any]) -> Part:
    """A text block as a text part (LangChain's own ``id`` and ``index`` are not the API's);
    one with keys of a protocol's own (Anthropic's ``citations``) as given."""
    if block.get("type") == "text" and set(block) <= _TEXT_KEYS | _LANGCHAINS:
        return TextPart(text=str(block.get("text") or ""), cache_control=block.get("cache_control"))
    return RawPart(block=dict(block))


def _image(block: Mapping[str, Any]) -> ImagePart | None:
    """An image from LangChain's block (v0 or v1) or OpenAI's; None if ``block`` is none (or
    already in a protocol's shape, with a ``source``)."""
    kind, cache = block.get("type"), block.get("cache_control")
    if kind == "image_url":
        found = block.get("image_url")
        url = found.get("url") if isinstance(found, Mapping) else found
        detail = found.get("detail") if isinstance(found, Mapping) else None
        return ImagePart(url=str(url or ""), cache_control=cache, detail=str(detail or ""))
    if kind != "image" or "source" in block:
        return None
    if block.get("source_type") == "base64" or "base64" in block:
        data = str(block.get("base64") or block.get("data") or "")
        media = str(block.get("mime_type") or "image/png")
        return ImagePart(data=data, media_type=media, cache_control=cache)
    if block.get("source_type") == "url" or "url" in block:
        return ImagePart(url=str(block.get("url") or ""), cache_control=cache)
    return None


def _document(block: Mapping[str, Any]) -> DocumentPart | None:
    """A document from LangChain's file blocks (v0, v1), OpenAI's ``file`` part or a
    ``text-plain`` block; None if ``block`` is none of those."""
    kind, cache = block.get("type"), block.get("cache_control")
    if kind == "text-plain" and "text" in block:
        return DocumentPart(text=str(block["text"]), cache_control=cache)
    if kind != "file":
        return None
    found = block.get("file")
    if isinstance(found, Mapping):  # OpenAI's part: a data URL
        url = str(found.get("file_data") or "")
        media, _, data = url[5:].partition(";base64,") if url.startswith("data:") else ("", "", "")
        name = str(found.get("filename") or "")
        return (
            DocumentPart(data=data, media_type=media, cache_control=cache, filename=name)
            if data
            else None
        )
    if block.get("source_type") == "base64" or "base64" in block:
        data = str(block.get("base64") or block.get("data") or "")
        media = str(block.get("mime_type") or "application/pdf")
        name = block.get("filename") or _extras(block).get("filename") or ""
        return DocumentPart(data=data, media_type=media, cache_control=cache, filename=str(name))
    if block.get("source_type") == "url" or "url" in block:
        return DocumentPart(url=str(block.get("url") or ""), cache_control=cache)
    return None


def _extras(block: Mapping[str, Any]) -> Mapping[str, Any]:
    found = block.get("extras")
    return found if isinstance(found, Mapping) else {}


def item_text(item: Mapping[str, Any]) -> str:
    """The readable text of a Responses reasoning item as its deltas made
    ``reasoning_content``: its summary parts' texts, then its raw ``reasoning_text`` parts',
    a blank line between two parts (as the core's decoder joins them)."""
    texts: list[str] = []
    for key in ("summary", "content"):
        parts = item.get(key)
        for part in parts if isinstance(parts, list) else ():
            text = part.get("text") if isinstance(part, Mapping) else None
            if isinstance(text, str) and text:
                texts.append(text)
    return "\n\n".join(texts)


def _reasoning(block: Mapping[str, Any]) -> Part | None:
    """A reasoning block in any of its shapes; None for what is not reasoning."""
    kind = block.get("type")
    if kind == "reasoning":
        return _reasoning_item(block)
    if kind == "thinking":
        text, signature = block.get("thinking"), block.get("signature")
        return ReasoningPart(text=str(text or ""), signature=str(signature or ""))
    if kind == "redacted_thinking":
        return ReasoningPart(redacted=str(block.get("data") or ""))
    value = block.get("value")
    if kind == "non_standard" and isinstance(value, Mapping):  # v1: what LangChain has no type for
        return _reasoning(value) or RawPart(block=dict(value))
    return None


def _reasoning_item(block: Mapping[str, Any]) -> Part:
    """A ``reasoning`` block: the Responses API's reasoning item (whole, or shown as v1 with
    the item in ``extras``), or v1's own with its signature in ``extras``."""
    if "summary" in block:
        return ReasoningPart(
            text=item_text(block),
            signature=str(block.get("encrypted_content") or ""),
            item=dict(block),
        )
    extras = block.get("extras")
    extras = extras if isinstance(extras, Mapping) else {}
    item = extras.get("item")
    if isinstance(item, Mapping) and "summary" in item:
        return _reasoning_item(item)
    if isinstance(item, Mapping):  # another protocol's own item (Gemini's signed part), whole
        return ReasoningPart(text=str(block.get("reasoning") or ""), item=dict(item))
    text = str(block.get("reasoning") or "")
    encrypted = block.get("encrypted_content") or extras.get("encrypted_content")
    if str(block.get("id") or "").startswith("rs_") and encrypted:  # ChatOpenAI's v1 item
        summary = [{"type": "summary_text", "text": text}] if text else []
        rebuilt = {"type": "reasoning", "id": block["id"], "summary": summary}
        return _reasoning_item(rebuilt | {"encrypted_content": encrypted})
    signature = extras.get("signature")
    return ReasoningPart(text=text, signature=signature or "")


def _assistant_part(block: str | Mapping[str, Any]) -> Part | None:
    if isinstance(block, str):
        return TextPart(text=block)
    kind = block.get("type")
    if kind in _NOT_SENT:
        return None
    reasoning = _reasoning(block)
    if reasoning is not None:
        return reasoning
    if kind in ("text", "output_text"):  # its text; the answer's bookkeeping is not sent
        cache = block.get("cache_control")
        text = block.get("text")
        return TextPart(
            text=text if isinstance(text, str) else "",
            cache_control=cache if isinstance(cache, Mapping) else None,
        )
    return _call(block) or RawPart(block=_native(block))  # others as given


def _call(block: Mapping[str, Any]) -> ToolUsePart | None:
    """A tool call block: Anthropic's ``tool_use``, ChatOpenAI's ``function_call``."""
    kind, name = block.get("type"), block.get("name")
    if kind == "tool_use" and isinstance(name, str):
        cache = block.get("cache_control")
        return ToolUsePart(
            id=str(block.get("id") or ""),
            name=name,
            input=block.get("input", {}),
            cache_control=cache if isinstance(cache, Mapping) else None,
        )
    if kind == "function_call" and isinstance(name, str):
        return ToolUsePart(
            id=str(block.get("call_id") or ""), name=name, input=_arguments(block.get("arguments"))
        )
    return None


def _arguments(given: object) -> Any:
    """A call's arguments: a JSON text parsed (an unreadable one as an empty object)."""
    if not isinstance(given, str):
        return given if given is not None else {}
    try:
        return json.loads(given or "{}")
    except ValueError:
        return {}


def _native(block: Mapping[str, Any]) -> dict[str, Any]:
    """A block in a protocol's own shape without LangChain's stream bookkeeping; a streamed
    server tool's ``partial_json`` read as its input (as ChatAnthropic reads it back)."""
    native = {k: v for k, v in block.items() if k not in _BOOKKEEPING}
    if block.get("input") == {} and isinstance(block.get("partial_json"), str):
        native["input"] = _arguments(block["partial_json"])
    return native


def _kept(block: Mapping[str, Any]) -> Part:
    """A block of ``reasoning_blocks`` (what ChatSSE keeps of the core's reasoning blocks):
    reasoning in a shape known here, else another protocol's own item (Gemini's signed part),
    which the core's rules send back whole to its own API and leave out, named, elsewhere."""
    known = _reasoning(block)
    if known is not None:
        return known
    if isinstance(block.get("type"), str):
        return ReasoningPart(item=dict(block))
    return RawPart(block=dict(block))


#: Where ChatGoogleGenerativeAI keeps its function calls' thought signatures, by call id.
_GOOGLE_CALL_SIGNATURES = "__gemini_function_call_thought_signatures__"


def _google_signed(message: AIMessage, given: Sequence[Any]) -> list[Part]:
    """ChatGoogleGenerativeAI's thought signatures, kept apart from their parts (a text
    block's ``extras["signature"]``, a call's in ``additional_kwargs``), as the core's
    signed-part items: Gemini takes them back on their parts, other APIs leave them out."""
    found: list[Part] = []
    offset = 0
    for block in given:
        if isinstance(block, str):
            offset += len(block)
            continue
        text = block.get("text")
        if block.get("type") != "text" or not isinstance(text, str):
            continue
        extras = block.get("extras")
        signature = extras.get("signature") if isinstance(extras, Mapping) else None
        if isinstance(signature, str) and signature:
            found.append(ReasoningPart(item=gemini.signed_text_item(offset, text, signature)))
        offset += len(text)
    by_id = message.additional_kwargs.get(_GOOGLE_CALL_SIGNATURES)
    if isinstance(by_id, Mapping):
        for at, call in enumerate(message.tool_calls):
            signature = by_id.get(call.get("id"))
            if isinstance(signature, str) and signature:
                item = gemini.signed_call_item(at, call["name"], call["args"], signature)
                found.append(ReasoningPart(item=item))
    return found


def _assistant_parts(message: AIMessage) -> tuple[Part, ...]:
    content = message.content
    given = [content] if isinstance(content, str) else content
    parts = [part for block in given if (part := _assistant_part(block)) is not None]
    parts = _google_signed(message, given) + parts
    kept = message.additional_kwargs.get("reasoning_blocks")
    item = message.additional_kwargs.get("reasoning")  # ChatOpenAI's v0: the Responses item
    if not (isinstance(kept, list) and kept) and isinstance(item, Mapping):
        kept = [item]
    if isinstance(kept, list) and kept:  # first, as the model sent them; not twice
        first = [_kept(b) for b in kept if isinstance(b, Mapping)]
        parts = first + [part for part in parts if not isinstance(part, ReasoningPart)]
    used = {part.id for part in parts if isinstance(part, ToolUsePart)}
    parts.extend(
        ToolUsePart(id=call.get("id") or "", name=call["name"], input=call["args"])
        for call in message.tool_calls
        if str(call.get("id")) not in used
    )
    parts.extend(  # as the model gave them: their argument text, which was no JSON
        ToolUsePart(
            id=call.get("id") or "", name=call.get("name") or "", input=call.get("args") or ""
        )
        for call in message.invalid_tool_calls
        if str(call.get("id")) not in used
    )
    plain = message.additional_kwargs.get("reasoning_content")
    if isinstance(plain, str) and plain and not any(isinstance(p, ReasoningPart) for p in parts):
        parts.insert(0, ReasoningPart(text=plain))
    return tuple(parts)


def _tool_result(message: ToolMessage) -> ToolResultPart:
    content = message.content
    return ToolResultPart(
        call_id=message.tool_call_id,
        content=content if isinstance(content, str) else _user_parts(content),
        is_error=message.status == "error",
    )
