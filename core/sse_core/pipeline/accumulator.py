"""``Accumulator``: StreamEvents to a :class:`~sse_core.completion.Completion`, in linear time.

It is the one owner of an answer's state. Text, reasoning, refusal and tool arguments are
kept as lists of pieces and joined once, so a 200 KB argument in 20,000 pieces costs the
same per piece as one in 20. The end-of-stream rule lives here too: a stream is complete
when a finish_reason was seen or ``[DONE]`` arrived, and no error frame came.

Adapters read the answer without keeping a copy: :attr:`Accumulator.followed` (the choice a
single-message framework shows), :attr:`usage`, :attr:`metadata` and
:meth:`finish_reason` cost O(1); :meth:`mark` notes where the answer stands (O(1)) and
:meth:`snapshot` gives the followed choice as it stood at a mark, joined only when asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

from sse_core._compat import assert_never
from sse_core.completion import Choice, Completion, ReasoningBlock, Usage
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
from sse_core.pipeline.pieces import Pieces
from sse_core.pipeline.tool_calls import CallParts

__all__ = ["Accumulator", "Mark"]

#: Where one choice's answer stood: (choice, text pieces, reasoning pieces, refusal pieces,
#: tool-call fragments). Made by :meth:`Accumulator.mark`, read by :meth:`~.snapshot`.
Mark: TypeAlias = tuple[int, int, int, int, int]

#: The events that carry no text: what :meth:`Accumulator.add` leaves to ``_bookkeeping``.
_Bookkeeping: TypeAlias = UsageUpdate | Finish | Metadata | GatewayEvent | ErrorFrame | StreamEnd

_NO_METADATA = Metadata()


class _ChoiceParts:
    __slots__ = (
        "blocks",
        "calls",
        "citations",
        "content",
        "finish_reason",
        "fragments",
        "opened",
        "reasoning",
        "refusal",
        "stop_reason",
        "stop_sequence",
    )

    def __init__(self) -> None:
        self.content = Pieces()
        self.reasoning = Pieces()
        self.refusal = Pieces()
        self.calls: dict[int, CallParts] = {}
        self.fragments = 0  # tool-call fragments so far: the sequence number of the next
        self.finish_reason: str | None = None
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        # Reasoning blocks closed by a signature or redacted (built once, as they close),
        # and the reasoning piece where the open block began.
        self.blocks: list[ReasoningBlock] = []
        self.opened = 0
        self.citations: list[Mapping[str, Any]] = []  # as sent, in order

    def close_block(self, signature: str | None, redacted: str | None) -> None:
        """A signature closes the open reasoning block; a redacted block closes it unsigned
        (when it holds text) and follows it."""
        text = "".join(self.reasoning[self.opened :])
        if signature is not None or text:
            self.blocks.append(ReasoningBlock(text=text, signature=signature))
        if redacted is not None:
            self.blocks.append(ReasoningBlock(redacted=redacted))
        self.opened = len(self.reasoning)

    def reasoning_blocks(self) -> tuple[ReasoningBlock, ...]:
        """The closed blocks, and the text after them as an unsigned block (none at all
        when nothing was signed or redacted: the reasoning text says everything)."""
        if not self.blocks:
            return ()
        rest = self.reasoning[self.opened :]
        if rest:
            return (*self.blocks, ReasoningBlock(text="".join(rest)))
        return tuple(self.blocks)

    def add_call(self, event: ToolCallDelta) -> None:
        call = self.calls.get(event.index)
        if call is None:
            call = self.calls[event.index] = CallParts(self.fragments)
        call.add(event, self.fragments)
        self.fragments += 1

    def build(self, index: int) -> Choice:
        return Choice(
            index=index,
            content=self.content.upto(),
            reasoning=self.reasoning.upto(),
            refusal=self.refusal.upto(),
            tool_calls=tuple(call.build(at) for at, call in sorted(self.calls.items())),
            finish_reason=self.finish_reason,
            reasoning_blocks=self.reasoning_blocks(),
            stop_reason=self.stop_reason,
            stop_sequence=self.stop_sequence,
            citations=tuple(self.citations),
        )

    def at(self, mark: Mark) -> Choice:
        index, content, reasoning, refusal, fragments = mark
        return Choice(
            index=index,
            content=self.content.upto(content),
            reasoning=self.reasoning.upto(reasoning),
            refusal=self.refusal.upto(refusal),
            tool_calls=tuple(
                call.at(at, fragments)
                for at, call in sorted(self.calls.items())
                if call.first < fragments
            ),
            finish_reason=self.finish_reason,
            reasoning_blocks=tuple(self.blocks),  # the closed ones: no join per snapshot
            stop_reason=self.stop_reason,
            stop_sequence=self.stop_sequence,
            citations=tuple(self.citations),
        )


class Accumulator:
    """Collects StreamEvents; :meth:`completion` assembles what arrived so far.

    :meth:`add` raises :class:`GatewayStreamError` (with ``.partial``) on an error frame;
    :meth:`finish` raises :class:`IncompleteStreamError` when the stream ended without a
    finish_reason and without ``[DONE]``.

    Args:
        headers: The response headers, kept on the Completion.
    """

    __slots__ = (
        "_choices",
        "_done",
        "_events",
        "_finished",
        "_meta",
        "followed",
        "headers",
        "usage",
    )

    def __init__(self, *, headers: Mapping[str, str] | None = None) -> None:
        self._choices: dict[int, _ChoiceParts] = {}
        self._meta = _NO_METADATA
        self._events: list[GatewayEvent] = []
        self._done = False
        self._finished = False
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

    def _choice(self, index: int) -> _ChoiceParts:
        parts = self._choices.get(index)
        if parts is None:
            parts = self._choices[index] = _ChoiceParts()
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
        elif type(event) is ToolCallDelta:
            (self._choices.get(event.choice) or self._choice(event.choice)).add_call(event)
        elif type(event) is ReasoningDelta:
            (self._choices.get(event.choice) or self._choice(event.choice)).reasoning.append(
                event.text
            )
        elif type(event) is UsageUpdate:
            self.usage = event.usage
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
            case ReasoningSignature(signature=signature, choice=index):
                self._choice(index).close_block(signature, None)
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
            case Finish(reason=reason, choice=index):
                parts = self._choice(index)
                parts.finish_reason = reason
                parts.stop_reason = event.stop_reason
                parts.stop_sequence = event.stop_sequence
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

    def mark(self) -> Mark | None:
        """Where the followed choice stands now (None before any choice arrived); O(1)."""
        index = self.followed
        if index is None:
            return None
        parts = self._choices[index]
        return (
            index,
            len(parts.content),
            len(parts.reasoning),
            len(parts.refusal),
            parts.fragments,
        )

    def snapshot(self, mark: Mark) -> Choice:
        """The choice of ``mark`` as it stood then (finish and stop reasons, the closed
        reasoning blocks and the citations: as they stand now).

        Reading the marks of a stream in order joins each text once overall.
        """
        return self._choices[mark[0]].at(mark)

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
