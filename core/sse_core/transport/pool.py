"""``ClientPool``: the clients of one model object, made on first use, reused, never stale.

Both adapters keep one pool per model. A client is reused for the same configuration (a
model whose fields were changed, or a ``model_copy`` with another ``base_url``, gets its
own, never one built for the old values) and, for the async client, in the same event loop:
an ``httpx.AsyncClient`` pools connections bound to the loop that opened them, and a model
is routinely used from several loops (``asyncio.run`` per call, a fresh loop per test, a
workflow in a thread). An injected httpx client is used as is and never closed here.

A loop's clients end with the loop, so ``asyncio.run(model.ainvoke(...))`` in a loop holds
no socket after it returns:

- ``asyncio.run``, ``asyncio.Runner``, anyio and asgiref's ``async_to_sync`` shut a loop
  down with ``loop.shutdown_asyncgens()``, which closes every open async generator while the
  loop still runs. Each loop's clients are watched by one such generator (parked at its
  ``yield``), whose ``finally`` closes them there and drops them from the pool.
- A loop closed without that (``loop.close()`` alone) is found closed on the pool's next
  use: its clients cannot be awaited any more, so their sockets are closed directly
  (:func:`_close_sockets`) and the clients dropped.
- :meth:`ClientPool.aclose` awaits the running loop's clients and closes closed loops'
  sockets. It leaves another loop that still runs to that loop's own end or ``aclose()``:
  a task scheduled into a loop that is ending (one model, a loop per thread, each closing
  at its end) is cancelled by its ``asyncio.run``, leaving its sockets open.
- :meth:`ClientPool.close` (sync, so it cannot await) reaches every loop's clients: another
  running loop's are closed by a task in that loop, its watcher kept until they are, so a
  loop that ends first still closes them at its shutdown.

Copies (``copy.deepcopy``, pydantic's ``model_copy(deep=True)``) start with an empty pool
(sockets and locks are not copied) that shares the injected httpx clients; a pickled pool
comes back empty, without them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncGenerator, Iterator
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

from sse_core.errors import ConfigurationError
from sse_core.fast_paths import FastPath, register, unassigned
from sse_core.telemetry.setting import Telemetry
from sse_core.transport.client import AsyncChatClient, ChatClient
from sse_core.transport.config import ClientConfig
from sse_core.transport.packages import package_of

if TYPE_CHECKING:
    import httpx2

__all__ = ["ClientPool"]

logger: logging.Logger = logging.getLogger("sse_core")

#: Configurations kept per pool (and per loop): a model uses one, a few at most.
_KEEP = 8
#: Where httpcore keeps an open connection's socket: a connection (or a proxy connection
#: around one) holds ``_connection`` until the one holding ``_network_stream``.
_INNER, _STREAM = "_connection", "_network_stream"


class _Loop:
    """One event loop's async clients and the generator that closes them at its shutdown."""

    __slots__ = ("__weakref__", "clients", "loop", "watch")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clients: OrderedDict[bytes, AsyncChatClient] = OrderedDict()
        self.watch: AsyncGenerator[None, None] | None = None

    def take(self) -> list[AsyncChatClient]:
        clients, self.clients = list(self.clients.values()), OrderedDict()
        return clients

    def stop_watching(self) -> None:
        """End the watcher now, without awaiting (its clients were taken: nothing to await).
        A watcher left parked would be finalized later through its loop, maybe closed by then."""
        watch, self.watch = self.watch, None
        if watch is None:
            return
        closer = watch.aclose()
        with contextlib.suppress(StopIteration, RuntimeError):  # RuntimeError: closing already
            closer.send(None)
        closer.close()


async def _watch(pool: weakref.ref[ClientPool], entry: _Loop) -> AsyncGenerator[None, None]:
    """Parked at its ``yield`` until the loop's ``shutdown_asyncgens()`` closes it."""
    try:
        yield
    finally:
        owner = pool()
        # No owner: the model and its pool were collected, which finalizes this watcher
        # through the loop at once. Streams still being read hold their clients: closing them
        # would cut those streams (``await make_llm().astream_chat(...)`` drops the model at
        # once). Their sockets close with them.
        clients = entry.take() if owner is not None else []
        if owner is not None:
            owner._forget(entry)
        for client in clients:
            try:
                await client.aclose()
            except Exception:  # the loop is ending; its sockets go with it
                logger.debug("closing a pooled client at the loop's shutdown failed", exc_info=True)


