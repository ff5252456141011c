"""What a gateway's recorded answers show: where usage goes, how reasoning and tool calls
travel, how the stream ends. Pure: recorded bytes and sidecars in, :class:`Findings` out.

Bodies are split into events by ``sse_core``'s :class:`~sse_core.pipeline.SSEParser` and each data
payload is read with ``pydantic_core.from_json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_core import from_json

from sse_core import SSEConnectorError
from sse_core.pipeline import SSEParser

__all__ = ["Exchange", "Failure", "Findings", "exchange", "find"]

UsageStyle = Literal["chunk", "final_chunk", "every_chunk", "named_event", "x_groq", "none"]
ToolStyle = Literal["by_index", "whole", "no_index", "none"]
_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")
#: The thinking steps and the switch each one sends.
SWITCHES = (("thinking", "reasoning_effort"), ("thinking-kwargs", "chat_template_kwargs"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """One recorded HTTP exchange, its body read as SSE.

    Attributes:
        status: The HTTP status.
        headers: The response headers (lower-case names).
        payloads: ``(event name, decoded JSON)`` for every event whose data is JSON.
        done: A ``data: [DONE]`` arrived.
        body: The first bytes of the body (for error bodies).
    """

    status: int
    headers: Mapping[str, str]
    payloads: tuple[tuple[str, Any], ...] = ()
    done: bool = False
    body: bytes = b""

    @property
    def chunks(self) -> list[dict[str, Any]]:
        """The unnamed JSON payloads that carry ``choices``: the completion chunks."""
        return [
            data
            for name, data in self.payloads
            if name == "message" and isinstance(data, dict) and "choices" in data
        ]

    def deltas(self) -> Iterable[dict[str, Any]]:
        """Every choice's delta, in order."""
        for chunk in self.chunks:
            for choice in chunk["choices"] or ():
                if isinstance(choice, dict) and isinstance(choice.get("delta"), dict):
                    yield choice["delta"]


