"""The emulator's raw ASGI application: routing and recording every request.

No web framework: ``__call__`` reads the body, serves the ``/_emulator/`` control
endpoints, records every other request, and routes it to the models list, an HTTP
error, or a chat answer: from the assistant (:mod:`.chat`) or, when the app replays a
recording, the next recorded response (:mod:`sse_emulator.replay.player`).
"""

from __future__ import annotations

import time

from sse_emulator.replay.player import exhausted, pick, play
from sse_emulator.replay.recording import Recording
from sse_emulator.server.anthropic import answer_messages
from sse_emulator.server.chat import ChatRequest, answer_chat
from sse_emulator.server.checks import check_access, fault_problem
from sse_emulator.server.control import control, lifespan, models
from sse_emulator.server.gemini import answer_gemini, as_gemini, check_key
from sse_emulator.server.openai_responses import answer_responses
from sse_emulator.server.record import Recorder, mask, mask_query
from sse_emulator.server.responses import (
    BodyTooLarge,
    Headers,
    Message,
    Problem,
    Receive,
    Scope,
    Send,
    read_body,
    send_body,
    send_json,
    send_problem,
)
from sse_emulator.server.state import EmulatorState
from sse_emulator.server.watcher import DisconnectWatcher
from sse_emulator.wire import gemini
from sse_emulator.wire.dialects import DIALECTS, OPENAI, Dialect, gemini_call, route

#: The largest request body accepted (bytes).
MAX_BODY = 8 << 20


class EmulatorApp:
    """The ASGI application serving every dialect."""

    def __init__(
        self,
        state: EmulatorState | None = None,
        *,
        default_dialect: str = "openai",
        api_key: str | None = None,
        replay: Recording | None = None,
        replay_timing: bool = False,
        strict: bool = False,
    ) -> None:
        """Create the app.

        Args:
            state: Shared state; a fresh one by default.
            default_dialect: The dialect of the unprefixed ``/v1/chat/completions``.
            api_key: When set, chat requests must send ``Authorization: Bearer <key>``.
            replay: Answer chat requests with this recording instead of the assistant.
            replay_timing: Keep the recording's timing (else as fast as possible).
            strict: Check each request against its provider's published request type
                (:mod:`sse_emulator.schemas`).
        """
        self.state: EmulatorState = state or EmulatorState()
        self.default: Dialect = DIALECTS[default_dialect]
        self.api_key = api_key
        self.replay = replay
        self.replay_timing = replay_timing
        self.strict = strict

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope (``http``; ``lifespan`` is acknowledged)."""
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            raw = await read_body(receive, MAX_BODY)
        except BodyTooLarge as error:
            await send_problem(
                send, OPENAI, Problem(status=413, message=str(error), kind="invalid_request_error")
            )
            return
        if raw is not None:
            await self._route(scope, receive, send, raw)

    async def _route(self, scope: Scope, receive: Receive, send: Send, raw: bytes) -> None:
        """Serve the control endpoints unrecorded; record everything else, then answer it."""
        if scope["path"].startswith("/_emulator/"):
            await control(send, scope["path"], scope["method"], self.state, strict=self.strict)
            return
        dialect = route(scope["path"], default=self.default)
        request = ChatRequest(
            path=scope["path"],
            query=scope.get("query_string", b"").decode("latin-1"),
            headers=dict(_headers(scope)),
            raw=raw,
            dialect=dialect or OPENAI,
            arrived=time.monotonic(),
        )
        index = self._record(scope, request, dialect)
        send = _recording(send, self.state.recorder, index)
        if request.dialect.protocol == "anthropic":
            send = _with_request_id(send, request.request_id)
        try:
            if dialect is not None and scope["method"] == "POST":

                def on_disconnect() -> None:
                    self.state.recorder.mark_disconnected(index)

                stopping = self.state.stopping
                async with DisconnectWatcher(receive, on_disconnect, stopping) as watcher:
                    await self._chat(send, request, watcher)
            else:
                await _other(send, scope["method"], request.path, dialect, request.request_id)
        finally:
            self.state.finish(index)

    def _record(self, scope: Scope, request: ChatRequest, dialect: Dialect | None) -> int:
        return self.state.recorder.add(
            method=scope["method"],
            path=request.path,
            query=mask_query(request.query),
            headers=tuple((key, mask(key, value)) for key, value in _headers(scope)),
            body=request.raw,
            dialect=dialect.name if dialect else None,
            received_at=request.arrived,
        )

    async def _chat(self, send: Send, request: ChatRequest, watcher: DisconnectWatcher) -> None:
        """Answer a chat request from the assistant, or from the recording being replayed."""
        anthropic = request.dialect.protocol == "anthropic"
        counters = self.state.counters
        if self.replay is not None:
            await self._replay(send, request, watcher, self.replay)
        elif request.dialect.protocol == "gemini":
            await answer_gemini(send, request, watcher, api_key=self.api_key, counters=counters)
        elif request.dialect.protocol == "responses":
            stored = self.state.stored
            await answer_responses(
                send,
                request,
                watcher,
                api_key=self.api_key,
                counters=counters,
                stored=stored,
                strict=self.strict,
            )
        else:
            answer = answer_messages if anthropic else answer_chat
            await answer(
                send, request, watcher, api_key=self.api_key, counters=counters, strict=self.strict
            )

    async def _replay(
        self,
        send: Send,
        request: ChatRequest,
        watcher: DisconnectWatcher,
        recording: Recording,
    ) -> None:
        """Answer a chat request with the recording's next response."""
        # Replay: the fault header's status faults and the key still apply; the body
        # is not read, since the recording's next response answers any request.
        rid = request.request_id
        protocol = request.dialect.protocol
        if protocol == "gemini":
            faults = check_key(request.headers, request.query, self.api_key)
        else:
            faults = check_access(request.headers, self.api_key, x_api_key=protocol == "anthropic")
        if isinstance(faults, Problem):
            await send_problem(send, request.dialect, faults, request_id=rid)
            return
        counted = fault_problem(faults, self.state.counters, request.fault_key)
        if counted is not None and protocol == "gemini":
            counted = as_gemini(counted, (gemini_call(request.path) or ("", ""))[0])
        response = pick(recording, self.state.replayed.take()) if counted is None else None
        if counted is not None or response is None:
            problem = counted or exhausted(recording)
            await send_problem(send, request.dialect, problem, request_id=rid)
            return
        arrived = request.arrived if self.replay_timing else None
        await play(response, send, watcher, arrived=arrived)


