"""The response body as the streams read it: content-codings undone with bounded output, and
a connection that holds bytes after its response never handed back for the next request.

Content-codings. The request asks for ``gzip, deflate`` only (:data:`ACCEPT_ENCODING`;
httpx would advertise ``br`` and ``zstd`` whenever their packages are importable). httpx's
decoders inflate a whole network read at once: 32 KiB of zstd can become gigabytes before
the size bound (``max_event_bytes``) sees the first byte. Here zlib inflates each read at
most :data:`PIECE` bytes at a time, and the session checks its bound between two pieces. A
coding that zlib cannot undo this way (``br``, ``zstd``, an unknown one: a gateway may send
what it was not asked for) is refused before a byte is read; corrupt bytes are a decoding
error. Both are ``httpx.DecodingError`` here, mapped once in :mod:`.http`.

Bytes after the response. A gateway that writes bytes after the end of a body leaves them in
httpcore's h11 buffer; the next request on that connection would take them for its answer.
:func:`guard` wraps the response stream so that closing a response whose body ended with
bytes behind it shuts the connection down first (httpcore then drops it from the pool: an
idle connection whose socket reads as ended has expired). The per-read path is untouched:
iterating the wrapper iterates the wrapped stream.
"""

from __future__ import annotations

import contextlib
import socket
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx

from sse_core.transport.keepalive import H11_CHAIN, h11_state_of

__all__ = [
    "ACCEPT_ENCODING",
    "PIECE",
    "adecoded",
    "codings",
    "decoded",
    "guard",
    "hang_up",
    "retire",
]

#: What the request accepts: the codings inflated here with bounded output.
ACCEPT_ENCODING = "gzip, deflate"
#: The most bytes one inflate step may produce.
PIECE = 64 * 1024
_WBITS = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
#: More stacked codings than this is no gateway's answer.
_MAX_CODINGS = 3


def codings(headers: Any) -> list[str]:
    """The response's content-codings in the order they were applied (``identity`` left out)."""
    found: list[str] = []
    for value in headers.get_list("content-encoding", split_commas=True):
        coding = value.strip().lower()
        if coding and coding != "identity":
            found.append(coding)
    return found


class _Inflater:
    """One content-coding undone, at most PIECE bytes per step."""

    __slots__ = ("_coding", "_first", "_zlib")

    def __init__(self, coding: str) -> None:
        wbits = _WBITS.get(coding)
        if wbits is None:
            raise httpx.DecodingError(
                f"sse_core does not decode it (the request accepts {ACCEPT_ENCODING} only)"
            )
        self._coding = coding
        self._zlib = zlib.decompressobj(wbits)
        self._first = True

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The output of ``data``, in pieces of at most PIECE bytes, each made when asked for."""
        inflate = self._zlib
        if inflate.eof or not data:
            return  # zlib keeps what follows the end in unused_data: not kept, not read
        try:
            out = self._start(data) if self._first else inflate.decompress(data, PIECE)
            while True:
                if out:
                    yield out
                tail = inflate.unconsumed_tail
                if not tail and len(out) < PIECE:
                    return
                out = inflate.decompress(tail, PIECE)
        except zlib.error as exc:
            raise httpx.DecodingError(f"the compressed bytes are corrupt ({exc})") from None

    def _start(self, data: bytes) -> bytes:
        self._first = False
        try:
            return self._zlib.decompress(data, PIECE)
        except zlib.error:
            if self._coding != "deflate":
                raise
            # Some servers send raw deflate without the zlib wrapper (httpx accepts both).
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            return self._zlib.decompress(data, PIECE)


def _inflaters(names: list[str]) -> list[_Inflater]:
    if len(names) > _MAX_CODINGS:
        raise httpx.DecodingError(f"{len(names)} stacked content-codings")
    return [_Inflater(name) for name in reversed(names)]


def _through(pieces: Iterable[bytes], inflater: _Inflater) -> Iterator[bytes]:
    for data in pieces:
        yield from inflater.feed(data)


def decoded(raw: Iterator[bytes], names: list[str]) -> Iterator[bytes]:
    """``raw`` with the content-codings ``names`` undone; raises httpx.DecodingError (from
    the first step on, so the caller's loop maps it and closes the response)."""
    pieces: Iterator[bytes] = raw
    for inflater in _inflaters(names):
        pieces = _through(pieces, inflater)
    yield from pieces


async def _athrough(pieces: AsyncIterator[bytes], inflater: _Inflater) -> AsyncIterator[bytes]:
    async for data in pieces:
        for out in inflater.feed(data):
            yield out


async def adecoded(raw: AsyncIterator[bytes], names: list[str]) -> AsyncIterator[bytes]:
    """Async :func:`decoded`."""
    pieces: AsyncIterator[bytes] = raw
    for inflater in _inflaters(names):
        pieces = _athrough(pieces, inflater)
    async for out in pieces:
        yield out


# --- a connection with bytes after its response is not reused ---


def hang_up(network_stream: Any) -> None:
    """Shut the connection of ``network_stream`` down now, without awaiting anything."""
    sock = network_stream.get_extra_info("socket") if network_stream is not None else None
    shutdown = getattr(sock, "shutdown", None)  # a socket, or asyncio's TransportSocket
    if callable(shutdown):
        with contextlib.suppress(OSError):
            shutdown(socket.SHUT_RDWR)


def retire(response: Any) -> None:
    """Keep the connection of a closed ``response`` (back in the pool) from serving another
    request, after an error its body caused: if it is idle, it counts as expired, so httpcore
    closes it instead of handing it out. (One already handed to another request is left to
    it: its next answer starts a fresh cycle.)"""
    connection: Any = getattr(response.stream, "_inner", response.stream)
    for name in H11_CHAIN[:-1]:
        connection = getattr(connection, name, None)
    is_idle = getattr(connection, "is_idle", None)
    if callable(is_idle) and is_idle() and hasattr(connection, "_expire_at"):
        connection._expire_at = 0.0


def _check(state: Any, network_stream: Any) -> None:
    """Hang up when the response ended with bytes behind it in h11's buffer."""
    if state is None:
        return
    data, closed = state.trailing_data
    if data and not closed and getattr(state.their_state, "__name__", "") == "DONE":
        hang_up(network_stream)


class _Guard(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, state: Any, net: Any) -> None:
        self._inner, self.h11, self._net = inner, state, net

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._inner)

    def close(self) -> None:
        _check(self.h11, self._net)
        self._inner.close()


class _AsyncGuard(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, state: Any, net: Any) -> None:
        self._inner, self.h11, self._net = inner, state, net

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._inner.__aiter__()

    async def aclose(self) -> None:
        _check(self.h11, self._net)
        await self._inner.aclose()


def guard(response: Any) -> None:
    """Wrap ``response``'s stream so that its close refuses reuse after trailing bytes
    (only where httpcore's h11 state is found: HTTP/1.1 over httpx's own transport)."""
    state = h11_state_of(response.stream)
    if state is None:
        return
    net = response.extensions.get("network_stream")
    stream = response.stream
    if isinstance(stream, httpx.SyncByteStream):
        response.stream = _Guard(stream, state, net)
    elif isinstance(stream, httpx.AsyncByteStream):
        response.stream = _AsyncGuard(stream, state, net)
