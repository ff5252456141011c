"""Streaming chat clients over httpx: ``ChatClient`` (sync) and ``AsyncChatClient`` (async).

Both build the request, retry only before the first body byte, and yield StreamEvents as
bytes arrive; the stream object ends with the :class:`~sse_core.completion.Completion`::

    with ChatClient(base_url="http://127.0.0.1:8765/v1", api_key="...") as client:
        with client.stream({"model": "m", "messages": [...]}) as stream:
            for event in stream:
                ...
        print(stream.completion)

Leaving the ``with`` block, breaking out and closing, or (async) cancelling the task closes
the HTTP response at once, so the gateway sees the disconnect and stops generating. The loops
below are twins that differ only by ``async``/``await``; every decision is in shared code.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping
from types import TracebackType
from typing import Any

import httpx
from pydantic import SecretStr
from pydantic_core import to_json

from sse_core._http import (
    MAX_ERROR_BODY,
    Timeouts,
    build_headers,
    build_payload,
    error_from_response,
    map_transport_error,
    rejects_stream_options,
)
from sse_core.completion import Completion
from sse_core.errors import (
    ConfigurationError,
    GatewayHTTPError,
    SSEConnectorError,
    StreamError,
    StreamTimeoutError,
)
from sse_core.events import StreamEvent
from sse_core.retry import RetryPolicy
from sse_core.session import StreamSession
from sse_core.sse import DEFAULT_MAX_EVENT_BYTES

__all__ = ["AsyncChatClient", "AsyncChatStream", "ChatClient", "ChatStream", "Timeouts"]

_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
_DEFAULT_TIMEOUTS = Timeouts()


class _ClientBase:
    """Configuration and the decisions shared by the sync and async clients."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | SecretStr | None = None,
        path: str = "/chat/completions",
        default_headers: Mapping[str, str] | None = None,
        timeout: float | Timeouts | None = _DEFAULT_TIMEOUTS,
        max_retries: int = 2,
        retry: RetryPolicy | None = None,
        include_usage: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"base_url must be an http(s) URL such as http://host/v1, got {base_url!r}"
            )
        if not path.startswith("/"):
            raise ConfigurationError(f"path must start with '/', got {path!r}")
        self.base_url = base_url.rstrip("/")
        self.path = path
        self.url = self.base_url + path
        self.api_key = SecretStr(api_key) if isinstance(api_key, str) else api_key
        self.default_headers = dict(default_headers or {})
        self.timeouts = Timeouts.of(timeout)
        self.retry = retry or RetryPolicy(max_retries=max_retries)
        self.include_usage = include_usage
        self.extra_body = dict(extra_body or {})
        self.max_event_bytes = max_event_bytes

    def __repr__(self) -> str:
        key = "set" if self.api_key is not None else "none"
        return f"{type(self).__name__}(url={self.url!r}, api_key={key})"

    def _prepare(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None
    ) -> tuple[dict[str, Any], dict[str, str], float | None]:
        body = build_payload(payload, include_usage=self.include_usage, extra_body=self.extra_body)
        total = self.timeouts.total
        deadline = None if total is None else time.monotonic() + total
        return body, build_headers(self.api_key, self.default_headers, headers), deadline

    def _request(
        self,
        http: httpx.Client | httpx.AsyncClient,
        body: dict[str, Any],
        headers: dict[str, str],
        deadline: float | None,
    ) -> httpx.Request:
        return http.build_request(
            "POST",
            self.url,
            content=to_json(body),
            headers=headers,
            timeout=self.timeouts.for_head(_remaining(deadline)),
        )

    def _status_error(self, response: httpx.Response, body: bytes) -> GatewayHTTPError:
        return error_from_response(
            response.status_code, response.headers, body, secret=self.api_key, url=self.url
        )

    def _plan_retry(
        self, error: SSEConnectorError, tries: int, body: dict[str, Any], deadline: float | None
    ) -> tuple[float, dict[str, Any]] | None:
        """(delay, body to send) for the next attempt, or None to raise ``error``."""
        if (
            isinstance(error, GatewayHTTPError)
            and "stream_options" in body
            and rejects_stream_options(error)
        ):
            # The gateway rejects the OpenAI extension: send the same request without it.
            return 0.0, {k: v for k, v in body.items() if k != "stream_options"}
        retry_after = error.retry_after if isinstance(error, GatewayHTTPError) else None
        delay = self.retry.next_delay(
            error, attempt=tries, retry_after=retry_after, rand=random.random()
        )
        if delay is None or (deadline is not None and time.monotonic() + delay > deadline):
            return None
        return delay, body


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - time.monotonic(), 0.001)


