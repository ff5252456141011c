"""Record every model call made through an httpx client, for replay by the gateway emulator.

:class:`RecordingTransport` wraps an httpx transport (sync and async) and writes, per HTTP
request, ``DIR/NNN.sse`` (the response body exactly as the decoder sees it) and
``DIR/NNN.json``, the ``sse-connectors/recording@1`` sidecar that ``Emulator(replay=DIR)``
replays (request method, URL, headers and JSON body; status; response headers as
``[name, value]`` pairs; ``head_time``; ``reads`` as ``[seconds, size]``; ``elapsed``).
:func:`recording_client` gives an ``httpx.Client`` for ``ChatClient(http_client=...)``,
``ChatSSE(http_client=...)`` or ``SSELLM(http_client=...)``.

- Numbers continue after the highest ``NNN`` already in the directory, shared by every
  transport of this process writing there (thread-safe); a number is taken when the
  response head arrives. Names sort in replay order up to 999 calls per directory.
- The files are written when the response is closed: after the whole body, and also when
  the consumer left early or the stream failed (what arrived is recorded); each under a
  temporary name, then renamed, the ``.sse`` first.
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

import json
import logging
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from sse_core._redact import redact, redact_data
from sse_core.transport.client import DEFAULT_LIMITS
from sse_core.transport.config import SECRET_HEADERS

__all__ = ["FORMAT", "RecordingTransport", "recording_async_client", "recording_client"]

#: The ``format`` of every sidecar written here (what the emulator's replay expects).
FORMAT = "sse-connectors/recording@1"
_MASK = b"***"
_MIN_SECRET = 4
_SECRET_NAME = re.compile(r"key|token|secret|password|passwd|auth|signature|^sig$", re.I)
_NUMBERED = re.compile(r"^(\d+)\.(?:sse|json)$")

logger: logging.Logger = logging.getLogger("sse_core")
_NEXT: dict[str, int] = {}
_NEXT_LOCK = threading.Lock()


def _take_number(directory: Path) -> int:
    """The next call number in ``directory``: after its files and the numbers handed out."""
    key = str(directory.resolve())
    with _NEXT_LOCK:
        names = (_NUMBERED.match(path.name) for path in directory.iterdir())
        number = max(_NEXT.get(key, 1), max((int(m[1]) for m in names if m), default=0) + 1)
        _NEXT[key] = number + 1
    if number == 1000:
        logger.warning("%s holds 1000 calls: file names no longer sort in order", directory)
    return number


def _secret_name(name: str, hidden: frozenset[str]) -> bool:
    lowered = name.lower()
    return lowered in hidden or bool(_SECRET_NAME.search(lowered))


def _secret_values(name: str, value: str) -> list[str]:
    """A credential's value and its parts: ``Bearer KEY`` gives both; a cookie its values."""
    value = value.strip()
    found = [value, value.partition(" ")[2].strip()]
    if name.lower() == "cookie":
        found += [cookie.partition("=")[2].strip() for cookie in value.split(";")]
    return [v for v in found if len(v) >= _MIN_SECRET]


def _kept(
    headers: Iterable[tuple[str, str]], hidden: frozenset[str], secrets: Sequence[str]
) -> list[tuple[str, str]]:
    """The headers that may be written: no credential, and every secret masked."""
    return [(k, redact(v, secrets)) for k, v in headers if not _secret_name(k, hidden)]


def _public_url(url: httpx.URL, secrets: Sequence[str]) -> str:
    """The URL without user info, fragment or credential-like query parameters."""
    params = url.params.multi_items()
    query = [(k, redact(v, secrets)) for k, v in params if not _SECRET_NAME.search(k)]
    clean = url.copy_with(username=None, password=None, fragment=None, params=query)
    return redact(str(clean), secrets)


def _request_body(content: bytes, secrets: Sequence[str]) -> Any:
    """The request body as JSON (every string masked), else as masked text, else None."""
    if not content:
        return None
    try:
        return redact_data(json.loads(content), secrets)
    except ValueError:
        return redact(content.decode("utf-8", "replace"), secrets)


