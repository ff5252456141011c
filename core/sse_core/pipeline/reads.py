"""``ReadDelta``: what one network read added to one choice, as one value.

A fast gateway packs many frames into one read. A framework that wants one message chunk
per read (LangChain's ``coalesce=True``, every LlamaIndex stream) maps this value instead of
merging fragments itself: text pieces joined, each tool call's fragments merged by the rule
of :class:`~sse_core.pipeline.tool_calls.CallParts`, the reasoning blocks that closed and the
citations that came, named gateway events kept in order, the usage reported, and where the
choice stands after it (its mark and finish).

A stream's reads come from its accumulator (:meth:`~sse_core.pipeline.Accumulator.read`),
which holds every piece already: the adapters walk no event for them. :func:`merge_read`
merges a list of events alone, with no accumulator: it cannot know the text a reasoning block
began with in an earlier read, so it gives no reasoning blocks, and no mark.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sse_core.completion import ReasoningBlock, Usage
from sse_core.events import (
    Citation,
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

#: Where a choice stood (see :data:`sse_core.pipeline.accumulator.Mark`).
_Mark = tuple[int, int, int, int, int, int, int]


# Not slotted, unlike the events: every read is built by filling its instance dict
# (:func:`read_delta`, :func:`full_read`), a read of text alone (most reads) with its text
# and mark only, the other fields read from the class defaults; the frozen __init__ (an
# object.__setattr__ per field) costs several times as much (benchmarks/README.md).
@dataclass(frozen=True, kw_only=True)
class ReadDelta:
    """What one read added to one choice, and where the choice stands after it.

    Attributes:
        text: The answer text that arrived.
        reasoning: The reasoning text that arrived.
        refusal: The refusal text that arrived.
        tool_calls: One fragment per call touched, the read's fragments of it merged (by
            index, in the order the calls first appeared in the read); a call's ``id`` and
            ``name`` on the read where they first arrived.
        reasoning_blocks: The reasoning blocks that closed in this read, each whole (its
            text and signature, or a redacted block's data), to pass back byte-exact.
        citations: The citations of the text that arrived in this read, as sent.
        finished: The choice's finish reason arrived in this read.
        usage: The usage reported in this read (the last report, if several), or None.
        events: The named gateway events of the read, in order.
        mark: Where the choice stands after the read (for
            :meth:`~sse_core.pipeline.Accumulator.snapshot`: its text, calls, closed
            reasoning blocks and citations as they stood then); None before any choice arrived.
        finish: The choice's finish (reason, stop reason, stop sequence) as it stands after
            the read, None before it finished.
    """

    text: str = ""
    reasoning: str = ""
    refusal: str = ""
    tool_calls: tuple[ToolCallDelta, ...] = ()
    reasoning_blocks: tuple[ReasoningBlock, ...] = ()
    citations: tuple[Mapping[str, Any], ...] = ()
    finished: bool = False
    usage: Usage | None = None
    events: tuple[GatewayEvent, ...] = ()
    mark: _Mark | None = None
    finish: Finish | None = None

    @property
    def has_delta(self) -> bool:
        """Whether any text, reasoning, refusal or tool-call fragment arrived."""
        return bool(self.text or self.reasoning or self.refusal or self.tool_calls)


_new = object.__new__


def read_delta(
    text: str,
    events: tuple[GatewayEvent, ...],
    usage: Usage | None,
    mark: _Mark | None,
    finish: Finish | None,
) -> ReadDelta:
    """``ReadDelta(text=text, events=..., usage=..., mark=..., finish=...)``, the rest empty,
    built without the frozen ``__init__`` (which sets every field through
    ``object.__setattr__``)."""
    read: ReadDelta = _new(ReadDelta)
    fields = read.__dict__
    fields["text"] = text
    fields["usage"] = usage
    fields["events"] = events
    fields["mark"] = mark
    fields["finish"] = finish
    return read


def full_read(
    texts: tuple[str, str, str],
    tool_calls: tuple[ToolCallDelta, ...],
    reasoning_blocks: tuple[ReasoningBlock, ...],
    citations: tuple[Mapping[str, Any], ...],
    finished: bool,
    usage: Usage | None,
    events: tuple[GatewayEvent, ...],
    mark: _Mark | None,
    finish: Finish | None,
) -> ReadDelta:
    """A ReadDelta of every field (``texts``: the text, reasoning and refusal), built as
    :func:`read_delta` builds one."""
    read: ReadDelta = _new(ReadDelta)
    fields = read.__dict__
    fields["text"], fields["reasoning"], fields["refusal"] = texts
    fields["tool_calls"] = tool_calls
    fields["reasoning_blocks"] = reasoning_blocks
    fields["citations"] = citations
    fields["finished"] = finished
    fields["usage"] = usage
    fields["events"] = events
    fields["mark"] = mark
    fields["finish"] = finish
    return read


class _Collect:
    __slots__ = ("calls", "citations", "events", "finish", "reasoning", "refusal", "text", "usage")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, CallParts] = {}
        self.citations: list[Mapping[str, Any]] = []
        self.events: list[GatewayEvent] = []
        self.finish: Finish | None = None
        self.usage: Usage | None = None

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
            case Citation(citation=citation, choice=at) if at == choice:
                self.citations.append(citation)
            case GatewayEvent():
                self.events.append(event)
            case Finish(choice=at) if at == choice:
                self.finish = event
            case UsageUpdate(usage=usage):
                self.usage = usage
            case _:
                pass  # other choices, metadata, [DONE], error frames (the session raises)

    def delta(self, choice: int) -> ReadDelta:
        return full_read(
            ("".join(self.text), "".join(self.reasoning), "".join(self.refusal)),
            tuple(
                ToolCallDelta(
                    index=index,
                    id=call.id,
                    name=call.name,
                    arguments=call.args.upto(),
                    choice=choice,
                )
                for index, call in self.calls.items()
            ),
            (),
            tuple(self.citations),
            self.finish is not None,
            self.usage,
            tuple(self.events),
            None,
            self.finish,
        )


def merge_read(events: Iterable[StreamEvent], choice: int | None) -> ReadDelta:
    """What ``events`` (one read) added to ``choice`` (None: no choice yet, only named events
    and usage), from the events alone: no reasoning blocks and no mark (a stream's reads
    come from its accumulator, :meth:`~sse_core.pipeline.Accumulator.read`, which has them); its
    ``finish`` is the read's own Finish, if one came.

    Args:
        events: The events of one read, in order.
        choice: The choice to follow (the accumulator's ``followed``).
    """
    if type(events) is list and len(events) == 1:
        # A read of one text piece (a server that flushes every event, read as it comes).
        (event,) = events
        if type(event) is TextDelta and event.choice == choice:
            return read_delta(event.text, (), None, None, None)
    collect = _Collect()
    at = -1 if choice is None else choice
    for event in events:
        collect.take(event, at)
    return collect.delta(at)
