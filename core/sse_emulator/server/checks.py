"""Decide, before answering, whether a request gets an HTTP error instead.

In order: the fault header must parse; the API key must match when the emulator was
given one; SPASS wants its ``SPASS-User-Id`` header and no ``user_id`` elsewhere; the
body must be a JSON object with a non-empty ``messages`` list and keep OpenAI's rules
(:mod:`sse_emulator.assistant.chat_rules`); then any requested status fault (429, 503,
502, 401, 403, 404, 413, 500, 529) applies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from sse_emulator.assistant.chat_rules import check_chat_rules
from sse_emulator.schemas import first_issue
from sse_emulator.schemas.wording import openai_refusal
from sse_emulator.server.responses import Problem
from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.faults import (
    Fault,
    FaultCounters,
    FaultError,
    parse_faults,
    status_fault,
)

SPASS_USER_HEADER = "spass-user-id"


def parse_request(
    dialect: Dialect,
    headers: Mapping[str, str],
    query: str,
    raw: bytes,
    api_key: str | None,
    *,
    strict: bool = False,
) -> tuple[dict[str, Any], tuple[Fault, ...]] | Problem:
    """Validate a chat request.

    Args:
        dialect: The dialect serving the path.
        headers: Lowercased request headers (last value wins).
        query: The raw query string.
        raw: The raw body.
        api_key: The key the client must present as a bearer token, if any.
        strict: Check the body against the published request type too.

    Returns:
        The decoded body and the requested faults, or the :class:`Problem` to answer.
    """
    faults = check_access(headers, api_key)
    if isinstance(faults, Problem):
        return faults
    body = parse_body(dialect, headers, query, raw, strict=strict)
    return body if isinstance(body, Problem) else (body, faults)


def check_access(
    headers: Mapping[str, str], api_key: str | None, *, x_api_key: bool = False
) -> tuple[Fault, ...] | Problem:
    """Check what comes before the body: the fault header parses, the key matches.

    Args:
        headers: Lowercased request headers.
        api_key: The key the client must present as a bearer token, if any.
        x_api_key: Accept the key in ``x-api-key`` too (Anthropic's header).

    Returns:
        The requested faults, or the :class:`Problem` to answer.
    """
    try:
        faults = parse_faults(headers.get("x-emulator-fault"))
    except FaultError as error:
        return Problem(
            status=400, message=str(error), kind="invalid_request_error", code="invalid_fault"
        )
    bearer = api_key is None or headers.get("authorization") == f"Bearer {api_key}"
    if not bearer and not (x_api_key and headers.get("x-api-key") == api_key):
        return _unauthorized()
    return faults


def parse_body(
    dialect: Dialect, headers: Mapping[str, str], query: str, raw: bytes, *, strict: bool = False
) -> dict[str, Any] | Problem:
    """Decode the body: a JSON object with a non-empty ``messages`` list (and SPASS's rules),
    of the published request type when ``strict``, that keeps OpenAI's rules.

    Args:
        dialect: The dialect serving the path.
        headers: Lowercased request headers.
        query: The raw query string.
        raw: The raw body.
        strict: Check the body against openai-python's ``CompletionCreateParams``.

    Returns:
        The decoded body, or the :class:`Problem` to answer.
    """
    try:
        body = json.loads(raw)
    except ValueError as error:
        message = f"expected a JSON object as the request body, got invalid JSON ({error})"
        return Problem(
            status=400, message=message, kind="invalid_request_error", code="invalid_json"
        )
    if dialect.name == "spass" and (problem := _spass_user(headers, query, body)):
        return problem
    if not isinstance(body, dict) or not _messages_ok(body.get("messages")):
        message = "expected 'messages' to be a non-empty list of message objects"
        return Problem(
            status=400, message=message, kind="invalid_request_error", code="invalid_messages"
        )
    issue = first_issue("chat", body) if strict else None
    if issue is not None:
        message, param, code = openai_refusal(issue)
        return Problem(
            status=400, message=message, kind="invalid_request_error", code=code, param=param
        )
    refusal = check_chat_rules(body)
    if refusal is not None:
        return Problem(
            status=400,
            message=refusal.message,
            kind="invalid_request_error",
            code=refusal.code,
            param=refusal.param,
        )
    return body


def _messages_ok(messages: Any) -> bool:
    return (
        isinstance(messages, list)
        and bool(messages)
        and all(isinstance(message, dict) for message in messages)
    )


def _spass_user(headers: Mapping[str, str], query: str, body: Any) -> Problem | None:
    """SPASS Cut 2.23c: the user id travels in the header, and only there."""
    if (isinstance(body, dict) and "user_id" in body) or "user_id" in parse_qs(query):
        message = "user_id is not accepted in the body or query; send the SPASS-User-Id header"
    elif not headers.get(SPASS_USER_HEADER, "").strip():
        message = "missing SPASS-User-Id header; it is mandatory on user-scoped endpoints"
    else:
        return None
    return Problem(status=400, message=message, kind="invalid_request_error", code="invalid_field")


def _unauthorized() -> Problem:
    return Problem(
        status=401,
        message="Incorrect API key provided. Check the key sent as 'Authorization: Bearer'.",
        kind="invalid_request_error",
        code="invalid_api_key",
    )


#: What each status fault answers: status, message, error type and code.
_STATUS_ANSWERS: dict[str, tuple[int, str, str, str]] = {
    "rate-limit": (
        429,
        "Rate limit reached; retry after the delay given.",
        "rate_limit_error",
        "rate_limit_exceeded",
    ),
    "unavailable": (
        503,
        "The gateway is temporarily unavailable.",
        "server_error",
        "service_unavailable",
    ),
    "bad-gateway": (
        502,
        "Bad gateway: the upstream provider did not answer.",
        "upstream_error",
        "bad_gateway",
    ),
    "forbidden": (
        403,
        "The API key is not allowed to use this model.",
        "permission_error",
        "forbidden",
    ),
    "not-found": (404, "The model was not found.", "not_found_error", "model_not_found"),
    "too-large": (
        413,
        "The request is larger than the gateway accepts.",
        "invalid_request_error",
        "request_too_large",
    ),
    "server-error": (
        500,
        "The server had an error while processing your request.",
        "server_error",
        "internal_error",
    ),
    "overloaded": (529, "Overloaded", "overloaded_error", "overloaded"),
}


def fault_problem(
    faults: tuple[Fault, ...], counters: FaultCounters, default_key: str
) -> Problem | None:
    """The HTTP error a status fault asks for, if one applies to this request.

    Args:
        faults: The requested faults.
        counters: The per-key request counts (so ``count=N`` lets retries through).
        default_key: The counting key when the fault names none (path and body).

    Returns:
        The problem to answer with, or ``None``.
    """
    fault = status_fault(faults, counters, default_key)
    if fault is None:
        return None
    if fault.name == "unauthorized":
        return _unauthorized()
    html = fault.name == "bad-gateway-html"
    status, message, kind, code = _STATUS_ANSWERS["bad-gateway" if html else fault.name]
    retry = str(fault.params.get("retry-after", ""))
    headers = (("retry-after", retry),) if retry else ()
    return Problem(status=status, message=message, kind=kind, code=code, headers=headers, html=html)
