"""Answer one Gemini API request (``POST {root}/v1beta/models/{model}:<method>``).

The checks come in the API's order: the fault header and the key (``x-goog-api-key``, or the
``key`` query parameter; checked only with ``--api-key``, as every dialect's key), the body
(JSON, then the API's rules, :mod:`sse_emulator.assistant.gemini_rules`), a status fault in
Google's error body; then the whole response (``:generateContent``, or the ``json-body``
fault), the event stream (``:streamGenerateContent?alt=sse``) or the JSON array the API
streams without ``alt=sse``, each run with the same machinery as every other dialect.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from sse_emulator.assistant.gemini import answer
from sse_emulator.assistant.gemini_rules import BAD_REQUEST, check_gemini_rules
from sse_emulator.server.chat import ChatRequest, execute
from sse_emulator.server.checks import fault_problem
from sse_emulator.server.responses import Problem, Send, send_body, send_problem, start_stream
from sse_emulator.server.watcher import DisconnectWatcher
from sse_emulator.wire.dialects import gemini_call
from sse_emulator.wire.faults import Fault, FaultCounters, FaultError, first, parse_faults
from sse_emulator.wire.gemini import JSON_HEADERS, GeminiWriter, fault_error, pretty
from sse_emulator.wire.plan import Write, plan_stream

#: The faults a JSON-array stream takes: its framing is not an event stream's, so the
#: SSE framing faults (``crlf``, ``keepalive``, ``named-event``, ...) do not apply.
ARRAY_FAULTS = frozenset(
    {"truncate", "reset", "stall", "slow", "split-utf8", "hold-open", "burst", "error-frame"}
)
_UNREGISTERED = (
    "Method doesn't allow unregistered callers (callers without established identity). "
    "Please use API Key or other form of API consumer identity to call this API."
)
_BAD_KEY = "API key not valid. Please pass a valid API key."
_NOT_OAUTH = (
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
    "cookie or other valid authentication credential. See "
    "https://developers.google.com/identity/sign-in/web/devconsole-project."
)


async def answer_gemini(
    send: Send,
    request: ChatRequest,
    watcher: DisconnectWatcher,
    *,
    api_key: str | None,
    counters: FaultCounters,
) -> None:
    """Answer a Gemini request: an HTTP error, the whole response, or a stream.

    Args:
        send: The ASGI send callable.
        request: The request (its path names the model and the method).
        watcher: Notices the client leaving; sleeps end when it does.
        api_key: The key the client must present, if any.
        counters: The status-fault counters.
    """
    dialect = request.dialect
    model, method = gemini_call(request.path) or ("", "")
    checked = check_request(request.headers, request.query, request.raw, api_key, model)
    if isinstance(checked, Problem):
        await send_problem(send, dialect, checked)
        return
    body, faults = checked
    counted = fault_problem(faults, counters, request.fault_key)
    if counted is not None:
        await send_problem(send, dialect, as_gemini(counted, model))
        return
    said = answer(body, model)
    if method == "generateContent" or first(faults, "json-body") is not None:
        text = pretty(GeminiWriter(dialect, said).whole()) + "\n"
        await send_body(send, 200, text.encode("utf-8"), JSON_HEADERS[0][1], JSON_HEADERS[1:])
    elif parse_qs(request.query).get("alt") == ["sse"]:
        await start_stream(send, 200, dialect.headers)
        await execute(plan_stream(GeminiWriter(dialect, said), faults), send, watcher)
    else:  # the API's default for a stream: a JSON array written element by element
        await start_stream(send, 200, JSON_HEADERS)
        kept = tuple(fault for fault in faults if fault.name in ARRAY_FAULTS)
        writer = GeminiWriter(dialect, said, array=True)
        ops = [Write(data=b"["), *plan_stream(writer, kept, framing="verbatim")]
        await execute(ops, send, watcher)


def check_request(
    headers: Mapping[str, str], query: str, raw: bytes, api_key: str | None, model: str
) -> tuple[dict[str, Any], tuple[Fault, ...]] | Problem:
    """Check a Gemini request before answering it.

    Args:
        headers: Lowercased request headers.
        query: The raw query string.
        raw: The raw body.
        api_key: The key the client must present, if any.
        model: The model the URL names.

    Returns:
        The decoded body and the requested faults, or the :class:`Problem` to answer.
    """
    faults = check_key(headers, query, api_key)
    if isinstance(faults, Problem):
        return faults
    try:
        body = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return _invalid("Invalid JSON payload received. Unexpected token.", parser=True)
    if not isinstance(body, dict):
        message = 'Invalid JSON payload received. Unknown name "": Root element must be a message.'
        return _invalid(message, parser=True)
    refusal = check_gemini_rules(body, model)
    if refusal is not None:
        return Problem(
            status=400, message=refusal.message, kind="INVALID_ARGUMENT", details=refusal.details
        )
    return body, faults


def check_key(
    headers: Mapping[str, str], query: str, api_key: str | None
) -> tuple[Fault, ...] | Problem:
    """The fault header parses; with ``--api-key``, the key is the one, as Google checks it.

    Google takes the key in ``x-goog-api-key`` or as the ``key`` query parameter; a bearer
    token is read as an OAuth token, which an API key is not.

    Returns:
        The requested faults, or the :class:`Problem` to answer.
    """
    try:
        faults = parse_faults(headers.get("x-emulator-fault"))
    except FaultError as error:
        return _invalid(str(error))
    if api_key is None:
        return faults
    keys = parse_qs(query).get("key") or []
    given = headers.get("x-goog-api-key") or (keys[0] if keys else None)
    if given is None and headers.get("authorization", "").lower().startswith("bearer "):
        return Problem(status=401, message=_NOT_OAUTH, kind="UNAUTHENTICATED")
    if given is None:
        return Problem(status=403, message=_UNREGISTERED, kind="PERMISSION_DENIED")
    if given != api_key:
        return Problem(
            status=400, message=_BAD_KEY, kind="INVALID_ARGUMENT", details=_key_details()
        )
    return faults


def _key_details() -> tuple[dict[str, Any], ...]:
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
        "metadata": {"service": "generativelanguage.googleapis.com"},
    }
    localized = {
        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
        "locale": "en-US",
        "message": _BAD_KEY,
    }
    return (info, localized)


def as_gemini(problem: Problem, model: str) -> Problem:
    """A status fault's problem as the Gemini API words that status (no ``Retry-After``:
    the API says the delay in its body's ``RetryInfo``)."""
    if problem.html:
        return problem
    retry = next((value for key, value in problem.headers if key == "retry-after"), "")
    message, name, details = fault_error(problem.status, model, retry)
    headers = tuple(header for header in problem.headers if header[0] != "retry-after")
    return dataclasses.replace(
        problem, message=message, kind=name, details=details, headers=headers
    )


def _invalid(message: str, *, parser: bool = False) -> Problem:
    """A 400 ``INVALID_ARGUMENT``; the parser's own refusals name themselves in details."""
    details = (
        ({"@type": BAD_REQUEST, "fieldViolations": [{"description": message}]},) if parser else ()
    )
    return Problem(status=400, message=message, kind="INVALID_ARGUMENT", details=details)
