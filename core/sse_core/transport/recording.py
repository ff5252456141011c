"""Record every model call made through an httpx client, for replay by the gateway emulator.

:class:`RecordingTransport` wraps an httpx transport (sync and async) and writes, per HTTP
request, ``DIR/NNN.sse`` (the response body exactly as the decoder sees it) and
``DIR/NNN.json``, the ``sse-connectors/recording@1`` sidecar that ``Emulator(replay=DIR)``
replays (request method, URL, headers and JSON body; status; response headers as
``[name, value]`` pairs; ``head_time``; ``reads`` as ``[seconds, size]``; ``elapsed``).
:func:`recording_client` gives an ``httpx.Client`` for ``ChatClient(http_client=...)``,
``ChatSSE(http_client=...)`` or ``SSELLM(http_client=...)``; it records through httpx's
event hooks, so it is routed as every other client is: ``HTTP_PROXY``, ``HTTPS_PROXY``,
``ALL_PROXY``, ``NO_PROXY`` and ``SSL_CERT_FILE`` apply unless ``trust_env=False``.

- Numbers continue after the highest ``NNN`` already in the directory; a number is claimed
  when the response head arrives, atomically, so recorders in several threads or processes
  can share a directory (:mod:`.recording_store`). Names sort in replay order up to 999
  calls per directory.
- The files are written when the response is closed: after the whole body, and also when
  the consumer left early or the stream failed (what arrived is recorded, and the sidecar
  says ``"partial": true`` and how it ``"ended"``). The sidecar holds the body's SHA-256, so
  replay refuses a body paired with another call's sidecar. The body is in place before
  its sidecar, so a recorder stopped at any point (even SIGKILL) leaves each call whole or
  none: what it left of a call is skipped by replay, by name, and removed by the next
  recorder started on the directory.
- A body with a ``content-encoding`` httpx can undo (gzip, deflate, ...) is stored
  decoded, as the decoder saw it, without its ``content-encoding`` header.
- No secret is written. Request headers ``Authorization``, ``Proxy-Authorization``,
  ``Cookie``, ``Api-Key``, ``X-Api-Key``, any whose name contains ``key``, ``token``,
  ``secret``, ``password`` or ``auth``, and those named in ``secret_headers`` are left out
  (``Set-Cookie`` too); their values (a bearer key also without its scheme) and the extra
  ``secrets`` are masked as ``***`` wherever they occur: URL, request body (every JSON
  string), response headers and response body (read sizes adjusted to the masked body).
  Values under 4 characters are not searched for. The URL keeps no user info and no query
  parameter whose name looks like a credential.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from sse_core.transport import recording_store as store
from sse_core.transport.config import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_KEEPALIVE,
    SECRET_HEADERS,
)
from sse_core.transport.packages import named, package_of_response
from sse_core.transport.recording_masks import (
    decode_reads,
    kept,
    mask_reads,
    public_url,
    request_body,
    secret_name,
    secret_values,
)
from sse_core.transport.recording_store import FORMAT

__all__ = ["FORMAT", "RecordingTransport", "recording_async_client", "recording_client"]

#: How a recorded response ``ended`` (the sidecar's words); ``failed: <error>`` besides.
WHOLE, AFTER_THE_END, LEFT_EARLY = "whole", "closed after its last event", "consumer left early"
#: The lines of a last event that end a stream (chat completions, Anthropic Messages).
_LAST_EVENTS = {b"data: [DONE]", b"data:[DONE]", b"event: message_stop", b"event:message_stop"}
_BLANK_LINE = re.compile(rb"\r\n\r\n|\n\n|\r\r")

logger: logging.Logger = logging.getLogger("sse_core")


def _ends_the_stream(body: bytes) -> bool:
    """Whether the last event of ``body`` ends its stream (the body's end may still be due)."""
    last = _BLANK_LINE.split(body[-1024:].rstrip())[-1]
    return any(line.strip() in _LAST_EVENTS for line in last.splitlines())


class _Recorder:
    """What every recorded call of one directory shares: where, and what is secret."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        secret_headers: Iterable[str],
        secrets: Iterable[str],
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        store.remove_stale(self.directory)
        self.hidden_headers = SECRET_HEADERS | {name.lower() for name in secret_headers}
        self._secrets = tuple(s for s in secrets if s)

    def secrets_of(self, headers: Iterable[tuple[str, str]]) -> list[str]:
        """The values to mask for a request with ``headers``: its credentials, and ours."""
        found = list(self._secrets)
        for name, value in headers:
            if secret_name(name, self.hidden_headers):
                found += secret_values(name, value)
        return sorted(set(found), key=len, reverse=True)

    def write(self, number: int, meta: dict[str, Any], body: bytes) -> None:
        """Write one call's files (see :func:`.recording_store.write_pair`)."""
        store.write_pair(self.directory, number, store.sidecar_text(meta), body)


class _Call:
    """One model call being recorded: the request, then the head, then each read."""

    def __init__(self, owner: _Recorder, request: httpx.Request, content: bytes) -> None:
        self._owner = owner
        self._start = time.monotonic()
        headers = request.headers.multi_items()
        self._secrets = owner.secrets_of(headers)
        self._request = {
            "method": request.method,
            "url": public_url(request.url, self._secrets),
            "headers": dict(kept(headers, owner.hidden_headers, self._secrets)),
            "body": request_body(content, self._secrets),
        }
        self._number = self._status = 0
        self._headers: list[tuple[str, str]] = []
        self._head_time = 0.0
        self._reads: list[tuple[float, bytes]] = []
        self._written = False
        self.ended = LEFT_EARLY  # until the body's end, or an error, is seen

    def _now(self) -> float:
        return round(time.monotonic() - self._start, 6)

    def head(self, response: httpx.Response) -> bool:
        """Claim a number for the response whose head arrived; False if none can be."""
        self._head_time = self._now()
        try:
            self._number = store.claim_number(self._owner.directory)
        except OSError as error:
            logger.warning("could not record into %s: %s", self._owner.directory, error)
            return False
        self._status = response.status_code
        self._headers = list(response.headers.multi_items())
        return True

    def read(self, data: bytes) -> None:
        if data:
            self._reads.append((self._now(), data))

    def failed(self, error: BaseException) -> None:
        if not isinstance(error, GeneratorExit):
            self.ended = f"failed: {type(error).__name__}"

    def finish(self) -> None:
        """Write the files (once), whatever arrived; a failure to write is logged."""
        if self._written:
            return
        self._written = True
        try:
            self._owner.write(self._number, *self._meta_and_body())
        except OSError as error:
            store.release(self._owner.directory, self._number)
            logger.warning("could not write a recording to %s: %s", self._owner.directory, error)

    def _meta_and_body(self) -> tuple[dict[str, Any], bytes]:
        reads, headers = self._reads, self._headers
        encoding = dict(headers).get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity") and (decoded := decode_reads(encoding, reads)):
            reads = decoded
            headers = [
                (k, v) for k, v in headers if k not in ("content-encoding", "content-length")
            ]
        body, sizes = mask_reads(reads, self._secrets)
        hidden = self._owner.hidden_headers
        ended = self.ended
        if ended == LEFT_EARLY and _ends_the_stream(body):
            ended = AFTER_THE_END  # the client stops at [DONE]: the answer is whole
        meta = {
            "format": FORMAT,
            "request": self._request,
            "status": self._status,
            "headers": [list(pair) for pair in kept(headers, hidden, self._secrets)],
            "head_time": self._head_time,
            "reads": [[at, size] for at, size in sizes],
            "elapsed": self._now(),
            "partial": ended not in (WHOLE, AFTER_THE_END),
            "ended": ended,
            "body_sha256": hashlib.sha256(body).hexdigest(),
        }
        return meta, body


class _SyncTap:
    """A sync response stream, recorded as it is read (made a byte stream of the response's
    own package by :func:`_tap_class`: each package's ``Response`` checks its own type)."""

    def __init__(self, inner: Any, call: _Call) -> None:
        self._inner, self._call = inner, call

    def __iter__(self) -> Iterator[bytes]:
        try:
            for data in self._inner:
                self._call.read(data)
                yield data
        except BaseException as error:
            self._call.failed(error)
            raise
        self._call.ended = WHOLE

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._call.finish()


class _AsyncTap:
    """Async twin of :class:`_SyncTap`."""

    def __init__(self, inner: Any, call: _Call) -> None:
        self._inner, self._call = inner, call

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for data in self._inner:
                self._call.read(data)
                yield data
        except BaseException as error:
            self._call.failed(error)
            raise
        self._call.ended = WHOLE

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._call.finish()


@functools.cache
def _tap_class(module: ModuleType, asynchronous: bool) -> type:
    """The tap as a byte stream of ``module`` (httpx or httpx2)."""
    if asynchronous:
        return type("AsyncTap", (_AsyncTap, module.AsyncByteStream), {})
    return type("SyncTap", (_SyncTap, module.SyncByteStream), {})


def _tap(call: _Call, response: Any) -> None:
    """Record ``response``'s body as it is read (nothing if no number could be claimed)."""
    if not call.head(response):
        return
    module = package_of_response(response).module
    asynchronous = isinstance(response.stream, module.AsyncByteStream)
    response.stream = _tap_class(module, asynchronous)(response.stream, call)


class RecordingTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport that records each call for replay (see the module docstring).

    It is the route itself: an ``httpx.Client(transport=...)`` takes no proxy from the
    environment. :func:`recording_client` records on the route the environment gives.

    Args:
        directory: Where ``NNN.sse`` and ``NNN.json`` go (created if missing).
        inner: The transport that really sends (sync, async, or both like
            ``httpx.MockTransport``); by default ``package``'s ``HTTPTransport`` for sync
            requests and its ``AsyncHTTPTransport`` for async ones.
        package: The HTTP package of the default inner transports, which must be the
            package of the client that sends through this one: ``"httpx"`` (the default) or
            ``"httpx2"``.
        secret_headers: More header names whose values are secrets: never written, and
            masked wherever they occur.
        secrets: More values to mask wherever they occur (e.g. a key sent in the body).
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        inner: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
        secret_headers: Iterable[str] = (),
        secrets: Iterable[str] = (),
        package: str = "httpx",
    ) -> None:
        self._recorder = _Recorder(directory, secret_headers, secrets)
        self.directory: Path = self._recorder.directory
        self.hidden_headers: frozenset[str] = self._recorder.hidden_headers
        self._sync: Any
        self._async: Any
        if inner is None:  # both sides, made now: no race on first use
            module = named(package).module
            limits = module.Limits(
                max_connections=DEFAULT_MAX_CONNECTIONS,
                max_keepalive_connections=DEFAULT_MAX_KEEPALIVE,
            )
            self._sync = module.HTTPTransport(limits=limits)
            self._async = module.AsyncHTTPTransport(limits=limits)
        else:
            self._sync = inner if callable(getattr(inner, "handle_request", None)) else None
            self._async = inner if callable(getattr(inner, "handle_async_request", None)) else None

    def __repr__(self) -> str:
        return f"RecordingTransport({str(self.directory)!r})"

    def secrets_of(self, headers: Iterable[tuple[str, str]]) -> list[str]:
        """The values to mask for a request with ``headers``: its credentials, and ours."""
        return self._recorder.secrets_of(headers)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the inner transport and record its response."""
        if self._sync is None:
            raise TypeError("the inner transport is async only: use an httpx.AsyncClient")
        call = _Call(self._recorder, request, request.read())
        response: httpx.Response = self._sync.handle_request(request)
        _tap(call, response)
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Async twin of :meth:`handle_request`."""
        if self._async is None:
            raise TypeError("the inner transport is sync only: use an httpx.Client")
        call = _Call(self._recorder, request, await request.aread())
        response: httpx.Response = await self._async.handle_async_request(request)
        _tap(call, response)
        return response

    def close(self) -> None:
        """Close the sync transport."""
        if self._sync is not None:
            self._sync.close()

    async def aclose(self) -> None:
        """Close the async transport."""
        if self._async is not None:
            await self._async.aclose()


