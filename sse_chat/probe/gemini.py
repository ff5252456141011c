"""What a Gemini API gateway's recorded answers show, and the report of it.

Pure, as :mod:`.analyse`: recorded exchanges in, :class:`GeminiFindings` out. The traits are
those a client of the stream needs: the content type, how a stream ends (a ``finishReason``
and no end marker, or a relay's ``data: [DONE]``), the usage counts, whether thought summaries
come when asked, whether parts carry thought signatures (which must go back byte-exact), and
how function calls come.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sse_chat.probe.analyse import Exchange
from sse_chat.probe.report import one_line, protocol_settings, report_lines
from sse_chat.probe.steps import Probe, Target
from sse_core.transport.config import public_url

__all__ = ["GeminiFindings", "find_gemini", "gemini_report"]


@dataclass(frozen=True, slots=True, kw_only=True)
class GeminiFindings:
    """What the probe found of a Gemini API gateway (``--json`` names them the same)."""

    content_type: str
    finish_reason: str | None
    done_marker: bool
    usage: tuple[str, ...]
    thoughts: bool
    signatures: bool
    tool_calls: bool


def _parts(answers: Iterable[Exchange]) -> Iterator[Mapping[str, Any]]:
    for answer in answers:
        for _, data in answer.payloads:
            candidates = data.get("candidates") if isinstance(data, Mapping) else None
            for candidate in candidates if isinstance(candidates, list) else ():
                content = candidate.get("content") if isinstance(candidate, Mapping) else None
                parts = content.get("parts") if isinstance(content, Mapping) else None
                yield from (p for p in parts or () if isinstance(p, Mapping))


def _finish(answers: Iterable[Exchange]) -> str | None:
    found = None
    for answer in answers:
        for _, data in answer.payloads:
            for candidate in (data.get("candidates") or []) if isinstance(data, Mapping) else ():
                if isinstance(candidate, Mapping) and candidate.get("finishReason"):
                    found = str(candidate["finishReason"])
    return found


def _usage(answers: Sequence[Exchange]) -> tuple[str, ...]:
    counts: dict[str, Any] = {}
    for answer in answers:
        for _, data in answer.payloads:
            usage = data.get("usageMetadata") if isinstance(data, Mapping) else None
            counts = dict(usage) if isinstance(usage, Mapping) else counts
    return tuple(sorted(name for name, value in counts.items() if isinstance(value, int)))


def find_gemini(steps: Mapping[str, Sequence[Exchange]]) -> GeminiFindings:
    """The findings from every step's exchanges (steps ``plain``, ``thinking``, ``tools``; a
    step may be missing)."""
    plain = steps.get("plain", ())
    everything = [answer for answers in steps.values() for answer in answers]
    return GeminiFindings(
        content_type=plain[-1].headers.get("content-type", "") if plain else "",
        finish_reason=_finish(plain),
        done_marker=any(answer.done for answer in everything),
        usage=_usage(plain),
        thoughts=any(p.get("thought") is True for p in _parts(steps.get("thinking", ()))),
        signatures=any("thoughtSignature" in p for p in _parts(everything)),
        tool_calls=any("functionCall" in p for p in _parts(steps.get("tools", ()))),
    )


def gemini_report(probe: Probe, target: Target) -> tuple[dict[str, Any], list[str]]:
    """The report as one JSON-ready object, and as lines for a person."""
    found = find_gemini(probe.exchanges)
    settings = protocol_settings(target)
    report: dict[str, Any] = {
        "url": public_url(target.base_url + target.path),
        "model": target.model,
        "protocol": target.protocol,
        "requests": probe.requests,
        "content_type": found.content_type,
        "finish_reason": found.finish_reason,
        "done_marker": found.done_marker,
        "usage": list(found.usage),
        "thoughts": found.thoughts,
        "signatures": found.signatures,
        "tool_calls": found.tool_calls,
        "step_errors": {step: one_line(error) for step, error in probe.errors.items()},
        "recommended": settings,
        "recommended_llamaindex": settings,
    }
    marker = "; data: [DONE] after it (a relay's)" if found.done_marker else ""
    rows = [
        ("protocol", "Google's Gemini API"),
        ("content type", found.content_type or "-"),
        ("end of stream", f"finishReason {found.finish_reason or 'never sent'}{marker}"),
        ("usage", ", ".join(found.usage) or "not reported"),
        ("thoughts", "summaries when asked" if found.thoughts else "none seen"),
        ("signatures", "thoughtSignature on parts" if found.signatures else "none seen"),
        ("tool calls", "functionCall parts" if found.tool_calls else "none called"),
    ]
    return report, report_lines(report, rows, None)
