"""Anthropic Messages payload decoder: the events of ``POST /v1/messages`` (``stream: true``)
to the shared StreamEvents, one :class:`MessagesDecoder` per stream.

The wire: ``message_start`` (id, model, usage, content a gateway may prefill), then content
blocks keyed by ``index`` (``content_block_start`` / ``_delta`` / ``_stop``, possibly
interleaved), ``message_delta`` (stop reason, stop sequence, cumulative usage), and
``message_stop``; ``ping`` and ``error`` at any time. The type of an event is its ``event:``
name, or the ``type`` inside the data when a gateway writes no ``event:`` line.

The rules:

- blocks: ``text`` -> TextDelta; ``thinking`` -> ReasoningDelta, its signature kept whole
  and sent when the block closes (ReasoningSignature); ``redacted_thinking`` ->
  RedactedReasoning; ``tool_use`` -> ToolCallDelta, numbered 0, 1, ... in the order calls
  start (the block index counts text blocks too), arguments as the ``input_json_delta``
  pieces arrive, ``{}`` (or the start's ``input``) when none did; a ``tool_use`` block
  without a name (or input pieces of a block never started) is no call but
  :func:`~sse_core.pipeline.tool_calls.nameless_call` at its stop; server tool blocks and
  block types not known yet -> GatewayEvent, as sent; a text block's ``citations_delta``
  and the ``citations`` it starts with (or holds whole) -> Citation with the block's index,
  as sent (a citation that is no JSON object stays a GatewayEvent, as sent);
- usage: each report updates the counts it names (the last value wins, never a sum; a
  gateway may send ``input_tokens`` only in ``message_delta``). A count ``message_delta``
  names is final, 0 included, as the anthropic SDK reads it (a compacted prompt's cache
  counts drop to 0 there), except a relay's zero-fill: an input side all 0 after
  ``message_start`` counted a prompt (a Go relay's zero values for the counts it was not
  sent; no answer has an empty prompt) leaves the input counts known. ``prompt_tokens``
  counts every input token, cache reads and writes included, as chat completions count
  them;
- the stop reason is mapped to the shared finish reasons (:data:`FINISH_REASONS`; others,
  such as ``pause_turn``, pass unchanged) and kept as sent on :class:`Finish`;
- ``message_stop`` ends the stream (StreamEnd, :attr:`MessagesDecoder.done`): the caller stops
  reading, whatever the socket does after it. ``error`` ends it too (ErrorFrame). A stop
  reason with no ``message_stop`` after it is complete at the end of the body;
- a duplicate ``message_start`` adds nothing but counts not known yet; unknown event types
  become GatewayEvents, never an error; ``ping`` is no event (a keep-alive); a
  ``message_start``, ``message_delta`` or ``message_stop`` that says more than this reads
  (``stop_details``, a container, Bedrock's invocation metrics) is also kept whole as a
  GatewayEvent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import from_json

from sse_core.errors import StreamProtocolError
from sse_core.events import (
    Finish,
    Metadata,
    StreamEnd,
    StreamEvent,
    _gateway_event,
    _usage_update,
)
from sse_core.pipeline.anthropic_blocks import ContentBlocks
from sse_core.pipeline.parser import ServerSentEvent
from sse_core.pipeline.payloads import messages_usage, parse_chunk_json, parse_error, parse_loose

__all__ = ["FINISH_REASONS", "MessagesDecoder"]

#: Anthropic stop reasons in the shared vocabulary; any other (``pause_turn``, a new one)
#: is the finish reason as it is. ``Finish.stop_reason`` keeps the word as sent.
FINISH_REASONS: Mapping[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
#: The event types this decoder reads by name (others are gateway events).
_KNOWN = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    }
)
# The fields this decoder reads; a message_start or message_delta that says more (a
# container, stop_details, context management) is kept whole as a GatewayEvent too.
_MESSAGE_FIELDS = frozenset(
    {"id", "type", "role", "content", "model", "stop_reason", "stop_sequence", "usage"}
)
_DELTA_FIELDS = frozenset({"type", "delta", "usage", "stop_reason", "stop_sequence"})
_STOP_FIELDS = frozenset({"type"})
#: The counts of a prompt (``input_tokens`` leaves out the cached part).
_INPUT_COUNTS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


class MessagesDecoder:
    """Turns each Anthropic Messages event into StreamEvents (:meth:`decode`); the
    ``anthropic`` :class:`~sse_core.protocols.PayloadDecoder`."""

    __slots__ = ("_blocks", "_started", "_stopped", "_usage", "done", "keepalives")

    def __init__(self) -> None:
        self._blocks = ContentBlocks()
        self._started = False  # message_start arrived
        self._stopped = False  # a stop reason arrived
        self._usage: dict[str, Any] = {}  # every count reported so far, the last value each
        #: True once ``message_stop`` or an error arrived: nothing after it is decoded.
        self.done: bool = False
        #: How many ``ping`` events arrived (the API's keep-alives).
        self.keepalives: int = 0

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one SSE event.

        Raises:
            StreamProtocolError: A Messages event whose data is not a JSON object.
        """
        events: list[StreamEvent] = []
        self.named_into(sse.event, sse.data.encode(), events)
        return events

    def flush(self) -> list[StreamEvent]:
        """End of the body: after a stop reason, close the blocks still open (a tool call
        with no input gets ``{}``); before one, leave them as they are (the answer is cut)."""
        events: list[StreamEvent] = []
        if self._stopped and not self.done:
            self._blocks.close_all(events)
        return events

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode an event without an ``event:`` line: the type is inside the data.

        Raises:
            StreamProtocolError: The data is not a JSON object.
        """
        if data[:1] == b"{":
            try:
                payload = from_json(data, cache_strings="keys")  # "{...": a dict
            except ValueError:
                payload = parse_chunk_json(data)  # recovers bad UTF-8, else raises
            self._decode_into(payload, events)
            return
        stripped = data.strip()
        if not stripped:
            return  # an empty data line is a keep-alive
        if stripped == b"[DONE]":  # a relay that ends every stream the OpenAI way
            self._end(events)
            return
        self._decode_into(parse_chunk_json(data), events)

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        """Decode the event ``name`` with ``data`` into ``events``.

        Raises:
            StreamProtocolError: A Messages event whose data is not a JSON object.
        """
        if name == "content_block_delta" and data[:1] == b"{":  # the common case first
            try:
                payload = from_json(data, cache_strings="keys")  # "{...": a dict
            except ValueError:
                payload = parse_chunk_json(data, where=f"in a {name} event")
            self._blocks.delta(payload, events)
        elif name == "message":
            self.data_into(data, events)
        elif name == "ping":
            self.keepalives += 1
        elif name == "error":
            self._error(parse_loose(data), events)
        elif name in _KNOWN:
            payload = parse_chunk_json(data, where=f"in a {name} event")
            self._typed(name, payload, events)
        else:
            events.append(_gateway_event(name, parse_loose(data)))

    def _decode_into(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """Decode one event's JSON object, whose ``type`` says what it is."""
        kind = payload.get("type")
        if kind == "content_block_delta":  # the common case first
            self._blocks.delta(payload, events)
        elif type(kind) is str and kind in _KNOWN:
            self._typed(kind, payload, events)
        else:
            events.append(_gateway_event(kind if type(kind) is str else "message", payload))

    def _typed(self, kind: str, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        if kind == "content_block_delta":
            self._blocks.delta(payload, events)
        elif kind == "content_block_start":
            self._blocks.start(payload, events)
        elif kind == "content_block_stop":
            self._blocks.stop(payload, events)
        elif kind == "message_start":
            self._message_start(payload, events)
        elif kind == "message_delta":
            self._message_delta(payload, events)
        elif kind == "message_stop":
            if _says_more(payload, _STOP_FIELDS):  # Bedrock's invocation metrics and such
                events.append(_gateway_event("message_stop", payload))
            self._end(events)
        elif kind == "error":
            self._error(payload, events)
        # ping: a keep-alive, no event

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole Messages JSON answer (a gateway that answered without SSE); the
        events end with StreamEnd (or are an ErrorFrame).

        Raises:
            StreamProtocolError: The body is no JSON object, or neither a message nor an
                error.
        """
        whole = parse_chunk_json(body, where="as the response body")
        events: list[StreamEvent] = []
        if whole.get("type") == "error" or "error" in whole:
            self._error(whole, events)
            return events
        if type(whole.get("content")) is not list:
            raise StreamProtocolError(
                "expected a message (a JSON object with content) as the response body, "
                f"got one with keys {sorted(whole)[:10]}"
            )
        self._message_start({"message": whole}, events)
        self._end(events)
        return events

    # --- the message ---

    def _message_start(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        message = payload.get("message")
        if type(message) is not dict:
            message = {}
        usage = message.get("usage")
        if self._started:  # a duplicate: only counts not known yet
            if type(usage) is dict:
                self._report({k: v for k, v in usage.items() if k not in self._usage}, events)
            return
        self._started = True
        msg_id, model = _str(message.get("id")), _str(message.get("model"))
        if msg_id or model:
            events.append(Metadata(id=msg_id or None, model=model or None))
        if type(usage) is dict:
            self._report(usage, events)
        if _says_more(message, _MESSAGE_FIELDS):
            events.append(_gateway_event("message_start", payload))
        self._prefilled(message, events)

    def _prefilled(self, message: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """What a gateway put in ``message_start`` already: whole blocks, a stop reason."""
        content = message.get("content")
        if type(content) is list:
            for at, block in enumerate(content):
                if type(block) is dict:
                    self._blocks.whole(block, events, at)
        reason = message.get("stop_reason")
        if reason:
            stop = {"stop_reason": reason, "stop_sequence": message.get("stop_sequence")}
            self._message_delta({"delta": stop}, events)

    def _message_delta(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        usage = payload.get("usage")
        if type(usage) is dict:
            self._report(usage, events, final=not self._zero_filled(usage))
        delta = payload.get("delta")
        if type(delta) is not dict:
            return
        if _says_more(payload, _DELTA_FIELDS) or _says_more(delta, _DELTA_FIELDS):
            events.append(_gateway_event("message_delta", payload))  # stop_details and such
        reason = delta.get("stop_reason")
        if reason and type(reason) is str:
            self._stopped = True
            self._blocks.close_all(events)
            events.append(
                Finish(
                    reason=FINISH_REASONS.get(reason, reason),
                    stop_reason=reason,
                    stop_sequence=_str(delta.get("stop_sequence")),
                )
            )

    def _end(self, events: list[StreamEvent]) -> None:
        """``message_stop``: the stream is over."""
        self._blocks.close_all(events)
        self.done = True
        events.append(StreamEnd())

    def _error(self, payload: object, events: list[StreamEvent]) -> None:
        self.done = True  # the gateway said what failed: nothing after it counts
        events.append(parse_error(payload))

    def _report(
        self, usage: Mapping[str, Any], events: list[StreamEvent], final: bool = True
    ) -> None:
        """Take a usage report: each count it names replaces the one before (null: unsaid).
        Not ``final`` (a relay's zero-filled ``message_delta``): an input count's 0 after a
        count is unsaid too."""
        known = self._usage
        said = {
            key: value
            for key, value in usage.items()
            if value is not None
            and (final or key not in _INPUT_COUNTS or value != 0 or not known.get(key))
        }
        if not said:
            return
        self._usage = merged = {**self._usage, **said}
        events.append(_usage_update(messages_usage(merged)))

    def _zero_filled(self, usage: Mapping[str, Any]) -> bool:
        """Whether ``message_delta``'s input counts are a relay's zero values: all 0 (none
        above it) after ``message_start`` counted a prompt. The anthropic SDK would take
        them; a Go relay re-encoding the event from its structs sends 0 for each count the
        API left out (the dive capture: ``"input_tokens":0`` after 471), and no answer has
        an empty prompt."""
        inputs = [usage[key] for key in _INPUT_COUNTS if usage.get(key) is not None]
        if not inputs or any(type(value) is not int or value for value in inputs):
            return False
        known = self._usage
        return any(type(known.get(key)) is int and known[key] > 0 for key in _INPUT_COUNTS)


def _str(value: object) -> str | None:
    return value if type(value) is str else None


def _says_more(fields: Mapping[str, Any], known: frozenset[str]) -> bool:
    """Whether ``fields`` holds a value under a name not in ``known``."""
    return any(value is not None and key not in known for key, value in fields.items())
