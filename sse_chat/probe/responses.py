"""What an OpenAI Responses API gateway's recorded answers show, and the report of it.

Pure, as :mod:`.analyse`: recorded exchanges in, :class:`ResponsesFindings` out. The traits
are those its clients trip on (issue 29): which terminal event ends the stream and whether the
body ends after it (or the socket stays open, or a ``[DONE]`` follows), the terminal
response's status and usage, whether its final ``output`` holds the items (vLLM's is empty),
``sequence_number`` on every event, frames without ``event:`` lines, reasoning as a summary
or as raw ``reasoning_text`` and its ``encrypted_content``, function-call arguments in
deltas or only in ``.done``, the events no client knows, and the error shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sse_chat.probe.analyse import Exchange, Failure, failure
from sse_chat.probe.anthropic import EVENT_LINES, EventLines, event_lines
from sse_chat.probe.ending import Ending
from sse_chat.probe.report import one_line, protocol_settings, report_lines
from sse_chat.probe.steps import RESPONSES_ENDS, Target
from sse_chat.protocol_turns import responses_reasoning
from sse_core import SSEConnectorError
from sse_core.transport.config import public_url

__all__ = ["ResponsesFindings", "find_responses", "responses_human", "responses_json"]

#: The stream's event types (the API reference's streaming events) that clients know.
EVENTS = frozenset(
    {
        "response.created",
        "response.in_progress",
        "response.queued",
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        *RESPONSES_ENDS,
    }
)
Reasoning = Literal["summary", "reasoning_text", "none"]
Arguments = Literal["in_pieces", "whole", "done_only", "none"]
FinalOutput = Literal["items", "empty", "none"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponsesFindings:
    """What the probe found of a Responses API gateway (``--json`` names them the same)."""

    content_type: str
    event_lines: EventLines
    terminal_event: str | None
    status: str | None
    ending: Ending | None
    done_marker: bool
    sequence_numbers: bool
    usage: tuple[str, ...]
    final_output: FinalOutput
    reasoning: Reasoning
    reasoning_on_request: bool
    encrypted_content: bool
    tool_arguments: Arguments
    other_events: tuple[str, ...]
    failure: Failure | None


def _typed(answer: Exchange | None) -> list[dict[str, Any]]:
    """The data of ``answer``'s events that have a ``type``."""
    if answer is None:
        return []
    return [d for _, d in answer.payloads if isinstance(d, dict) and isinstance(d.get("type"), str)]


def _terminal(answer: Exchange | None) -> dict[str, Any] | None:
    return next((d for d in _typed(answer) if d["type"] in RESPONSES_ENDS), None)


