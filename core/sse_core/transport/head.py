"""``first_byte`` as a deadline for the whole response head, not for each read of it.

httpx applies its read timeout to every socket read: a server that sends ``103 Early Hints``
every 100 ms, or its head one byte at a time, is never silent long enough to trip it. So each
request carries a :class:`HeadWatch` as httpcore's ``trace`` extension: when httpcore starts
sending the request it arms the watch (``first_byte``, within the total deadline); when the
head arrives it disarms it. A watch that comes due shuts the request's connection down (one
shared thread keeps the deadlines), so the blocked read ends at once, sync or async alike,
and the client reports the head timeout instead of what httpcore saw.

The connection is found through httpcore's public ``trace`` extension where the request
opens it (``connection.connect_tcp.complete`` gives the network stream); a connection reused
from the pool is found through private attributes of httpx and httpcore (the transport's
``_pool``, its ``_requests``, their ``connection``, its ``_connection`` and
``_network_stream``): the fast path :data:`HEAD` of :mod:`sse_core.fast_paths`. Off, only the
traced stream counts; with the reuse fast path off too (as ``SSE_CONNECTORS_FAST=0`` turns
both off) every stream's request opens its connection, so the deadline holds all the same.
With neither (another transport, a reused connection of an injected client) the per-read
timeout alone applies. ``tests/core/transport/test_head.py`` fails loudly if the chain moves.
"""

from __future__ import annotations

import heapq
import inspect
import itertools
import threading
import time
from typing import Any, ClassVar

import httpcore
import httpx

from sse_core.fast_paths import FastPath, is_on, register, unassigned
from sse_core.transport.body import hang_up
from sse_core.transport.keepalive import socket_readable

__all__ = [
    "HEAD",
    "READ_TIMEOUT",
    "HeadWatch",
    "IdleWatch",
    "find_network_stream",
    "probe_pool",
    "probe_read_timeout",
]

#: The trace events that end the head phase, well or not.
_HEAD_ENDS = ("receive_response_headers.complete", "receive_response_headers.failed")
#: The trace event of a new connection, its network stream as ``return_value``.
_CONNECTED = "connection.connect_tcp.complete"


def probe_pool() -> str | None:
    """None if httpx and httpcore still hold what :func:`find_network_stream` reads."""
    from httpcore._async.connection_pool import AsyncPoolRequest
    from httpcore._sync.connection_pool import PoolRequest

    hops: list[tuple[type, tuple[str, ...]]] = [
        (httpx.Client, ("_transport_for_url",)),
        (httpx.AsyncClient, ("_transport_for_url",)),
        (httpx.HTTPTransport, ("_pool",)),
        (httpx.AsyncHTTPTransport, ("_pool",)),
        (httpcore.ConnectionPool, ("_requests",)),
        (httpcore.AsyncConnectionPool, ("_requests",)),
        (PoolRequest, ("request", "connection")),
        (AsyncPoolRequest, ("request", "connection")),
        (httpcore.HTTPConnection, ("_connection",)),
        (httpcore.AsyncHTTPConnection, ("_connection",)),
        (httpcore.HTTP11Connection, ("_network_stream",)),
        (httpcore.AsyncHTTP11Connection, ("_network_stream",)),
    ]
    for cls, names in hops:
        missing = unassigned(cls, *names)
        if missing is not None:
            return f"{missing} is gone"
    return None


#: The connection of a request served by a reused connection, found in httpcore's pool.
HEAD = register(
    FastPath(
        name="transport.head",
        shortcut="the first_byte head deadline finds a reused connection through httpcore's "
        "pool internals, to shut it down when the deadline passes",
        tested={"httpx": ">=0.27,<0.30", "httpcore": ">=1.0,<1.1"},
        probe=probe_pool,
        faithful="the network stream of the connection the request opens, from httpcore's "
        "public trace extension (connection.connect_tcp.complete)",
        uses={
            "sse_core.transport.head": (
                "_async",
                "_connection",
                "_network_stream",
                "_requests",
                "_sync",
                "_transport_for_url",
            )
        },
    )
)


