"""Answer one chat request from the rule-based assistant.

The request gets an HTTP error (a failed check or a status fault), a JSON completion
(``stream`` not true, or the ``json-body`` fault), SPASS's 502 for ``error-frame``, or a
planned stream whose writes are executed while the client is watched for leaving.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sse_emulator.assistant.reply import Reply
from sse_emulator.assistant.respond import respond
from sse_emulator.server.checks import fault_problem, parse_request
from sse_emulator.server.responses import (
    Headers,
    Problem,
    Send,
    send_json,
    send_problem,
    start_stream,
)
from sse_emulator.server.watcher import DisconnectWatcher
from sse_emulator.wire.anthropic import request_id
from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.faults import FaultCounters, first
from sse_emulator.wire.plan import Abort, Op, Sleep, Write, plan_stream
from sse_emulator.wire.render import ChunkWriter, completion_body

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10
    from typing_extensions import assert_never


class ConnectionAbort(Exception):
    """Raised by the app to drop a connection mid-body (the ``reset`` fault)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatRequest:
    """A request to a chat path, as the app read it.

    Attributes:
        path: The URL path.
        query: The raw query string.
        headers: Lowercased header names with their (unmasked) values; the last wins.
        raw: The raw body.
        dialect: The dialect serving the path.
        arrived: ``time.monotonic()`` when the request was read.
    """

    path: str
    query: str
    headers: Mapping[str, str]
    raw: bytes
    dialect: Dialect
    arrived: float

    @property
    def request_id(self) -> str:
        """An id for this request (Anthropic's ``request-id``), unique per arrival."""
        return request_id(f"{self.arrived!r}\n{self.path}\n{len(self.raw)}")

    @property
    def fault_key(self) -> str:
        """The default counting key of status faults: the same path and body."""
        return f"{self.path}\n{self.raw!r}"


async def answer_chat(
    send: Send,
    request: ChatRequest,
    watcher: DisconnectWatcher,
    *,
    api_key: str | None,
    counters: FaultCounters,
    strict: bool = False,
) -> None:
    """Answer a chat request: an HTTP error, a JSON completion, or a stream.

    Args:
        send: The ASGI send callable.
        request: The request.
        watcher: Notices the client leaving; sleeps end when it does.
        api_key: The key the client must present, if any.
        counters: The status-fault counters.
        strict: Check the body against the published request type.
    """
    dialect = request.dialect
    parsed = parse_request(
        dialect, request.headers, request.query, request.raw, api_key, strict=strict
    )
    if isinstance(parsed, Problem):
        await send_problem(send, dialect, parsed)
        return
    body, faults = parsed
    counted = fault_problem(faults, counters, request.fault_key)
    if counted is not None:
        await send_problem(send, dialect, counted)
        return
    reply = respond(body)
    extra = _extra_headers(dialect, request.path, reply)
    streaming = body.get("stream") is True
    if streaming and dialect.mid_stream_error == "http502" and first(faults, "error-frame"):
        await send_problem(send, dialect, _upstream_502(dialect, extra))
    elif not streaming or first(faults, "json-body") is not None:
        think = first(faults, "think-tags") is not None
        await send_json(send, 200, completion_body(dialect, reply, think_tags=think), extra)
    else:
        writer = ChunkWriter(dialect, reply, include_usage=_include_usage(body))
        await start_stream(send, 200, dialect.headers + extra)
        await execute(plan_stream(writer, faults), send, watcher)


def _include_usage(body: dict[str, Any]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


def _upstream_502(dialect: Dialect, extra: Headers) -> Problem:
    """SPASS fails a stream with an HTTP 502 instead of an error frame."""
    return Problem(
        status=502,
        message=str((dialect.stream_error or {})["message"]),
        kind="upstream_error",
        code="upstream_unavailable",
        headers=extra,
    )


async def execute(ops: list[Op], send: Send, watcher: DisconnectWatcher) -> None:
    """Run a stream plan; stop writing as soon as the client is gone."""
    for op in ops:
        if watcher.gone:
            return
        match op:
            case Write(data=data):
                await send({"type": "http.response.body", "body": data, "more_body": True})
            case Sleep(seconds=seconds):
                await watcher.sleep(seconds)
            case Abort():
                raise ConnectionAbort("reset fault: dropping the connection mid-event")
            case _:
                assert_never(op)
    if watcher.gone:
        return
    watcher.end()
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def _extra_headers(dialect: Dialect, path: str, reply: Reply) -> Headers:
    """Per-response headers: SPASS's markers and conversation id, OpenAI's request id."""
    if dialect.name == "spass":
        applied = ("x-rust-api-applied", "true")
        if path.rstrip("/").endswith("/c1/chat"):
            return (applied, ("x-conversation-id", f"conv_{reply.digest[:24]}"))
        return (applied,)
    if dialect.name == "openai":
        return (("x-request-id", f"req_{reply.digest[:24]}"),)
    return ()