def _response(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    response = data.get("response") if data is not None else None
    return response if isinstance(response, Mapping) else {}


def usage_counts(usage: object, prefix: str = "") -> tuple[str, ...]:
    """The counts a usage object carries (a ``*_details`` object's as ``details.name``)."""
    if not isinstance(usage, Mapping):
        return ()
    counts: list[str] = []
    for name, value in usage.items():
        if isinstance(value, Mapping):
            counts += usage_counts(value, f"{prefix}{name}.")
        elif isinstance(value, int) and not isinstance(value, bool):
            counts.append(f"{prefix}{name}")
    return tuple(counts)


def _final_output(response: Mapping[str, Any]) -> FinalOutput:
    output = response.get("output")
    if not isinstance(output, list):
        return "none"
    return "items" if output else "empty"


def reasoning(answers: Iterable[Exchange]) -> Reasoning:
    """How reasoning travelled: as raw ``reasoning_text`` (gpt-oss on vLLM), as a summary
    (OpenAI's models), or not at all."""
    kinds = {d["type"] for answer in answers for d in _typed(answer)}
    if "response.reasoning_text.delta" in kinds:
        return "reasoning_text"
    return "summary" if "response.reasoning_summary_text.delta" in kinds else "none"


def _done_items(answers: Iterable[Exchange]) -> list[Mapping[str, Any]]:
    return [
        d["item"]
        for answer in answers
        for d in _typed(answer)
        if d["type"] == "response.output_item.done" and isinstance(d.get("item"), Mapping)
    ]


def tool_arguments(answer: Exchange | None) -> Arguments:
    """How a call's arguments travelled: in several deltas, whole in one, or only in
    ``.done`` (and the done item)."""
    calls = [i for i in _done_items([answer] if answer else []) if i.get("type") == "function_call"]
    if not calls:
        return "none"
    pieces: dict[Any, int] = {}
    for data in _typed(answer):
        if data["type"] == "response.function_call_arguments.delta" and data.get("delta"):
            key = data.get("output_index")
            pieces[key] = pieces.get(key, 0) + 1
    if not pieces:
        return "done_only"
    return "in_pieces" if any(count > 1 for count in pieces.values()) else "whole"


def find_responses(
    steps: Mapping[str, Sequence[Exchange]], ending: Ending | None
) -> ResponsesFindings:
    """The findings from every step's exchanges (steps ``plain``, ``ending``, ``thinking``,
    ``tools``, ``failure``; a step may be missing)."""
    plain = _last(steps.get("plain"))
    everything = [a for name, answers in steps.items() if name != "failure" for a in answers]
    terminal = _terminal(plain)
    response = _response(terminal)
    typed = [d for answer in everything for d in _typed(answer)]
    names = {d["type"] for d in typed}
    lines = {name for answer in everything for name, _ in answer.payloads if name != "message"}
    return ResponsesFindings(
        content_type=plain.headers.get("content-type", "") if plain else "",
        event_lines=event_lines(everything),
        terminal_event=terminal["type"] if terminal else None,
        status=str(response["status"]) if response.get("status") else None,
        ending=ending,
        done_marker=any(answer.done for answer in everything),
        sequence_numbers=bool(typed) and all("sequence_number" in d for d in typed),
        usage=usage_counts(response.get("usage")),
        final_output=_final_output(response),
        reasoning=reasoning(everything),
        reasoning_on_request=reasoning(steps.get("thinking", ())) != "none"
        and reasoning(steps.get("plain", ())) == "none",
        encrypted_content=any(
            i.get("type") == "reasoning" and i.get("encrypted_content")
            for i in _done_items(everything)
        ),
        tool_arguments=tool_arguments(_last(steps.get("tools"))),
        other_events=tuple(sorted((names | lines) - EVENTS)),
        failure=failure(steps.get("failure", ())),
    )


def _last(answers: Sequence[Exchange] | None) -> Exchange | None:
    return answers[-1] if answers else None


# --- the report ---

#: What the probe's thinking step asked for.
REASONING = responses_reasoning("low")


#: ``ending`` in the Responses API's words (``--json``).
_ENDING_NAMES = {"no_message_stop": "no_terminal_event"}


def responses_json(
    findings: ResponsesFindings,
    target: Target,
    *,
    requests: int,
    errors: Mapping[str, SSEConnectorError],
) -> dict[str, Any]:
    """The findings as one JSON-ready object."""
    failed = findings.failure
    settings = protocol_settings(target)
    reasoning = {"reasoning": REASONING} if findings.reasoning_on_request else {}
    ending = findings.ending
    return {
        "url": public_url(target.base_url + target.path),
        "model": target.model,
        "protocol": target.protocol,
        "requests": requests,
        "content_type": findings.content_type,
        "event_lines": findings.event_lines,
        "terminal_event": findings.terminal_event,
        "status": findings.status,
        "ending": _ENDING_NAMES.get(ending, ending) if ending else None,
        "done_marker": findings.done_marker,
        "sequence_numbers": findings.sequence_numbers,
        "usage": list(findings.usage),
        "final_output": findings.final_output,
        "reasoning": findings.reasoning,
        "reasoning_on_request": findings.reasoning_on_request,
        "encrypted_content": findings.encrypted_content,
        "tool_arguments": findings.tool_arguments,
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
        "recommended": settings | ({"model_kwargs": reasoning} if reasoning else {}),
        "recommended_llamaindex": settings
        | ({"additional_kwargs": reasoning} if reasoning else {}),
    }


ENDING = {
    "closes": "the body ends",
    "held_open": "the socket stays open (a client that waits for the end of the body hangs)",
    "no_terminal_event": "no terminal event: the gateway closes the stream",
}
REASONING_WAYS = {
    "summary": "a summary (reasoning_summary_text)",
    "reasoning_text": "raw reasoning_text",
    "none": "none seen (not a reasoning model, or no summary given)",
}
ARGUMENTS = {
    "in_pieces": "function_call items, arguments in deltas",
    "whole": "function_call items, arguments whole in one delta",
    "done_only": "function_call items, arguments only in .done (no deltas)",
    "none": "none called",
}
FINAL_OUTPUT = {
    "items": "the items",
    "empty": "empty (the items came only as events)",
    "none": "no output list",
}


def _end(report: Mapping[str, Any]) -> str:
    event = report["terminal_event"] or "no terminal event"
    status = f" (status {report['status']})" if report["status"] else ""
    ending = report["ending"]
    after = f", then {ENDING[ending]}" if ending and report["terminal_event"] else ""
    marker = "; data: [DONE] after it" if report["done_marker"] else ""
    return f"{event}{status}{after}{marker}"


def _reasoning(findings: ResponsesFindings) -> str:
    said = REASONING_WAYS[findings.reasoning]
    if findings.reasoning == "none":
        return said
    if findings.encrypted_content:
        said += ", encrypted_content on the item"
    return said + (" (switched on by reasoning)" if findings.reasoning_on_request else "")


def responses_human(report: Mapping[str, Any], findings: ResponsesFindings) -> list[str]:
    """The report as lines for a person: the findings, then the recommended settings."""
    rows = [
        ("protocol", "OpenAI Responses API"),
        ("content type", findings.content_type or "-"),
        ("end of stream", _end(report)),
        ("event: lines", EVENT_LINES[findings.event_lines]),
        ("sequence nos", "on every event" if findings.sequence_numbers else "not on every event"),
        ("usage", ", ".join(findings.usage) or "not reported"),
        ("final output", FINAL_OUTPUT[findings.final_output]),
        ("reasoning", _reasoning(findings)),
        ("tool calls", ARGUMENTS[findings.tool_arguments]),
        ("other events", ", ".join(findings.other_events) or "none"),
    ]
    return report_lines(report, rows, findings.failure)
