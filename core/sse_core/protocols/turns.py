"""A conversation as no framework and no protocol spells it: what an adapter hands a protocol.

Each adapter maps its framework's messages to :class:`Turn`\\ s of parts once (LangChain's
``BaseMessage`` content blocks, LlamaIndex's ``ChatMessage`` blocks); each protocol module
maps turns to its own request (:func:`sse_core.protocols.anthropic.messages_body`), with the
protocol's rules (which roles alternate, where the system prompt goes, what of an earlier
answer goes back and how). So the two adapters cannot disagree on a rule: neither holds one.

- ``system`` turns: the instructions (text parts);
- ``user`` turns: text, images, documents;
- ``assistant`` turns: the model's earlier answer: its reasoning as it was sent (with the
  signature a protocol checks, or the redacted data), text, tool calls;
- ``tool`` turns: the results of tool calls.

A :class:`RawPart` is a block already in the target protocol's own shape (an adapter passes it
when the user wrote one): it is sent as given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = [
    "DocumentPart",
    "ImagePart",
    "Part",
    "RawPart",
    "ReasoningPart",
    "Role",
    "TextPart",
    "ToolResultPart",
    "ToolUsePart",
    "Turn",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TextPart:
    """Text (an empty one is not sent: the APIs refuse empty text blocks).

    Attributes:
        text: The text.
        cache_control: A prompt-cache breakpoint after this part, as the protocol spells it.
    """

    text: str
    cache_control: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ImagePart:
    """An image: a URL (``http(s):`` fetched by the gateway, or a ``data:`` URL) or base64
    data with its media type.

    Attributes:
        url: The image's URL; "" when ``data`` is given.
        data: The base64 bytes; "" when ``url`` is given.
        media_type: The MIME type of ``data`` (``image/png`` when not known).
        cache_control: A prompt-cache breakpoint after this part.
        detail: The resolution OpenAI's APIs read the image at (``low``, ``high``,
            ``auto``), "" for the API's default; other APIs have none.
    """

    url: str = ""
    data: str = ""
    media_type: str = ""
    cache_control: Mapping[str, Any] | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentPart:
    """A document: base64 data (a PDF), plain text, or a URL.

    Attributes:
        data: The base64 bytes, or "".
        text: The document's text (a ``text/plain`` document), or None.
        url: The document's URL, or "".
        media_type: The MIME type of ``data`` (``application/pdf`` when not known).
        cache_control: A prompt-cache breakpoint after this part.
        filename: The document's file name, "" for none (OpenAI's APIs require one with
            base64 data: a default is sent).
    """

    data: str = ""
    text: str | None = None
    url: str = ""
    media_type: str = ""
    cache_control: Mapping[str, Any] | None = None
    filename: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningPart:
    """Reasoning the model sent in an earlier answer, as it sent it.

    Attributes:
        text: The reasoning text.
        signature: The signature the model gave it ("" for none: a protocol that checks
            signatures does not take it back).
        redacted: The opaque data of a redacted block ("" for a readable one).
        item: The block as the gateway closed it, for a protocol that takes it back whole
            (the Responses API's reasoning item, :attr:`sse_core.ReasoningBlock.item`); None
            otherwise.
    """

    text: str = ""
    signature: str = ""
    redacted: str = ""
    item: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolUsePart:
    """A tool call the model made in an earlier answer.

    Attributes:
        id: The call's id.
        name: The tool's name.
        input: The arguments the tool was called with (a parsed JSON value).
        cache_control: A prompt-cache breakpoint after this part.
    """

    id: str
    name: str
    input: Any
    cache_control: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultPart:
    """The result of one tool call.

    Attributes:
        call_id: The id of the call it answers.
        content: The result: text, or parts (text, images, documents).
        is_error: The tool failed, and ``content`` says how.
        cache_control: A prompt-cache breakpoint after this part.
    """

    call_id: str
    content: str | tuple[Part, ...]
    is_error: bool = False
    cache_control: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RawPart:
    """A block already in the target protocol's shape, sent as given.

    Attributes:
        block: The block.
    """

    block: Mapping[str, Any]


Part: TypeAlias = (
    TextPart | ImagePart | DocumentPart | ReasoningPart | ToolUsePart | ToolResultPart | RawPart
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """One message of the conversation.

    Attributes:
        role: Who speaks (:data:`Role`).
        parts: What the message holds, in order.
        name: The speaker's name, for a protocol that takes one (chat completions' ``name``);
            "" for none.
    """

    role: Role
    parts: tuple[Part, ...]
    name: str = ""