def find_network_stream(http: httpx.Client | httpx.AsyncClient, request: httpx.Request) -> Any:
    """The network stream httpcore serves ``request`` on, or None (not found, or not yet)."""
    transport = http._transport_for_url(request.url)
    for waiting in list(getattr(getattr(transport, "_pool", None), "_requests", ())):
        if getattr(waiting.request, "extensions", None) is request.extensions:
            connection = getattr(waiting.connection, "_connection", None)
            return getattr(connection, "_network_stream", None)
    return None


class HeadWatch:
    """The head deadline of one request (see the module docstring).

    Args:
        seconds: The budget from the start of sending to the head.
        limit: The setting it comes from, for the message (``"first_byte (600 s)"``).
    """

    __slots__ = (
        "_fast",
        "_http",
        "_lock",
        "_request",
        "_stream",
        "armed",
        "fired",
        "limit",
        "seconds",
    )

    seconds: float
    limit: str
    #: Sending has started and the deadline runs.
    armed: bool
    #: The deadline passed and the connection was hung up.
    fired: bool

    def __init__(self, seconds: float, limit: str) -> None:
        self.seconds = seconds
        self.limit = limit
        self.armed = False
        self.fired = False
        self._lock = threading.Lock()
        self._http: Any = None
        self._request: Any = None
        self._stream: Any = None
        self._fast = False

    def attach(self, http: Any, request: Any, *, asynchronous: bool, fast: bool) -> None:
        """Watch ``request``, sent through ``http`` (an httpx or httpx2 client; ``fast``: of
        the package the fast path :data:`HEAD` was probed on), as its trace extension."""
        self._http, self._request, self._fast = http, request, fast
        request.extensions["trace"] = self.atrace if asynchronous else self

    def __call__(self, name: str, info: dict[str, Any]) -> None:
        """httpcore's trace callback: keep a new connection's stream, arm on sending, disarm
        on the head."""
        if name == _CONNECTED:
            self._stream = info.get("return_value")
        elif name.endswith("send_request_headers.started"):
            if not self.armed and self._request is not None:
                self.armed = True
                _Watchdog.add(time.monotonic() + self.seconds, self)
        elif name.endswith(_HEAD_ENDS) and self.disarm():
            # Due just as the head came: the connection is shut already.
            raise httpx.ReadTimeout(f"the response head took longer than {self.limit}")

    async def atrace(self, name: str, info: dict[str, Any]) -> None:
        """The trace callback of an async client (httpcore awaits it)."""
        self(name, info)

    @property
    def live(self) -> bool:
        """Still watching (the watchdog drops what is not)."""
        return self._request is not None

    def disarm(self) -> bool:
        """Stop watching; whether the deadline had passed."""
        with self._lock:
            if self._request is not None:
                self._http = self._request = self._stream = None
                _Watchdog.cancelled(self.armed)
            return self.fired

    def fire(self) -> None:
        """The deadline passed: hang the request's connection up."""
        with self._lock:
            if self._http is None or self._request is None:
                return
            self.fired = True
            network_stream = self._stream
            if network_stream is None and self._fast and is_on(HEAD.name):
                network_stream = find_network_stream(self._http, self._request)
        hang_up(network_stream)


def probe_read_timeout() -> str | None:
    """None if httpcore still reads the read timeout when the body's reading starts (so a
    value written into the request's timeout extension after the head applies to the body)."""
    for cls in (httpcore.HTTP11Connection, httpcore.AsyncHTTP11Connection):
        method = getattr(cls, "_receive_response_body", None)
        try:
            source = inspect.getsource(method) if method is not None else ""
        except (OSError, TypeError):
            source = ""
        if '"timeout"' not in source or '"read"' not in source:
            return f"httpcore's {cls.__name__} no longer reads the read timeout with the body"
    return None


#: The body's idle bound written into httpcore's read timeout once the head arrived.
READ_TIMEOUT = register(
    FastPath(
        name="transport.read_timeout",
        shortcut="once the head arrived, the idle bound replaces first_byte in the request's "
        "timeout extension, which httpcore reads again when the body's reading starts",
        tested={"httpx": ">=0.27,<0.30", "httpcore": ">=1.0,<1.1"},
        probe=probe_read_timeout,
        faithful="httpx's read timeout stays the larger of first_byte and idle; an IdleWatch "
        "(the head deadline's thread) hangs the connection up after idle seconds without "
        "a byte of the body (the public network_stream extension)",
        uses={"sse_core.transport.head": ("_receive_response_body",)},
    )
)