def _shifted(offset: int, spans: Sequence[tuple[int, int]]) -> int:
    """Where ``offset`` of the body lands in the masked body (a mask arrives with its start)."""
    moved = offset
    for start, end in spans:
        if offset >= end:
            moved -= (end - start) - len(_MASK)
        elif offset > start:
            moved -= (offset - start) - len(_MASK)
    return moved


def mask_reads(
    reads: Sequence[tuple[float, bytes]], secrets: Iterable[str]
) -> tuple[bytes, list[tuple[float, int]]]:
    """The body with every secret masked, and its reads as ``(time, size)`` of that body."""
    body = b"".join(data for _, data in reads)
    longest_first = sorted({s.encode() for s in secrets if len(s) >= _MIN_SECRET}, key=len)[::-1]
    pattern = re.compile(b"|".join(map(re.escape, longest_first))) if longest_first else None
    spans = [m.span() for m in pattern.finditer(body)] if pattern else []
    sizes: list[tuple[float, int]] = []
    offset = done = 0
    for at, data in reads:
        offset += len(data)
        end = _shifted(offset, spans)
        sizes.append((at, end - done))
        done = end
    return (pattern.sub(_MASK, body) if pattern else body), sizes


class _Pieces(httpx.SyncByteStream):
    def __init__(self, pieces: Iterator[bytes]) -> None:
        self._pieces = pieces

    def __iter__(self) -> Iterator[bytes]:
        return self._pieces


def decode_reads(
    encoding: str, reads: Sequence[tuple[float, bytes]]
) -> list[tuple[float, bytes]] | None:
    """Undo a content-encoding read by read with httpx's own decoders; None if it fails."""
    clock = [0.0]

    def raw() -> Iterator[bytes]:
        for at, data in reads:
            clock[0] = at
            yield data

    response = httpx.Response(200, headers={"content-encoding": encoding}, stream=_Pieces(raw()))
    try:
        return [(clock[0], piece) for piece in response.iter_bytes()]
    except httpx.DecodingError:
        return None


class _Call:
    """One model call being recorded: the request, then the head, then each read."""

    def __init__(self, owner: RecordingTransport, request: httpx.Request, content: bytes) -> None:
        self._owner = owner
        self._start = time.monotonic()
        headers = request.headers.multi_items()
        self._secrets = owner.secrets_of(headers)
        self._request = {
            "method": request.method,
            "url": _public_url(request.url, self._secrets),
            "headers": dict(_kept(headers, owner.hidden_headers, self._secrets)),
            "body": _request_body(content, self._secrets),
        }
        self._number = self._status = 0
        self._headers: list[tuple[str, str]] = []
        self._head_time = 0.0
        self._reads: list[tuple[float, bytes]] = []
        self._written = False

    def _now(self) -> float:
        return round(time.monotonic() - self._start, 6)

    def head(self, response: httpx.Response) -> None:
        self._head_time = self._now()
        self._number = _take_number(self._owner.directory)
        self._status = response.status_code
        self._headers = list(response.headers.multi_items())

    def read(self, data: bytes) -> None:
        if data:
            self._reads.append((self._now(), data))

    def finish(self) -> None:
        """Write the files (once), whatever arrived; a failure to write is logged."""
        if self._written:
            return
        self._written = True
        try:
            self._owner.write(self._number, *self._meta_and_body())
        except OSError as error:
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
        meta = {
            "format": FORMAT,
            "request": self._request,
            "status": self._status,
            "headers": [list(pair) for pair in _kept(headers, hidden, self._secrets)],
            "head_time": self._head_time,
            "reads": [[at, size] for at, size in sizes],
            "elapsed": self._now(),
        }
        return meta, body


class _SyncTap(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, call: _Call) -> None:
        self._inner, self._call = inner, call

    def __iter__(self) -> Iterator[bytes]:
        for data in self._inner:
            self._call.read(data)
            yield data

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._call.finish()


class _AsyncTap(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, call: _Call) -> None:
        self._inner, self._call = inner, call

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for data in self._inner:
            self._call.read(data)
            yield data

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._call.finish()


class RecordingTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport that records each call for replay (see the module docstring).

    Args:
        directory: Where ``NNN.sse`` and ``NNN.json`` go (created if missing).
        inner: The transport that really sends (sync, async, or both like
            ``httpx.MockTransport``); by default an ``httpx.HTTPTransport`` for sync
            requests and an ``httpx.AsyncHTTPTransport`` for async ones.
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
    ) -> None:
        self.directory: Path = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.hidden_headers: frozenset[str] = SECRET_HEADERS | {
            name.lower() for name in secret_headers
        }
        self._secrets = tuple(s for s in secrets if s)
        self._sync: httpx.BaseTransport | None
        self._async: httpx.AsyncBaseTransport | None
        if inner is None:  # both sides, made now: no race on first use
            self._sync = httpx.HTTPTransport(limits=DEFAULT_LIMITS)
            self._async = httpx.AsyncHTTPTransport(limits=DEFAULT_LIMITS)
        else:
            self._sync = inner if isinstance(inner, httpx.BaseTransport) else None
            self._async = inner if isinstance(inner, httpx.AsyncBaseTransport) else None

    def __repr__(self) -> str:
        return f"RecordingTransport({str(self.directory)!r})"

    def secrets_of(self, headers: Iterable[tuple[str, str]]) -> list[str]:
        """The values to mask for a request with ``headers``: its credentials, and ours."""
        found = list(self._secrets)
        for name, value in headers:
            if _secret_name(name, self.hidden_headers):
                found += _secret_values(name, value)
        return sorted(set(found), key=len, reverse=True)

    def write(self, number: int, meta: dict[str, Any], body: bytes) -> None:
        """Write one call's files, the body first."""
        stem = self.directory / f"{number:03d}"
        _write_atomic(stem.with_suffix(".sse"), body)
        lines = (f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items())
        text = "{\n" + ",\n".join(lines) + "\n}\n"
        _write_atomic(stem.with_suffix(".json"), text.encode())

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through the inner transport and record its response."""
        if self._sync is None:
            raise TypeError("the inner transport is async only: use an httpx.AsyncClient")
        call = _Call(self, request, request.read())
        response = self._sync.handle_request(request)
        call.head(response)
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _SyncTap(response.stream, call)
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Async twin of :meth:`handle_request`."""
        if self._async is None:
            raise TypeError("the inner transport is sync only: use an httpx.Client")
        call = _Call(self, request, await request.aread())
        response = await self._async.handle_async_request(request)
        call.head(response)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _AsyncTap(response.stream, call)
        return response

    def close(self) -> None:
        """Close the sync transport."""
        if self._sync is not None:
            self._sync.close()

    async def aclose(self) -> None:
        """Close the async transport."""
        if self._async is not None:
            await self._async.aclose()


def _write_atomic(path: Path, data: bytes) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    partial.write_bytes(data)
    os.replace(partial, path)


def recording_client(
    directory: str | os.PathLike[str],
    *,
    inner: httpx.BaseTransport | None = None,
    secret_headers: Iterable[str] = (),
    secrets: Iterable[str] = (),
) -> httpx.Client:
    """An ``httpx.Client`` recording every call into ``directory`` (close it when done).

    Pooled as ``ChatClient``'s own client; timeouts are left to the sse_core clients.
    """
    transport = RecordingTransport(
        directory,
        inner=inner or httpx.HTTPTransport(limits=DEFAULT_LIMITS),
        secret_headers=secret_headers,
        secrets=secrets,
    )
    return httpx.Client(transport=transport, timeout=None)


def recording_async_client(
    directory: str | os.PathLike[str],
    *,
    inner: httpx.AsyncBaseTransport | None = None,
    secret_headers: Iterable[str] = (),
    secrets: Iterable[str] = (),
) -> httpx.AsyncClient:
    """Async twin of :func:`recording_client` (``ChatSSE(http_async_client=...)``,
    ``SSELLM(async_http_client=...)``, ``AsyncChatClient(http_client=...)``)."""
    transport = RecordingTransport(
        directory,
        inner=inner or httpx.AsyncHTTPTransport(limits=DEFAULT_LIMITS),
        secret_headers=secret_headers,
        secrets=secrets,
    )
    return httpx.AsyncClient(transport=transport, timeout=None)
