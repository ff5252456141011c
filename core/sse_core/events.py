"""The StreamEvent family: what the chunk decoder makes of each payload.

Every event is a frozen, slotted, keyword-only dataclass. ``choice`` is the index of the
choice (``n > 1``) the event belongs to. Consume the union with ``match``::

    match event:
        case TextDelta(text=text): ...
        case ToolCallDelta(index=i, arguments=piece): ...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from sse_core.completion import Usage

__all__ = [
    "Citation",
    "ErrorFrame",
    "Finish",
    "GatewayEvent",
    "Metadata",
    "ReasoningDelta",
    "ReasoningSignature",
    "RedactedReasoning",
    "RefusalDelta",
    "StreamEnd",
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
class ReasoningSignature:
    """The signature of the reasoning block just streamed (Anthropic ``signature_delta``;
    the Responses API's ``encrypted_content``, "" when the item has none).

    It closes that block: the ReasoningDelta pieces since the previous block are its text.
    Both are passed back byte-exact on the next turn, which is why neither is ever altered.
    ``item`` is the block as the gateway closed it when the protocol sends it back whole
    (the Responses API's reasoning item, with its ``id``); None otherwise.
    """

    signature: str
    choice: int = 0
    item: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RedactedReasoning:
    """A reasoning block the provider encrypted (Anthropic ``redacted_thinking``): opaque
    ``data`` with no readable text, to pass back byte-exact on the next turn."""

    data: str
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
class Citation:
    """A citation of the answer text (Anthropic ``citations_delta``, or the ``citations`` a
    whole text block holds): the passage a piece of the text rests on.

    ``citation`` is the object as sent, whatever its kind (``char_location``,
    ``web_search_result_location``, ``search_result_location``, a kind not known yet);
    ``block`` is the index of the content block whose text it cites (None: not said).
    """

    citation: Mapping[str, Any]
    block: int | None = None
    choice: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageUpdate:
    """Token counts; a later update replaces an earlier one (gateways repeat it cumulatively)."""

    usage: Usage


@dataclass(frozen=True, slots=True, kw_only=True)
class Finish:
    """The finish reason of a choice (``stop``, ``length``, ``tool_calls``, ...).

    ``reason`` is in the shared vocabulary whatever the protocol; ``stop_reason`` is the
    protocol's own word when it has one (Anthropic's ``end_turn``, ``pause_turn``,
    ``refusal``, ...; None on chat completions), and ``stop_sequence`` the stop sequence that
    ended the answer, when the gateway said which. ``content`` is the choice's whole text as
    the protocol's final version of the answer gives it, where that disagrees with the
    deltas (a Responses gateway whose deltas lost tokens the final output kept): the
    Completion's text, while the deltas stay what a stream showed; None: the deltas are the
    text.
    """

    reason: str
    choice: int = 0
    stop_reason: str | None = None
    stop_sequence: str | None = None
    content: str | None = None


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
class StreamEnd:
    """The protocol's end marker arrived: the gateway says the stream is over and complete
    (chat completions' ``data: [DONE]``, Anthropic's ``message_stop``). Every protocol ends
    with it; a whole (non-streamed) answer's events end with it too."""


StreamEvent: TypeAlias = (
    TextDelta
    | ReasoningDelta
    | ReasoningSignature
    | RedactedReasoning
    | RefusalDelta
    | ToolCallDelta
    | Citation
    | UsageUpdate
    | Finish
    | Metadata
    | GatewayEvent
    | ErrorFrame
    | StreamEnd
)

#: The name :class:`StreamEnd` had before 0.2 (it ends every protocol, not only ``[DONE]``);
#: kept so code that matches on it keeps working.
Done = StreamEnd


# Hot-path constructors for the decoder. A frozen dataclass's __init__ goes through
# object.__setattr__ once per field, several times the cost of setting the slots directly,
# and a fast stream makes one per frame (benchmarks/README.md). The instances are identical.
_new = object.__new__


def _setter(cls: type, name: str) -> Any:
    """The slot descriptor's ``__set__`` of ``cls.name`` (it bypasses the frozen guard)."""
    return cls.__dict__[name].__set__


_set_text_text = _setter(TextDelta, "text")
_set_text_choice = _setter(TextDelta, "choice")
_set_reasoning_text = _setter(ReasoningDelta, "text")
_set_reasoning_choice = _setter(ReasoningDelta, "choice")
_set_call_index = _setter(ToolCallDelta, "index")
_set_call_id = _setter(ToolCallDelta, "id")
_set_call_name = _setter(ToolCallDelta, "name")
_set_call_arguments = _setter(ToolCallDelta, "arguments")
_set_call_choice = _setter(ToolCallDelta, "choice")
_set_usage = _setter(UsageUpdate, "usage")
_set_finish_reason = _setter(Finish, "reason")
_set_finish_choice = _setter(Finish, "choice")
_set_finish_stop_reason = _setter(Finish, "stop_reason")
_set_finish_stop_sequence = _setter(Finish, "stop_sequence")
_set_finish_content = _setter(Finish, "content")
_set_gateway_name = _setter(GatewayEvent, "name")
_set_gateway_data = _setter(GatewayEvent, "data")


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


def _tool_call_delta(
    index: int, call_id: str | None, name: str | None, arguments: str, choice: int
) -> ToolCallDelta:
    """``ToolCallDelta(index=..., id=call_id, ...)``, built without the frozen ``__init__``."""
    event: ToolCallDelta = _new(ToolCallDelta)
    _set_call_index(event, index)
    _set_call_id(event, call_id)
    _set_call_name(event, name)
    _set_call_arguments(event, arguments)
    _set_call_choice(event, choice)
    return event


def _usage_update(usage: Usage) -> UsageUpdate:
    """``UsageUpdate(usage=usage)``, built without the frozen ``__init__``."""
    event: UsageUpdate = _new(UsageUpdate)
    _set_usage(event, usage)
    return event


def _finish(reason: str, choice: int) -> Finish:
    """``Finish(reason=reason, choice=choice)``, built without the frozen ``__init__``."""
    event: Finish = _new(Finish)
    _set_finish_reason(event, reason)
    _set_finish_choice(event, choice)
    _set_finish_stop_reason(event, None)
    _set_finish_stop_sequence(event, None)
    _set_finish_content(event, None)
    return event


def _gateway_event(name: str, data: Any) -> GatewayEvent:
    """``GatewayEvent(name=name, data=data)``, built without the frozen ``__init__``."""
    event: GatewayEvent = _new(GatewayEvent)
    _set_gateway_name(event, name)
    _set_gateway_data(event, data)
    return event
