"""The probe's report: what it found, in words or as one JSON object, and the ``ChatSSE``
and ``SSELLM`` settings that fit the gateway."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sse_chat.probe.analyse import Failure, Findings
from sse_chat.probe.steps import Target
from sse_core import (
    GatewayConnectionError,
    GatewayHTTPError,
    SSEConnectorError,
    StreamTimeoutError,
    UnexpectedResponseError,
)
from sse_core.protocols import request_shape
from sse_core.transport.config import SECRET_HEADERS, public_url
from sse_core.transport.wire import default_path

__all__ = [
    "as_json",
    "call",
    "fatal_line",
    "headers_worth_keeping",
    "human",
    "one_line",
    "protocol_settings",
    "recommended",
    "recommended_llamaindex",
    "report_lines",
]

_SECRET_NAME = re.compile(r"key|token|secret|password|auth", re.I)
_MASK = "***"  # as the core masks a secret
_NOT_SETTINGS = frozenset({"x-emulator-fault"})
USAGE = {
    "chunk": 'in a last chunk with "choices": []',
    "final_chunk": "on the chunk with the finish reason",
    "every_chunk": "on every chunk (running totals)",
    "named_event": "in a named SSE event",
    "x_groq": "in x_groq.usage",
    "none": "not reported",
}
TOOLS = {
    "by_index": "by index, arguments in pieces",
    "whole": "whole: each call complete in one chunk",
    "no_index": "in pieces without an index",
    "none": "none called",
}


def headers_worth_keeping(target: Target) -> dict[str, str]:
    """The headers worth keeping as settings: no credential, no emulator fault; a --header's
    value shown as ``***`` (every one is a secret: the report names it, the user has it)."""
    return {
        name: _MASK if name.lower() in target.secret_headers else value
        for name, value in target.headers.items()
        if name.lower() not in SECRET_HEADERS | _NOT_SETTINGS and not _SECRET_NAME.search(name)
    }


def protocol_settings(target: Target) -> dict[str, Any]:
    """The ``ChatSSE`` and ``SSELLM`` keyword arguments a gateway of a protocol other than
    the default needs, which both adapters share (the key aside): its protocol, and its path
    and auth where they are not the protocol's own."""
    settings: dict[str, Any] = {
        "model": target.model,
        "base_url": target.base_url,
        "protocol": target.protocol,
    }
    if target.path != default_path(target.protocol, target.base_url.rstrip("/")):
        settings["path"] = target.path
    if target.auth is not None and target.auth != request_shape(target.protocol).auth:
        settings["auth"] = target.auth
    if headers := headers_worth_keeping(target):
        settings["default_headers"] = headers
    return settings


def _common(findings: Findings, target: Target) -> dict[str, Any]:
    settings: dict[str, Any] = {"model": target.model, "base_url": target.base_url}
    if target.path != "/chat/completions":
        settings["path"] = target.path
    if headers := headers_worth_keeping(target):
        settings["default_headers"] = headers
    return settings


_ENABLE_THINKING = {"chat_template_kwargs": {"enable_thinking": True}}


def recommended(findings: Findings, target: Target) -> dict[str, Any]:
    """``ChatSSE`` keyword arguments for this gateway (the key aside: api_key or SSE_API_KEY)."""
    settings = _common(findings, target)
    settings["stream_usage"] = findings.include_usage_accepted
    if findings.thinking_switch == "reasoning_effort":
        settings["reasoning_effort"] = "low"
    elif findings.thinking_switch == "chat_template_kwargs":
        settings["extra_body"] = _ENABLE_THINKING
    return settings


def recommended_llamaindex(findings: Findings, target: Target) -> dict[str, Any]:
    """``SSELLM`` keyword arguments for this gateway."""
    settings = _common(findings, target)
    settings["include_usage"] = findings.include_usage_accepted
    if findings.thinking_switch == "reasoning_effort":
        settings["reasoning_effort"] = "low"  # SSELLM's own field, as ChatSSE's
    elif findings.thinking_switch == "chat_template_kwargs":
        settings["extra_body"] = _ENABLE_THINKING
    return settings


