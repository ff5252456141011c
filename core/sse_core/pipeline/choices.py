"""``ChoiceParts``: one choice's answer as it grows, and how it is read back.

The accumulator keeps one per choice. Texts and tool arguments are lists of pieces
(:class:`~sse_core.pipeline.pieces.Pieces`), so the choice can be read as it stood at any
:data:`Mark` (LlamaIndex's running message) and as what arrived since one (a read,
:class:`~sse_core.pipeline.reads.ReadDelta`), each in time proportional to what is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from sse_core.completion import Choice, ReasoningBlock, Usage
from sse_core.events import Finish, GatewayEvent, ToolCallDelta, _tool_call_delta
from sse_core.pipeline.pieces import Pieces
from sse_core.pipeline.reads import ReadDelta, full_read
from sse_core.pipeline.tool_calls import CallParts

__all__ = ["ChoiceParts", "Mark"]

#: Where one choice's answer stood: (choice, text pieces, reasoning pieces, refusal pieces,
#: tool-call fragments, closed reasoning blocks, citations). Made by
#: :meth:`~sse_core.pipeline.Accumulator.mark`, read by
#: :meth:`~sse_core.pipeline.Accumulator.snapshot`.
Mark: TypeAlias = tuple[int, int, int, int, int, int, int]


class ChoiceParts:
    """One choice's answer as it grows: its pieces, tool calls, closed reasoning blocks,
    citations and finish; read whole (:meth:`build`), as it stood at a mark (:meth:`at`),
    or as what arrived since a mark (:meth:`since`)."""

    __slots__ = (
        "blocks",
        "calls",
        "citations",
        "content",
        "final_content",
        "finish",
        "finish_reason",
        "finishes",
        "fragments",
        "opened",
        "order",
        "reasoning",
        "refusal",
        "stop_reason",
        "stop_sequence",
    )

    def __init__(self) -> None:
        self.content: Pieces = Pieces()
        self.reasoning: Pieces = Pieces()
        self.refusal: Pieces = Pieces()
        self.calls: dict[int, CallParts] = {}
        self.fragments: int = 0  # tool-call fragments so far: the sequence number of the next
        self.order: list[int] = []  # the call of each fragment, by sequence number
        self.finish: Finish | None = None  # the last Finish, and how many came
        self.finishes: int = 0
        self.finish_reason: str | None = None
        # The whole text as the protocol's final version gives it, where the deltas differ
        # (Finish.content): the built choice's text; a mark's text stays the deltas'.
        self.final_content: str | None = None
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        # Reasoning blocks closed by a signature or redacted (built once, as they close),
        # and the reasoning piece where the open block began.
        self.blocks: list[ReasoningBlock] = []
        self.opened: int = 0
        self.citations: list[Mapping[str, Any]] = []  # as sent, in order

    def close_block(
        self,
        signature: str | None,
        redacted: str | None,
        item: Mapping[str, Any] | None = None,
    ) -> None:
        """A signature (or a whole ``item``, its signature "" when it has none) closes the
        open reasoning block; a redacted block closes it unsigned (when it holds text) and
        follows it."""
        text = "".join(self.reasoning[self.opened :])
        if item is not None:
            self.blocks.append(ReasoningBlock(text=text, signature=signature or None, item=item))
        elif signature is not None or text:
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
        self.order.append(event.index)
        self.fragments += 1

    def build(self, index: int) -> Choice:
        final = self.final_content
        return Choice(
            index=index,
            content=self.content.upto() if final is None else final,
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
        index, content, reasoning, refusal, fragments, blocks, citations = mark
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
            reasoning_blocks=tuple(self.blocks[:blocks]),  # closed then: no join per snapshot
            stop_reason=self.stop_reason,
            stop_sequence=self.stop_sequence,
            citations=tuple(self.citations[:citations]),
        )

    def mark(self, index: int) -> Mark:
        return (
            index,
            len(self.content),
            len(self.reasoning),
            len(self.refusal),
            self.fragments,
            len(self.blocks),
            len(self.citations),
        )

    def calls_since(self, fragments: int, choice: int) -> tuple[ToolCallDelta, ...]:
        """The fragments from number ``fragments`` on, merged per call (in the order the
        calls first appear among them); ``id`` and ``name`` where they arrived among them."""
        merged = []
        for index in dict.fromkeys(self.order[fragments:]):
            call = self.calls[index]
            seqs = call.seqs
            start = len(seqs)
            while start and seqs[start - 1] >= fragments:  # the newest pieces: a read's few
                start -= 1
            call_id = call.id if call.id is not None and call.id_seq >= fragments else None
            name = call.name if call.name is not None and call.name_seq >= fragments else None
            arguments = "".join(call.args[start:])
            merged.append(_tool_call_delta(index, call_id, name, arguments, choice))
        return tuple(merged)

    def since(
        self,
        last: Mark,
        mark: Mark,
        events: tuple[GatewayEvent, ...],
        usage: Usage | None,
        finished: bool,
    ) -> ReadDelta:
        """What arrived between ``last`` and ``mark`` (now), with the read's named
        ``events`` and ``usage``; ``finished``: a Finish of this choice came meanwhile."""
        index, content, reasoning, refusal, fragments, blocks, citations = last
        return full_read(
            (
                "".join(self.content[content:]),
                "".join(self.reasoning[reasoning:]),
                "".join(self.refusal[refusal:]),
            ),
            self.calls_since(fragments, index) if mark[4] > fragments else (),
            tuple(self.blocks[blocks:]) if len(self.blocks) > blocks else (),
            tuple(self.citations[citations:]) if len(self.citations) > citations else (),
            finished,
            usage,
            events,
            mark,
            self.finish,
        )