async def _other(
    send: Send, method: str, path: str, dialect: Dialect | None, request_id: str
) -> None:
    """Answer what is not a chat POST: the models lists, a 404 or a 405."""
    if path.rstrip("/") in ("/v1beta/models", "/gemini/v1beta/models") and method == "GET":
        text = gemini.pretty(gemini.list_models()) + "\n"
        await send_body(send, 200, text.encode("utf-8"), *_json_headers())
        return
    if path.rstrip("/").endswith("/models") and method == "GET":
        await send_json(send, 200, models())
        return
    status, what = (404, "no such path") if dialect is None else (405, "use POST")
    problem = Problem(
        status=status,
        message=f"{what}: {method} {path}",
        kind="invalid_request_error",
        code="not_found" if dialect is None else "method_not_allowed",
    )
    await send_problem(send, dialect or OPENAI, problem, request_id=request_id)


def _recording(send: Send, recorder: Recorder, index: int) -> Send:
    """Wrap ``send`` to note the status and the end of the response in the record.

    The record is updated before the bytes leave, so a client that has the whole
    response always finds it complete in the record.
    """

    async def recording_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            recorder.update(index, status=message["status"])
        elif not message.get("more_body", False):
            recorder.update(index, completed=True)
        await send(message)

    return recording_send


def _with_request_id(send: Send, request_id: str) -> Send:
    """Wrap ``send`` to put a ``request-id`` header on the response, as Anthropic does
    on every response (a replayed one keeps its own)."""

    async def identified_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            if not any(key.lower() == b"request-id" for key, _ in headers):
                headers.append((b"request-id", request_id.encode("ascii")))
            message = {**message, "headers": headers}
        await send(message)

    return identified_send


def _json_headers() -> tuple[str, Headers]:
    """The content type and the other headers of a Gemini JSON body."""
    return gemini.JSON_HEADERS[0][1], gemini.JSON_HEADERS[1:]


def _headers(scope: Scope) -> list[tuple[str, str]]:
    return [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
