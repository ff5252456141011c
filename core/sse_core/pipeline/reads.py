"""``merge_read``: what one network read added to one choice, as one value.

A fast gateway packs many frames into one read. A framework that wants one message chunk
per read (LangChain's ``coalesce=True``, every LlamaIndex stream) maps this value instead of
merging fragments itself: text pieces joined, each tool call's fragments merged by the rule
of :class:`~sse_core.pipeline.tool_calls.CallParts`, named gateway events kept in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sse_core.events import (
    Finish,
    GatewayEvent,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    UsageUpdate,
)
from sse_core.pipeline.tool_calls import CallParts

__all__ = ["ReadDelta", "merge_read"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadDelta:
    """What one read added to one choice.

    Attributes:
        text: The answer text that arrived.
        reasoning: The reasoning text that arrived.
        refusal: The refusal text that arrived.
        tool_calls: One fragment per call touched, the read's fragments of it merged (by
            index, in the order the calls first appeared in the read).
        finished: The choice's finish reason arrived in this read.
        usage: A usage report arrived in this read.
        events: The named gateway events of the read, in order.
    """

    text: str = ""
    reasoning: str = ""
    refusal: str = ""
    tool_calls: tuple[ToolCallDelta, ...] = ()
    finished: bool = False
    usage: bool = False
    events: tuple[GatewayEvent, ...] = ()

    @property
    def has_delta(self) -> bool:
        """Whether any text, reasoning, refusal or tool-call fragment arrived."""
        return bool(self.text or self.reasoning or self.refusal or self.tool_calls)


class _Collect:
    __slots__ = ("calls", "events", "finished", "reasoning", "refusal", "text", "usage")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, CallParts] = {}
        self.events: list[GatewayEvent] = []
        self.finished = False
        self.usage = False

    def take(self, event: StreamEvent, choice: int) -> None:
        # The two common events by their exact type first (cheaper than class patterns).
        if type(event) is TextDelta:
            if event.choice == choice:
                self.text.append(event.text)
        elif type(event) is ToolCallDelta:
            if event.choice == choice:
                self.call(event)
        else:
            self._take(event, choice)

    def call(self, event: ToolCallDelta) -> None:
        call = self.calls.get(event.index)
        if call is None:
            call = self.calls[event.index] = CallParts(0)
        call.add(event, 0)

    def _take(self, event: StreamEvent, choice: int) -> None:
        match event:
            case TextDelta(text=text, choice=at) if at == choice:
                self.text.append(text)
            case ReasoningDelta(text=text, choice=at) if at == choice:
                self.reasoning.append(text)
            case ToolCallDelta(choice=at) if at == choice:
                self.call(event)
            case RefusalDelta(text=text, choice=at) if at == choice:
                self.refusal.append(text)
            case GatewayEvent():
                self.events.append(event)
            case Finish(choice=at) if at == choice:
                self.finished = True
            case UsageUpdate():
                self.usage = True
            case _:
                pass  # other choices, metadata, [DONE], error frames (the session raises)

    def delta(self, choice: int) -> ReadDelta:
        return ReadDelta(
            text="".join(self.text),
            reasoning="".join(self.reasoning),
            refusal="".join(self.refusal),
            tool_calls=tuple(
                ToolCallDelta(
                    index=index,
                    id=call.id,
                    name=call.name,
                    arguments=call.args.upto(),
                    choice=choice,
                )
                for index, call in self.calls.items()
            ),
            finished=self.finished,
            usage=self.usage,
            events=tuple(self.events),
        )


def merge_read(events: Iterable[StreamEvent], choice: int | None) -> ReadDelta:
    """What ``events`` (one read) added to ``choice`` (None: no choice yet, only named events).

    Args:
        events: The events of one read, in order.
        choice: The choice to follow (the accumulator's ``followed``).
    """
    if type(events) is list and len(events) == 1:
        # A read of one text piece (a server that flushes every event, read as it comes).
        (event,) = events
        if type(event) is TextDelta and event.choice == choice:
            return ReadDelta(text=event.text)
    collect = _Collect()
    at = -1 if choice is None else choice
    for event in events:
        collect.take(event, at)
    return collect.delta(at)