class _Hooks:
    """httpx event hooks that record each call: the client keeps its own route (proxies
    from the environment, or the ones given), as no transport is injected."""

    def __init__(self, recorder: _Recorder) -> None:
        self._recorder = recorder
        self._calls: weakref.WeakKeyDictionary[httpx.Request, _Call] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def _remember(self, request: httpx.Request, content: bytes) -> None:
        call = _Call(self._recorder, request, content)
        with self._lock:
            self._calls[request] = call

    def on_request(self, request: httpx.Request) -> None:
        self._remember(request, request.read())

    def on_response(self, response: httpx.Response) -> None:
        with self._lock:
            call = self._calls.pop(response.request, None)
        if call is not None:
            _tap(call, response)

    async def aon_request(self, request: httpx.Request) -> None:
        self._remember(request, await request.aread())

    async def aon_response(self, response: httpx.Response) -> None:
        self.on_response(response)


def recording_client(
    directory: str | os.PathLike[str],
    *,
    inner: Any = None,
    secret_headers: Iterable[str] = (),
    secrets: Iterable[str] = (),
    package: str | None = None,
    **options: Any,
) -> Any:
    """An ``httpx.Client`` (or ``httpx2.Client``) recording every call into ``directory``
    (close it when done).

    Pooled as ``ChatClient``'s own client, and routed as it is: the environment's proxies
    (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``) and ``SSL_CERT_FILE``
    apply unless ``trust_env=False``; timeouts are left to the sse_core clients.

    Args:
        directory: Where ``NNN.sse`` and ``NNN.json`` go (created if missing).
        inner: A transport to send with instead (then the route is that transport's).
        secret_headers: More header names whose values are secrets (never written).
        secrets: More values to mask wherever they occur.
        package: ``"httpx"`` or ``"httpx2"``: whose client this is (None: the package of
            ``inner`` if given, else the library's default, ``SSE_CONNECTORS_HTTP``).
        **options: More ``Client`` arguments (``proxy``, ``verify``, ``cert``,
            ``trust_env``, ...).
    """
    hooks = _Hooks(_Recorder(directory, secret_headers, secrets))
    events: dict[str, list[Callable[..., Any]]] = {
        "request": [hooks.on_request],
        "response": [hooks.on_response],
    }
    module = _client_package(package, inner)
    options.setdefault("limits", _limits(module))
    return module.Client(transport=inner, event_hooks=events, timeout=None, **options)


