"""What a Messages API (Anthropic) gateway's recorded answers show, and the report of it.

Pure, as :mod:`.analyse`: recorded exchanges in, :class:`MessagesFindings` out. The traits
are those its clients trip on: where the input tokens are counted (``message_start``, or only
in ``message_delta``), whether ``message_delta``'s usage is cumulative, thinking with its
signature, pings, whether ``message_stop`` comes and the body ends after it, and frames
without ``event:`` lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sse_chat.probe.analyse import Exchange, Failure, failure
from sse_chat.probe.ending import Ending
from sse_chat.probe.report import one_line, protocol_settings, report_lines
from sse_chat.probe.steps import Target
from sse_core import SSEConnectorError
from sse_core.transport.config import public_url

__all__ = ["MessagesFindings", "find_messages", "messages_human", "messages_json"]

#: The event types of the Messages API's stream.
EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)
EventLines = Literal["all", "none", "some"]
DeltaUsage = Literal["cumulative", "output_only", "none"]
ToolInput = Literal["in_pieces", "whole", "none"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MessagesFindings:
    """What the probe found of a Messages API gateway (``--json`` names them the same)."""

    content_type: str
    event_lines: EventLines
    message_stop: bool
    ending: Ending | None
    stop_reason: str | None
    start_usage: tuple[str, ...]
    delta_usage: DeltaUsage
    usage_deltas: int
    prefilled: bool
    thinking: bool
    thinking_on_request: bool
    signature: bool
    redacted_thinking: bool
    pings: bool
    tool_input: ToolInput
    other_events: tuple[str, ...]
    failure: Failure | None


def _typed(answer: Exchange) -> list[tuple[str, dict[str, Any]]]:
    """``(event line, data)`` of the events whose data is an object with a ``type``."""
    return [
        (name, data)
        for name, data in answer.payloads
        if isinstance(data, dict) and isinstance(data.get("type"), str)
    ]


def _kind(answer: Exchange | None, kind: str) -> list[dict[str, Any]]:
    """The data of ``answer``'s events of type ``kind``."""
    if answer is None:
        return []
    return [data for _, data in _typed(answer) if data["type"] == kind]


def event_lines(answers: Iterable[Exchange]) -> EventLines:
    """Whether the frames carry ``event:`` lines (their type), or the type only in the data."""
    named = [name != "message" for answer in answers for name, _ in _typed(answer)]
    if named and all(named):
        return "all"
    return "some" if any(named) else "none"


def start_usage(answer: Exchange | None) -> tuple[str, ...]:
    """The usage counts ``message_start`` carries."""
    for data in _kind(answer, "message_start"):
        message = data.get("message")
        usage = message.get("usage") if isinstance(message, dict) else None
        if isinstance(usage, dict):
            return tuple(name for name, value in usage.items() if isinstance(value, int))
    return ()


def delta_usage(answer: Exchange | None) -> tuple[DeltaUsage, int]:
    """How ``message_delta`` reports usage, and how many of them carry it."""
    usages = [
        d["usage"] for d in _kind(answer, "message_delta") if isinstance(d.get("usage"), dict)
    ]
    if not usages:
        return "none", 0
    cumulative = any("input_tokens" in usage for usage in usages)
    return ("cumulative" if cumulative else "output_only"), len(usages)


def _deltas(answers: Iterable[Exchange]) -> list[dict[str, Any]]:
    return [
        d["delta"]
        for answer in answers
        for d in _kind(answer, "content_block_delta")
        if isinstance(d.get("delta"), dict)
    ]


def _blocks(answers: Iterable[Exchange]) -> list[dict[str, Any]]:
    """The content blocks started, and those prefilled whole in ``message_start``."""
    found: list[dict[str, Any]] = []
    for answer in answers:
        for data in _kind(answer, "message_start"):
            message = data.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            found += [b for b in content or () if isinstance(b, dict)]
        found += [
            d["content_block"]
            for d in _kind(answer, "content_block_start")
            if isinstance(d.get("content_block"), dict)
        ]
    return found


