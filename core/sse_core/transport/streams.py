"""``ChatStream`` and ``AsyncChatStream``: one streamed answer, from request to Completion.

A stream sends its request on first iteration, hands StreamEvents on as bytes arrive, and
ends with the :class:`~sse_core.completion.Completion` (or the typed error, which carries
the partial answer). Its :attr:`~ChatStream.answer` is the session's accumulator: what
arrived so far, readable at any moment without a copy.

Lifetime: leaving the ``with`` block, ``close()``, breaking out of a ``for`` loop over the
stream, cancelling the task, or dropping the last reference to an unfinished stream closes
the HTTP response at once, so the gateway sees the disconnect and stops generating. The
loops are module functions, not methods, so no reference cycle keeps an abandoned stream
alive until the cyclic garbage collector runs. How the response is closed, and its body's
generators with it, is :mod:`.closing`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

import httpx

from sse_core._redact import scrub
from sse_core.completion import Completion
from sse_core.errors import SSEConnectorError, StreamError
from sse_core.events import StreamEvent
from sse_core.pipeline.accumulator import Accumulator
from sse_core.pipeline.session import StreamSession
from sse_core.transport.body import adecoded, codings, decoded, guard
from sse_core.transport.closing import Closer, aclose_response, close_response
from sse_core.transport.config import ClientConfig
from sse_core.transport.head import READ_TIMEOUT, IdleWatch
from sse_core.transport.http import HttpxErrors, detach, map_transport_error
from sse_core.transport.keepalive import REUSE
from sse_core.transport.traced import atraced, traced

if TYPE_CHECKING:
    from sse_core.telemetry.call import Call
    from sse_core.transport.client import AsyncChatClient, ChatClient, Prepared
    from sse_core.transport.packages import AnyResponse

__all__ = ["AsyncChatStream", "ChatStream"]

Batches = Generator[list[StreamEvent], None, None]
AsyncBatches = AsyncGenerator[list[StreamEvent], None]


class _Outcome:
    """The response and, once it ended well, the completion: what the read loop shares with
    its stream object without pointing back at it (and the body's idle watch, if any), and
    which of the transport's fast paths are on for its client (decided once per stream)."""

    __slots__ = (
        "asked",
        "call",
        "completion",
        "idle",
        "left",
        "read_timeout",
        "response",
        "reuse",
        "task",
    )

    def __init__(self, client: ChatClient | AsyncChatClient, call: Call | None) -> None:
        self.response: AnyResponse | None = None
        self.completion: Completion | None = None
        self.idle: IdleWatch | None = None
        self.reuse: bool = client.fast(REUSE)
        self.read_timeout: bool = client.fast(READ_TIMEOUT)
        #: The task reading an async stream, and its cancel requests when the stream began.
        self.task: asyncio.Task[Any] | None = None
        self.asked: int = 0
        #: The call's telemetry (None: off), and whether the stream's caller closed it.
        self.call: Call | None = call
        self.left: bool = False

    def cancel_asked(self) -> bool:
        """Whether a cancel was asked of the reading task since the stream began."""
        return _cancel_requests(self.task) > self.asked

    @property
    def ended_well(self) -> bool:
        """Whether the stream ended with its whole answer."""
        return self.completion is not None


class _StreamBase:
    """What both stream classes know of the answer."""

    _outcome: _Outcome
    _session: StreamSession

    @property
    def response(self) -> AnyResponse | None:
        """The HTTP response, once its head arrived."""
        return self._outcome.response

    @property
    def completion(self) -> Completion | None:
        """The whole answer, once the stream ended well (None before)."""
        return self._outcome.completion

    @property
    def answer(self) -> Accumulator:
        """The answer as it grows (marks, snapshots, usage; see :class:`Accumulator`)."""
        return self._session.answer

    def received(self) -> Completion:
        """What arrived so far, as a Completion (not checked for completeness).

        The whole :attr:`completion` once the stream ended; an empty Completion before the
        response began. For reporting what a stream that was left early had delivered.
        """
        done = self._outcome.completion
        return done if done is not None else self._session.partial()


def _begin(response: AnyResponse, session: StreamSession, outcome: _Outcome) -> list[str] | None:
    """Start the session on the response head and bound the body's silences; the
    content-codings to undo (:mod:`.body`), or None for a body already read (mock
    transports: httpx decoded it in memory)."""
    now = time.monotonic()
    session.begin(response.headers, status=response.status_code, now=now)
    bound = session.read_timeout(now)
    if outcome.read_timeout:
        # httpcore reads request.extensions["timeout"]["read"] when the body iteration
        # starts, so the idle limit replaces the (long) first-byte limit for every body read.
        extension = response.request.extensions.get("timeout")
        if isinstance(extension, dict):
            extension["read"] = bound
    elif bound is not None and not response.is_stream_consumed:
        network_stream = response.extensions.get("network_stream")
        if network_stream is not None:
            outcome.idle = IdleWatch(bound, session.deadline, network_stream, now)
    if response.is_stream_consumed:
        return None
    if outcome.reuse:
        guard(response)
    return codings(response.headers)


def _body_sync(response: AnyResponse, session: StreamSession, outcome: _Outcome) -> Iterator[bytes]:
    names = _begin(response, session, outcome)
    if names is None:
        return response.iter_bytes()
    body = decoded(response.iter_raw(), names) if names else response.iter_raw()
    return body if outcome.idle is None else _watched(body, outcome.idle)


def _body_async(
    response: AnyResponse, session: StreamSession, outcome: _Outcome
) -> AsyncIterator[bytes]:
    names = _begin(response, session, outcome)
    if names is None:
        return response.aiter_bytes()
    body = adecoded(response.aiter_raw(), names) if names else response.aiter_raw()
    return body if outcome.idle is None else _awatched(body, outcome.idle)


def _watched(body: Iterator[bytes], idle: IdleWatch) -> Iterator[bytes]:
    """``body``, telling ``idle`` when a read waits (only that time counts as silence)."""
    while True:
        idle.reading_since = time.monotonic()
        try:
            piece = next(body)
        except StopIteration:
            return
        finally:
            idle.reading_since = None
        yield piece


async def _awatched(body: AsyncIterator[bytes], idle: IdleWatch) -> AsyncIterator[bytes]:
    """Async twin of :func:`_watched`."""
    while True:
        idle.reading_since = time.monotonic()
        try:
            piece = await body.__anext__()
        except StopAsyncIteration:
            return
        finally:
            idle.reading_since = None
        yield piece


def _run(
    client: ChatClient, prepared: Prepared, session: StreamSession, outcome: _Outcome
) -> Batches:
    response, body = _start_sync(client, prepared, session, outcome)
    try:
        with HttpxErrors(partial(_raise_body_error, outcome, session, client.config, prepared)):
            for piece in body:
                if batch := session.step(piece, time.monotonic() if session.timed else None):
                    yield batch
                if session.stopped:
                    break
            if batch := _ending(session, outcome):
                yield batch
            outcome.completion = session.completion()
    finally:
        _finish(outcome, response, body)


async def _arun(
    client: AsyncChatClient, prepared: Prepared, session: StreamSession, outcome: _Outcome
) -> AsyncBatches:
    response, body = await _start_async(client, prepared, session, outcome)
    try:
        with HttpxErrors(partial(_raise_body_error, outcome, session, client.config, prepared)):
            async for piece in body:
                if batch := session.step(piece, time.monotonic() if session.timed else None):
                    yield batch
                    if _cancel_requests(outcome.task) > outcome.asked:  # while it was held
                        await asyncio.sleep(0)  # it lands here (see _cancel_requests)
                if session.stopped:
                    break
            if batch := _ending(session, outcome):
                yield batch
            outcome.completion = session.completion()
    finally:
        await _afinish(outcome, response, body)


def _finish(outcome: _Outcome, response: AnyResponse, body: Iterator[bytes]) -> None:
    _disarm(outcome)
    close_response(response, body, ended_well=outcome.ended_well, reuse=outcome.reuse)


async def _afinish(outcome: _Outcome, response: AnyResponse, body: AsyncIterator[bytes]) -> None:
    _disarm(outcome)
    await aclose_response(response, body, ended_well=outcome.ended_well, reuse=outcome.reuse)


def _cancel_requests(task: asyncio.Task[Any] | None) -> int:
    """How many cancel requests ``task`` has pending (``Task.cancelling``, Python 3.11+).

    A cancel asked while the consumer held a batch (from inside the task, or a callback of
    it) would land only at the next await that waits; the bytes already read give more
    batches with no wait between them, so the consumer would get them all first. The read
    loop awaits once when a cancel came during the stream, so it lands at the next batch, as
    at a wait for the network (where a cancel from another task lands). One asked before the
    stream began (swallowed without ``uncancel``) is not the stream's."""
    cancelling = getattr(task, "cancelling", None)
    return cancelling() if cancelling is not None else 0


def _start_sync(
    client: ChatClient, prepared: Prepared, session: StreamSession, outcome: _Outcome
) -> tuple[AnyResponse, Iterator[bytes]]:
    response = outcome.response = client._open(prepared, outcome.call)
    body = _body_sync(response, session, outcome)
    Closer.reading[id(response)] = (response, body)  # out of any garbage (see Closer)
    return response, body


async def _start_async(
    client: AsyncChatClient, prepared: Prepared, session: StreamSession, outcome: _Outcome
) -> tuple[AnyResponse, AsyncIterator[bytes]]:
    outcome.task = asyncio.current_task()
    outcome.asked = _cancel_requests(outcome.task)
    response = outcome.response = await client._open(prepared, outcome.call)
    return response, _body_async(response, session, outcome)


def _ending(session: StreamSession, outcome: _Outcome) -> list[StreamEvent]:
    """The session's last events, once the body ended. A body that ended because its idle
    watch hung it up timed out (one without a length ends at the hang-up as if complete)."""
    if outcome.idle is not None and outcome.idle.fired:
        raise _idle_expired(httpx.ReadError("hung up"), outcome)
    return session.end()


def _raise_body_error(
    outcome: _Outcome,
    session: StreamSession,
    config: ClientConfig,
    prepared: Prepared,
    exc: Exception,
) -> NoReturn:
    """Raise the typed error for what the HTTP client raised while the body was read."""
    cause = _idle_expired(exc, outcome)
    raise _stream_error(cause, session, config, prepared) from cause


def _idle_expired(exc: Exception, outcome: _Outcome) -> Exception:
    """The read timeout the idle watch's hang-up stands for, or ``exc`` itself (chained as
    its cause, so that the request ``exc`` holds is detached with it: its headers hold the
    key)."""
    if outcome.idle is None or not outcome.idle.fired:
        return exc
    timeout = httpx.ReadTimeout("no byte of the body within the idle bound")
    timeout.__cause__ = exc
    return timeout


def _disarm(outcome: _Outcome) -> None:
    if outcome.idle is not None:
        outcome.idle.disarm()


def _stream_error(
    exc: Exception, session: StreamSession, config: ClientConfig, prepared: Prepared
) -> SSEConnectorError:
    """The typed error for the HTTP client's ``exc`` while reading the body (a StreamError
    carries the partial answer), with the key scrubbed from ``exc``, which becomes its cause."""
    encoding = session.answer.headers.get("content-encoding", "")
    idle = config.timeouts.idle  # what a body read waits for (the total's rest, if sooner)
    limit = f"Timeouts.idle ({idle:g} s)" if idle is not None else "the total timeout"
    error = map_transport_error(
        exc, in_body=True, url=config.public_url, encoding=encoding, limit=limit
    )
    scrub(exc, prepared.secrets)  # it becomes the __cause__
    detach(exc)
    return session.fail(error) if isinstance(error, StreamError) else error


def _flatten(batches: Batches) -> Generator[StreamEvent, None, None]:
    for batch in batches:
        yield from batch


async def _aflatten(batches: AsyncBatches) -> AsyncGenerator[StreamEvent, None]:
    try:
        async for batch in batches:
            for event in batch:
                yield event
    finally:  # closed (or finalized) itself: the read loop with it, not left to the loop
        await batches.aclose()


class ChatStream(_StreamBase):
    """One streamed answer: iterate for StreamEvents; :attr:`completion` at the end."""

    def __init__(self, client: ChatClient, prepared: Prepared, call: Call | None = None) -> None:
        if not Closer.started:
            Closer.start()
        self._outcome = _Outcome(client, call)
        self._session = client._session(prepared)
        self._batches = _run(client, prepared, self._session, self._outcome)
        if call is not None:
            self._batches = traced(self._batches, call, self._session, self._outcome)
        self._events = _flatten(self._batches)

    def __iter__(self) -> Iterator[StreamEvent]:
        return self._events

    def batches(self) -> Iterator[list[StreamEvent]]:
        """Iterate the events grouped by network read (what arrived together)."""
        return self._batches

    def until_done(self) -> Completion:
        """Consume the rest of the stream and return the Completion."""
        for _ in self._batches:
            pass
        assert self._outcome.completion is not None
        return self._outcome.completion

    def close(self) -> None:
        """Stop reading and close the HTTP response now."""
        self._outcome.left = True
        self._events.close()
        self._batches.close()
        if self._outcome.response is not None:
            self._outcome.response.close()

    def __enter__(self) -> ChatStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncChatStream(_StreamBase):
    """Async twin of :class:`ChatStream`; use ``async with`` so an early exit closes at once."""

    def __init__(
        self, client: AsyncChatClient, prepared: Prepared, call: Call | None = None
    ) -> None:
        self._outcome = _Outcome(client, call)
        self._session = client._session(prepared)
        self._batches = _arun(client, prepared, self._session, self._outcome)
        if call is not None:
            self._batches = atraced(self._batches, call, self._session, self._outcome)
        self._events = _aflatten(self._batches)

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events

    def batches(self) -> AsyncIterator[list[StreamEvent]]:
        """Iterate the events grouped by network read (what arrived together)."""
        return self._batches

    async def until_done(self) -> Completion:
        """Consume the rest of the stream and return the Completion."""
        async for _ in self._batches:
            pass
        assert self._outcome.completion is not None
        return self._outcome.completion

    async def aclose(self) -> None:
        """Stop reading and close the HTTP response now."""
        self._outcome.left = True
        await self._events.aclose()
        await self._batches.aclose()
        if self._outcome.response is not None:
            await self._outcome.response.aclose()

    async def __aenter__(self) -> AsyncChatStream:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
