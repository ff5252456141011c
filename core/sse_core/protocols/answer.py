"""A protocol's own answer object: what its SDK (and the frameworks' classes of it) give as the
answer, built once in the core from a :class:`~sse_core.Completion` or, mid-stream, from a
snapshot of one choice.

Each protocol that has one names an :class:`AnswerShape` in its registration
(:attr:`sse_core.protocols.WireProtocol.answer`): the Messages API's message, the Responses
API's response object. SSELLM gives it as ``ChatResponse.raw`` (as llama-index's LLM of that
protocol does); a protocol without one is given as chat completions' chunk and completion
dicts. The helpers here are what the shapes share: usage in the protocol's own names, tool
arguments parsed (kept as sent when cut), reasoning blocks with any text no block holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sse_core.completion import Choice, Completion, ReasoningBlock, Usage
from sse_core.events import Metadata

__all__ = [
    "NO_CHOICE",
    "AnswerShape",
    "Raw",
    "arguments",
    "first_choice",
    "metadata",
    "raw_usage",
    "reasoning_blocks",
]

#: An answer object: the protocol's JSON, as a dict.
Raw = dict[str, Any]
#: The choice of an answer that has none yet.
NO_CHOICE = Choice()


@dataclass(frozen=True, slots=True)
class AnswerShape:
    """How one protocol's own answer object is made.

    Attributes:
        whole: A whole answer's object, from its Completion.
        streamed: The object so far of a streamed answer, from its metadata, its usage so
            far, its stop fields (``stop_reason``, ``stop_sequence``; empty until it
            stopped) and the choice as it stood (a snapshot; None before any).
    """

    whole: Callable[[Completion], Raw]
    streamed: Callable[[Metadata, Usage | None, Mapping[str, Any], Choice | None], Raw]


def raw_usage(usage: Usage | None) -> Raw | None:
    """The usage as the gateway counted it, in the protocol's own names."""
    return None if usage is None else dict(usage.raw)


def arguments(text: str) -> Any:
    """A tool call's arguments parsed; a cut input is kept as sent, never repaired."""
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return text


def reasoning_blocks(choice: Choice) -> tuple[ReasoningBlock, ...]:
    """The choice's reasoning blocks, and its text no block holds as one unsigned block (a
    block still open mid-stream, or a gateway that signed none), as an SDK's accumulated
    message shows an open thinking block: its text so far, no signature."""
    blocks = choice.reasoning_blocks
    held = sum(len(block.text) for block in blocks)
    if held < len(choice.reasoning):
        return (*blocks, ReasoningBlock(text=choice.reasoning[held:]))
    return blocks


def metadata(completion: Completion) -> Metadata:
    """The answer's id, model and creation time, as a stream's metadata event gives them."""
    return Metadata(id=completion.id, model=completion.model, created=completion.created)


def first_choice(completion: Completion) -> Choice:
    """The answer's first choice (an empty one when it has none)."""
    return completion.choices[0] if completion.choices else NO_CHOICE
