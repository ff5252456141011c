"""Terminal rendering: StreamEvents as they arrive, and a whole Completion."""

from __future__ import annotations

import os
from typing import TextIO

from pydantic_core import to_json

from sse_core import (
    Completion,
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

__all__ = ["Renderer", "render_completion", "usage_line"]


class Renderer:
    """Writes StreamEvents to a terminal as they arrive (colours only on a TTY)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.color = out.isatty() and "NO_COLOR" not in os.environ
        self._section = ""

    def _style(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def _enter(self, section: str, *, again: bool = False) -> None:
        if again or section != self._section:
            if self._section:
                self.out.write("\n")
            self.out.write(self._style("1;36", f"[{section}]") + " ")
            self._section = section

    def reasoning(self, text: str) -> None:
        """A piece of reasoning."""
        self._enter("reasoning")
        self.out.write(self._style("2", text))
        self.out.flush()

    def text(self, text: str) -> None:
        """A piece of the answer."""
        self._enter("answer")
        self.out.write(text)
        self.out.flush()

    def refusal(self, text: str) -> None:
        """A piece of a refusal."""
        self._enter("refusal")
        self.out.write(self._style("31", text))
        self.out.flush()

    def tool_call(self, name: str | None, arguments: str) -> None:
        """A tool-call fragment; a name starts a new call on its own line."""
        if name:
            self._enter("tool call", again=True)
            self.out.write(self._style("33", name) + " ")
        self.out.write(arguments)
        self.out.flush()

    def gateway_event(self, name: str, data: object) -> None:
        """A named gateway event, on a line of its own."""
        self._enter(f"event {name}", again=True)
        self.out.write(to_json(data).decode() + "\n")
        self._section = ""
        self.out.flush()

    def note(self, text: str) -> None:
        """A line of commentary from the command itself."""
        if self._section:
            self.out.write("\n")
            self._section = ""
        self.out.write(self._style("2", f"({text})") + "\n")

    def event(self, event: StreamEvent) -> None:
        """Render one sse_core StreamEvent."""
        match event:
            case ReasoningDelta(text=text):
                self.reasoning(text)
            case TextDelta(text=text):
                self.text(text)
            case RefusalDelta(text=text):
                self.refusal(text)
            case ToolCallDelta(name=name, arguments=arguments):
                self.tool_call(name, arguments)
            case GatewayEvent(name=name, data=data):
                self.gateway_event(name, data)
            case Finish() | UsageUpdate() | Metadata() | Done() | ErrorFrame():
                pass

    def summary(self, finish_reason: str | None, usage: Usage | str | None) -> None:
        """The end of a turn: finish reason and usage (a Usage, or a line already made)."""
        line = usage if isinstance(usage, str) else usage_line(usage)
        self._section = ""
        self.out.write("\n" + self._style("2", f"finish_reason={finish_reason}  {line}") + "\n")
        self.out.flush()


def usage_line(usage: Usage | None) -> str:
    if usage is None:
        return "usage: not reported"
    extra = [
        f"{name}={value}"
        for name in ("cached_tokens", "cache_write_tokens", "reasoning_tokens")
        if (value := getattr(usage, name)) is not None
    ]
    return (
        f"usage: prompt={usage.prompt_tokens} completion={usage.completion_tokens} "
        f"total={usage.total_tokens} {' '.join(extra)}"
    ).rstrip()


def render_completion(completion: Completion, out: TextIO) -> None:
    """Print a Completion as a person reads it: reasoning, text, tool calls, usage, finish."""
    if completion.model or completion.id:
        out.write(f"model: {completion.model or '-'}   id: {completion.id or '-'}\n")
    for choice in completion.choices:
        if len(completion.choices) > 1:
            out.write(f"--- choice {choice.index}\n")
        if choice.reasoning:
            out.write(f"[reasoning]\n{choice.reasoning}\n")
        if choice.content:
            out.write(f"[content]\n{choice.content}\n")
        if choice.refusal:
            out.write(f"[refusal]\n{choice.refusal}\n")
        for call in choice.tool_calls:
            out.write(f"[tool call {call.index}] {call.name}({call.arguments}) id={call.id}\n")
        out.write(f"[finish_reason] {choice.finish_reason}\n")
    for event in completion.events:
        out.write(f"[event {event.name}] {to_json(event.data).decode()}\n")
    usage = completion.usage
    if usage is None:
        out.write("[usage] not reported\n")
    else:
        details = [
            f"{name}={value}"
            for name in ("cached_tokens", "cache_write_tokens", "reasoning_tokens")
            if (value := getattr(usage, name)) is not None
        ]
        out.write(
            f"[usage] prompt={usage.prompt_tokens} completion={usage.completion_tokens} "
            f"total={usage.total_tokens} {' '.join(details)}".rstrip()
            + "\n"
        )
