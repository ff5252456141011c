"""StreamEvents to LlamaIndex ``ChatResponse``s: pure mapping, no I/O.

:class:`ResponseStream` takes the events of one stream a batch at a time (what one read of
the body gave: a network read, or an HTTP chunk, which SSE servers send per event) and gives
one ChatResponse per batch that changed the message: ``delta`` is the new text, ``message``
the whole message so far (assembled lazily, see :mod:`llamaindex_sse._lazy`), ``raw`` an
OpenAI-shaped chunk dict and ``additional_kwargs`` the reasoning delta, usage and finish
reason known so far, so the last response carries them all. Per batch the work is O(size of
the batch), whatever the length of the answer so far.
"""

from __future__ import annotations

import sys
from typing import Any

from llama_index.core.base.llms.types import (
    ChatResponse,
    ContentBlock,
    TextBlock,
    ThinkingBlock,
)

from llamaindex_sse._completion import tool_block, tool_call_dict, usage_kwargs, usage_payload
from llamaindex_sse._lazy import RunningText, StreamMessage, fast_response
from sse_core import (
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
    Usage,
    UsageUpdate,
)

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10
    from typing_extensions import assert_never

__all__ = ["ResponseStream"]

# (index, id, name, argument pieces) of each tool call, as of one chunk.
_ToolMark = tuple[int, str | None, str | None, int]
# (text pieces, reasoning pieces, refusal pieces, tool calls) as of one chunk.
_Mark = tuple[int, int, int, tuple[_ToolMark, ...]]