def tool_input(answer: Exchange | None) -> ToolInput:
    """How tool input travelled: in several non-empty pieces, or whole in one."""
    pieces: dict[Any, int] = {}
    for data in _kind(answer, "content_block_delta"):
        delta = data.get("delta")
        # the empty first piece some send says nothing about how the input travels
        if (
            isinstance(delta, dict)
            and delta.get("type") == "input_json_delta"
            and delta.get("partial_json")
        ):
            pieces[data.get("index")] = pieces.get(data.get("index"), 0) + 1
    tools = [b for b in _blocks([answer] if answer else []) if b.get("type") == "tool_use"]
    if not tools:
        return "none"
    return "in_pieces" if any(count > 1 for count in pieces.values()) else "whole"


def _stop_reason(answer: Exchange | None) -> str | None:
    for data in _kind(answer, "message_delta"):
        delta = data.get("delta")
        if isinstance(delta, dict) and delta.get("stop_reason"):
            return str(delta["stop_reason"])
    for data in _kind(answer, "message_start"):
        message = data.get("message")
        if isinstance(message, dict) and message.get("stop_reason"):
            return str(message["stop_reason"])
    return None


def _prefilled(answer: Exchange | None) -> bool:
    for data in _kind(answer, "message_start"):
        message = data.get("message")
        if isinstance(message, dict) and message.get("content"):
            return True
    return False


def find_messages(
    steps: Mapping[str, Sequence[Exchange]], ending: Ending | None
) -> MessagesFindings:
    """The findings from every step's exchanges (steps ``plain``, ``ending``, ``thinking``,
    ``tools``, ``failure``; a step may be missing)."""
    plain = _last(steps.get("plain"))
    everything = [
        answer for name, answers in steps.items() if name != "failure" for answer in answers
    ]
    usage, counted = delta_usage(plain)
    deltas = _deltas(everything)
    kinds = {delta.get("type") for delta in deltas}
    started = _blocks(everything)
    blocks = {block.get("type") for block in started}
    signed = any(b.get("type") == "thinking" and b.get("signature") for b in started)
    names = {data["type"] for answer in everything for _, data in _typed(answer)}
    lines = {name for answer in everything for name, _ in answer.payloads if name != "message"}
    return MessagesFindings(
        content_type=plain.headers.get("content-type", "") if plain else "",
        event_lines=event_lines(everything),
        message_stop=bool(_kind(plain, "message_stop")),
        ending=ending,
        stop_reason=_stop_reason(plain),
        start_usage=start_usage(plain),
        delta_usage=usage,
        usage_deltas=counted,
        prefilled=_prefilled(plain),
        thinking="thinking_delta" in kinds or "thinking" in blocks,
        thinking_on_request=thinks(steps.get("thinking", ()))
        and not thinks(steps.get("plain", ())),
        signature="signature_delta" in kinds or signed,
        redacted_thinking="redacted_thinking" in blocks,
        pings="ping" in names,
        tool_input=tool_input(_last(steps.get("tools"))),
        other_events=tuple(sorted((names | lines) - EVENTS)),
        failure=failure(steps.get("failure", ())),
    )


def thinks(answers: Iterable[Exchange]) -> bool:
    """Whether any answer held a thinking (or redacted thinking) block."""
    kinds = {block.get("type") for block in _blocks(answers)}
    return bool(kinds & {"thinking", "redacted_thinking"})


def _last(answers: Sequence[Exchange] | None) -> Exchange | None:
    return answers[-1] if answers else None


# --- the report ---


#: What the probe's thinking step asked for.
THINKING = {"type": "enabled", "budget_tokens": 1024}


