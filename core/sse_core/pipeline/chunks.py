"""Chunk decoder: SSE events (or decoded payloads) to StreamEvents, tolerant of every dialect.

One :class:`ChunkDecoder` per stream; it keeps the little state the wire needs (tool-call
indexes, an open ``<think>`` block, metadata already reported). What it copes with:

- ``data: [DONE]`` (never JSON) or no sentinel at all;
- ``object`` ``chat.completion.chunk`` or ``chat.completion``; absent ``id``/``object``/
  ``model``/``index``/``finish_reason``; ``choices: []`` (usage, Azure filter results,
  moderation); ``message`` instead of ``delta`` (a whole completion);
- text, ``reasoning_content`` / ``reasoning`` / ``reasoning_details``, a leading ``<think>``
  block (:mod:`~sse_core.pipeline.think`), content as an array of text/thinking parts,
  ``refusal``;
- tool calls in every shape gateways send (:mod:`~sse_core.pipeline.tool_calls`);
- usage on any chunk (last wins), in ``x_groq.usage``, as ``event: spass.cost``;
- named events as :class:`GatewayEvent`; error frames as :class:`ErrorFrame`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import from_json

from sse_core.completion import Usage
from sse_core.errors import StreamProtocolError
from sse_core.events import (
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEnd,
    StreamEvent,
    TextDelta,
    _finish,
    _gateway_event,
    _reasoning_delta,
    _text_delta,
    _usage_update,
)
from sse_core.pipeline._accel import Accelerator, accelerated
from sse_core.pipeline.parser import ServerSentEvent
from sse_core.pipeline.payloads import (
    _plain_counts,
    _plain_usage,
    details_text,
    parse_chunk_json,
    parse_error,
    parse_loose,
    parse_usage,
    thinking_text,
)
from sse_core.pipeline.template import TextTemplate
from sse_core.pipeline.think import ThinkSplitter
from sse_core.pipeline.tool_calls import ToolIndexer

__all__ = ["ChunkDecoder"]

# Named events whose data is a usage object (SPASS seed: "event: spass.cost" trailer).
USAGE_EVENTS = frozenset({"spass.cost"})
_METADATA_KEYS = ("id", "model", "system_fingerprint", "created")
#: The dialect traits a chat-completions stream may show (:attr:`ChunkDecoder.traits`): how
#: its reasoning was spelled (``reasoning_content``: DeepSeek, Qwen, vLLM before 0.10;
#: ``reasoning``: OpenRouter, vLLM 0.10+, OpenAI's own; ``reasoning_details``: OpenRouter's
#: structured form alone; ``think_tags``: inline ``<think>`` text), and whether it ended with
#: ``[DONE]`` (``done``).
TRAITS = ("reasoning_content", "reasoning", "reasoning_details", "think_tags", "done")


class _ChoiceState:
    __slots__ = ("content", "reasoning", "tools")

    def __init__(self) -> None:
        self.content = ThinkSplitter()
        self.reasoning = ThinkSplitter(trim=False)
        self.tools = ToolIndexer()


class ChunkDecoder:
    """Turns each chat-completions event into StreamEvents (:meth:`decode`); the
    ``chat_completions`` :class:`~sse_core.protocols.PayloadDecoder`.

    Args:
        accelerator: ``"msgspec"`` decodes common chunks with msgspec (see
            :class:`~sse_core.StreamDecoder`); None (the default): the pure path.

    Raises:
        ConfigurationError: An unknown accelerator, or one whose package is missing.
    """

    __slots__ = (
        "_choices",
        "_counts",
        "_fast",
        "_missing",
        "_template",
        "_usage",
        "done",
        "keepalives",
        "traits",
    )

    def __init__(self, *, accelerator: str | None = None) -> None:
        self._choices: dict[int, _ChoiceState] = {}
        self._missing: tuple[str, ...] = _METADATA_KEYS  # metadata fields not yet seen
        # The last plain usage (three int counts) and its counts: gateways that report usage
        # on every chunk repeat the same counts until the last one.
        self._counts: tuple[int, int, int] | None = None
        self._usage: Usage | None = None
        #: True once ``[DONE]`` or an error frame arrived: the stream is over, whatever
        #: follows is not decoded (an attribute: it is read for every read).
        self.done: bool = False
        # Decodes a "{...}" payload into events, or says False (the pure path takes it).
        self._fast: Accelerator | None = accelerated(accelerator, self)
        # The bytes around the text of the last text-only chunk (see pipeline.template).
        self._template = TextTemplate()
        #: How many empty data lines arrived (a gateway's keep-alives).
        self.keepalives: int = 0
        #: What the stream showed of its gateway's dialect (:data:`TRAITS`), noted where the
        #: dialects differ: the reasoning's spelling, ``<think>`` tags, the ``[DONE]`` end.
        self.traits: set[str] = set()

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        """Decode one SSE event.

        Raises:
            StreamProtocolError: A ``message`` event whose data is not a JSON object.
        """
        events: list[StreamEvent] = []
        if sse.event == "message":
            self.data_into(sse.data.encode(), events)
        else:
            self.named_into(sse.event, sse.data.encode(), events)
        return events

    def flush(self) -> list[StreamEvent]:
        """End of stream: release text held back while looking for ``<think>`` tags; a tool
        call still without a name is no call (a GatewayEvent)."""
        events: list[StreamEvent] = []
        for index, state in self._choices.items():
            reasoning, text = state.reasoning.flush()
            held_reasoning, held_text = state.content.flush()
            if reasoning or text or held_reasoning:
                events.append(ReasoningDelta(text=reasoning + text + held_reasoning, choice=index))
            if held_text:
                events.append(TextDelta(text=held_text, choice=index))
            state.tools.flush(events)
        return events

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode an unnamed event's data: a chunk, ``[DONE]`` or an empty keep-alive.

        Raises:
            StreamProtocolError: The data is neither (not a JSON object).
        """
        if data[:1] == b"{":
            template = self._template
            text = template.text_of(data)
            if text is not None:  # the last text chunk's bytes around another text
                if text:
                    index = template.index
                    state = self._choices[index]
                    if state.content.passthrough:
                        events.append(_text_delta(text, index))
                    else:
                        self._text(index, state, text, events)
                return
            fast = self._fast
            if fast is None or not fast(data, events):
                try:
                    chunk = from_json(data, cache_strings="keys")  # "{...": a dict
                except ValueError:
                    chunk = parse_chunk_json(data)  # recovers bad UTF-8, else raises
                self._decode_into(chunk, events)
                template.learn(data, chunk)
            return
        stripped = data.strip()
        if stripped == b"[DONE]":
            self.done = True
            self.traits.add("done")
            events += self.flush()
            events.append(StreamEnd())
        elif stripped:
            self._decode_into(parse_chunk_json(data), events)
        else:  # an empty data line is a keep-alive
            self.keepalives += 1

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        """Decode a named event: ``error``, a usage event (``spass.cost``), or any other as a
        GatewayEvent (JSON or text)."""
        if name == "message":
            self.data_into(data, events)
            return
        payload = parse_loose(data)
        if name == "error":
            self.done = True  # the gateway said what failed: nothing after it counts
            events.append(parse_error(payload))
        elif name in USAGE_EVENTS and isinstance(payload, dict):
            events += (_usage_update(parse_usage(payload)), _gateway_event(name, payload))
        else:
            events.append(_gateway_event(name, payload))

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole ``chat.completion`` JSON body; the events end with StreamEnd.

        Raises:
            StreamProtocolError: The body is no JSON object, or one with neither choices nor
                an error (``{}`` is not an empty answer).
        """
        whole = parse_chunk_json(body, where="as the response body")
        choices = whole.get("choices")
        if not (choices and type(choices) is list) and not whole.get("error"):
            raise StreamProtocolError(
                "expected a chat completion (a JSON object with choices) as the response body, "
                f"got one with keys {sorted(whole)[:10]}"
            )
        events = self._decode_chunk(whole)
        self.data_into(b"[DONE]", events)
        return events

    def _decode_chunk(self, chunk: Mapping[str, Any]) -> list[StreamEvent]:
        """Decode one chat-completion chunk (or a whole ``chat.completion`` object)."""
        events: list[StreamEvent] = []
        self._decode_into(chunk, events)
        return events

    def _decode_into(self, chunk: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """:meth:`_decode_chunk`, appending to ``events`` (no list per chunk on the hot path)."""
        if self._missing and not chunk.keys().isdisjoint(self._missing):
            self._metadata(chunk, events)
        choices = chunk.get("choices")
        if choices and type(choices) is list:
            for choice in choices:
                if type(choice) is dict:
                    self._choice(choice, events)
        if "usage" in chunk or "x_groq" in chunk or "error" in chunk:
            self._trailer(chunk, events)

    def _trailer(self, chunk: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """The usage and the error a chunk may carry besides its choices."""
        usage = chunk.get("usage")
        if usage is None and "x_groq" in chunk:
            groq = chunk["x_groq"]
            usage = groq.get("usage") if type(groq) is dict else None  # older Groq
        if usage and type(usage) is dict:
            events.append(_usage_update(self._usage_of(usage)))
        if chunk.get("error"):
            events.append(parse_error(chunk))
            self.done = True  # the gateway said what failed: nothing after it counts

    def _usage_of(self, raw: dict[str, Any]) -> Usage:
        """``parse_usage(raw)``; a plain usage with the counts of the last one gives that one."""
        counts = _plain_counts(raw)
        if counts is None:
            return parse_usage(raw)
        if counts != self._counts or self._usage is None:
            self._counts = counts
            self._usage = _plain_usage(counts, raw)
        return self._usage

    def _metadata(self, chunk: Mapping[str, Any], events: list[StreamEvent]) -> None:
        new: dict[str, Any] | None = None
        for key in self._missing:
            value = chunk.get(key)
            if value and type(value) is (int if key == "created" else str):
                if new is None:
                    new = {}
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
                        events.append(_text_delta(content, index))
                    else:
                        self._text(index, state, content, events)
            elif len(delta) == 1 and "tool_calls" in delta:
                # The other common case: the next fragment of a tool call's arguments.
                state.tools.extend(delta["tool_calls"], index, events)
            else:
                self._delta(index, state, delta, content, events)
        reason = choice.get("finish_reason")
        if reason and type(reason) is str:
            events.append(_finish(reason, index))

    def _delta(
        self,
        index: int,
        state: _ChoiceState,
        delta: Mapping[str, Any],
        content: object,
        events: list[StreamEvent],
    ) -> None:
        if "reasoning_content" in delta or "reasoning" in delta or "reasoning_details" in delta:
            self._reasoning_field(index, state, delta, events)
        if content:
            self._content(index, state, content, events)
        if "refusal" in delta:
            refusal = delta["refusal"]
            if refusal and type(refusal) is str:
                events.append(RefusalDelta(text=refusal, choice=index))
        if "tool_calls" in delta:
            state.tools.extend(delta["tool_calls"], index, events)

    def _reasoning_field(
        self, index: int, state: _ChoiceState, delta: Mapping[str, Any], events: list[StreamEvent]
    ) -> None:
        spelling = "reasoning_content"
        reasoning = delta.get(spelling)
        if not reasoning:
            spelling = "reasoning"
            reasoning = delta.get(spelling)
        if reasoning and type(reasoning) is str:
            self.traits.add(spelling)
            self._reasoning(index, state, reasoning, events)
        elif "reasoning_details" in delta:
            # OpenRouter/Vercel/Snowflake: only when no plain reasoning field had the text.
            text = details_text(delta["reasoning_details"])
            if text:
                self.traits.add("reasoning_details")
                self._reasoning(index, state, text, events)

    def _content(
        self, index: int, state: _ChoiceState, content: object, events: list[StreamEvent]
    ) -> None:
        if type(content) is str:
            self._text(index, state, content, events)
        elif type(content) is list:
            self._parts(index, state, content, events)

    def _text(self, index: int, state: _ChoiceState, text: str, events: list[StreamEvent]) -> None:
        if state.content.passthrough:
            events.append(_text_delta(text, index))
            return
        reasoning, text = state.content.feed(text)
        if reasoning:
            self.traits.add("think_tags")
            events.append(_reasoning_delta(reasoning, index))
        if text:
            events.append(_text_delta(text, index))

    def _reasoning(
        self, index: int, state: _ChoiceState, text: str, events: list[StreamEvent]
    ) -> None:
        splitter = state.reasoning
        if not splitter.passthrough:
            inside, after = splitter.feed(text)
            text = inside + after
        if text:
            events.append(_reasoning_delta(text, index))

    def _parts(
        self, index: int, state: _ChoiceState, parts: list[Any], events: list[StreamEvent]
    ) -> None:
        # Mistral: [{"type": "thinking", "thinking": [{"type": "text", "text": ...}]},
        #           {"type": "text", "text": ...}]
        for part in parts:
            if type(part) is not dict:
                continue
            kind = part.get("type")
            if kind == "text":
                text = part.get("text")
                if text and type(text) is str:
                    self._text(index, state, text, events)
            elif kind == "thinking":
                text = thinking_text(part.get("thinking"))
                if text:
                    events.append(ReasoningDelta(text=text, choice=index))
