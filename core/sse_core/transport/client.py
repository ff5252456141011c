"""Streaming chat clients over httpx or httpx2: ``ChatClient`` (sync) and ``AsyncChatClient``.

Both build the request from one :class:`~sse_core.transport.config.ClientConfig`, retry
only before the first body byte, and return a stream object (:mod:`.streams`) that yields
StreamEvents as bytes arrive and ends with the Completion::

    with ChatClient(base_url="http://127.0.0.1:8765/v1", api_key="...") as client:
        with client.stream({"model": "m", "messages": [...]}) as stream:
            for event in stream:
                ...
        print(stream.completion)

Every decision (request, retry, status, errors) is made here once, in shared code; the
two ``_open`` methods are twins that differ only by ``async``/``await``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import httpx
from pydantic_core import to_json

from sse_core._redact import scrub
from sse_core.completion import Completion
from sse_core.errors import GatewayHTTPError, SSEConnectorError, StreamTimeoutError
from sse_core.fast_paths import FastPath, is_on
from sse_core.pipeline.session import StreamSession
from sse_core.telemetry.call import Call, Content, request_attributes
from sse_core.telemetry.setting import Telemetry
from sse_core.telemetry.setting import resolve as resolve_telemetry
from sse_core.transport.config import (
    ClientConfig,
    check_header,
)
from sse_core.transport.head import READ_TIMEOUT, HeadWatch
from sse_core.transport.http import (
    HttpxErrors,
    aread_error_body,
    build_headers,
    build_payload,
    detach,
    error_from_response,
    head_timeout,
    map_transport_error,
    read_error_body,
    rejects_stream_options,
)
from sse_core.transport.keepalive import REUSE
from sse_core.transport.packages import (
    HttpPackage,
    default_package,
    package_of,
)
from sse_core.transport.streams import AsyncChatStream, ChatStream
from sse_core.transport.wire import no_key

if TYPE_CHECKING:
    import httpx2

__all__ = ["AsyncChatClient", "ChatClient", "Prepared", "RetryStep"]

logger: logging.Logger = logging.getLogger("sse_core")


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """One request, ready to send (and to send again)."""

    body: dict[str, Any]
    headers: dict[str, str]
    deadline: float | None
    secrets: tuple[str, ...] = ()
    #: The request URL as the client's package takes it, for a protocol that routes by model
    #: (:meth:`ClientConfig.url_for`); None: the client's own.
    url: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryStep:
    """What to do after a failed attempt: wait, then send ``body``.

    ``counts``: whether the attempt counts against ``max_retries`` (dropping
    ``stream_options`` for a gateway that rejects it does not).
    """

    delay: float
    body: dict[str, Any]
    counts: bool = True


class _Attempts:
    __slots__ = ("body", "call", "tries", "watch")

    def __init__(self, body: dict[str, Any], call: Call | None) -> None:
        self.body = body
        self.tries = 0
        self.watch: HeadWatch | None = None
        self.call = call  # told of each retry (telemetry; None: off)


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - time.monotonic(), 0.001)


class _ClientBase:
    """The configuration and every decision shared by the sync and async clients."""

    _asynchronous = False

    def __init__(
        self,
        config: ClientConfig | None,
        settings: dict[str, Any],
        http_client: object,
        telemetry: bool | Telemetry | None = None,
    ) -> None:
        if config is not None and settings:
            raise TypeError(f"pass either config= or settings, not both (got {sorted(settings)})")
        self.config: ClientConfig = config if config is not None else ClientConfig.build(**settings)
        #: Where calls are recorded (:mod:`sse_core.telemetry`); None: telemetry is off.
        self.telemetry: Telemetry | None = resolve_telemetry(telemetry)
        asynchronous = self._asynchronous
        #: The package of the HTTP client: httpx's or httpx2's (see :mod:`.packages`).
        self.package: HttpPackage = (
            default_package()
            if http_client is None
            else package_of(http_client, field="http_client", asynchronous=asynchronous)
        )
        self._owned = http_client is None
        self._http: Any = http_client or self.package.client(
            asynchronous=asynchronous,
            max_connections=self.config.max_connections,
            max_keepalive=self.config.max_keepalive,
        )
        # The request URL parsed once, as the client's package takes it (parsing the string is
        # over half of what building a request costs, and httpx parses it twice).
        own = self.package.module is httpx
        self._url: Any = self.config.http_url if own else self.package.url(self.config.url)

    def fast(self, path: FastPath) -> bool:
        """Whether the transport's fast path ``path`` is on for this client (its package is
        the one the path was probed on, and the registry says on)."""
        return self.package.fast and is_on(path.name)

    @property
    def url(self) -> str:
        """The request URL (``base_url + path``)."""
        return self.config.url

    def __repr__(self) -> str:
        key = "set" if self.config.api_key is not None else "none"
        name, config = type(self).__name__, self.config
        return f"{name}(url={config.public_url!r}, protocol={config.protocol!r}, api_key={key})"

    def _prepare(
        self, payload: Mapping[str, Any], headers: Mapping[str, str] | None, streaming: bool
    ) -> Prepared:
        if not isinstance(payload, Mapping):
            raise TypeError(f"payload must be a mapping (the JSON body), got {type(payload)}")
        config = self.config
        secret = config.secret_headers
        extra = (
            dict(check_header(k, v, secret=secret) for k, v in headers.items()) if headers else None
        )
        total = config.timeouts.total
        headers = build_headers(
            config.api_key,
            config.default_headers,
            extra,
            streaming=streaming,
            auth=config.auth,
            protocol=config.protocol,
        )
        routed = config.url_for(payload.get("model"), streaming)
        if not self.fast(REUSE):
            # httpx's public API cannot tell a connection holding bytes behind its response
            # from a clean one, so without the reuse fast path none is kept: the server and
            # httpcore close each after its response (a stream's, a JSON answer's, an error's).
            headers["connection"] = "close"
        return Prepared(
            body=build_payload(
                payload,
                include_usage=config.include_usage,
                extra_body=config.extra_body,
                streaming=streaming,
                protocol=config.protocol,
            ),
            headers=headers,
            deadline=None if total is None else time.monotonic() + total,
            secrets=tuple(config.secrets(extra)),
            url=None if routed is None else self.package.url(routed),
        )

    def _call(self, prepared: Prepared, payload: Mapping[str, Any], streaming: bool) -> Call | None:
        """The telemetry of one call, or None where nothing records it."""
        telemetry = self.telemetry
        instruments = None if telemetry is None else telemetry.instruments()
        if telemetry is None or instruments is None:
            return None
        config = self.config
        body = prepared.body
        facts = request_attributes(
            body,
            model=payload.get("model"),
            wire=config.wire,
            url=config.public_url,
            streaming=streaming,
        )
        capture = telemetry.capture() if instruments.tracer is not None else None
        if capture is None:
            return Call(instruments, facts)
        reader = config.wire.prompt
        prompt = None if reader is None else reader(body)
        content = Content(capture, prompt, telemetry.content_limit, prepared.secrets)
        return Call(instruments, facts, content)

    def _session(self, prepared: Prepared) -> StreamSession:
        return StreamSession(
            max_event_bytes=self.config.max_event_bytes,
            deadline=prepared.deadline,
            idle=self.config.timeouts.idle,
            data_idle=self.config.timeouts.data_idle,
            source=self.config.public_url,
            secrets=prepared.secrets,
            accelerator=self.config.accelerator,
            protocol=self.config.wire,
        )

    def _request(self, prepared: Prepared, attempt: _Attempts) -> Any:
        remaining = _remaining(prepared.deadline)
        call = attempt.call
        request = self._http.build_request(
            "POST",
            self._url if prepared.url is None else prepared.url,
            content=to_json(attempt.body),
            headers=prepared.headers if call is None else call.carry(prepared.headers),
            timeout=head_timeout(
                self.package,
                self.config.timeouts,
                remaining,
                body_too=not self.fast(READ_TIMEOUT),
            ),
        )
        attempt.watch = _head_watch(self.config.timeouts.first_byte, remaining)
        if attempt.watch is not None:
            attempt.watch.attach(
                self._http, request, asynchronous=self._asynchronous, fast=self.package.fast
            )
        return request

    def _unreachable(
        self, prepared: Prepared, attempt: _Attempts, exc: Exception
    ) -> SSEConnectorError:
        """The typed error for what the HTTP client raised before the response head arrived."""
        watch = attempt.watch
        url = self.config.public_url
        if watch is not None and watch.disarm():
            error: SSEConnectorError = StreamTimeoutError(
                f"the response head from {url} did not arrive within {watch.limit}; the "
                "gateway kept the connection busy without answering"
            )
        else:
            limit = watch.limit if watch is not None else ""
            error = map_transport_error(exc, in_body=False, url=url, limit=limit)
        scrub(error, prepared.secrets)
        detach(exc)
        return error

    def _status_error(self, response: Any, body: bytes, prepared: Prepared) -> GatewayHTTPError:
        return error_from_response(
            response.status_code,
            response.headers,
            body,
            secrets=prepared.secrets,
            url=self.config.public_url,
            keyless="" if self.config.api_key is not None else no_key(self.config.protocol),
        )

    def _retry(self, error: SSEConnectorError, attempt: _Attempts, deadline: float | None) -> float:
        """Plan the next attempt (updating ``attempt``); its delay. Raises ``error`` if none."""
        step = self._plan(error, attempt.tries + 1, attempt.body, deadline)
        if step is None:
            raise error
        if step.counts:
            attempt.tries += 1
        attempt.body = step.body
        if attempt.call is not None:
            attempt.call.retried(error, step.delay)
        logger.info("%s; retrying in %.3g s", _what_failed(error), step.delay)
        return step.delay

    def _plan(
        self,
        error: SSEConnectorError,
        attempt: int,
        body: dict[str, Any],
        deadline: float | None,
    ) -> RetryStep | None:
        """The step after failed attempt number ``attempt``, or None to raise ``error``."""
        if (
            isinstance(error, GatewayHTTPError)
            and "stream_options" in body
            and rejects_stream_options(error)
        ):
            # The gateway rejects the OpenAI extension: send the same request without it.
            stripped = {k: v for k, v in body.items() if k != "stream_options"}
            return RetryStep(delay=0.0, body=stripped, counts=False)
        retry_after = error.retry_after if isinstance(error, GatewayHTTPError) else None
        delay = self.config.retry.next_delay(
            error, attempt=attempt, retry_after=retry_after, rand=random.random()
        )
        if delay is None or (deadline is not None and time.monotonic() + delay > deadline):
            return None
        return RetryStep(delay=delay, body=body)


def _head_watch(first_byte: float | None, remaining: float | None) -> HeadWatch | None:
    """The head deadline: first_byte, or the rest of the total timeout if that is sooner."""
    if remaining is not None and (first_byte is None or remaining < first_byte):
        return HeadWatch(remaining, f"the total timeout ({remaining:.3g} s left)")
    if first_byte is None:
        return None
    return HeadWatch(first_byte, f"first_byte ({first_byte:g} s)")


def _what_failed(error: SSEConnectorError) -> str:
    if isinstance(error, GatewayHTTPError):
        return f"{error.status_code} from the gateway"
    return f"{type(error).__name__} ({error})"


class ChatClient(_ClientBase):
    """Synchronous streaming client. One pooled ``httpx.Client`` per instance unless injected.

    Args:
        config: A ready :class:`ClientConfig` (or give its settings as keywords instead).
        http_client: An ``httpx.Client`` or ``httpx2.Client`` to use (proxies, mTLS,
            transports); not closed here. Without it, the client is httpx's (httpx2's with
            ``SSE_CONNECTORS_HTTP=httpx2``).
        **settings: The keywords of :meth:`ClientConfig.build`: ``base_url``, ``api_key``
            (never shown), ``protocol`` (one of ``sse_core.protocol_names()``, the first the
            default), ``auth`` (``"bearer"`` or ``"x-api-key"``: how the key is
            sent; the protocol's own by default), ``path``, ``default_headers``,
            ``timeout`` (seconds, or :class:`Timeouts`), ``max_retries``, ``retry``,
            ``include_usage``, ``extra_body``, ``max_event_bytes``, ``secret_headers``.
        telemetry: Whether calls are recorded with OpenTelemetry (:mod:`sse_core.telemetry`):
            None or True, when the application set a provider (off where
            ``SSE_CONNECTORS_TELEMETRY=0``); False, never; a :class:`Telemetry`, to its
            providers.

    Raises:
        ConfigurationError: A setting is missing or cannot work.
    """

    def __init__(
        self,
        config: ClientConfig | None = None,
        *,
        http_client: httpx.Client | httpx2.Client | None = None,
        telemetry: bool | Telemetry | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(config, settings, http_client, telemetry)

    def stream(
        self,
        payload: Mapping[str, Any],
        *,
        headers: Mapping[str, str] | None = None,
        streaming: bool = True,
    ) -> ChatStream:
        """Start a chat completion (the request is sent on first iteration).

        Args:
            payload: The JSON body (``model``, ``messages``, ...); ``stream`` is set here.
            headers: Extra headers for this request.
            streaming: False asks for one whole JSON answer (``stream: false``): the
                stream then yields all its events at once. Streaming is what detects a cut
                answer; use False only for a gateway whose streaming path is broken.
        """
        prepared = self._prepare(payload, headers, streaming)
        return ChatStream(self, prepared, self._call(prepared, payload, streaming))

    def complete(
        self,
        payload: Mapping[str, Any],
        *,
        headers: Mapping[str, str] | None = None,
        streaming: bool = True,
    ) -> Completion:
        """The whole answer (streamed unless ``streaming=False``, as in :meth:`stream`)."""
        with self.stream(payload, headers=headers, streaming=streaming) as stream:
            return stream.until_done()

    def close(self) -> None:
        """Close the pooled connections (an injected client is left to its owner)."""
        if self._owned:
            self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self, prepared: Prepared, call: Call | None = None) -> Any:
        attempt = _Attempts(prepared.body, call)
        while True:
            with HttpxErrors(partial(self._unreachable, prepared, attempt)) as head:
                request = self._request(prepared, attempt)
                response = self._http.send(request, stream=True, follow_redirects=False)
            if head.error is not None:
                error = head.error
            elif response.is_success:
                return response
            else:
                error = self._status_error(response, read_error_body(response), prepared)
            time.sleep(self._retry(error, attempt, prepared.deadline))


class AsyncChatClient(_ClientBase):
    """Asynchronous twin of :class:`ChatClient` (same arguments; an ``httpx.AsyncClient`` or
    an ``httpx2.AsyncClient``)."""

    _asynchronous = True

    def __init__(
        self,
        config: ClientConfig | None = None,
        *,
        http_client: httpx.AsyncClient | httpx2.AsyncClient | None = None,
        telemetry: bool | Telemetry | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(config, settings, http_client, telemetry)

    def stream(
        self,
        payload: Mapping[str, Any],
        *,
        headers: Mapping[str, str] | None = None,
        streaming: bool = True,
    ) -> AsyncChatStream:
        """Start a chat completion (the request is sent on first iteration).

        Args:
            payload: The JSON body (``model``, ``messages``, ...); ``stream`` is set here.
            headers: Extra headers for this request.
            streaming: False asks for one whole JSON answer (``stream: false``): the
                stream then yields all its events at once. Streaming is what detects a cut
                answer; use False only for a gateway whose streaming path is broken.
        """
        prepared = self._prepare(payload, headers, streaming)
        return AsyncChatStream(self, prepared, self._call(prepared, payload, streaming))

    async def complete(
        self,
        payload: Mapping[str, Any],
        *,
        headers: Mapping[str, str] | None = None,
        streaming: bool = True,
    ) -> Completion:
        """The whole answer (streamed unless ``streaming=False``, as in :meth:`stream`)."""
        async with self.stream(payload, headers=headers, streaming=streaming) as stream:
            return await stream.until_done()

    async def aclose(self) -> None:
        """Close the pooled connections (an injected client is left to its owner)."""
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _open(self, prepared: Prepared, call: Call | None = None) -> Any:
        attempt = _Attempts(prepared.body, call)
        while True:
            with HttpxErrors(partial(self._unreachable, prepared, attempt)) as head:
                request = self._request(prepared, attempt)
                response = await self._http.send(request, stream=True, follow_redirects=False)
            if head.error is not None:
                error = head.error
            elif response.is_success:
                return response
            else:
                error = self._status_error(response, await aread_error_body(response), prepared)
            await asyncio.sleep(self._retry(error, attempt, prepared.deadline))
