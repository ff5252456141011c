"""Answer one OpenAI Responses API request (``POST /v1/responses``) from the assistant.

The checks come in the API's order: the fault header and the bearer key, the body (JSON,
then the API's rules, :mod:`sse_emulator.assistant.responses_rules`), a status fault; then
the response is stored (unless ``store`` is false) so a later ``previous_response_id``
finds it, and sent whole (``stream`` not true, or the ``json-body`` fault) or as a planned
stream run with the same machinery as every other dialect.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sse_emulator.assistant.conversations import ResponseStore
from sse_emulator.assistant.responses import answer
from sse_emulator.assistant.responses_rules import check_responses_rules
from sse_emulator.server.chat import ChatRequest, execute
from sse_emulator.server.checks import check_access, fault_problem
from sse_emulator.server.responses import Problem, Send, send_json, send_problem, start_stream
from sse_emulator.server.watcher import DisconnectWatcher
from sse_emulator.wire.faults import Fault, FaultCounters, first
from sse_emulator.wire.openai_responses import ResponsesWriter
from sse_emulator.wire.plan import plan_stream


async def answer_responses(
    send: Send,
    request: ChatRequest,
    watcher: DisconnectWatcher,
    *,
    api_key: str | None,
    counters: FaultCounters,
    stored: ResponseStore,
    strict: bool = False,
) -> None:
    """Answer a Responses request: an HTTP error, the whole response, or a stream.

    Args:
        send: The ASGI send callable.
        request: The request.
        watcher: Notices the client leaving; sleeps end when it does.
        api_key: The key the client must present as a bearer token, if any.
        counters: The status-fault counters.
        stored: The stored responses (read by ``previous_response_id``, written unless
            ``store`` is false).
        strict: Check the body against the published request type.
    """
    dialect = request.dialect
    checked = check_request(request.headers, request.raw, api_key, stored, strict=strict)
    if isinstance(checked, Problem):
        await send_problem(send, dialect, checked)
        return
    body, faults = checked
    counted = fault_problem(faults, counters, request.fault_key)
    if counted is not None:
        await send_problem(send, dialect, counted)
        return
    history = stored.get(body.get("previous_response_id"))
    said = answer(body, history)
    if body.get("store") is not False:
        stored.put(said.stored(history))
    writer = ResponsesWriter(dialect, said, faults)
    headers = (("x-request-id", f"req_{said.id[5:37]}"),)
    if body.get("stream") is not True or first(faults, "json-body") is not None:
        await send_json(send, 200, writer.whole(), headers)
        return
    await start_stream(send, 200, dialect.headers + headers)
    # The writer places its own error event (with its sequence number), so the plan
    # does not add the generic one.
    planned = tuple(fault for fault in faults if fault.name != "error-frame")
    await execute(plan_stream(writer, planned), send, watcher)


def check_request(
    headers: Mapping[str, str],
    raw: bytes,
    api_key: str | None,
    stored: ResponseStore,
    *,
    strict: bool = False,
) -> tuple[dict[str, Any], tuple[Fault, ...]] | Problem:
    """Check a Responses request before answering it.

    Args:
        headers: Lowercased request headers.
        raw: The raw body.
        api_key: The key the client must present, if any.
        stored: The stored responses.
        strict: Check the body against the published request type too.

    Returns:
        The decoded body and the requested faults, or the :class:`Problem` to answer.
    """
    faults = check_access(headers, api_key)
    if isinstance(faults, Problem):
        return faults
    try:
        body = json.loads(raw)
    except ValueError as error:
        message = f"expected a JSON object as the request body, got invalid JSON ({error})"
        return Problem(
            status=400, message=message, kind="invalid_request_error", code="invalid_json"
        )
    if not isinstance(body, dict):
        message = f"expected a JSON object as the request body, got {type(body).__name__}"
        return Problem(
            status=400, message=message, kind="invalid_request_error", code="invalid_json"
        )
    refusal = check_responses_rules(body, stored, strict=strict)
    if refusal is not None:
        return Problem(
            status=refusal.status,
            message=refusal.message,
            kind="invalid_request_error",
            code=refusal.code,
            param=refusal.param,
        )
    return body, faults
