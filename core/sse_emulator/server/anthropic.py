"""Answer one Anthropic Messages request (``POST /v1/messages``) from the assistant.

The checks come in the API's order: the fault header and the key (``x-api-key``, or a
bearer token), the ``anthropic-version`` header, the body; then a status fault, the whole
message (``stream`` not true, or the ``json-body`` fault), or a planned stream run with
the same machinery as every chat dialect.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sse_emulator.assistant.anthropic import answer, check_body
from sse_emulator.server.chat import ChatRequest, execute
from sse_emulator.server.checks import check_access, fault_problem
from sse_emulator.server.responses import Problem, Send, send_json, send_problem, start_stream
from sse_emulator.server.watcher import DisconnectWatcher
from sse_emulator.wire.anthropic import VARIANTS, MessagesWriter
from sse_emulator.wire.faults import Fault, FaultCounters, first
from sse_emulator.wire.plan import plan_stream

VERSION_HEADER = "anthropic-version"


async def answer_messages(
    send: Send,
    request: ChatRequest,
    watcher: DisconnectWatcher,
    *,
    api_key: str | None,
    counters: FaultCounters,
    strict: bool = False,
) -> None:
    """Answer a Messages request: an HTTP error, the whole message, or a stream.

    Args:
        send: The ASGI send callable (the app adds the ``request-id`` header).
        request: The request.
        watcher: Notices the client leaving; sleeps end when it does.
        api_key: The key the client must present, if any.
        counters: The status-fault counters.
        strict: Check the body against the published request type.
    """
    dialect = request.dialect
    checked = check_request(request.headers, request.raw, api_key, strict=strict)
    if isinstance(checked, Problem):
        await send_problem(send, dialect, checked, request_id=request.request_id)
        return
    body, faults = checked
    counted = fault_problem(faults, counters, request.fault_key)
    if counted is not None:
        await send_problem(send, dialect, counted, request_id=request.request_id)
        return
    variants = frozenset(fault.name for fault in faults) & VARIANTS
    writer = MessagesWriter(dialect, answer(body), variants)
    if body.get("stream") is not True or first(faults, "json-body") is not None:
        await send_json(send, 200, writer.message())
    else:
        await start_stream(send, 200, dialect.headers)
        await execute(plan_stream(writer, faults), send, watcher)


def check_request(
    headers: Mapping[str, str], raw: bytes, api_key: str | None, *, strict: bool = False
) -> tuple[dict[str, Any], tuple[Fault, ...]] | Problem:
    """Check a Messages request before answering it.

    Args:
        headers: Lowercased request headers.
        raw: The raw body.
        api_key: The key the client must present, if any.
        strict: Check the body against the published request type too.

    Returns:
        The decoded body and the requested faults, or the :class:`Problem` to answer.
    """
    faults = check_access(headers, api_key, x_api_key=True)
    if isinstance(faults, Problem):
        return faults
    if not headers.get(VERSION_HEADER, "").strip():
        return _invalid(f"{VERSION_HEADER}: header is required")
    try:
        body = json.loads(raw)
    except ValueError as error:
        return _invalid(f"There was an error parsing the body: {error}")
    wrong = check_body(body, strict=strict)
    return _invalid(wrong) if wrong is not None else (body, faults)


def _invalid(message: str) -> Problem:
    return Problem(status=400, message=message, kind="invalid_request_error")
