"""Terminal rendering: StreamEvents as they arrive, a whole Completion, and what was cut.

Sections (``[reasoning]``, ``[answer]``, ``[tool call]``, ...) start on their own line;
nothing is followed by a blank line; colours only on a terminal without ``NO_COLOR``. The
answer goes to ``out`` (stdout), notes and errors to ``err`` (stderr), so that
``sse-chat chat > answer.txt`` keeps the answer in the file and the trouble on the terminal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TextIO

from pydantic_core import to_json

from sse_chat.waiting import WaitIndicator
from sse_core import (
    Choice,
    Citation,
    Completion,
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningBlock,
    ReasoningDelta,
    RedactedReasoning,
    RefusalDelta,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
    UsageUpdate,
)

__all__ = ["Renderer", "finish_line", "render_completion", "render_partial", "usage_line"]

_DETAILS = ("cached_tokens", "cache_write_tokens", "reasoning_tokens")


def _colored(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ


class Renderer:
    """Writes StreamEvents to a terminal as they arrive (colours only on a TTY).

    Args:
        out: Where the answer goes (reasoning, text, tool calls, events, the summary).
        err: Where notes and errors go (default: ``out``).
    """

    def __init__(self, out: TextIO, err: TextIO | None = None) -> None:
        self.out: TextIO = out
        self.err: TextIO = out if err is None else err
        self.color: bool = _colored(out)
        self._section = ""
        #: On a terminal only: never in a file or a pipe.
        self._waiting = WaitIndicator(out) if out.isatty() else None
        self._report: Renderer | None = None
        #: Each tool call's name by its index, and the index of the call written last.
        self._calls: dict[int, str] = {}
        self._call: int | None = None

    def _style(self, code: str, text: str, *, color: bool | None = None) -> str:
        on = self.color if color is None else color
        return f"\033[{code}m{text}\033[0m" if on else text

    def wait(self) -> None:
        """Show the time waited until the next output, on a terminal (a turn begins)."""
        if self._waiting is not None:
            self._waiting.start()

    def stop_waiting(self) -> None:
        """Erase the wait indicator, if shown."""
        if self._waiting is not None:
            self._waiting.clear()

    @property
    def report(self) -> Renderer:
        """A Renderer onto ``err``, for an error's account of the answer so far."""
        if self.err is self.out:
            return self
        if self._report is None:
            self._report = Renderer(self.err)
        self.end_line()
        return self._report

    def end_line(self) -> None:
        """End the section being written, if any, so the next output starts a line."""
        self.stop_waiting()
        if self._section:
            self.out.write("\n")
            self._section = ""

    def _enter(self, section: str, *, again: bool = False) -> None:
        if again or section != self._section:
            self.end_line()
            self.out.write(self._style("1;36", f"[{section}]") + " ")
            self._section = section

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def reasoning(self, text: str) -> None:
        """A piece of reasoning."""
        self._enter("reasoning")
        self._write(self._style("2", text))

    def text(self, text: str) -> None:
        """A piece of the answer."""
        self._enter("answer")
        self._write(text)

    def refusal(self, text: str) -> None:
        """A piece of a refusal."""
        self._enter("refusal")
        self._write(self._style("31", text))

    def tool_call(self, name: str | None, arguments: str, index: int | None = None) -> None:
        """A tool-call fragment; a name starts a new call on its own line. A fragment of
        another call than the one written last (parallel calls whose argument deltas
        interleave) goes on a line of its own, ``(continued)``, so that no call's arguments
        are shown spliced into another's."""
        if name:
            self._enter("tool call", again=True)
            self.out.write(self._style("33", name) + " ")
            if index is not None:
                self._calls[index] = name
        elif index is not None and index != self._call and index in self._calls:
            self._enter("tool call", again=True)
            self.out.write(self._style("33", self._calls[index]) + " (continued) ")
        elif not self._section:
            self._enter("tool call")
        self._call = index
        self._write(arguments)

    def gateway_event(self, name: str, data: object) -> None:
        """A named gateway event, on a line of its own."""
        self._labelled(f"event {name}", data)

    def citation(self, citation: object) -> None:
        """A citation of the answer text (as sent), on a line of its own."""
        self._labelled("citation", citation)

    def _labelled(self, label: str, data: object) -> None:
        self.end_line()
        self.out.write(self._style("1;36", f"[{label}]") + " ")
        self._write(to_json(data).decode() + "\n")

    def note(self, text: str) -> None:
        """A line of commentary from the command itself, in parentheses, on ``err``; a wait
        shown before it goes on after it (a retry notice while waiting for the answer)."""
        since = self._waiting.since if self._waiting is not None else None
        self.end_line()
        self._say(self._style("2", f"({text})", color=_colored(self.err)))
        if since is not None and self._waiting is not None:
            self._waiting.start(since)

    def line(self, text: str) -> None:
        """A plain line (an error, a heading), on ``err``."""
        self.end_line()
        self._say(text)

    def _say(self, text: str) -> None:
        self.out.flush()
        self.err.write(text + "\n")
        self.err.flush()

    def event(self, event: StreamEvent) -> None:
        """Render one sse_core StreamEvent."""
        match event:
            case ReasoningDelta(text=text):
                self.reasoning(text)
            case TextDelta(text=text):
                self.text(text)
            case RefusalDelta(text=text):
                self.refusal(text)
            case RedactedReasoning(data=data):
                self.reasoning(f"(redacted thinking, {len(data)} characters)")
            case ToolCallDelta(name=name, arguments=arguments, index=index):
                self.tool_call(name, arguments, index)
            case GatewayEvent(name=name, data=data):
                self.gateway_event(name, data)
            case Citation(citation=citation):
                self.citation(citation)
            case Finish() | UsageUpdate() | Metadata() | StreamEnd() | ErrorFrame():
                pass  # said in the summary, or by the error the stream raises

    def summary(
        self,
        finish_reason: str | None,
        usage: Usage | str | None,
        *,
        stop_reason: str | None = None,
    ) -> None:
        """The end of a turn: finish reason (and the protocol's own stop reason, when it
        sent one: Anthropic's ``end_turn``, ``tool_use``, ``refusal``, ...) and usage (a
        Usage, or a line already made)."""
        line = usage if isinstance(usage, str) else usage_line(usage)
        finish = f"finish_reason={finish_reason}"
        if stop_reason is not None:
            finish += f" stop_reason={stop_reason}"
        self.end_line()
        self._write(self._style("2", f"{finish}  {line}") + "\n")


