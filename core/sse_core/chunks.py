"""Chunk decoder: SSE events (or decoded payloads) to StreamEvents, tolerant of every dialect.

One :class:`ChunkDecoder` per stream; it keeps the little state the wire needs
(tool-call ids seen, an open ``<think>`` block, metadata already reported).
What it copes with, each handled where the comment says so:

- ``data: [DONE]`` (never JSON) or no sentinel at all;
- ``object`` ``chat.completion.chunk`` or ``chat.completion``; absent ``id``/``object``/
  ``model``/``index``/``finish_reason``; ``choices: []`` (usage, Azure filter results,
  moderation); ``message`` instead of ``delta`` (a whole completion);
- text, ``reasoning_content`` / ``reasoning`` / ``reasoning_details``, a leading ``<think>``
  block, content as an array of text/thinking parts, ``refusal``;
- tool calls by index, whole, without index, with ``""`` ids on continuations, indexes from 1,
  several per delta, interleaved, an index reused for a new id;
- usage on any chunk (last wins), in ``x_groq.usage``, as ``event: spass.cost``;
- named events as :class:`GatewayEvent`; error frames as :class:`ErrorFrame`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import from_json, to_json

from sse_core.completion import Usage
from sse_core.errors import StreamProtocolError
from sse_core.events import (
    Done,
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    UsageUpdate,
    reasoning_delta,
    text_delta,
)
from sse_core.sse import ServerSentEvent
from sse_core.think import ThinkSplitter

__all__ = ["ChunkDecoder", "parse_chunk_json", "parse_error", "parse_usage"]

# Named events whose data is a usage object (SPASS seed: "event: spass.cost" trailer).
USAGE_EVENTS = frozenset({"spass.cost"})
_PREVIEW = 200
_METADATA_KEYS = ("id", "model", "system_fingerprint", "created")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first_int(*values: object) -> int | None:
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def parse_usage(raw: Mapping[str, Any]) -> Usage:
    """Normalise a usage object from any dialect into :class:`Usage`."""
    prompt_details = _dict(raw.get("prompt_tokens_details"))
    completion_details = _dict(raw.get("completion_tokens_details"))
    prompt = _first_int(raw.get("prompt_tokens"), raw.get("input_tokens"))
    completion = _first_int(raw.get("completion_tokens"), raw.get("output_tokens"))
    total = _int(raw.get("total_tokens"))
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        # OpenAI: prompt_tokens_details.cached_tokens; DeepSeek: prompt_cache_hit_tokens;
        # Together: a top-level cached_tokens; Anthropic-shaped: cache_read_input_tokens.
        cached_tokens=_first_int(
            prompt_details.get("cached_tokens"),
            raw.get("prompt_cache_hit_tokens"),
            raw.get("cached_tokens"),
            raw.get("cache_read_input_tokens"),
        ),
        cache_write_tokens=_first_int(
            prompt_details.get("cache_write_tokens"),
            prompt_details.get("cache_creation_tokens"),
            raw.get("cache_write_tokens"),
            raw.get("cache_creation_input_tokens"),
        ),
        reasoning_tokens=_first_int(
            completion_details.get("reasoning_tokens"), raw.get("reasoning_tokens")
        ),
        raw=raw,
    )


def parse_error(payload: object) -> ErrorFrame:
    """Make an :class:`ErrorFrame` of ``{"error": {...}}``, ``{"error": "text"}`` or text."""
    err = payload.get("error", payload) if isinstance(payload, dict) else payload
    if isinstance(err, dict):
        message = err.get("message") or err.get("detail") or err.get("msg")
        code = err.get("code")
        kind = err.get("type")
        return ErrorFrame(
            message=str(message) if message else to_json(err).decode(),
            type=kind if isinstance(kind, str) else None,
            code=code if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
            data=payload,
        )
    return ErrorFrame(message=str(err) if err else "the gateway reported an error", data=payload)


class _ToolState:
    """Per-choice tool-call bookkeeping: wire index -> our index, ids and names seen."""

    __slots__ = ("alias", "by_id", "ids", "last", "named")

    def __init__(self) -> None:
        self.alias: dict[int, int] = {}
        self.by_id: dict[str, int] = {}
        self.ids: dict[int, str] = {}
        self.named: set[int] = set()
        self.last: int | None = None

    def next_index(self) -> int:
        known = set(self.ids) | self.named | set(self.alias.values())
        if self.last is not None:
            known.add(self.last)
        return max(known) + 1 if known else 0

    def resolve(self, wire_index: object, call_id: str | None, name: str | None) -> int:
        """Our index for a fragment (see the module docstring for the rules)."""
        if isinstance(wire_index, int) and not isinstance(wire_index, bool):
            index = self.alias.get(wire_index, wire_index)
            known = self.ids.get(index)
            if call_id and known and call_id != known:
                # The same wire index reused for a different call id: a new call.
                index = self.next_index()
                self.alias[wire_index] = index
        elif call_id:
            # No index (Mistral, Ollama, Gemini): join by id.
            found = self.by_id.get(call_id)
            index = self.next_index() if found is None else found
        elif name or self.last is None:
            index = self.next_index()  # a whole call without index or id
        else:
            index = self.last  # a continuation without index or id
        self.last = index
        return index


class _ChoiceState:
    __slots__ = ("content", "reasoning", "tools")

    def __init__(self) -> None:
        self.content = ThinkSplitter()
        self.reasoning = ThinkSplitter()
        self.tools = _ToolState()


class ChunkDecoder:
    """Turns each :class:`ServerSentEvent` (or decoded chunk) into StreamEvents."""

    __slots__ = ("_choices", "_missing", "done")

    def __init__(self) -> None:
        self._choices: dict[int, _ChoiceState] = {}
        self._missing: tuple[str, ...] = _METADATA_KEYS  # metadata fields not yet seen
        #: True once ``[DONE]`` arrived (an attribute: it is read for every read).
        self.done = False

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one SSE event."""
        return self.decode_raw(sse.event, sse.data.encode())

    def decode_raw(self, name: str, data: bytes) -> list[StreamEvent]:
        """Decode one event given as its name and data bytes (the parser's raw form)."""
        if name == "message":
            if data[:1] == b"{":
                return self.decode_chunk(parse_chunk_json(data))
            stripped = data.strip()
            if stripped == b"[DONE]":
                self.done = True
                return [*self.flush(), Done()]
            if not stripped:
                return []  # an empty data line is a keepalive
            return self.decode_chunk(parse_chunk_json(data))
        payload = _parse_loose(data)
        if name == "error":
            return [parse_error(payload)]
        if name in USAGE_EVENTS and isinstance(payload, dict):
            return [UsageUpdate(usage=parse_usage(payload)), GatewayEvent(name=name, data=payload)]
        return [GatewayEvent(name=name, data=payload)]

    def decode_chunk(self, chunk: Mapping[str, Any]) -> list[StreamEvent]:
        """Decode one chat-completion chunk (or a whole ``chat.completion`` object)."""
        events: list[StreamEvent] = []
        self.decode_chunk_into(chunk, events)
        return events

    def decode_chunk_into(self, chunk: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """:meth:`decode_chunk`, appending to ``events`` (no list per chunk on the hot path)."""
        if self._missing:
            self._metadata(chunk, events)
        choices = chunk.get("choices")
        if choices and type(choices) is list:
            for choice in choices:
                if type(choice) is dict:
                    self._choice(choice, events)
        usage = chunk.get("usage")
        if usage is None and "x_groq" in chunk:
            usage = _dict(chunk["x_groq"]).get("usage")  # older Groq: usage only here
        if usage and isinstance(usage, dict):
            events.append(UsageUpdate(usage=parse_usage(usage)))
        if chunk.get("error"):
            events.append(parse_error(chunk))

    def flush(self) -> list[StreamEvent]:
        """End of stream: release text held back while looking for ``<think>`` tags."""
        events: list[StreamEvent] = []
        for index, state in self._choices.items():
            reasoning, text = state.reasoning.flush()
            held_reasoning, held_text = state.content.flush()
            if reasoning or text or held_reasoning:
                events.append(ReasoningDelta(text=reasoning + text + held_reasoning, choice=index))
            if held_text:
                events.append(TextDelta(text=held_text, choice=index))
        return events

    def _metadata(self, chunk: Mapping[str, Any], events: list[StreamEvent]) -> None:
        new: dict[str, Any] = {}
        for key in self._missing:
            value = chunk.get(key)
            if value and isinstance(value, int if key == "created" else str):
                new[key] = value
        if new:
            self._missing = tuple(key for key in self._missing if key not in new)
            events.append(Metadata(**new))

    def _state(self, index: int) -> _ChoiceState:
        state = self._choices[index] = _ChoiceState()
        return state

    def _choice(self, choice: Mapping[str, Any], events: list[StreamEvent]) -> None:
        index = choice.get("index", 0)
        if type(index) is not int:
            index = 0  # SPASS sends choices without an index
        delta = choice.get("delta")
        if delta is None:
            delta = choice.get("message")  # a whole completion, or a delta-less chunk
        if delta and type(delta) is dict:
            state = self._choices.get(index) or self._state(index)
            content = delta.get("content")
            if len(delta) == 1 and type(content) is str:
                # The common case, a text-only delta, inline: one lookup, one event.
                if content:
                    if state.content.passthrough:
                        events.append(text_delta(content, index))
                    else:
                        self._text(index, state, content, events)
            else:
                self._delta(index, state, delta, content, events)
        reason = choice.get("finish_reason")
        if reason and type(reason) is str:
            events.append(Finish(reason=reason, choice=index))

    def _delta(
        self,
        index: int,
        state: _ChoiceState,
        delta: Mapping[str, Any],
        content: object,
        events: list[StreamEvent],
    ) -> None:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and type(reasoning) is str:
            self._reasoning(index, state, reasoning, events)
        elif "reasoning_details" in delta:
            # OpenRouter/Vercel/Snowflake: only when no plain reasoning field had the text.
            text = _details_text(delta["reasoning_details"])
            if text:
                self._reasoning(index, state, text, events)
        if content:
            if type(content) is str:
                self._text(index, state, content, events)
            elif type(content) is list:
                self._parts(index, state, content, events)
        self._rest(index, state, delta, events)

    def _rest(
        self, index: int, state: _ChoiceState, delta: Mapping[str, Any], events: list[StreamEvent]
    ) -> None:
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            events.append(RefusalDelta(text=refusal, choice=index))
        calls = delta.get("tool_calls")
        if calls and isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    self._tool(index, state.tools, call, events)

    def _text(self, index: int, state: _ChoiceState, text: str, events: list[StreamEvent]) -> None:
        if state.content.passthrough:
            events.append(text_delta(text, index))
            return
        reasoning, text = state.content.feed(text)
        if reasoning:
            events.append(reasoning_delta(reasoning, index))
        if text:
            events.append(text_delta(text, index))

    def _reasoning(
        self, index: int, state: _ChoiceState, text: str, events: list[StreamEvent]
    ) -> None:
        splitter = state.reasoning
        if not splitter.passthrough:
            inside, after = splitter.feed(text)
            text = inside + after
        if text:
            events.append(reasoning_delta(text, index))

    def _parts(
        self, index: int, state: _ChoiceState, parts: list[Any], events: list[StreamEvent]
    ) -> None:
        # Mistral: [{"type": "thinking", "thinking": [{"type": "text", "text": ...}]},
        #           {"type": "text", "text": ...}]
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text":
                text = part.get("text")
                if text and isinstance(text, str):
                    self._text(index, state, text, events)
            elif kind == "thinking":
                text = _thinking_text(part.get("thinking"))
                if text:
                    events.append(ReasoningDelta(text=text, choice=index))

    def _tool(
        self, index: int, tools: _ToolState, call: Mapping[str, Any], events: list[StreamEvent]
    ) -> None:
        function = _dict(call.get("function"))
        call_id = call.get("id") or None
        name = function.get("name") or None
        if not isinstance(call_id, str):
            call_id = None
        if not isinstance(name, str):
            name = None
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            # Some gateways send the arguments as an object instead of a JSON string.
            arguments = to_json(arguments).decode() if arguments else ""
        at = tools.resolve(call.get("index"), call_id, name)
        if call_id is not None and at not in tools.ids:
            tools.ids[at] = call_id
            tools.by_id[call_id] = at
        else:
            call_id = None
        if name is not None and at not in tools.named:
            tools.named.add(at)
        else:
            name = None
        if call_id or name or arguments:
            events.append(
                ToolCallDelta(index=at, id=call_id, name=name, arguments=arguments, choice=index)
            )


def _details_text(details: object) -> str:
    if not isinstance(details, list):
        return ""
    pieces = []
    for detail in details:
        if isinstance(detail, dict):
            text = detail.get("text") or detail.get("summary")
            if text and isinstance(text, str):
                pieces.append(text)
    return "".join(pieces)


def _thinking_text(thinking: object) -> str:
    if isinstance(thinking, str):
        return thinking
    if isinstance(thinking, list):
        return "".join(
            part["text"]
            for part in thinking
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def parse_chunk_json(data: bytes) -> Mapping[str, Any]:
    """Parse a ``data:`` payload that must be a JSON object, or raise StreamProtocolError."""
    try:
        value = from_json(data)
    except ValueError as exc:
        value = _parse_replacing(data, exc)
    if type(value) is not dict:
        raise StreamProtocolError(
            f"expected a JSON object in a data frame, got {type(value).__name__}: {_preview(data)}"
        )
    return value


def _parse_replacing(data: bytes, error: ValueError) -> Any:
    """Retry with invalid UTF-8 replaced (as an SSE text decoder would); else a protocol error."""
    try:
        return from_json(data.decode("utf-8", "replace"))
    except ValueError:
        raise StreamProtocolError(
            f"expected a JSON object in a data frame, got invalid JSON ({error}): {_preview(data)}"
        ) from None


def _preview(data: bytes) -> str:
    return repr(data[:_PREVIEW].decode("utf-8", "replace"))


def _parse_loose(data: bytes) -> Any:
    """Named events may carry JSON or plain text."""
    try:
        return from_json(data)
    except ValueError:
        text = data.decode("utf-8", "replace")
        try:
            return from_json(text)
        except ValueError:
            return text
