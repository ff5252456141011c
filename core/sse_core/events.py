"""The StreamEvent family: what the chunk decoder makes of each payload.

Every event is a frozen, slotted, keyword-only dataclass. ``choice`` is the index of the
choice (``n > 1``) the event belongs to. Consume the union with ``match``::

    match event:
        case TextDelta(text=text): ...
        case ToolCallDelta(index=i, arguments=piece): ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from sse_core.completion import Usage

__all__ = [
    "Done",
    "ErrorFrame",
    "Finish",
    "GatewayEvent",
    "Metadata",
    "ReasoningDelta",
    "RefusalDelta",
    "StreamEvent",
    "TextDelta",
    "ToolCallDelta",
    "UsageUpdate",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta:
    """A piece of the answer text."""

    text: str
    choice: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningDelta:
    """A piece of reasoning ("thinking") text."""

    text: str
    choice: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class RefusalDelta:
    """A piece of a refusal message."""

    text: str
    choice: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallDelta:
    """A fragment of a tool call, keyed by (choice, index).

    ``id`` and ``name`` are set on the fragment that first carries them and are None
    afterwards; ``arguments`` is the next piece of the JSON arguments string.
    """

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    choice: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageUpdate:
    """Token counts; a later update replaces an earlier one (gateways repeat it cumulatively)."""

    usage: Usage


@dataclass(frozen=True, slots=True, kw_only=True)
class Finish:
    """The finish reason of a choice (``stop``, ``length``, ``tool_calls``, ...)."""

    reason: str
    choice: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Metadata:
    """Response metadata, emitted when a field is first seen (None: not in this chunk)."""

    id: str | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    created: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GatewayEvent:
    """A named SSE event that is not a chat chunk (``event: spass.tool-cap`` and the like).

    ``data`` is the decoded JSON payload, or the raw text when it is not JSON.
    """

    name: str
    data: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorFrame:
    """An error reported inside the stream (``{"error": ...}`` or ``event: error``)."""

    message: str
    type: str | None = None
    code: str | int | None = None
    data: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Done:
    """The ``data: [DONE]`` sentinel: the gateway ended the stream."""


StreamEvent: TypeAlias = (
    TextDelta
    | ReasoningDelta
    | RefusalDelta
    | ToolCallDelta
    | UsageUpdate
    | Finish
    | Metadata
    | GatewayEvent
    | ErrorFrame
    | Done
)


# Hot-path constructors for the decoder. A frozen dataclass's __init__ goes through
# object.__setattr__ once per field, about 3x the cost of setting the slots directly;
# on a fast stream that is a fifth of the decoder's time. The instances are identical.
_new = object.__new__
_set_text_text = TextDelta.__dict__["text"].__set__
_set_text_choice = TextDelta.__dict__["choice"].__set__
_set_reasoning_text = ReasoningDelta.__dict__["text"].__set__
_set_reasoning_choice = ReasoningDelta.__dict__["choice"].__set__


def _text_delta(text: str, choice: int) -> TextDelta:
    """``TextDelta(text=text, choice=choice)``, built without the frozen ``__init__``."""
    event: TextDelta = _new(TextDelta)
    _set_text_text(event, text)
    _set_text_choice(event, choice)
    return event


def _reasoning_delta(text: str, choice: int) -> ReasoningDelta:
    """``ReasoningDelta(text=text, choice=choice)``, built without the frozen ``__init__``."""
    event: ReasoningDelta = _new(ReasoningDelta)
    _set_reasoning_text(event, text)
    _set_reasoning_choice(event, choice)
    return event