def usage_line(usage: Usage | None) -> str:
    """``usage: prompt=.. completion=.. total=..`` and the details the gateway sent; for a
    protocol that names its counts otherwise (Anthropic's and Responses' ``input_tokens``,
    ``output_tokens``, ``cache_read_input_tokens``, ...), its own names and counts as sent,
    then the total."""
    if usage is None:
        return "usage: not reported"
    own = _own_counts(usage.raw)
    if own:
        return " ".join(["usage:", *own, f"total={usage.total_tokens}"])
    extra = [f"{name}={value}" for name in _DETAILS if (value := getattr(usage, name)) is not None]
    counts = f"prompt={usage.prompt_tokens} completion={usage.completion_tokens}"
    return " ".join([f"usage: {counts} total={usage.total_tokens}", *extra])


def _own_counts(raw: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``name=count`` for each count of a usage object that does not use chat completions'
    names (none for one that does): input and output first, then the others by name, a
    ``*_details`` object's counts as ``details.name``."""
    if not prefix and ("prompt_tokens" in raw or "input_tokens" not in raw):
        return []
    counts: list[str] = []
    for name in sorted(raw, key=lambda key: (_FIRST.get(key, len(_FIRST)), key)):
        value = raw[name]
        if isinstance(value, Mapping) and name.endswith("_details"):
            counts += _own_counts(value, f"{prefix}{name}.")
        elif isinstance(value, int) and not isinstance(value, bool) and name != "total_tokens":
            counts.append(f"{prefix}{name}={value}")
    return counts


_FIRST = {"input_tokens": 0, "output_tokens": 1}


def finish_line(completion: Completion, reason: str | None, *, ended: str | None) -> str:
    """The ``[finish_reason]`` line; when none arrived, why (never ``None``)."""
    if reason is not None:
        return f"[finish_reason] {reason}"
    if ended:
        return f"[finish_reason] none: {ended}"
    if completion.done:
        return "[finish_reason] none: the stream ended with [DONE] without one"
    return "[finish_reason] none arrived"


def render_completion(completion: Completion, out: TextIO, *, ended: str | None = None) -> None:
    """Print a Completion as a person reads it: reasoning, text, tool calls, usage, finish.

    Args:
        completion: What to print.
        out: Where to.
        ended: How a stream that did not finish ended (``"the stream was cut"``), for
            the finish line of a choice without a finish reason.
    """
    if completion.model or completion.id:
        out.write(f"model: {completion.model or '-'}   id: {completion.id or '-'}\n")
    for choice in completion.choices:
        if len(completion.choices) > 1:
            out.write(f"--- choice {choice.index}\n")
        _render_choice(completion, choice, out, ended=ended)
    if not completion.choices:
        out.write("(no choice arrived)\n")
    for event in completion.events:
        out.write(f"[event {event.name}] {to_json(event.data).decode()}\n")
    out.write(f"[usage] {usage_line(completion.usage).removeprefix('usage: ')}\n")


def _render_choice(
    completion: Completion, choice: Choice, out: TextIO, *, ended: str | None
) -> None:
    for label, text in (
        ("reasoning", choice.reasoning),
        ("content", choice.content),
        ("refusal", choice.refusal),
    ):
        if text:
            out.write(f"[{label}]\n{text}\n")
    for block in choice.reasoning_blocks:
        if said := _block_line(block):
            out.write(said + "\n")
    for call in choice.tool_calls:
        out.write(f"[tool call {call.index}] {call.name}({call.arguments}) id={call.id}\n")
    for citation in choice.citations:
        out.write(f"[citation] {to_json(citation).decode()}\n")
    finish = finish_line(completion, choice.finish_reason, ended=ended)
    if choice.stop_reason is not None:
        finish += f" (stop_reason {choice.stop_reason})"
    if choice.stop_sequence is not None:
        finish += f" (stop_sequence {choice.stop_sequence!r})"
    out.write(finish + "\n")


def _block_line(block: ReasoningBlock) -> str | None:
    """What a closed reasoning block carries to send back: redacted data, a reasoning item
    kept whole, or a signature; None for plain text."""
    if block.redacted is not None:
        return f"[redacted thinking] {len(block.redacted)} characters"
    if block.item is not None:
        return _reasoning_item(block.item)
    if block.signature:
        return f"[thinking signature] {len(block.signature)} characters"
    return None


def _reasoning_item(item: Mapping[str, Any]) -> str:
    """A reasoning item kept whole to send back (the Responses API's): its id, and the
    size of its ``encrypted_content`` (what a stateless client sends back), or that it has
    none (it goes back only by id, to a gateway that stored it)."""
    sealed = item.get("encrypted_content")
    said = (
        f"encrypted_content {len(sealed)} characters"
        if isinstance(sealed, str) and sealed
        else "no encrypted_content"
    )
    return f"[reasoning item] {item.get('id') or '-'}: {said}"


def render_partial(completion: Completion, view: Renderer) -> None:
    """``the answer so far:`` and what had arrived of it, for a stream that ended badly
    (on the view's ``err``: it reports the error; the answer streamed to ``out`` already)."""
    view = view.report
    choice = completion.choices[0] if completion.choices else None
    if choice is None or not (choice.reasoning or choice.content or choice.tool_calls):
        view.line("the answer so far: nothing had arrived")
        return
    view.line("the answer so far:")
    if choice.reasoning:
        view.reasoning(choice.reasoning)
    if choice.content:
        view.text(choice.content)
    for call in choice.tool_calls:
        view.tool_call(call.name or "?", call.arguments)
    view.end_line()