def as_json(
    findings: Findings, target: Target, *, requests: int, errors: Mapping[str, SSEConnectorError]
) -> dict[str, Any]:
    """The findings as one JSON-ready object."""
    failure = findings.failure
    return {
        "url": public_url(target.base_url + target.path),
        "model": target.model,
        "protocol": target.protocol,
        "requests": requests,
        "content_type": findings.content_type,
        "done_sentinel": findings.done_sentinel,
        "finish_reason": findings.finish_reason,
        "chunk_object": findings.chunk_object,
        "usage": findings.usage,
        "include_usage_accepted": findings.include_usage_accepted,
        "reasoning_field": findings.reasoning_field,
        "thinking_switch": findings.thinking_switch,
        "tool_calls": findings.tool_calls,
        "named_events": list(findings.named_events),
        "error_response": None
        if failure is None
        else {
            "status": failure.status,
            "content_type": failure.content_type,
            "json_error": failure.json_error,
            "message": failure.message,
        },
        "step_errors": {s: one_line(e) for s, e in errors.items() if s != "failure"},
        "recommended": recommended(findings, target),
        "recommended_llamaindex": recommended_llamaindex(findings, target),
    }


def one_line(error: SSEConnectorError) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


def fatal_line(error: SSEConnectorError, timeout: float) -> str:
    """One line for a gateway the probe could not talk to at all."""
    said = " ".join(str(error).split())
    if isinstance(error, GatewayConnectionError):
        return f"unreachable: {said}"
    if isinstance(error, StreamTimeoutError):
        return f"no answer within the {timeout:g} s timeout: {said}"
    if isinstance(error, UnexpectedResponseError):
        return f"not an SSE chat gateway: {said}"
    if isinstance(error, GatewayHTTPError):
        return f"the first request was refused: {said}"
    return f"the first request failed: {one_line(error)}"


def _reasoning(findings: Findings) -> str:
    field = findings.reasoning_field
    if field is None:
        return "none seen (hidden by the gateway, or not a reasoning model)"
    where = (
        "<think> tags at the start of the content" if field == "think_tags" else f"delta.{field}"
    )
    switch = findings.thinking_switch
    return f"{where} (switched on by {switch})" if switch else where


def call(name: str, settings: Mapping[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in settings.items()) + ")"


def human(report: Mapping[str, Any], findings: Findings) -> list[str]:
    """The report as lines for a person: the findings, then the recommended settings."""
    accepted = "accepted" if findings.include_usage_accepted else "rejected"
    failure = findings.failure
    rows = [
        ("content type", findings.content_type or "-"),
        (
            "end of stream",
            "data: [DONE]"
            if findings.done_sentinel
            else "no [DONE]: the gateway closes the stream",
        ),
        ("finish reason", "sent" if findings.finish_reason else "never sent"),
        ("chunk object", findings.chunk_object or "-"),
        ("usage", f"{USAGE[findings.usage]} (stream_options.include_usage {accepted})"),
        ("reasoning", _reasoning(findings)),
        ("tool calls", TOOLS[findings.tool_calls]),
        ("named events", ", ".join(findings.named_events) or "none"),
    ]
    return report_lines(report, rows, failure)


def report_lines(
    report: Mapping[str, Any], rows: list[tuple[str, str]], failure: Failure | None
) -> list[str]:
    """A probe's report for a person, whatever the protocol: the URL and model, the rows of
    findings, the bad request's answer and each step's error, then the recommended
    settings."""
    if failure is not None:
        said = f": {failure.message}" if failure.message else ""
        rows = [*rows, ("a bad request", f"HTTP {failure.status} {failure.content_type}{said}")]
    rows = rows + [
        (f"{step} request", said)
        for step, said in report["step_errors"].items()
        if step != "failure"
    ]
    lines = [f"probed {report['url']} (model {report['model']}, {report['requests']} requests)"]
    lines += [f"  {label:<14} {text}" for label, text in rows]
    lines += [
        "recommended settings (the key: api_key=... or SSE_API_KEY):",
        "  " + call("ChatSSE", report["recommended"]),
        "  " + call("SSELLM", report["recommended_llamaindex"]),
    ]
    return lines
