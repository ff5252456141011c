"""After ``[DONE]``: read the end of the body if it is already here, so the connection is reused.

A stream stops reading at ``data: [DONE]`` (a gateway may keep a body open after it). But
an HTTP/1.1 response closed before its end closes its connection, so every request would
open a new one: a TCP (and TLS) handshake before each answer, most of what a client added
to the time to the first token over raw httpx, which reads every body to its end. So once
the answer is whole, the stream reads on only when that cannot wait:

- a ``content-length`` body whose bytes all arrived (the end is known to be here);
- a chunked body whose last chunk (``0\\r\\n\\r\\n``) httpcore's h11 state already holds;
- bytes waiting on the socket (the last chunk, written after the ``[DONE]`` frame).

Otherwise, or if anything but the end follows (bytes after ``[DONE]``), the response is
closed as before, with its connection. This never waits for the server.

The h11 state is found through private attributes of httpx and httpcore (the response
stream's ``_stream``, ``_httpcore_stream``, ``_stream``, ``_connection``, ``_h11_state``);
with another transport (HTTP/2, a mock, a future httpx) it is not found, and only the two
other signs count. ``tests/core/transport/test_keepalive.py`` fails loudly if the chain moves.

Reusing connections this way (and :func:`sse_core.transport.body.guard`/``retire``, which read
the same chain) is the fast path :data:`REUSE` of :mod:`sse_core.fast_paths`. Off, the client
uses httpx's public API only, which cannot tell a connection holding bytes behind its response
from a clean one: every request asks ``connection: close`` (so httpcore and the server close
the connection after each response, streamed, JSON or error), and a stream left early is shut
down at its close through the public ``network_stream`` extension. No connection is reused,
and none can carry bytes of one answer into the next request; each request opens its own.
"""

from __future__ import annotations

import contextlib
import select
from collections.abc import AsyncIterator, Iterator
from typing import Any

import h11
import httpcore
import httpx

from sse_core.fast_paths import FastPath, register, unassigned

__all__ = [
    "REUSE",
    "afinish_body",
    "end_is_here",
    "find_h11_state",
    "finish_body",
    "h11_state_of",
    "probe_chain",
]

#: The attributes from an httpx response stream to httpcore's h11 connection state.
H11_CHAIN = ("_stream", "_httpcore_stream", "_stream", "_connection", "_h11_state")
#: The end of a chunked body without trailers.
_LAST_CHUNK = b"0\r\n\r\n"


def probe_chain() -> str | None:
    """None if httpx and httpcore still hold the attributes of :data:`H11_CHAIN` (and the
    connection the ones ``retire`` uses), else the first one missing."""
    from httpcore._async import connection_pool as async_pool
    from httpcore._async import http11 as async_http11
    from httpcore._sync import connection_pool as sync_pool
    from httpcore._sync import http11 as sync_http11
    from httpx import _client, _transports

    hops: list[tuple[type, tuple[str, ...]]] = [
        (_client.BoundSyncStream, ("_stream",)),
        (_client.BoundAsyncStream, ("_stream",)),
        (_transports.default.ResponseStream, ("_httpcore_stream",)),
        (_transports.default.AsyncResponseStream, ("_httpcore_stream",)),
        (sync_pool.PoolByteStream, ("_stream",)),
        (async_pool.PoolByteStream, ("_stream",)),
        (sync_http11.HTTP11ConnectionByteStream, ("_connection",)),
        (async_http11.HTTP11ConnectionByteStream, ("_connection",)),
        (httpcore.HTTP11Connection, ("_h11_state", "_expire_at", "is_idle")),
        (httpcore.AsyncHTTP11Connection, ("_h11_state", "_expire_at", "is_idle")),
        (h11.Connection, ("trailing_data", "their_state")),
    ]
    for cls, names in hops:
        missing = unassigned(cls, *names)
        if missing is not None:
            return f"{missing} is gone"
    return None


#: Connection reuse after ``[DONE]`` read from httpcore's h11 state (else: no reuse).
REUSE = register(
    FastPath(
        name="transport.reuse",
        shortcut="after [DONE] the end of the body is read when httpcore's h11 state (private "
        "httpx/httpcore attributes) says it is here, so the connection is reused; a "
        "connection with bytes behind its response is retired",
        tested={"httpx": ">=0.27,<0.30", "httpcore": ">=1.0,<1.1"},
        probe=probe_chain,
        faithful="httpx's public API only: every request asks connection: close, and a stream "
        "left early is shut down at its close (the network_stream extension); a new "
        "connection per request",
        uses={
            "sse_core.transport.keepalive": (
                "_async",
                "_client",
                "_connection",
                "_expire_at",
                "_h11_state",
                "_httpcore_stream",
                "_sync",
                "_transports",
            ),
            "sse_core.transport.body": ("_expire_at",),  # retire()
        },
    )
)


def find_h11_state(response: Any) -> Any | None:
    """httpcore's h11 connection state for ``response``, or None (not an HTTP/1.1 response
    of httpx's default transport, or the internals moved)."""
    guarded = getattr(response.stream, "h11", None)  # body.guard keeps it
    return guarded if guarded is not None else h11_state_of(response.stream)


def h11_state_of(stream: Any) -> Any | None:
    """:func:`find_h11_state` from the response's stream (before anything wraps it)."""
    state: Any = stream
    for name in H11_CHAIN:
        state = getattr(state, name, None)
        if state is None:
            return None
    return state if hasattr(state, "trailing_data") and hasattr(state, "their_state") else None


def _socket_ready(response: Any) -> bool:
    return socket_readable(response.extensions.get("network_stream"))


def socket_readable(network_stream: Any) -> bool:
    """Whether bytes (or the end) wait unread on the socket of ``network_stream`` (httpx's
    public extension), without waiting; False where no socket is found or it closed."""
    sock = network_stream.get_extra_info("socket") if network_stream is not None else None
    fileno = getattr(sock, "fileno", None)
    if not callable(fileno):
        return False
    try:
        readable, _, _ = select.select([fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return bool(readable)


def end_is_here(response: Any) -> bool:
    """Whether reading the rest of ``response``'s body can return at once (see above)."""
    length = response.headers.get("content-length")
    if length is not None:
        downloaded: int = response.num_bytes_downloaded
        return length.isdigit() and downloaded >= int(length)
    state = find_h11_state(response)
    if state is not None:
        data, closed = state.trailing_data
        if closed:
            return False  # the server hung up: nothing to reuse
        done = getattr(state.their_state, "__name__", "") == "DONE"  # h11's sentinel
        if done or bytes(data).endswith(_LAST_CHUNK):
            return True
    return _socket_ready(response)


def finish_body(response: Any, body: Iterator[bytes]) -> None:
    """Read the end of ``body`` when :func:`end_is_here`; stop at any data (after
    ``[DONE]``, not worth reading). The caller closes the response either way."""
    if not end_is_here(response):
        return
    with contextlib.suppress(httpx.HTTPError):
        for piece in body:
            if piece:
                return


async def afinish_body(response: Any, body: AsyncIterator[bytes]) -> None:
    """Async twin of :func:`finish_body`."""
    if not end_is_here(response):
        return
    with contextlib.suppress(httpx.HTTPError):
        async for piece in body:
            if piece:
                return
