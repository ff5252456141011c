"""Gemini API payload decoder: the frames of ``POST .../models/{model}:streamGenerateContent
?alt=sse`` to the shared StreamEvents, one :class:`GenerateContentDecoder` per stream.

The wire: ``data:`` frames only, each one whole ``GenerateContentResponse`` (candidates with
their new parts, ``usageMetadata`` repeated, ``modelVersion``, ``responseId``), and no end
marker: the body ends after the frame that carries the candidates' ``finishReason``. The
rules are listed in :mod:`sse_core.protocols.gemini`; a candidate's parts are read by
:class:`~.candidates.Candidate`.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from typing import Any

from pydantic_core import from_json, to_json

from sse_core.completion import Usage
from sse_core.errors import StreamProtocolError
from sse_core.events import (
    ErrorFrame,
    Finish,
    Metadata,
    StreamEnd,
    StreamEvent,
    _gateway_event,
    _usage_update,
)
from sse_core.pipeline.parser import ServerSentEvent
from sse_core.pipeline.payloads import parse_chunk_json, parse_error, parse_loose
from sse_core.protocols.gemini.candidates import Candidate

__all__ = ["GenerateContentDecoder", "gemini_usage"]

# The response fields read here; the others are kept whole as a GatewayEvent.
_READ = frozenset(
    {"candidates", "usageMetadata", "modelVersion", "responseId", "createTime", "promptFeedback"}
)
#: The counts of a ``usageMetadata``: one of them makes it a usage report.
_COUNTS = (
    "promptTokenCount",
    "candidatesTokenCount",
    "responseTokenCount",
    "totalTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
    "cachedContentTokenCount",
)
# RFC 3339, as Vertex AI writes ``createTime`` (``2026-04-02T17:03:50.399550Z``).
_TIME = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[Zz]|([+-])(\d\d):(\d\d))"
)


class GenerateContentDecoder:
    """Turns each frame of a Gemini stream into StreamEvents (:meth:`decode`); a
    :class:`~sse_core.protocols.PayloadDecoder` (not registered: see the package)."""

    __slots__ = ("_blocked", "_candidates", "_extras", "_feedback", "_meta", "_usage", "done")

    def __init__(self) -> None:
        self._candidates: dict[int, Candidate] = {}
        self._meta: tuple[str | None, str | None, int | None] = (None, None, None)
        self._usage: Mapping[str, Any] | None = None  # the last usageMetadata reported
        self._feedback: object = None  # the last promptFeedback kept
        self._extras: dict[str, Any] = {}  # the response fields last kept
        self._blocked = False  # promptFeedback said the prompt was blocked
        #: True once an error arrived (nothing after it is decoded), or the body ended with
        #: every candidate finished.
        self.done: bool = False

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one SSE event.

        Raises:
            StreamProtocolError: A frame whose data is no JSON object.
        """
        events: list[StreamEvent] = []
        if sse.event == "message":
            self.data_into(sse.data.encode(), events)
        else:
            self.named_into(sse.event, sse.data.encode(), events)
        return events

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode an unnamed event: one ``GenerateContentResponse`` (or a JSON array of them,
        as a relay of the ``alt=json`` stream may frame them).

        Raises:
            StreamProtocolError: The data is no JSON object (nor an array of them).
        """
        if data[:1] == b"{":
            try:
                payload = from_json(data, cache_strings="keys")  # "{...": a dict
            except ValueError:
                payload = parse_chunk_json(data)  # recovers bad UTF-8, else raises
            self._response(payload, events)
            return
        stripped = data.strip()
        if not stripped or stripped == b"[DONE]":
            return  # a keep-alive; [DONE] (a relay's OpenAI habit) is no end of this protocol
        if stripped[:1] == b"[":
            self._responses(_parse_any(data, "in a data frame"), "in a data frame", events)
            return
        self._response(parse_chunk_json(data), events)  # raises: no JSON object

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        """Decode an event named ``name``. Gemini names no events: ``error`` is an error (as a
        relay may send one), any other name is the relay's own, kept as a GatewayEvent."""
        if name == "message":
            self.data_into(data, events)
        elif name == "error":
            value = parse_loose(data)
            if type(value) is dict and "error" not in value and "message" in value:
                value = {"error": value}  # Google's error object without its envelope
            self._fail(value, events)
        else:
            events.append(_gateway_event(name, parse_loose(data)))

    def flush(self) -> list[StreamEvent]:
        """End of the body. Gemini has no end marker: a body that ends after every candidate
        seen gave its ``finishReason`` (or after a blocked prompt's feedback) is the whole
        answer, and ends with StreamEnd; one that ends before leaves the answer without a
        Finish, which the session reports as cut (IncompleteStreamError). A call whose
        arguments were still streaming is left open: its arguments never came whole."""
        if self.done or not (self._blocked or self._candidates):
            return []
        if not self._blocked and any(c.finished is None for c in self._candidates.values()):
            return []
        self.done = True
        return [StreamEnd()]

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole answer: one ``GenerateContentResponse`` (``generateContent``), a
        JSON array of them (``streamGenerateContent`` without ``alt=sse``), or Google's error
        body (either way). The events end with StreamEnd, unless an error came.

        Raises:
            StreamProtocolError: The body is no JSON object or array, or holds no answer.
        """
        where = "as the response body"
        whole = _parse_any(body, where)
        events: list[StreamEvent] = []
        items = whole if type(whole) is list else [whole]
        if not any(type(item) is dict and (item.get("error") or _answers(item)) for item in items):
            keys = sorted(whole)[:10] if type(whole) is dict else type(whole).__name__
            raise StreamProtocolError(
                "expected a GenerateContentResponse (a JSON object with candidates, "
                f"promptFeedback or usageMetadata), or an array of them, {where}; got {keys}"
            )
        self._responses(whole, where, events)
        if not self.done:
            for candidate in self._candidates.values():
                candidate.close(events)
            self.done = True
            events.append(StreamEnd())
        return events

    # --- a response ---

    def _responses(self, value: object, where: str, events: list[StreamEvent]) -> None:
        """One response, or an array of them (each a JSON object; an error ends them)."""
        if type(value) is dict:
            self._response(value, events)
            return
        if type(value) is not list or not value:
            raise StreamProtocolError(
                f"expected a JSON object or a non-empty array of them {where}, "
                f"got {type(value).__name__}"
            )
        for item in value:
            if type(item) is not dict:
                raise StreamProtocolError(
                    f"expected an array of JSON objects {where}, got one holding "
                    f"{type(item).__name__}"
                )
            self._response(item, events)
            if self.done:
                return

    def _response(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """One ``GenerateContentResponse``: metadata, candidates, prompt feedback, usage."""
        if payload.get("error"):
            self._fail(payload, events)
            return
        inner = payload.get("response")
        if type(inner) is dict and "candidates" not in payload:
            # Cloud Code Assist's envelope: {"response": {...}, "traceId": ...}
            payload = {**{k: v for k, v in payload.items() if k != "response"}, **inner}
        self._metadata(payload, events)
        candidates = payload.get("candidates")
        for at, candidate in enumerate(candidates if type(candidates) is list else ()):
            if type(candidate) is dict:
                self._candidate(candidate, at, events)
            else:
                events.append(_gateway_event("candidate", {"index": at, "candidate": candidate}))
        feedback = payload.get("promptFeedback")
        if feedback is not None:
            self._feedback_of(feedback, events)
        usage = payload.get("usageMetadata")
        if type(usage) is dict and usage != self._usage and _counts(usage):
            self._usage = usage
            events.append(_usage_update(gemini_usage(usage)))
        extras = {k: v for k, v in payload.items() if k not in _READ and v is not None}
        if extras and extras != self._extras:
            self._extras = extras
            events.append(_gateway_event("response", extras))

    def _candidate(self, candidate: Mapping[str, Any], at: int, events: list[StreamEvent]) -> None:
        index = candidate.get("index")
        if type(index) is not int:  # proto3 leaves a zero out: the first, absent, is 0
            index = at
        known = self._candidates.get(index)
        if known is None:
            known = self._candidates[index] = Candidate(index)
        known.take(candidate, events)

    def _feedback_of(self, feedback: object, events: list[StreamEvent]) -> None:
        """``promptFeedback``: kept as a GatewayEvent when it changed; a ``blockReason`` means
        the prompt was blocked and no candidate comes: the answer ended, by a filter."""
        if feedback != self._feedback:
            self._feedback = feedback
            events.append(_gateway_event("promptFeedback", feedback))
        reason = feedback.get("blockReason") if type(feedback) is dict else None
        if type(reason) is str and reason and not self._blocked:
            self._blocked = True
            events.append(Finish(reason="content_filter", stop_reason=reason))

    def _metadata(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        said = (
            _str(payload.get("responseId")),
            _str(payload.get("modelVersion")),
            _seconds(payload.get("createTime")),
        )
        if said != self._meta and any(value is not None for value in said):
            self._meta = said
            events.append(Metadata(id=said[0], model=said[1], created=said[2]))

    def _fail(self, payload: object, events: list[StreamEvent]) -> None:
        self.done = True  # Google said what failed: nothing after it counts
        events.append(error_frame(payload))


def error_frame(payload: object) -> ErrorFrame:
    """Google's error, ``{"error": {"code": 429, "message": ..., "status":
    "RESOURCE_EXHAUSTED", "details": [...]}}``: its message, ``status`` as the type, ``code``
    as the code; the payload whole as ``data``. Any other shape as the core reads errors."""
    error = payload.get("error") if type(payload) is dict else None
    if type(error) is not dict:
        return parse_error(payload)
    message = error.get("message")
    status = error.get("status")
    code = error.get("code")
    return ErrorFrame(
        message=message if type(message) is str and message else to_json(error).decode(),
        type=status if type(status) is str else _str(error.get("type")),
        code=code if type(code) in (int, str) else None,
        data=payload,
    )


def gemini_usage(raw: Mapping[str, Any]) -> Usage:
    """The Usage of a ``usageMetadata``, counted as the other protocols count:

    - ``prompt_tokens``: ``promptTokenCount`` (cached content included) plus
      ``toolUsePromptTokenCount`` (what the model read of its tools' results, a search's):
      every token read;
    - ``completion_tokens``: ``candidatesTokenCount`` (or ``responseTokenCount``) plus
      ``thoughtsTokenCount``: the reasoning is part of the output, as OpenAI's
      ``completion_tokens`` and Anthropic's ``output_tokens`` hold theirs;
    - ``reasoning_tokens``: ``thoughtsTokenCount``; ``cached_tokens``:
      ``cachedContentTokenCount`` (part of the prompt);
    - ``total_tokens``: ``totalTokenCount`` (which Gemini counts as the four above), else
      the sum. ``raw`` keeps the object as sent (its per-modality details, ``serviceTier``,
      ``trafficType``).
    """
    prompt = _add(_int(raw.get("promptTokenCount")), _int(raw.get("toolUsePromptTokenCount")))
    answer = _int(raw.get("candidatesTokenCount"))
    if answer is None:
        answer = _int(raw.get("responseTokenCount"))
    thoughts = _int(raw.get("thoughtsTokenCount"))
    completion = _add(answer, thoughts)
    total = _int(raw.get("totalTokenCount"))
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cached_tokens=_int(raw.get("cachedContentTokenCount")),
        reasoning_tokens=thoughts,
        raw=raw,
    )


def _counts(usage: Mapping[str, Any]) -> bool:
    """Whether a ``usageMetadata`` holds a count (Vertex AI sends ``{"trafficType": ...}``
    alone on every frame before the last: no report, nothing to replace)."""
    return any(type(usage.get(key)) is int for key in _COUNTS)


def _answers(whole: Mapping[str, Any]) -> bool:
    """Whether a JSON object is an answer (or Cloud Code Assist's envelope of one)."""
    inner = whole.get("response")
    if type(inner) is dict:
        whole = inner
    return any(key in whole for key in ("candidates", "promptFeedback", "usageMetadata"))


def _parse_any(data: bytes, where: str) -> Any:
    """A JSON value (invalid UTF-8 replaced, as an SSE text decoder would); else a protocol
    error."""
    try:
        return from_json(data)
    except ValueError as exc:
        try:
            return from_json(data.decode("utf-8", "replace"))
        except ValueError:
            preview = repr(data[:200].decode("utf-8", "replace"))
            raise StreamProtocolError(
                f"expected a JSON object {where}, got invalid JSON ({exc}): {preview}"
            ) from None


def _seconds(value: object) -> int | None:
    """``createTime`` (RFC 3339) as whole seconds since the epoch; None when it is none."""
    found = _TIME.fullmatch(value) if type(value) is str else None
    if found is None:
        return None
    year, month, day, hour, minute, second, sign, off_h, off_m = found.groups()
    try:
        fields = (int(year), int(month), int(day), int(hour), int(minute), int(second))
        seconds = calendar.timegm((*fields, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    if sign is not None:
        offset = int(off_h) * 3600 + int(off_m) * 60
        seconds += -offset if sign == "+" else offset
    return seconds


def _add(first: int | None, second: int | None) -> int | None:
    if first is None and second is None:
        return None
    return (first or 0) + (second or 0)


def _int(value: object) -> int | None:
    return value if type(value) is int else None


def _str(value: object) -> str | None:
    return value if type(value) is str and value else None