def recording_async_client(
    directory: str | os.PathLike[str],
    *,
    inner: Any = None,
    secret_headers: Iterable[str] = (),
    secrets: Iterable[str] = (),
    package: str | None = None,
    **options: Any,
) -> Any:
    """Async twin of :func:`recording_client` (``ChatSSE(http_async_client=...)``,
    ``SSELLM(async_http_client=...)``, ``AsyncChatClient(http_client=...)``)."""
    hooks = _Hooks(_Recorder(directory, secret_headers, secrets))
    events: dict[str, list[Callable[..., Any]]] = {
        "request": [hooks.aon_request],
        "response": [hooks.aon_response],
    }
    module = _client_package(package, inner)
    options.setdefault("limits", _limits(module))
    return module.AsyncClient(transport=inner, event_hooks=events, timeout=None, **options)


def _client_package(package: str | None, inner: Any) -> ModuleType:
    """The package of a recording client: the one named, else the inner transport's, else
    the library's default."""
    if package is None and inner is not None:
        return package_of_response(inner).module
    return named(package).module


def _limits(module: ModuleType) -> Any:
    """The pool limits of ``ChatClient``'s own client, in ``module``'s type."""
    return module.Limits(
        max_connections=DEFAULT_MAX_CONNECTIONS, max_keepalive_connections=DEFAULT_MAX_KEEPALIVE
    )
