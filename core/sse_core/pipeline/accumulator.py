"""``Accumulator``: StreamEvents to a :class:`~sse_core.completion.Completion`, in linear time.

It is the one owner of an answer's state. Text, reasoning, refusal and tool arguments are
kept as lists of pieces and joined once, so a 200 KB argument in 20,000 pieces costs the
same per piece as one in 20. The end-of-stream rule lives here too: a stream is complete
when a finish_reason was seen or ``[DONE]`` arrived, and no error frame came.

Adapters read the answer without keeping a copy: :attr:`Accumulator.followed` (the choice a
single-message framework shows), :attr:`usage`, :attr:`metadata` and
:meth:`finish_reason` cost O(1); :meth:`mark` notes where the answer stands (O(1)) and
:meth:`snapshot` gives the followed choice as it stood at a mark, joined only when asked;
:meth:`read` tells what arrived since the previous read (a
:class:`~sse_core.pipeline.reads.ReadDelta`), from the pieces kept here: no event is walked
twice, and nothing is added per text piece to know it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

from sse_core._compat import assert_never
from sse_core.completion import Choice, Completion, Usage
from sse_core.errors import GatewayStreamError, IncompleteStreamError
from sse_core.events import (
    Citation,
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    RefusalDelta,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    UsageUpdate,
)
from sse_core.pipeline.choices import ChoiceParts, Mark
from sse_core.pipeline.reads import ReadDelta, read_delta

__all__ = ["Accumulator", "Mark"]

#: The events that carry no text: what :meth:`Accumulator.add` leaves to ``_bookkeeping``.
_Bookkeeping: TypeAlias = UsageUpdate | Finish | Metadata | GatewayEvent | ErrorFrame | StreamEnd

_NO_METADATA = Metadata()


class Accumulator:
    """Collects StreamEvents; :meth:`completion` assembles what arrived so far.

    :meth:`add` raises :class:`GatewayStreamError` (with ``.partial``) on an error frame;
    :meth:`finish` raises :class:`IncompleteStreamError` when the stream ended without a
    finish_reason and without ``[DONE]``.

    Args:
        headers: The response headers, kept on the Completion.
    """

    __slots__ = (
        "_changes",
        "_choices",
        "_done",
        "_events",
        "_finished",
        "_meta",
        "_read_at",
        "_read_text",
        "_reports",
        "followed",
        "headers",
        "usage",
    )

    def __init__(self, *, headers: Mapping[str, str] | None = None) -> None:
        self._choices: dict[int, ChoiceParts] = {}
        self._meta = _NO_METADATA
        self._events: list[GatewayEvent] = []
        self._done = False
        self._finished = False
        self._reports = 0  # usage reports so far (a report may repeat the last Usage object)
        self._changes = 0  # events other than TextDelta so far
        # Where the previous read() left off: the events other than text, the followed
        # choice's mark (None: no choice then; its text count is _read_text's), the gateway
        # events, usage reports and the choice's finishes counted then.
        self._read_at: tuple[int, Mark | None, int, int, int] = (0, None, 0, 0, 0)
        self._read_text = 0  # the followed choice's text pieces then (the mark's may be older)
        #: The response headers (set when the response head arrives).
        self.headers: Mapping[str, str] = dict(headers or {})
        #: The last usage reported (gateways repeat it cumulatively), or None.
        self.usage: Usage | None = None
        #: The choice a one-message framework follows: the first one seen (None before).
        self.followed: int | None = None

    @property
    def complete(self) -> bool:
        """Whether what arrived so far is a whole answer (finish_reason seen or [DONE])."""
        return self._done or self._finished

    @property
    def metadata(self) -> Metadata:
        """The response id, model, system fingerprint and created time seen so far."""
        return self._meta

    @property
    def gateway_events(self) -> tuple[GatewayEvent, ...]:
        """The named gateway events received so far."""
        return tuple(self._events)

    def finish_reason(self, choice: int | None = None) -> str | None:
        """The finish reason of ``choice`` (default: the followed one), if it arrived."""
        index = self.followed if choice is None else choice
        parts = None if index is None else self._choices.get(index)
        return None if parts is None else parts.finish_reason

    def _choice(self, index: int) -> ChoiceParts:
        parts = self._choices.get(index)
        if parts is None:
            parts = self._choices[index] = ChoiceParts()
            if self.followed is None:
                self.followed = index
        return parts

    def add(self, event: StreamEvent) -> None:
        """Take one event.

        Raises:
            GatewayStreamError: ``event`` is an error frame (the partial answer attached).
        """
        # The text-bearing events by their exact type first (cheaper than class patterns);
        # anything else, subclasses included, by ``match``.
        if type(event) is TextDelta:
            (self._choices.get(event.choice) or self._choice(event.choice)).content.append(
                event.text
            )
            return
        self._changes += 1  # not text alone: the next read looks further than the text
        if type(event) is ToolCallDelta:
            (self._choices.get(event.choice) or self._choice(event.choice)).add_call(event)
        elif type(event) is ReasoningDelta:
            (self._choices.get(event.choice) or self._choice(event.choice)).reasoning.append(
                event.text
            )
        elif type(event) is UsageUpdate:
            self.usage = event.usage
            self._reports += 1
        elif type(event) is GatewayEvent:
            self._events.append(event)
        else:
            self._add(event)

    def _add(self, event: StreamEvent) -> None:
        match event:
            case TextDelta(text=text, choice=index):
                self._choice(index).content.append(text)
            case ReasoningDelta(text=text, choice=index):
                self._choice(index).reasoning.append(text)
            case ToolCallDelta(choice=index):
                self._choice(index).add_call(event)
            case RefusalDelta(text=text, choice=index):
                self._choice(index).refusal.append(text)
            case ReasoningSignature(signature=signature, choice=index, item=item):
                self._choice(index).close_block(signature, None, item)
            case RedactedReasoning(data=data, choice=index):
                self._choice(index).close_block(None, data)
            case Citation(citation=citation, choice=index):
                self._choice(index).citations.append(citation)
            case _:
                self._bookkeeping(event)

    def _bookkeeping(self, event: _Bookkeeping) -> None:
        match event:
            case UsageUpdate(usage=usage):
                self.usage = usage
                self._reports += 1
            case Finish(reason=reason, choice=index):
                parts = self._choice(index)
                parts.finish = event
                parts.finishes += 1
                parts.finish_reason = reason
                parts.stop_reason = event.stop_reason
                parts.stop_sequence = event.stop_sequence
                if event.content is not None:  # the final text, where the deltas differ
                    parts.final_content = event.content
                self._finished = True
            case Metadata():
                self._metadata(event)
            case GatewayEvent():
                self._events.append(event)
            case ErrorFrame():
                raise GatewayStreamError(
                    f"the gateway reported an error inside the stream: {event.message}",
                    partial=self.completion(),
                    type=event.type,
                    code=event.code,
                    data=event.data,
                )
            case StreamEnd():
                self._done = True
            case _:
                assert_never(event)

    def extend(self, events: Iterable[StreamEvent]) -> None:
        """Take several events."""
        for event in events:
            self.add(event)

    def _metadata(self, event: Metadata) -> None:
        known = self._meta
        self._meta = Metadata(
            id=known.id or event.id,
            model=known.model or event.model,
            system_fingerprint=known.system_fingerprint or event.system_fingerprint,
            created=known.created if known.created is not None else event.created,
        )

    def citations(self, choice: int | None = None) -> tuple[Mapping[str, Any], ...]:
        """The citations of ``choice`` (default: the followed one) so far, as sent."""
        index = self.followed if choice is None else choice
        parts = None if index is None else self._choices.get(index)
        return () if parts is None else tuple(parts.citations)

    def mark(self) -> Mark | None:
        """Where the followed choice stands now (None before any choice arrived); O(1)."""
        index = self.followed
        return None if index is None else self._choices[index].mark(index)

    def snapshot(self, mark: Mark) -> Choice:
        """The choice of ``mark`` as it stood then, its closed reasoning blocks and its
        citations included (its finish and stop reasons: as they stand now).

        Reading the marks of a stream in order joins each text once overall.
        """
        return self._choices[mark[0]].at(mark)

    def read(self) -> ReadDelta:
        """What arrived since the previous read (since the start, for the first): the
        followed choice's new pieces, calls, closed reasoning blocks and citations, the
        named gateway events and usage report, and where the choice stands after it.

        The stream's reader calls it once per network read, after the read's events were
        added; it costs O(what arrived), taken from the pieces kept here.
        """
        last = self._read_at[1]
        if self._read_at[0] == self._changes and last is not None:  # text alone since then
            parts = self._choices[last[0]]
            content = parts.content
            at = self._read_text
            count = self._read_text = len(content)
            text = "" if count == at else content[at] if count == at + 1 else "".join(content[at:])
            mark = (last[0], count, last[2], last[3], last[4], last[5], last[6])
            return read_delta(text, (), None, mark, parts.finish)
        return self._read_more()

    def skip_read(self) -> None:
        """Move past what arrived without building its read: for a reader that mapped a
        read of one event from the event itself (the next :meth:`read` starts after it)."""
        last = self._read_at[1]
        if self._read_at[0] == self._changes and last is not None:
            self._read_text = len(self._choices[last[0]].content)
            return
        index = self.followed
        if index is None:
            self._read_at = (self._changes, None, len(self._events), self._reports, 0)
            return
        parts = self._choices[index]
        mark = parts.mark(index)
        self._read_at = (self._changes, mark, len(self._events), self._reports, parts.finishes)
        self._read_text = mark[1]

    def _read_more(self) -> ReadDelta:
        """:meth:`read` of a read that brought more than text."""
        _, last, seen, reports, finishes = self._read_at
        events = self._events
        count = len(events)
        news = tuple(events[seen:]) if count != seen else ()
        usage = self.usage if self._reports != reports else None
        index = self.followed
        if index is None:
            self._read_at = (self._changes, None, count, self._reports, 0)
            return read_delta("", news, usage, None, None)
        parts = self._choices[index]
        mark = parts.mark(index)
        self._read_at = (self._changes, mark, count, self._reports, parts.finishes)
        since = (
            (index, self._read_text, *last[2:]) if last is not None else (index, 0, 0, 0, 0, 0, 0)
        )
        self._read_text = mark[1]
        return parts.since(since, mark, news, usage, parts.finishes != finishes)

    def completion(self) -> Completion:
        """Assemble everything received so far (joins each list of pieces once)."""
        meta = self._meta
        return Completion(
            choices=tuple(parts.build(index) for index, parts in sorted(self._choices.items())),
            usage=self.usage,
            id=meta.id,
            model=meta.model,
            system_fingerprint=meta.system_fingerprint,
            created=meta.created,
            events=tuple(self._events),
            done=self._done,
            headers=self.headers,
        )

    def finish(self) -> Completion:
        """The stream ended: return the Completion, or raise if it was cut short.

        Raises:
            IncompleteStreamError: No finish_reason and no ``[DONE]`` arrived.
        """
        result = self.completion()
        if not self.complete:
            raise IncompleteStreamError(incomplete_message(result), partial=result)
        return result


def incomplete_message(
    partial: Completion, ends: str = "a finish_reason and without [DONE]"
) -> str:
    """What an IncompleteStreamError says: how much arrived, and that it is not the whole
    (``ends``: the protocol's end markers, none of which arrived)."""
    received = f"{len(partial.content)} characters"
    if partial.reasoning:
        received += f" (and {len(partial.reasoning)} of reasoning)"
    if partial.tool_calls:
        received += f" and {len(partial.tool_calls)} tool call(s)"
    return (
        f"the gateway closed the stream after {received} without {ends}: the answer is "
        "incomplete; retry the request, or use what arrived (.partial)"
    )
