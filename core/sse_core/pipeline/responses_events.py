"""OpenAI Responses payload decoder: the events of ``POST /v1/responses`` (``stream: true``) to
the shared StreamEvents, one :class:`ResponsesDecoder` per stream.

The wire: named events (``event: response.output_text.delta`` then ``data: {...}`` whose
``type`` repeats the name; a gateway that writes only ``data:`` lines is read by that
``type``), each with a ``sequence_number``: ``response.created`` / ``in_progress`` /
``queued``; per output item, keyed by ``output_index``, ``response.output_item.added``, its
parts' events, ``response.output_item.done``; last a terminal event, ``response.completed``,
``response.incomplete`` or ``response.failed``, carrying the whole response; or ``error``.

The rules:

- items (:mod:`.responses_items`): a ``message``'s ``output_text`` -> TextDelta, its
  ``refusal`` -> RefusalDelta, ``output_text.annotation.added`` -> Citation (the annotation
  as sent; ``block`` is the item's ``output_index``); a ``reasoning`` item's summary text
  and raw ``reasoning_text`` -> ReasoningDelta (two parts of one item apart by a blank
  line), the item closed by ReasoningSignature (``signature`` its ``encrypted_content``,
  "" for none; ``item`` the item as ``output_item.done`` gave it, byte-exact, to send back
  on the next turn); a ``function_call`` -> ToolCallDelta numbered 0, 1, ... in the order
  the calls appear (never the ``output_index``, which counts the other items too), ``id``
  its ``call_id``, its name, the arguments as the deltas arrive (cut arguments stay as they
  are: :attr:`~sse_core.ToolCall.arguments_error` flags them); an item is a call from its
  name on, the arguments before it held (an item never announced may be named only in its
  ``.done`` event), and one the answer ends without naming is no call but
  :func:`~sse_core.pipeline.tool_calls.nameless_call`; any other item (web search, file
  search, code interpreter, MCP, image generation, custom tools, a type not known yet)
  and its events -> GatewayEvent as sent, never a tool call;
- an event finds its item by ``output_index``; by ``item_id`` only when it has no
  ``output_index`` (some gateways change the item id on every event); else the last item;
- **deltas against final versions.** A final version of a part (``.done`` events,
  ``content_part.done``, ``output_item.done``, the terminal response's ``output``) that
  extends what the deltas carried adds the missing tail, as deltas: text or arguments that
  arrive only in ``.done``, a call or text only in the final output, are never lost. A final
  version that disagrees otherwise (a gateway that dropped tokens from the deltas: vLLM,
  vllm-project/vllm#30099) is kept as a GatewayEvent named
  :data:`~sse_core.pipeline.responses_items.MISMATCH` (``response.output_mismatch``, with
  ``output_index``, ``item_id``, ``part``, ``index``, ``event``, ``streamed`` and ``final``)
  among the completion's events; the stream's deltas stay what it showed, and the answer's
  whole text is the final text, as the API defines the response (``Finish.content``: the
  ``output_text`` parts' final versions joined, the Completion's ``content``). An empty
  final version says nothing (vLLM sends an empty ``output``). Final output items are
  matched with streamed ones by item id, by call id, else by position where the kinds agree
  (LiteLLM reorders the output), never by position alone;
- **sequence numbers**: a frame whose ``sequence_number`` is not above the highest seen and
  whose data is byte-identical to the frame that number came with (within the last
  :data:`SEQUENCE_WINDOW` numbers) is a relay's repeat, and dropped; a number that repeats
  or goes back with other data is decoded (a gateway that numbers badly loses nothing);
- **when the stream is complete**: at its terminal event, read by the response's
  ``status`` (a ``response.completed`` whose status is ``incomplete`` is incomplete), else
  by the event's name. ``completed`` -> Finish ``stop`` (``tool_calls`` when function calls
  came; ``stop_reason`` ``completed``); ``incomplete`` -> Finish from
  ``incomplete_details.reason`` (:data:`INCOMPLETE_REASONS`: ``max_output_tokens`` ->
  ``length``, ``content_filter`` -> ``content_filter``, another reason as it is, none ->
  ``length``), the raw reason as ``stop_reason``; ``failed`` / ``cancelled`` and the
  ``error`` event -> ErrorFrame (the session raises GatewayStreamError with the partial
  answer, the code and the message). The terminal response's usage and output are read
  first; then StreamEnd, :attr:`ResponsesDecoder.done`: the caller stops reading, whatever
  the socket does after it. EOF before a terminal event is a cut answer
  (IncompleteStreamError); ``data: [DONE]`` is no terminal event (ignored);
- usage, from the terminal response's ``usage``: ``input_tokens`` (cached ones included, as
  OpenAI counts them) -> ``prompt_tokens``, ``input_tokens_details.cached_tokens``,
  ``output_tokens``, ``output_tokens_details.reasoning_tokens``, ``total_tokens``; raw kept;
- Metadata from the response (``id``, ``model``, ``created_at`` in whole seconds: a number
  no int holds, ``1e999`` or ``NaN``, is no time); a frame ``{"error": ...}``
  with no ``type`` is an error; a payload that is no JSON object is a StreamProtocolError,
  except in an event of a name not known here, kept as a GatewayEvent as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import isfinite
from typing import Any

from pydantic_core import from_json

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
from sse_core.pipeline.payloads import parse_chunk_json, parse_error, parse_loose, parse_usage
from sse_core.pipeline.responses_items import OutputItems, Piece

__all__ = ["INCOMPLETE_REASONS", "SEQUENCE_WINDOW", "ResponsesDecoder", "responses_usage"]

#: ``incomplete_details.reason`` in the shared finish reasons; another is kept as it is.
INCOMPLETE_REASONS: Mapping[str, str] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}
#: How far back a repeated ``sequence_number`` is recognised (memory stays bounded).
SEQUENCE_WINDOW = 1024
#: The statuses a terminal response may have.
_ENDINGS = frozenset({"completed", "incomplete", "failed", "cancelled"})

_TEXT, _REFUSAL, _REASONING, _SUMMARY, _ARGUMENTS = (
    Piece.TEXT,
    Piece.REFUSAL,
    Piece.REASONING,
    Piece.SUMMARY,
    Piece.ARGUMENTS,
)
#: Delta events: the piece each carries.
_DELTAS = {
    "response.output_text.delta": _TEXT,
    "response.function_call_arguments.delta": _ARGUMENTS,
    "response.reasoning_summary_text.delta": _SUMMARY,
    "response.reasoning_text.delta": _REASONING,
    "response.refusal.delta": _REFUSAL,
}
#: ``.done`` events of a part: its piece and the field with its whole text.
_DONES = {
    "response.output_text.done": (_TEXT, "text"),
    "response.function_call_arguments.done": (_ARGUMENTS, "arguments"),
    "response.reasoning_summary_text.done": (_SUMMARY, "text"),
    "response.reasoning_text.done": (_REASONING, "text"),
    "response.refusal.done": (_REFUSAL, "refusal"),
}
_PARTS = frozenset(
    {
        "response.content_part.added",
        "response.content_part.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
    }
)
_STARTS = frozenset({"response.created", "response.in_progress", "response.queued"})
_TERMINALS = frozenset(
    {"response.completed", "response.incomplete", "response.failed", "response.cancelled"}
)
#: The events of an output item other than its deltas.
_ITEMS = (
    frozenset(_DONES)
    | _PARTS
    | {
        "response.output_item.added",
        "response.output_item.done",
        "response.output_text.annotation.added",
    }
)
#: Every event type read here (others are gateway events).
KNOWN = frozenset(_DELTAS) | _ITEMS | _STARTS | _TERMINALS | {"error"}


class ResponsesDecoder:
    """Turns each Responses stream event into StreamEvents (:meth:`decode`); the
    ``responses`` :class:`~sse_core.protocols.PayloadDecoder`."""

    __slots__ = ("_items", "_meta", "_rising", "_seen", "_top", "done")

    def __init__(self) -> None:
        self._items = OutputItems()
        self._meta: tuple[str | None, str | None, int | None] = (None, None, None)
        self._seen: dict[int, int] = {}  # sequence number -> hash of its data (a window)
        self._top = -1  # the highest sequence number seen
        self._rising = False  # the numbers rose at least once
        #: True once a terminal event or an error arrived: nothing after it is decoded.
        self.done: bool = False

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one SSE event.

        Raises:
            StreamProtocolError: A Responses event whose data is not a JSON object.
        """
        events: list[StreamEvent] = []
        if sse.event == "message":
            self.data_into(sse.data.encode(), events)
        else:
            self.named_into(sse.event, sse.data.encode(), events)
        return events

    def flush(self) -> list[StreamEvent]:
        """End of the body before a terminal event: the answer is cut (the session says so);
        nothing is closed for it, and a call not named yet is kept as no call."""
        events: list[StreamEvent] = []
        self._items.nameless(events)
        return events

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode an event without an ``event:`` line: the type is inside the data.

        Raises:
            StreamProtocolError: The data is not a JSON object.
        """
        if data[:1] != b"{":
            stripped = data.strip()
            if not stripped or stripped == b"[DONE]":
                return  # a keep-alive; [DONE] is no terminal event of this protocol
        payload = _parse(data, "in a data frame")
        kind = payload.get("type")
        if type(kind) is str:
            self._event(kind, payload, data, events)
        elif payload.get("error"):  # a proxy's {"error": {...}} frame
            self._fail(parse_error(payload), events)
        else:
            events.append(_gateway_event("message", payload))

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        """Decode the event ``name`` with ``data`` into ``events``.

        Raises:
            StreamProtocolError: A Responses event whose data is not a JSON object.
        """
        if name == "error":  # its data may be text
            value = parse_loose(data)
            if type(value) is dict:
                self._event("error", value, data, events)
            else:
                self._fail(parse_error(value), events)
        elif name in KNOWN:
            payload = _parse(data, f"in a {name} event")
            kind = payload.get("type")
            self._event(kind if type(kind) is str else name, payload, data, events)
        elif name == "message":
            self.data_into(data, events)
        else:
            value = parse_loose(data)
            kind = value.get("type") if type(value) is dict else None
            if type(kind) is str and kind in KNOWN:
                self._event(kind, value, data, events)
            elif not self._repeated(value, data):
                events.append(_gateway_event(name, value))

    def _event(
        self, kind: str, payload: Mapping[str, Any], data: bytes, events: list[StreamEvent]
    ) -> None:
        """Decode one event's JSON object, of type ``kind``."""
        if self._repeated(payload, data):
            return
        piece = _DELTAS.get(kind)
        if piece is not None:  # the common case first
            self._items.piece(kind, payload, piece, events)
        elif kind in _ITEMS:
            self._item_event(kind, payload, events)
        elif kind in _STARTS:
            self._started(kind, payload, events)
        elif kind in _TERMINALS:
            self._terminal(kind, _dict(payload.get("response")), events)
        elif kind == "error":
            self._fail(_error_frame(payload), events)
        else:  # a server tool's events, an event not known yet: as sent
            events.append(_gateway_event(kind, payload))

    def _item_event(self, kind: str, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """An event of an output item other than a delta."""
        items = self._items
        if kind in _DONES:
            piece, field = _DONES[kind]
            items.finished(kind, payload, piece, field, events)
        elif kind in _PARTS:
            items.part(kind, payload, events)
        elif kind == "response.output_item.added":
            items.added(payload, events)
        elif kind == "response.output_item.done":
            items.done(payload, events)
        else:
            items.annotation(payload, events)

    def _repeated(self, payload: object, data: bytes) -> bool:
        """Whether ``data`` repeats the frame its ``sequence_number`` came with (only once
        the numbers rose: a gateway that sends one number on every frame repeats nothing)."""
        number = payload.get("sequence_number") if type(payload) is dict else None
        if type(number) is not int:
            return False
        seen = self._seen
        if number > self._top:
            self._rising = self._top >= 0
            self._top = number
            seen[number] = hash(data)
            seen.pop(number - SEQUENCE_WINDOW, None)
            return False
        return self._rising and seen.get(number) == hash(data)

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole Responses JSON answer (a ``response`` object: a gateway that
        answered without SSE); the events end with StreamEnd (or are an ErrorFrame).

        Raises:
            StreamProtocolError: The body is no JSON object, or neither a response nor an
                error.
        """
        whole = parse_chunk_json(body, where="as the response body")
        events: list[StreamEvent] = []
        if type(whole.get("output")) is not list:
            if whole.get("error"):
                self._fail(parse_error(whole), events)
                return events
            raise StreamProtocolError(
                "expected a response (a JSON object with output) as the response body, "
                f"got one with keys {sorted(whole)[:10]}"
            )
        self._terminal("response.completed", whole, events)
        return events

    # --- the response ---

    def _started(self, kind: str, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        response = payload.get("response")
        if type(response) is dict:
            self._metadata(response, events)
        if kind == "response.queued":
            events.append(_gateway_event(kind, payload))  # a background response waits

    def _metadata(self, response: Mapping[str, Any], events: list[StreamEvent]) -> None:
        created = response.get("created_at")
        said = (
            _str(response.get("id")) or None,
            _str(response.get("model")) or None,
            _seconds(created),
        )
        if said != self._meta and any(value is not None for value in said):
            self._meta = said
            events.append(Metadata(id=said[0], model=said[1], created=said[2]))

    def _terminal(self, kind: str, response: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """The terminal event: its output against the deltas, its usage, its verdict."""
        status = response.get("status")
        if type(status) is not str or status not in _ENDINGS:
            status = kind.removeprefix("response.")
        self._metadata(response, events)
        output = response.get("output")
        if type(output) is list:
            self._items.final(output, events)
        self._items.nameless(events)
        usage = response.get("usage")
        if type(usage) is dict:
            events.append(_usage_update(responses_usage(usage)))
        whole = self._items.whole_text()  # the final text, where the deltas lost some
        if status in ("failed", "cancelled"):
            error = _dict(response.get("error"))
            message = _str(error.get("message")) or f"the response ended {status}"
            code = error.get("code")
            code = code if type(code) in (str, int) else status
            self._fail(ErrorFrame(message=message, code=code, data=response), events)
            return
        if status == "incomplete":
            details = _dict(response.get("incomplete_details"))
            reason = _str(details.get("reason"))
            finish = INCOMPLETE_REASONS.get(reason, reason) if reason else "length"
            events.append(Finish(reason=finish, stop_reason=reason or "incomplete", content=whole))
        else:
            finish = "tool_calls" if self._items.calls else "stop"
            events.append(Finish(reason=finish, stop_reason="completed", content=whole))
        self.done = True
        events.append(StreamEnd())

    def _fail(self, frame: ErrorFrame, events: list[StreamEvent]) -> None:
        self.done = True  # the gateway said what failed: nothing after it counts
        events.append(frame)


def responses_usage(raw: Mapping[str, Any]) -> Usage:
    """The Usage of a Responses ``usage`` object: input, output, total, cached
    (``input_tokens_details.cached_tokens``), cache-write (``cache_write_tokens``, which the
    openai SDK's types carry) and reasoning tokens; a chat-shaped one, from a gateway that
    sends it, as chat completions read it."""
    given = _int(raw.get("input_tokens"))
    output = _int(raw.get("output_tokens"))
    if given is None and output is None:
        return parse_usage(raw)
    total = _int(raw.get("total_tokens"))
    if total is None and given is not None and output is not None:
        total = given + output
    inputs = _dict(raw.get("input_tokens_details"))
    return Usage(
        prompt_tokens=given,
        completion_tokens=output,
        total_tokens=total,
        cached_tokens=_int(inputs.get("cached_tokens")),
        cache_write_tokens=_int(inputs.get("cache_write_tokens")),
        reasoning_tokens=_int(_dict(raw.get("output_tokens_details")).get("reasoning_tokens")),
        raw=raw,
    )


def _error_frame(payload: Mapping[str, Any]) -> ErrorFrame:
    """The ``error`` event: ``code``, ``message`` and ``param`` at its top (the API
    reference), or an ``error`` object inside it (as some gateways send it)."""
    nested = payload.get("error")
    if type(nested) is dict:
        return parse_error(payload)
    frame = parse_error({k: v for k, v in payload.items() if k not in ("type", "sequence_number")})
    return ErrorFrame(message=frame.message, code=frame.code, data=payload)


def _parse(data: bytes, where: str) -> Mapping[str, Any]:
    if data[:1] == b"{":
        try:
            value = from_json(data, cache_strings="keys")
        except ValueError:
            pass
        else:
            if type(value) is dict:
                return value
    return parse_chunk_json(data, where=where)  # recovers bad UTF-8, else raises


def _int(value: object) -> int | None:
    return value if type(value) is int else None


def _seconds(value: object) -> int | None:
    """``created_at`` as whole seconds: an int, or a float a gateway wrote (``1.7e9``); a
    number no int holds (``1e999`` reads as infinity, ``NaN``) is no time (None)."""
    if type(value) is float:
        return int(value) if isfinite(value) else None
    return value if type(value) is int else None


def _str(value: object) -> str | None:
    return value if type(value) is str else None


def _dict(value: object) -> Mapping[str, Any]:
    return value if type(value) is dict else {}