class ClientPool:
    """Sync clients by configuration, async clients by configuration and event loop.

    Args:
        http_client: An ``httpx.Client`` (or ``httpx2.Client``) for every sync client (not
            closed here).
        async_http_client: An ``httpx.AsyncClient`` (or ``httpx2.AsyncClient``) for every
            async client (not closed here).
        fields: The names the two clients are given as, for the error that refuses another
            object (the adapters name them differently).
        telemetry: The clients' telemetry (see :class:`~sse_core.ChatClient`): None, on
            when the application set a provider; False, off; a ``Telemetry``, its providers.

    Raises:
        ConfigurationError: A client given is none of httpx's or httpx2's of its kind, or
            ``telemetry`` is none of its kinds.
    """

    def __init__(
        self,
        http_client: httpx.Client | httpx2.Client | None = None,
        async_http_client: httpx.AsyncClient | httpx2.AsyncClient | None = None,
        *,
        fields: tuple[str, str] = ("http_client", "async_http_client"),
        telemetry: bool | Telemetry | None = None,
    ) -> None:
        for client, field, asynchronous in zip(
            (http_client, async_http_client), fields, (False, True), strict=True
        ):
            if client is not None:
                package_of(client, field=field, asynchronous=asynchronous)
        self.http_client = http_client
        self.async_http_client = async_http_client
        self._fields = fields
        if not (telemetry is None or isinstance(telemetry, (bool, Telemetry))):
            raise ConfigurationError(
                f"telemetry must be a bool, None or a sse_core.telemetry.Telemetry, got "
                f"{type(telemetry).__name__}"
            )
        self.telemetry = telemetry
        self._lock = threading.Lock()
        self._sync: OrderedDict[bytes, ChatClient] = OrderedDict()
        self._async: dict[asyncio.AbstractEventLoop, _Loop] = {}

    def __repr__(self) -> str:
        return f"ClientPool(sync={len(self._sync)}, loops={len(self._async)})"

    def __deepcopy__(self, memo: dict[int, Any]) -> ClientPool:
        return ClientPool(
            self.http_client, self.async_http_client, fields=self._fields, telemetry=self.telemetry
        )

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def sync(self, config: ClientConfig) -> ChatClient:
        """The sync client for ``config`` (safe from several threads: ``batch`` uses them)."""
        key = config.pool_key()
        with self._lock:
            client = self._sync.get(key)
            if client is None:
                client = ChatClient(config, http_client=self.http_client, telemetry=self.telemetry)
                _keep(self._sync, key, client)
            return client

    def async_(self, config: ClientConfig) -> AsyncChatClient:
        """The async client for ``config`` in the running event loop."""
        key = config.pool_key()
        loop = asyncio.get_running_loop()
        with self._lock:
            stale = self._take_closed()
            entry = self._async.get(loop)
            if entry is None:
                entry = self._async[loop] = self._watched(loop)
            client = entry.clients.get(key)
            if client is None:
                client = AsyncChatClient(
                    config, http_client=self.async_http_client, telemetry=self.telemetry
                )
                _keep(entry.clients, key, client)
        _drop(stale)
        return client

    def close(self) -> None:
        """Close every pooled client's connections (an injected httpx client is left open):
        the sync clients', and every event loop's async clients' (closed there if that loop
        runs, at once if it is closed). The pool stays usable."""
        with self._lock:
            clients, self._sync = list(self._sync.values()), OrderedDict()
            loops, self._async = list(self._async.values()), {}
        for client in clients:
            client.close()
        _drop(loops)

    async def aclose(self) -> None:
        """Close the running loop's async clients, awaited, and the sockets of closed loops'
        (an injected httpx client is left open). Another loop that still runs keeps its
        clients until it ends or calls ``aclose()`` (see the module docstring)."""
        running = asyncio.get_running_loop()
        with self._lock:
            here = self._async.pop(running, None)
            closed = self._take_closed()
        _drop(closed)
        if here is not None:
            clients = here.take()
            here.stop_watching()
            for client in clients:
                await client.aclose()

    def _watched(self, loop: asyncio.AbstractEventLoop) -> _Loop:
        """A new entry for ``loop``, with its watcher parked at its ``yield`` (the first
        step registers it with the loop, as ``async for`` would)."""
        entry = _Loop(loop)
        watch = _watch(weakref.ref(self), entry)
        with contextlib.suppress(StopIteration):
            watch.asend(None).send(None)
        entry.watch = watch
        return entry

    def _take_closed(self) -> list[_Loop]:
        """Remove the entries of closed loops (under the lock) and return them."""
        closed = [entry for loop, entry in self._async.items() if loop.is_closed()]
        for entry in closed:
            del self._async[entry.loop]
        return closed

    def _forget(self, entry: _Loop) -> None:
        with self._lock:
            if self._async.get(entry.loop) is entry:
                del self._async[entry.loop]