def messages_json(
    findings: MessagesFindings,
    target: Target,
    *,
    requests: int,
    errors: Mapping[str, SSEConnectorError],
) -> dict[str, Any]:
    """The findings as one JSON-ready object."""
    failed = findings.failure
    settings = protocol_settings(target)
    # each adapter's name for the request's thinking (SSELLM's is llama-index's Anthropic's)
    thinking = {"thinking": THINKING} if findings.thinking_on_request else {}
    thinking_dict = {"thinking_dict": THINKING} if findings.thinking_on_request else {}
    return {
        "url": public_url(target.base_url + target.path),
        "model": target.model,
        "protocol": target.protocol,
        "requests": requests,
        "content_type": findings.content_type,
        "event_lines": findings.event_lines,
        "message_stop": findings.message_stop,
        "ending": findings.ending,
        "stop_reason": findings.stop_reason,
        "start_usage": list(findings.start_usage),
        "input_tokens_in_message_start": "input_tokens" in findings.start_usage,
        "delta_usage": findings.delta_usage,
        "usage_deltas": findings.usage_deltas,
        "prefilled": findings.prefilled,
        "thinking": findings.thinking,
        "thinking_on_request": findings.thinking_on_request,
        "signature": findings.signature,
        "redacted_thinking": findings.redacted_thinking,
        "pings": findings.pings,
        "tool_input": findings.tool_input,
        "other_events": list(findings.other_events),
        "error_response": None
        if failed is None
        else {
            "status": failed.status,
            "content_type": failed.content_type,
            "json_error": failed.json_error,
            "message": failed.message,
        },
        "step_errors": {s: one_line(e) for s, e in errors.items() if s != "failure"},
        "recommended": settings | thinking,
        "recommended_llamaindex": settings | thinking_dict,
    }


ENDING = {
    "closes": "message_stop, then the body ends",
    "held_open": "message_stop, then the socket stays open (a client that waits for the "
    "end of the body hangs)",
    "no_message_stop": "no message_stop: the gateway closes the stream",
}
EVENT_LINES = {
    "all": "on every frame",
    "none": "none: the type is only in the data",
    "some": "on some frames only",
}
DELTA_USAGE = {
    "cumulative": "cumulative, with input_tokens",
    "output_only": "output_tokens only",
    "none": "none",
}
TOOL_INPUT = {
    "in_pieces": "tool_use blocks, input in pieces",
    "whole": "tool_use blocks, input whole in one piece",
    "none": "none called",
}


def _usage(findings: MessagesFindings) -> str:
    start = ", ".join(findings.start_usage) or "none"
    delta = DELTA_USAGE[findings.delta_usage]
    if findings.usage_deltas > 1:
        delta += f" ({findings.usage_deltas} message_delta events: the last wins)"
    if "input_tokens" in findings.start_usage:
        inputs = "in message_start"
    elif findings.delta_usage == "cumulative":
        inputs = "only in message_delta"
    else:
        inputs = "not reported"
    return f"message_start: {start}; message_delta: {delta}; input tokens {inputs}"


def _thinking(findings: MessagesFindings) -> str:
    if not (findings.thinking or findings.redacted_thinking):
        return "none seen (thinking not enabled by the gateway, or not a thinking model)"
    said = ["thinking blocks"] if findings.thinking else []
    if findings.signature:
        said.append("signatures")
    if findings.redacted_thinking:
        said.append("redacted thinking")
    asked = " (switched on by thinking)" if findings.thinking_on_request else ""
    return ", ".join(said) + asked


def messages_human(report: Mapping[str, Any], findings: MessagesFindings) -> list[str]:
    """The report as lines for a person: the findings, then the recommended settings."""
    ending = (
        ENDING[findings.ending]
        if findings.ending
        else ("message_stop" if findings.message_stop else ENDING["no_message_stop"])
    )
    rows = [
        ("protocol", "Anthropic Messages API"),
        ("content type", findings.content_type or "-"),
        ("end of stream", ending),
        ("stop reason", findings.stop_reason or "never sent"),
        ("event: lines", EVENT_LINES[findings.event_lines]),
        ("usage", _usage(findings)),
        ("prefilled", "content in message_start" if findings.prefilled else "no"),
        ("thinking", _thinking(findings)),
        ("pings", "sent" if findings.pings else "none"),
        ("tool calls", TOOL_INPUT[findings.tool_input]),
        ("other events", ", ".join(findings.other_events) or "none"),
    ]
    return report_lines(report, rows, findings.failure)