class IdleWatch:
    """The idle bound of a body's reads, kept by the watchdog thread (the faithful path of
    :data:`READ_TIMEOUT`). The stream sets :attr:`reading_since` while it waits in a read
    (a float written, nothing more) and clears it while its consumer holds a piece, so that,
    as with httpx's read timeout, only the time spent waiting for the server counts. When a
    read has waited ``seconds`` with no byte on the socket, the connection is hung up and
    :attr:`fired` set: the blocked read ends, and the stream reports the idle timeout.

    Args:
        seconds: The idle bound.
        deadline: The total deadline (``time.monotonic()``), or None.
        network_stream: The response's ``network_stream`` extension.
        now: When the head arrived (the wait for the body's first byte starts there).
    """

    __slots__ = ("_stream", "deadline", "fired", "reading_since", "seconds")

    seconds: float
    deadline: float | None
    #: When the read the stream waits in began, or None while no read waits.
    reading_since: float | None
    #: The bound passed and the connection was hung up.
    fired: bool

    def __init__(
        self, seconds: float, deadline: float | None, network_stream: Any, now: float
    ) -> None:
        self.seconds = seconds
        self.deadline = deadline
        self.reading_since: float | None = now
        self.fired = False
        self._stream: Any = network_stream  # None once disarmed
        _Watchdog.add(self._due(now), self)

    @property
    def live(self) -> bool:
        """Still watching (the watchdog drops what is not)."""
        return self._stream is not None

    def _due(self, since: float) -> float:
        due = since + self.seconds
        return due if self.deadline is None else min(due, self.deadline)

    def disarm(self) -> None:
        """Stop watching (the body ended, or the stream was closed)."""
        if self._stream is not None:
            self._stream = None
            _Watchdog.cancelled(True)

    def fire(self) -> None:
        """Due: hang up if a read has waited the bound with nothing on the socket; else
        watch on (no read waits: look again within a second)."""
        network_stream = self._stream
        if network_stream is None:
            return
        now, since = time.monotonic(), self.reading_since
        if since is None or socket_readable(network_stream):  # a stalled process is no silence
            _Watchdog.add(now + min(self.seconds, 1.0), self)
            return
        due = self._due(since)
        if due > now:
            _Watchdog.add(due, self)
            return
        self.fired = True
        self._stream = None
        hang_up(network_stream)


class _Watchdog:
    """One thread firing the watches that come due, in deadline order."""

    wake = threading.Condition()
    heap: ClassVar[list[tuple[float, int, HeadWatch | IdleWatch]]] = []
    order = itertools.count()
    dropped = 0  # disarmed watches still in the heap
    started = False

    @classmethod
    def add(cls, when: float, watch: HeadWatch | IdleWatch) -> None:
        with cls.wake:
            if not cls.started:
                cls.started = True
                threading.Thread(target=cls.run, name="sse-core-head", daemon=True).start()
            if cls.dropped > 64 and cls.dropped * 2 > len(cls.heap):
                cls.heap = [entry for entry in cls.heap if entry[2].live]
                heapq.heapify(cls.heap)
                cls.dropped = 0
            heapq.heappush(cls.heap, (when, next(cls.order), watch))
            if cls.heap[0][2] is watch:
                cls.wake.notify()

    @classmethod
    def cancelled(cls, armed: bool) -> None:
        if armed:
            with cls.wake:
                cls.dropped += 1

    @classmethod
    def run(cls) -> None:
        while True:
            with cls.wake:
                while not cls.heap or cls.heap[0][0] > time.monotonic():
                    cls.wake.wait(cls.heap[0][0] - time.monotonic() if cls.heap else None)
                watch = heapq.heappop(cls.heap)[2]
                if not watch.live:
                    cls.dropped = max(cls.dropped - 1, 0)
            watch.fire()