def _is_json(response: httpx.Response) -> bool:
    kind = response.headers.get("content-type", "")
    return "json" in kind and "event-stream" not in kind


def _encoded(response: httpx.Response) -> bool:
    """Whether to read through httpx's decoders: a content-encoding to undo, or a body that
    was already read (mock transports). Otherwise the raw pieces skip a layer per read."""
    encoding: str = response.headers.get("content-encoding", "identity")
    return encoding != "identity" or response.is_stream_consumed


def _set_body_timeout(response: httpx.Response, timeouts: Timeouts, deadline: float | None) -> None:
    # httpcore reads request.extensions["timeout"]["read"] when the body iteration starts,
    # so the idle limit replaces the (long) first-byte limit for every body read.
    extension = response.request.extensions.get("timeout")
    if isinstance(extension, dict):
        extension["read"] = timeouts.for_body(_remaining(deadline))


def _check_deadline(deadline: float | None, session: StreamSession, url: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise session.fail(StreamTimeoutError(f"the stream from {url} ran past the total timeout"))


def _handed(session: StreamSession, events: list[StreamEvent]) -> list[StreamEvent]:
    """``events`` after :meth:`StreamSession.accept`, raising an error frame among them."""
    batch, error = session.accept(events)
    if error is not None:
        raise error
    return batch


def _mapped(exc: httpx.HTTPError, session: StreamSession | None, url: str) -> SSEConnectorError:
    error = map_transport_error(exc, in_body=session is not None, url=url)
    if isinstance(error, StreamError) and session is not None:
        return session.fail(error)
    return error


class ChatClient(_ClientBase):
    """Synchronous streaming client. One pooled ``httpx.Client`` per instance unless injected.

    Args:
        base_url: The gateway URL with its version prefix, e.g. ``http://host/v1``.
        api_key: Sent as ``Authorization: Bearer``; never shown in reprs or errors.
        path: Appended to ``base_url`` (``/chat/completions``; SPASS ``/c1/chat``).
        default_headers: Sent with every request (e.g. ``SPASS-User-Id``).
        timeout: A number for every phase, or :class:`Timeouts`.
        max_retries: Retries before the first body byte (see :class:`RetryPolicy`).
        include_usage: Send ``stream_options.include_usage`` (dropped if the gateway objects).
        extra_body: Merged into every request body (e.g. ``chat_template_kwargs``).
        http_client: An ``httpx.Client`` to use (proxies, mTLS, transports); not closed here.
    """

    def __init__(self, *, http_client: httpx.Client | None = None, **config: Any) -> None:
        super().__init__(**config)
        self._owned = http_client is None
        self._http = http_client or httpx.Client(limits=_LIMITS, timeout=None)

    def stream(
        self, payload: Mapping[str, Any], *, headers: Mapping[str, str] | None = None
    ) -> ChatStream:
        """Start a streamed chat completion (the request is sent on first iteration)."""
        return ChatStream(self, payload, headers)

    def complete(
        self, payload: Mapping[str, Any], *, headers: Mapping[str, str] | None = None
    ) -> Completion:
        """Stream the whole answer and return it."""
        with self.stream(payload, headers=headers) as stream:
            return stream.until_done()

    def close(self) -> None:
        """Close the pooled connections (an injected client is left to its owner)."""
        if self._owned:
            self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(
        self, body: dict[str, Any], headers: dict[str, str], deadline: float | None
    ) -> httpx.Response:
        tries = 0
        while True:
            request = self._request(self._http, body, headers, deadline)
            try:
                response = self._http.send(request, stream=True)
            except httpx.HTTPError as exc:
                error = _mapped(exc, None, self.url)
            else:
                if response.is_success:
                    return response
                error = self._status_error(response, _read_head(response))
            step = self._plan_retry(error, tries + 1, body, deadline)
            if step is None:
                raise error
            delay, sent = step
            tries += sent is body
            body = sent
            time.sleep(delay)


def _read_head(response: httpx.Response) -> bytes:
    """Up to MAX_ERROR_BODY bytes of an error body, then close the response."""
    parts: list[bytes] = []
    size = 0
    try:
        for piece in response.iter_bytes():
            parts.append(piece)
            size += len(piece)
            if size >= MAX_ERROR_BODY:
                break
    except httpx.HTTPError:
        pass  # what arrived is enough to describe the error
    finally:
        response.close()
    return b"".join(parts)[:MAX_ERROR_BODY]


class _Answer:
    """What both stream classes know of the answer: the Completion, and what arrived so far."""

    completion: Completion | None
    _session: StreamSession | None

    def received(self) -> Completion:
        """What arrived so far, as a Completion (not checked for completeness).

        The whole :attr:`completion` once the stream ended; an empty Completion before the
        response began. For reporting what a stream that was left early had delivered.
        """
        if self.completion is not None:
            return self.completion
        return self._session.partial() if self._session is not None else Completion()


class ChatStream(_Answer):
    """One streamed answer: iterate for StreamEvents; :attr:`completion` at the end."""

    def __init__(
        self, client: ChatClient, payload: Mapping[str, Any], headers: Mapping[str, str] | None
    ) -> None:
        self._client = client
        self._prepared = client._prepare(payload, headers)
        self._batches = self._run()
        self._events = self._flatten()
        self.response: httpx.Response | None = None
        self.completion: Completion | None = None
        self._session: StreamSession | None = None

    def __iter__(self) -> Iterator[StreamEvent]:
        return self._events

    def batches(self) -> Iterator[list[StreamEvent]]:
        """Iterate the events grouped by network read (what arrived together)."""
        return self._batches

    def _flatten(self) -> Generator[StreamEvent, None, None]:
        for batch in self._batches:
            yield from batch

    def until_done(self) -> Completion:
        """Consume the rest of the stream and return the Completion."""
        for _ in self._batches:
            pass
        assert self.completion is not None
        return self.completion

    def close(self) -> None:
        """Stop reading and close the HTTP response now."""
        self._events.close()
        self._batches.close()
        if self.response is not None:
            self.response.close()

    def __enter__(self) -> ChatStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _run(self) -> Generator[list[StreamEvent], None, None]:
        client = self._client
        body, headers, deadline = self._prepared
        response = self.response = client._open(body, headers, deadline)
        session = self._session = StreamSession(
            headers=response.headers, max_event_bytes=client.max_event_bytes
        )
        try:
            if _is_json(response):
                for piece in response.iter_bytes():
                    session.collect(piece)
                yield _handed(session, session.feed_json())
            else:
                _set_body_timeout(response, client.timeouts, deadline)
                pieces = response.iter_bytes() if _encoded(response) else response.iter_raw()
                for piece in pieces:
                    batch, error = session.accept(session.feed(piece))
                    if batch:
                        yield batch
                    if error is not None:
                        raise error
                    if session.done:
                        break
                    _check_deadline(deadline, session, client.url)
                else:
                    yield _handed(session, session.end())
            self.completion = session.completion()
        except httpx.HTTPError as exc:
            raise _mapped(exc, session, client.url) from exc
        finally:
            response.close()


class AsyncChatClient(_ClientBase):
    """Asynchronous twin of :class:`ChatClient` (same arguments; ``httpx.AsyncClient``)."""

    def __init__(self, *, http_client: httpx.AsyncClient | None = None, **config: Any) -> None:
        super().__init__(**config)
        self._owned = http_client is None
        self._http = http_client or httpx.AsyncClient(limits=_LIMITS, timeout=None)

    def stream(
        self, payload: Mapping[str, Any], *, headers: Mapping[str, str] | None = None
    ) -> AsyncChatStream:
        """Start a streamed chat completion (the request is sent on first iteration)."""
        return AsyncChatStream(self, payload, headers)

    async def complete(
        self, payload: Mapping[str, Any], *, headers: Mapping[str, str] | None = None
    ) -> Completion:
        """Stream the whole answer and return it."""
        async with self.stream(payload, headers=headers) as stream:
            return await stream.until_done()

    async def aclose(self) -> None:
        """Close the pooled connections (an injected client is left to its owner)."""
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _open(
        self, body: dict[str, Any], headers: dict[str, str], deadline: float | None
    ) -> httpx.Response:
        tries = 0
        while True:
            request = self._request(self._http, body, headers, deadline)
            try:
                response = await self._http.send(request, stream=True)
            except httpx.HTTPError as exc:
                error = _mapped(exc, None, self.url)
            else:
                if response.is_success:
                    return response
                error = self._status_error(response, await _aread_head(response))
            step = self._plan_retry(error, tries + 1, body, deadline)
            if step is None:
                raise error
            delay, sent = step
            tries += sent is body
            body = sent
            await asyncio.sleep(delay)


async def _aread_head(response: httpx.Response) -> bytes:
    """Async twin of :func:`_read_head`."""
    parts: list[bytes] = []
    size = 0
    try:
        async for piece in response.aiter_bytes():
            parts.append(piece)
            size += len(piece)
            if size >= MAX_ERROR_BODY:
                break
    except httpx.HTTPError:
        pass  # what arrived is enough to describe the error
    finally:
        await response.aclose()
    return b"".join(parts)[:MAX_ERROR_BODY]


class AsyncChatStream(_Answer):
    """Async twin of :class:`ChatStream`; use ``async with`` so an early exit closes at once."""

    def __init__(
        self,
        client: AsyncChatClient,
        payload: Mapping[str, Any],
        headers: Mapping[str, str] | None,
    ) -> None:
        self._client = client
        self._prepared = client._prepare(payload, headers)
        self._batches = self._run()
        self._events = self._flatten()
        self.response: httpx.Response | None = None
        self.completion: Completion | None = None
        self._session: StreamSession | None = None

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events

    def batches(self) -> AsyncIterator[list[StreamEvent]]:
        """Iterate the events grouped by network read (what arrived together)."""
        return self._batches

    async def _flatten(self) -> AsyncGenerator[StreamEvent, None]:
        async for batch in self._batches:
            for event in batch:
                yield event

    async def until_done(self) -> Completion:
        """Consume the rest of the stream and return the Completion."""
        async for _ in self._batches:
            pass
        assert self.completion is not None
        return self.completion

    async def aclose(self) -> None:
        """Stop reading and close the HTTP response now."""
        await self._events.aclose()
        await self._batches.aclose()
        if self.response is not None:
            await self.response.aclose()

    async def __aenter__(self) -> AsyncChatStream:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _run(self) -> AsyncGenerator[list[StreamEvent], None]:
        client = self._client
        body, headers, deadline = self._prepared
        response = self.response = await client._open(body, headers, deadline)
        session = self._session = StreamSession(
            headers=response.headers, max_event_bytes=client.max_event_bytes
        )
        try:
            if _is_json(response):
                async for piece in response.aiter_bytes():
                    session.collect(piece)
                yield _handed(session, session.feed_json())
            else:
                _set_body_timeout(response, client.timeouts, deadline)
                pieces = response.aiter_bytes() if _encoded(response) else response.aiter_raw()
                async for piece in pieces:
                    batch, error = session.accept(session.feed(piece))
                    if batch:
                        yield batch
                    if error is not None:
                        raise error
                    if session.done:
                        break
                    _check_deadline(deadline, session, client.url)
                else:
                    yield _handed(session, session.end())
            self.completion = session.completion()
        except httpx.HTTPError as exc:
            raise _mapped(exc, session, client.url) from exc
        finally:
            await response.aclose()