class _Call:
    __slots__ = ("arguments", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.arguments = RunningText()


class ResponseStream:
    """The running state of one streamed answer (its first choice).

    Attributes:
        gateway_events: Named SSE events seen since the caller last emptied the list.
        yielded: How many responses :meth:`add` has made.
    """

    __slots__ = (
        "_calls",
        "_choice",
        "_meta",
        "_reasoning",
        "_refusal",
        "_tail",
        "_text",
        "_tools",
        "_usage",
        "finish_reason",
        "gateway_events",
        "yielded",
    )

    def __init__(self) -> None:
        self._text = RunningText()
        self._reasoning = RunningText()
        self._refusal = RunningText()
        self._calls: dict[int, _Call] = {}
        self._tools: tuple[_ToolMark, ...] = ()
        self._choice: int | None = None
        self._meta: dict[str, Any] = {"id": None, "created": None, "model": None}
        self._usage: dict[str, Any] | None = None
        self._tail: dict[str, Any] = {}  # usage and finish_reason for additional_kwargs
        self.finish_reason: str | None = None
        self.gateway_events: list[GatewayEvent] = []
        self.yielded = 0

    def _claim(self, choice: int) -> bool:
        # LlamaIndex has one message: follow the first choice seen (index 0 in practice).
        if self._choice is None:
            self._choice = choice
        return choice == self._choice

    def add(self, batch: list[StreamEvent]) -> ChatResponse | None:  # noqa: C901
        """Take one batch of events; the ChatResponse for it, or None if nothing showed."""
        texts: list[str] = []
        thoughts: list[str] = []
        refusals: list[str] = []
        calls: list[ToolCallDelta] = []
        shown = False
        for event in batch:
            match event:
                case TextDelta(text=text, choice=choice):
                    if choice == self._choice or self._claim(choice):
                        texts.append(text)
                case ReasoningDelta(text=text, choice=choice):
                    if choice == self._choice or self._claim(choice):
                        thoughts.append(text)
                case ToolCallDelta(choice=choice):
                    if choice == self._choice or self._claim(choice):
                        calls.append(event)
                case RefusalDelta(text=text, choice=choice):
                    if choice == self._choice or self._claim(choice):
                        refusals.append(text)
                case Finish(reason=reason, choice=choice):
                    if choice == self._choice or self._claim(choice):
                        self.finish_reason = reason
                        self._tail["finish_reason"] = reason
                        shown = True
                case UsageUpdate(usage=usage):
                    self._set_usage(usage)
                    shown = True
                case Metadata():
                    self._metadata(event)
                case GatewayEvent():
                    self.gateway_events.append(event)
                case ErrorFrame() | Done():
                    pass  # the transport raises error frames; [DONE] ends the batches
                case _:
                    assert_never(event)
        if not (shown or texts or thoughts or refusals or calls):
            return None
        return self._response(texts, thoughts, refusals, calls)

    def last(self) -> ChatResponse | None:
        """At the end of the stream: a response if none was made (one always is)."""
        return None if self.yielded else self._response([], [], [], [])

    def _response(
        self,
        texts: list[str],
        thoughts: list[str],
        refusals: list[str],
        calls: list[ToolCallDelta],
    ) -> ChatResponse:
        delta: dict[str, Any] = {}
        text = "".join(texts)
        if text:
            self._text.parts.append(text)
            delta["content"] = text
        kwargs = dict(self._tail)
        if thoughts:
            thinking = "".join(thoughts)
            self._reasoning.parts.append(thinking)
            delta["reasoning_content"] = kwargs["thinking_delta"] = thinking
        if refusals:
            refusal = "".join(refusals)
            self._refusal.parts.append(refusal)
            delta["refusal"] = refusal
        if calls:
            self._add_calls(calls)
            delta["tool_calls"] = [_fragment(call) for call in calls]
        mark: _Mark = (
            len(self._text.parts),
            len(self._reasoning.parts),
            len(self._refusal.parts),
            self._tools,
        )
        self.yielded += 1
        return fast_response(StreamMessage.at(self, mark), text, self._raw(delta), kwargs)

    def _raw(self, delta: dict[str, Any]) -> dict[str, Any]:
        meta = self._meta
        return {
            "id": meta["id"],
            "object": "chat.completion.chunk",
            "created": meta["created"],
            "model": meta["model"],
            "choices": [
                {"index": self._choice or 0, "delta": delta, "finish_reason": self.finish_reason}
            ],
            "usage": self._usage,
        }

    def _add_calls(self, calls: list[ToolCallDelta]) -> None:
        known = self._calls
        for delta in calls:
            call = known.get(delta.index)
            if call is None:
                call = known[delta.index] = _Call()
            # id and name are set once, never concatenated (some gateways repeat them).
            if call.id is None:
                call.id = delta.id
            if call.name is None:
                call.name = delta.name
            if delta.arguments:
                call.arguments.parts.append(delta.arguments)
        self._tools = tuple(
            (index, call.id, call.name, len(call.arguments.parts))
            for index, call in sorted(known.items())
        )

    def _set_usage(self, usage: Usage) -> None:
        self._usage = usage_payload(usage)
        self._tail.update(usage_kwargs(usage))

    def _metadata(self, event: Metadata) -> None:
        meta = self._meta
        for key in ("id", "created", "model"):
            value = getattr(event, key)
            if value is not None and meta[key] is None:
                meta[key] = value

    def assemble(self, mark: _Mark) -> tuple[list[ContentBlock], dict[str, Any]]:
        """The blocks and additional_kwargs of the message as of ``mark``."""
        texts, thoughts, refusals, tools = mark
        blocks: list[ContentBlock] = []
        if thoughts:
            blocks.append(ThinkingBlock(content=self._reasoning.upto(thoughts)))
        blocks.append(TextBlock(text=self._text.upto(texts)))
        kwargs: dict[str, Any] = {}
        if tools:
            dicts = []
            for index, call_id, name, pieces in tools:
                arguments = self._calls[index].arguments.upto(pieces)
                blocks.append(tool_block(index, call_id, name, arguments))
                dicts.append(tool_call_dict(index, call_id, name, arguments))
            kwargs["tool_calls"] = dicts
        if refusals:
            kwargs["refusal"] = self._refusal.upto(refusals)
        return blocks, kwargs


def _fragment(delta: ToolCallDelta) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": delta.arguments}
    if delta.name is not None:
        function["name"] = delta.name
    fragment: dict[str, Any] = {"index": delta.index, "type": "function", "function": function}
    if delta.id is not None:
        fragment["id"] = delta.id
    return fragment
