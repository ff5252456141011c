"""The assembled result of a stream: ``Completion`` and the values it is made of."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Choice", "Completion", "ToolCall", "Usage"]

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """Everything one choice (``choices[i]``) of the stream produced."""

    index: int = 0
    content: str = ""
    reasoning: str = ""
    refusal: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None


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


_NO_CHOICE = Choice()