def _drop(entries: list[_Loop]) -> None:
    """Close the clients of loops other than the running one: at once if the loop is closed
    (nothing can be awaited in it), else by a task in that loop."""
    for entry in entries:
        loop = entry.loop
        if entry.clients and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(_close_in, loop, entry)
                continue
            except RuntimeError:  # closed meanwhile
                pass
        clients = entry.take()
        entry.stop_watching()
        for client in clients:
            _close_sockets(client)


_closing: set[asyncio.Task[None]] = set()


def _close_in(loop: asyncio.AbstractEventLoop, entry: _Loop) -> None:
    """In ``loop``: close ``entry``'s clients. Its watcher stays until they are closed, so
    if the loop ends first (this task cancelled, or never run) its shutdown closes the rest."""

    async def close_all() -> None:
        while entry.clients:
            _, client = entry.clients.popitem(last=False)
            try:
                await client.aclose()
            except asyncio.CancelledError:  # the loop is ending: no await is left
                _close_sockets(client)
                raise
        entry.stop_watching()

    task = loop.create_task(close_all())
    _closing.add(task)  # a task only weakly held by its loop could be collected half-way
    task.add_done_callback(_closing.discard)


def probe_sockets() -> str | None:
    """None if httpx and httpcore still hold what :func:`_sockets` reads."""
    for cls, names in (
        (httpx.AsyncClient, ("_transport", "_mounts")),
        (httpx.AsyncHTTPTransport, ("_pool",)),
        (httpcore.AsyncConnectionPool, ("connections",)),
        (httpcore.AsyncHTTPConnection, (_INNER,)),
        (httpcore.AsyncHTTP11Connection, (_STREAM,)),
    ):
        missing = unassigned(cls, *names)
        if missing is not None:
            return f"{missing} is gone"
    return None


#: The sockets of a closed loop's clients closed at once, found in httpcore's pool.
SOCKETS = register(
    FastPath(
        name="transport.closed_loop_sockets",
        shortcut="the sockets of a closed event loop's clients are closed at once, found "
        "through httpx's and httpcore's private attributes",
        tested={"httpx": ">=0.27,<0.30", "httpcore": ">=1.0,<1.1"},
        probe=probe_sockets,
        faithful="the clients are dropped and their sockets close when they are collected "
        "(with the reuse fast path off too, every stream's connection was shut down already)",
        # _sock: asyncio's TransportSocket around the socket
        uses={
            "sse_core.transport.pool": (
                "_connection",
                "_mounts",
                "_network_stream",
                "_sock",
                "_transport",
            )
        },
    )
)


def _close_sockets(client: AsyncChatClient) -> None:
    """Close the sockets of an async client whose event loop is closed (an injected httpx
    client is left to its owner). Found through httpx's and httpcore's private attributes
    (the fast path :data:`SOCKETS`; ``tests/core/transport/test_pool.py`` fails if they
    move); where it is off, the sockets close when the client is collected."""
    if not client._owned or not client.fast(SOCKETS):
        return
    for sock in _sockets(client._http):
        with contextlib.suppress(OSError):
            getattr(sock, "_sock", sock).close()  # asyncio's TransportSocket wraps the socket


def _sockets(http: Any) -> Iterator[Any]:
    """The sockets of ``http``'s open connections (its own transport and proxy mounts)."""
    transports = [getattr(http, "_transport", None), *getattr(http, "_mounts", {}).values()]
    for transport in transports:
        for connection in getattr(getattr(transport, "_pool", None), "connections", ()):
            sock = _socket_of(connection)
            if sock is not None:
                yield sock


def _socket_of(connection: Any) -> Any:
    while connection is not None and not hasattr(connection, _STREAM):
        connection = getattr(connection, _INNER, None)
    stream = getattr(connection, _STREAM, None)
    return stream.get_extra_info("socket") if stream is not None else None


def _keep(clients: OrderedDict[bytes, Any], key: bytes, client: Any) -> None:
    clients[key] = client
    while len(clients) > _KEEP:
        clients.popitem(last=False)  # the oldest: its connections close when it is collected
