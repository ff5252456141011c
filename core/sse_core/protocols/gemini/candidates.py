"""One candidate of a Gemini answer (``candidates[i]``, by its ``index``): its parts as they
arrive, its tool calls, its citations and how it ended. The rules are listed in
:mod:`sse_core.protocols.gemini` (the package docstring); :class:`~.decode.GenerateContentDecoder`
hands each candidate object of each frame to its :class:`Candidate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import to_json

from sse_core.events import (
    Citation,
    Finish,
    ReasoningSignature,
    StreamEvent,
    _gateway_event,
    _reasoning_delta,
    _text_delta,
    _tool_call_delta,
)
from sse_core.pipeline.tool_calls import nameless_call
from sse_core.protocols.gemini.arguments import StreamedArguments

__all__ = ["FINISH_REASONS", "GENERATED_ID_PREFIX", "SIGNED_PART", "Candidate"]

#: Gemini's ``finishReason`` in the shared vocabulary; any other (``OTHER``, ``LANGUAGE``,
#: ``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL``, ``TOO_MANY_TOOL_CALLS``,
#: ``NO_IMAGE``, ``FINISH_REASON_UNSPECIFIED``, a new one) is the finish reason as sent.
#: ``STOP`` is ``tool_calls`` when the candidate called a function (Gemini says STOP there).
#: ``Finish.stop_reason`` keeps the word as sent.
FINISH_REASONS: Mapping[str, str] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MODEL_ARMOR": "content_filter",
}
#: The start of the id given to a call that came without one (Gemini's API names calls by
#: name; only some calls carry an ``id``): ``gemini_call_0``, ``gemini_call_1``, ... by the
#: call's index, stable across runs, so a request builder can tell it from Gemini's own.
GENERATED_ID_PREFIX = "gemini_call_"
#: The ``type`` of the item a Gemini :class:`~sse_core.events.ReasoningSignature` carries.
SIGNED_PART = "gemini_signed_part"

# The candidate fields read here; the others are kept whole as a GatewayEvent.
_READ = frozenset({"content", "finishReason", "index", "citationMetadata"})
# Part fields that say something of the part, not what it is.
_META = frozenset(
    {"thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution"}
)


class _Streamed:
    """A call whose arguments are still arriving in pieces."""

    __slots__ = ("arguments", "index")

    def __init__(self, index: int, arguments: StreamedArguments) -> None:
        self.index: int = index
        self.arguments: StreamedArguments = arguments


class Candidate:
    """One candidate: where its text, reasoning and parts stand, its calls, how it ended."""

    __slots__ = (
        "calls",
        "cited",
        "extras",
        "finished",
        "index",
        "parts",
        "reasoning_chars",
        "streamed",
        "text_chars",
    )

    def __init__(self, index: int) -> None:
        self.index: int = index  # the candidate's index: the choice of its events
        self.calls: int = 0  # function calls so far: the index of the next one
        self.parts: int = 0  # parts so far, of every frame: the position of the next one
        self.text_chars: int = 0  # the answer text so far, in code points
        self.reasoning_chars: int = 0  # the thought text so far, in code points
        self.finished: str | None = None  # the finishReason, once it came
        self.streamed: _Streamed | None = None  # a call whose arguments are streaming
        self.extras: dict[str, Any] = {}  # the fields last kept as a GatewayEvent
        self.cited: set[bytes] = set()  # the citations given, as JSON

    def take(self, candidate: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """One frame's object of this candidate: its parts, citations, other fields and
        finish reason, in that order."""
        content = candidate.get("content")
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is list:
            for part in parts:
                self._part(part, events)
        cited = candidate.get("citationMetadata")
        if type(cited) is dict:
            self._cite(cited, events)
        extras = {k: v for k, v in candidate.items() if k not in _READ and v is not None}
        if extras and extras != self.extras:  # safetyRatings repeated unchanged say nothing
            self.extras = extras
            events.append(_gateway_event("candidate", {"index": self.index, **extras}))
        reason = candidate.get("finishReason")
        if type(reason) is str and reason:
            self.finish(reason, events)

    def finish(self, reason: str, events: list[StreamEvent]) -> None:
        """The candidate ended with ``reason`` (a repeat of the same says nothing)."""
        self.close(events)
        if reason == self.finished:
            return
        self.finished = reason
        shared = FINISH_REASONS.get(reason, reason)
        if shared == "stop" and self.calls:
            shared = "tool_calls"
        events.append(Finish(reason=shared, choice=self.index, stop_reason=reason))

    def close(self, events: list[StreamEvent]) -> None:
        """Close the call whose arguments are streaming, if one is: its arguments, whole."""
        streamed = self.streamed
        if streamed is None:
            return
        self.streamed = None
        arguments = streamed.arguments.json()
        events.append(_tool_call_delta(streamed.index, None, None, arguments, self.index))
        if streamed.arguments.unplaced:
            kept: dict[str, Any] = {"candidate": self.index, "call": streamed.index}
            kept["partialArgs"] = streamed.arguments.unplaced
            events.append(_gateway_event("functionCall.partialArgs", kept))

    # --- parts ---

    def _part(self, part: object, events: list[StreamEvent]) -> None:
        position = self.parts
        self.parts += 1
        if type(part) is not dict:
            events.append(_gateway_event("part", self._kept(position, part)))
            return
        offset: int | None = None
        call: int | None = None
        text = part.get("text")
        if "functionCall" in part:
            kind = "function_call"
            call = self._call(part["functionCall"], part, position, events)
        elif part.get("thought") is True:
            kind, offset = "thought", self.reasoning_chars
            if type(text) is str and text:
                self.reasoning_chars += len(text)
                events.append(_reasoning_delta(text, self.index))
        elif type(text) is str:
            kind, offset = "text", self.text_chars
            if text:
                self.text_chars += len(text)
                events.append(_text_delta(text, self.index))
        else:
            kind = _kind(part)
            if kind != "empty":  # code, its result, inline data, ...: kept as sent
                events.append(_gateway_event(kind, self._kept(position, part)))
        signature = part.get("thoughtSignature")
        if type(signature) is str and signature:
            item = {"type": SIGNED_PART, "kind": kind, "position": position}
            item.update(offset=offset, call=call, part=part)
            events.append(ReasoningSignature(signature=signature, choice=self.index, item=item))

    def _kept(self, position: int, part: object) -> dict[str, Any]:
        return {"candidate": self.index, "position": position, "part": part}

    def _call(
        self, call: object, part: Mapping[str, Any], position: int, events: list[StreamEvent]
    ) -> int | None:
        """A ``functionCall`` part: a whole call, or a piece of a streamed one. Returns the
        call's index (None: no call)."""
        if type(call) is not dict:
            events.append(_gateway_event("functionCall", self._kept(position, part)))
            return None
        name = call.get("name")
        name = name if type(name) is str and name else None
        partial = call.get("partialArgs")
        more = call.get("willContinue") is True
        if name is not None and not more and partial is None:
            self.close(events)
            return self._whole(call, name, events)
        if name is not None:  # a call whose arguments stream: it opens
            self.close(events)
            args = call.get("args")
            at = self._number()
            self.streamed = _Streamed(at, StreamedArguments(args if type(args) is dict else None))
            events.append(_tool_call_delta(at, _id(call, at), name, "", self.index))
        streamed = self.streamed
        if streamed is None:  # a piece of no open call, or a call without a name
            if partial is not None or more:
                events.append(_gateway_event("functionCall", self._kept(position, part)))
            else:
                events.append(nameless_call(position, _str(call.get("id")), _arguments(call)))
            return None
        if type(partial) is list:
            for piece in partial:
                streamed.arguments.take(piece)
        elif partial is not None:
            streamed.arguments.unplaced.append(partial)
        if not more:
            self.close(events)
        return streamed.index

    def _whole(self, call: Mapping[str, Any], name: str, events: list[StreamEvent]) -> int:
        at = self._number()
        events.append(_tool_call_delta(at, _id(call, at), name, _arguments(call), self.index))
        return at

    def _number(self) -> int:
        self.calls += 1
        return self.calls - 1

    # --- citations ---

    def _cite(self, cited: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``citationMetadata``: ``citations`` (Vertex AI) or ``citationSources`` (the Gemini
        API), each a Citation once (a later frame that repeats one adds nothing)."""
        for key in ("citations", "citationSources"):
            items = cited.get(key)
            for item in items if type(items) is list else ():
                if type(item) is not dict:
                    kept = {"candidate": self.index, "citation": item}
                    events.append(_gateway_event("citationMetadata", kept))
                    continue
                seen = to_json(item)
                if seen not in self.cited:
                    self.cited.add(seen)
                    events.append(Citation(citation=item, choice=self.index))


def _kind(part: Mapping[str, Any]) -> str:
    """What a part holds: its first field that is not about the part (``executableCode``,
    ``codeExecutionResult``, ``inlineData``, ...); ``empty`` for none."""
    for key, value in part.items():
        if key not in _META and value is not None:
            return key
    return "empty"


def _arguments(call: Mapping[str, Any]) -> str:
    """A whole call's ``args`` as JSON text: ``{}`` when it has none (a call of a function
    without parameters), anything else as sent (:attr:`~sse_core.ToolCall.arguments_error`
    flags a value that is no object)."""
    args = call.get("args")
    return "{}" if args is None else to_json(args).decode()


def _id(call: Mapping[str, Any], at: int) -> str:
    return _str(call.get("id")) or f"{GENERATED_ID_PREFIX}{at}"


def _str(value: object) -> str | None:
    return value if type(value) is str and value else None