def exchange(meta: Mapping[str, Any], body: bytes) -> Exchange:
    """Read one recorded exchange (its sidecar and its body)."""
    headers = {str(k).lower(): str(v) for k, v in meta.get("headers", [])}
    parser = SSEParser()
    try:
        events = parser.feed(body) + parser.finish()
    except SSEConnectorError:
        events = []
    payloads: list[tuple[str, Any]] = []
    done = False
    for event in events:
        if event.data.strip() == "[DONE]":
            done = True
            continue
        try:
            payloads.append((event.event, from_json(event.data)))
        except ValueError:
            continue  # not JSON: nothing to learn from it here
    return Exchange(
        status=int(meta.get("status", 0)),
        headers=headers,
        payloads=tuple(payloads),
        done=done,
        body=body[:2000],
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """How the gateway answered the request that must fail."""

    status: int | None
    content_type: str
    json_error: bool
    message: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Findings:
    """What the probe found (see ``sse-chat probe --help`` for the values)."""

    content_type: str
    done_sentinel: bool
    finish_reason: bool
    chunk_object: str
    usage: UsageStyle
    include_usage_accepted: bool
    reasoning_field: str | None
    thinking_switch: str | None
    tool_calls: ToolStyle
    named_events: tuple[str, ...]
    failure: Failure | None
    notes: tuple[str, ...] = field(default=())


def _usage_in(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    usage = data.get("usage", data)
    return isinstance(usage, dict) and any(key in usage for key in _USAGE_KEYS)


def _finished(chunk: dict[str, Any]) -> bool:
    return any(isinstance(c, dict) and c.get("finish_reason") for c in chunk["choices"] or ())


def usage_style(answer: Exchange) -> UsageStyle:
    """Where an answer's usage arrived."""
    if any(name != "message" and _usage_in(data) for name, data in answer.payloads):
        return "named_event"
    chunks = answer.chunks
    if any(isinstance(c.get("x_groq"), dict) and _usage_in(c["x_groq"]) for c in chunks):
        return "x_groq"
    with_usage = [isinstance(c.get("usage"), dict) for c in chunks]
    if len(chunks) > 1 and all(with_usage):
        return "every_chunk"
    if any(not c["choices"] and isinstance(c.get("usage"), dict) for c in chunks):
        return "chunk"
    if any(_finished(c) and isinstance(c.get("usage"), dict) for c in chunks):
        return "final_chunk"
    return "none"


def reasoning_field(answers: Iterable[Exchange]) -> str | None:
    """The delta field reasoning arrived in, ``think_tags`` for ``<think>`` in the content."""
    for answer in answers:
        deltas = list(answer.deltas())
        for name in _REASONING_FIELDS:
            if any(delta.get(name) for delta in deltas):
                return name
        text = "".join(d["content"] for d in deltas if isinstance(d.get("content"), str))
        if text.lstrip().startswith("<think>"):
            return "think_tags"
    return None


def tool_style(answer: Exchange) -> ToolStyle:
    """How an answer's tool calls travelled: by index in pieces, whole, or without index."""
    where: dict[int, set[int]] = {}
    for number, chunk in enumerate(answer.chunks):
        for choice in chunk["choices"] or ():
            delta = choice.get("delta") if isinstance(choice, dict) else None
            calls = delta.get("tool_calls") if isinstance(delta, dict) else None
            for call in calls if isinstance(calls, list) else ():
                if not isinstance(call, dict) or "index" not in call:
                    return "no_index"
                where.setdefault(int(call["index"]), set()).add(number)
    if not where:
        return "none"
    return "whole" if all(len(chunks) == 1 for chunks in where.values()) else "by_index"


def failure(answers: Sequence[Exchange]) -> Failure | None:
    """How the request that must fail was answered."""
    if not answers:
        return None
    last = answers[-1]
    try:
        data = from_json(last.body) if last.status >= 400 else None
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return Failure(
        status=last.status,
        content_type=last.headers.get("content-type", ""),
        json_error=error is not None,
        message=str(message)[:200] if message is not None else None,
    )


def chunk_object(answer: Exchange) -> str:
    """The ``object`` the chunks declare (the most common one), or ``""``."""
    kinds = Counter(str(c.get("object", "")) for c in answer.chunks)
    return kinds.most_common(1)[0][0] if kinds else ""


def find(steps: Mapping[str, Sequence[Exchange]]) -> Findings:
    """The findings from every step's recorded exchanges (by step name).

    Steps: ``plain``, ``usage``, ``thinking``, ``thinking-kwargs`` (only when the first
    thinking request showed none), ``tools``, ``failure``; a step may be missing.
    """
    plain = _last(steps.get("plain"))
    usage_answers = steps.get("usage", ())
    usage_answer = _last(usage_answers) or plain
    everything = [answer for answers in steps.values() for answer in answers]
    switch = None
    for name, label in SWITCHES:
        if switch is None and reasoning_field(steps.get(name, ())):
            switch = label
    tools = _last(steps.get("tools"))
    return Findings(
        content_type=plain.headers.get("content-type", "") if plain else "",
        done_sentinel=bool(plain and plain.done),
        finish_reason=bool(plain and any(_finished(c) for c in plain.chunks)),
        chunk_object=chunk_object(plain) if plain else "",
        usage=usage_style(usage_answer) if usage_answer else "none",
        include_usage_accepted=len(usage_answers) == 1 and usage_answers[0].status == 200,
        reasoning_field=reasoning_field(everything),
        thinking_switch=switch,
        tool_calls=tool_style(tools) if tools else "none",
        named_events=named_events(everything),
        failure=failure(steps.get("failure", ())),
    )


def named_events(answers: Iterable[Exchange]) -> tuple[str, ...]:
    """The names of the named SSE events that arrived, sorted."""
    return tuple(sorted({name for a in answers for name, _ in a.payloads if name != "message"}))


def _last(answers: Sequence[Exchange] | None) -> Exchange | None:
    return answers[-1] if answers else None
