"""``Accumulator``: StreamEvents to a :class:`~sse_core.completion.Completion`, in linear time.

Text, reasoning and tool arguments are kept as lists of pieces and joined once, so a 200 KB
argument in 20,000 pieces costs the same per piece as one in 20. The end-of-stream rule lives
here too: a stream is complete when a finish_reason was seen or ``[DONE]`` arrived, and no
error frame came.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from sse_core.completion import Choice, Completion, ToolCall, Usage
from sse_core.errors import GatewayStreamError, IncompleteStreamError
from sse_core.events import (
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
    UsageUpdate,
)

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10
    from typing_extensions import assert_never

__all__ = ["Accumulator"]


class _CallBuilder:
    __slots__ = ("args", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.args: list[str] = []


class _ChoiceBuilder:
    __slots__ = ("calls", "content", "finish_reason", "reasoning", "refusal")

    def __init__(self) -> None:
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, _CallBuilder] = {}
        self.finish_reason: str | None = None

    def build(self, index: int) -> Choice:
        return Choice(
            index=index,
            content="".join(self.content),
            reasoning="".join(self.reasoning),
            refusal="".join(self.refusal),
            tool_calls=tuple(
                ToolCall(index=at, id=call.id, name=call.name, arguments="".join(call.args))
                for at, call in sorted(self.calls.items())
            ),
            finish_reason=self.finish_reason,
        )


class Accumulator:
    """Collects StreamEvents; :meth:`completion` assembles what arrived so far.

    :meth:`add` raises :class:`GatewayStreamError` (with ``.partial``) on an error frame;
    :meth:`finish` raises :class:`IncompleteStreamError` when the stream ended without a
    finish_reason and without ``[DONE]``.
    """

    __slots__ = (
        "_choices",
        "_done",
        "_events",
        "_finished",
        "_headers",
        "_meta",
        "_usage",
    )

    def __init__(self, *, headers: Mapping[str, str] | None = None) -> None:
        self._choices: dict[int, _ChoiceBuilder] = {}
        self._usage: Usage | None = None
        self._meta: dict[str, str | int] = {}
        self._events: list[GatewayEvent] = []
        self._done = False
        self._finished = False
        self._headers: Mapping[str, str] = dict(headers or {})

    @property
    def complete(self) -> bool:
        """Whether what arrived so far is a whole answer (finish_reason seen or [DONE])."""
        return self._done or self._finished

    def _choice(self, index: int) -> _ChoiceBuilder:
        builder = self._choices.get(index)
        if builder is None:
            builder = self._choices[index] = _ChoiceBuilder()
        return builder

    def add(self, event: StreamEvent) -> None:
        """Take one event."""
        match event:
            case TextDelta(text=text, choice=index):
                self._choice(index).content.append(text)
            case ReasoningDelta(text=text, choice=index):
                self._choice(index).reasoning.append(text)
            case ToolCallDelta():
                self._tool(event)
            case RefusalDelta(text=text, choice=index):
                self._choice(index).refusal.append(text)
            case UsageUpdate(usage=usage):
                self._usage = usage
            case Finish(reason=reason, choice=index):
                self._choice(index).finish_reason = reason
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
            case Done():
                self._done = True
            case _:
                assert_never(event)

    def extend(self, events: Iterable[StreamEvent]) -> None:
        """Take several events."""
        for event in events:
            self.add(event)

    def _tool(self, event: ToolCallDelta) -> None:
        calls = self._choice(event.choice).calls
        call = calls.get(event.index)
        if call is None:
            call = calls[event.index] = _CallBuilder()
        if event.id is not None and call.id is None:
            call.id = event.id
        if event.name is not None and call.name is None:
            call.name = event.name
        if event.arguments:
            call.args.append(event.arguments)

    def _metadata(self, event: Metadata) -> None:
        for key in ("id", "model", "system_fingerprint", "created"):
            value = getattr(event, key)
            if value is not None:
                self._meta.setdefault(key, value)

    def completion(self) -> Completion:
        """Assemble everything received so far (joins each list of pieces once)."""
        meta = self._meta
        created = meta.get("created")
        return Completion(
            choices=tuple(builder.build(index) for index, builder in sorted(self._choices.items())),
            usage=self._usage,
            id=_str(meta.get("id")),
            model=_str(meta.get("model")),
            system_fingerprint=_str(meta.get("system_fingerprint")),
            created=created if isinstance(created, int) else None,
            events=tuple(self._events),
            done=self._done,
            headers=self._headers,
        )

    def finish(self) -> Completion:
        """The stream ended: return the Completion, or raise if it was cut short."""
        result = self.completion()
        if not self.complete:
            raise IncompleteStreamError(_incomplete_message(result), partial=result)
        return result


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _incomplete_message(partial: Completion) -> str:
    received = f"{len(partial.content)} characters"
    if partial.reasoning:
        received += f" (and {len(partial.reasoning)} of reasoning)"
    if partial.tool_calls:
        received += f" and {len(partial.tool_calls)} tool call(s)"
    return (
        f"the gateway closed the stream after {received} without a finish_reason and without "
        "[DONE]; the answer is incomplete (retry the request, or read .partial)"
    )
