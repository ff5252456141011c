"""The assembled result of a stream: ``Completion`` and the values it is made of."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import from_json

__all__ = ["Choice", "Completion", "ReasoningBlock", "ToolCall", "Usage"]

_EMPTY: Mapping[str, Any] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Token counts as the gateway reported them (the last report wins).

    ``None`` means the gateway did not say. ``raw`` keeps the payload as sent, for fields
    this class does not name (cost, timings, provider extras).
    """

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool call, with its arguments as the JSON string the model wrote."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    type: str = "function"

    @property
    def arguments_error(self) -> str | None:
        """Why ``arguments`` is not a JSON object (None: it is one, or empty: no arguments).

        The arguments are kept as the model wrote them, never repaired: a call whose input
        was cut (an answer stopped at ``max_tokens`` inside a tool call) is flagged here.
        """
        if not self.arguments:
            return None
        try:
            value = from_json(self.arguments)
        except ValueError as exc:
            return f"the arguments are not valid JSON ({exc})"
        if type(value) is not dict:
            return f"the arguments are JSON {type(value).__name__}, not an object"
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningBlock:
    """One reasoning block as the model sent it, to pass back byte-exact on the next turn.

    ``text`` is its reasoning text and ``signature`` the signature that closed it (None:
    unsigned); a redacted block has no text and its opaque ``redacted`` data instead.
    ``item`` is the block as the gateway closed it, for a protocol that takes it back whole
    (the Responses API's reasoning item: ``id``, ``summary``, ``encrypted_content``); None
    otherwise.
    """

    text: str = ""
    signature: str | None = None
    redacted: str | None = None
    item: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """Everything one choice (``choices[i]``) of the stream produced."""

    index: int = 0
    content: str = ""
    reasoning: str = ""
    refusal: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    reasoning_blocks: tuple[ReasoningBlock, ...] = ()
    stop_reason: str | None = None
    stop_sequence: str | None = None
    citations: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Completion:
    """The whole answer of one request.

    The ``content``, ``reasoning``, ``refusal``, ``tool_calls`` and ``finish_reason``
    properties read the first choice (index 0, or the lowest index seen); ``choices`` holds
    every choice when ``n > 1`` was asked for.
    """

    choices: tuple[Choice, ...] = ()
    usage: Usage | None = None
    id: str | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    created: int | None = None
    events: tuple[Any, ...] = ()
    done: bool = False
    headers: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def _first(self) -> Choice:
        return self.choices[0] if self.choices else _NO_CHOICE

    @property
    def content(self) -> str:
        """The text of the first choice."""
        return self._first.content

    @property
    def reasoning(self) -> str:
        """The reasoning text of the first choice."""
        return self._first.reasoning

    @property
    def refusal(self) -> str:
        """The refusal text of the first choice."""
        return self._first.refusal

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls of the first choice, by index."""
        return self._first.tool_calls

    @property
    def finish_reason(self) -> str | None:
        """The finish reason of the first choice (None when the gateway sent none)."""
        return self._first.finish_reason

    @property
    def reasoning_blocks(self) -> tuple[ReasoningBlock, ...]:
        """The signed or redacted reasoning blocks of the first choice, in order (empty
        when the gateway signed none)."""
        return self._first.reasoning_blocks

    @property
    def stop_reason(self) -> str | None:
        """The protocol's own stop reason of the first choice (Anthropic's ``end_turn``,
        ``pause_turn``, ...), besides the shared :attr:`finish_reason`."""
        return self._first.stop_reason

    @property
    def stop_sequence(self) -> str | None:
        """The stop sequence that ended the first choice, when the gateway said which."""
        return self._first.stop_sequence

    @property
    def citations(self) -> tuple[Mapping[str, Any], ...]:
        """The citations of the first choice's text (Anthropic), each as sent, in the order
        they arrived (empty when the gateway sent none)."""
        return self._first.citations


_NO_CHOICE = Choice()
