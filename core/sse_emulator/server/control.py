"""The emulator's own endpoints: the record, a reset, health, models and ASGI lifespan.

``GET /_emulator/requests`` lists the record, ``POST /_emulator/reset`` clears it (and
the fault counters), ``GET /_emulator/health`` names each dialect's base path and the
published request types checked (``schemas``: None when the emulator is not strict), and
``GET <base>/models`` lists the model ids clients may ask for.
"""

from __future__ import annotations

from typing import Any

from sse_emulator.assistant.reply import CREATED
from sse_emulator.schemas.published import SOURCES, source
from sse_emulator.server.responses import Problem, Receive, Send, send_json, send_problem
from sse_emulator.server.state import EmulatorState
from sse_emulator.wire.dialects import ALL_DIALECTS, OPENAI, base_path

#: The model ids ``GET /v1/models`` lists (the second one thinks).
MODELS = ("emulator", "emulator-think")


async def control(
    send: Send, path: str, method: str, state: EmulatorState, *, strict: bool = False
) -> None:
    """Answer a ``/_emulator/...`` request.

    Args:
        send: The ASGI send callable.
        path: The request path.
        method: The HTTP method.
        state: The emulator's state (record and counters).
        strict: Requests are checked against the published types (health names them).
    """
    if path == "/_emulator/requests" and method == "GET":
        records = [record.to_dict() for record in state.recorder.records()]
        await send_json(send, 200, {"requests": records})
    elif path == "/_emulator/reset" and method == "POST":
        state.reset()
        await send_json(send, 200, {"ok": True})
    elif path == "/_emulator/health" and method == "GET":
        bases = {name: base_path(dialect) for name, dialect in ALL_DIALECTS.items()}
        await send_json(send, 200, {"ok": True, "dialects": bases, "schemas": _schemas(strict)})
    else:
        problem = Problem(
            status=404,
            message=f"no such control endpoint: {method} {path}",
            kind="invalid_request_error",
            code="not_found",
        )
        await send_problem(send, OPENAI, problem)


def _schemas(strict: bool) -> dict[str, str | None] | None:
    """Each API's published request type checked, with its SDK's version (None: none)."""
    return {api: source(api) for api in SOURCES} if strict else None


def models() -> dict[str, Any]:
    """The body of ``GET <base>/models``."""
    data = [
        {"id": m, "object": "model", "created": CREATED, "owned_by": "sse-connectors"}
        for m in MODELS
    ]
    return {"object": "list", "data": data}


async def lifespan(receive: Receive, send: Send) -> None:
    """Acknowledge ASGI lifespan startup and shutdown (there is nothing to set up)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
