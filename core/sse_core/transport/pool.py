"""``ClientPool``: the clients of one model object, made on first use, reused, never stale.

Both adapters keep one pool per model. A client is reused for the same configuration (a
model whose fields were changed, or a ``model_copy`` with another ``base_url``, gets its
own, never one built for the old values) and, for the async client, in the same event loop:
an ``httpx.AsyncClient`` pools connections bound to the loop that opened them, and a model
is routinely used from several loops (``asyncio.run`` per call, a fresh loop per test, a
workflow in a thread). An injected httpx client is used as is and never closed here.

Copies (``copy.deepcopy``, pydantic's ``model_copy(deep=True)``) start with an empty pool
(sockets and locks are not copied) that shares the injected httpx clients; a pickled pool
comes back empty, without them.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import OrderedDict
from typing import Any

import httpx

from sse_core.transport.client import AsyncChatClient, ChatClient
from sse_core.transport.config import ClientConfig

__all__ = ["ClientPool"]

#: Configurations kept per pool (and per loop): a model uses one, a few at most.
_KEEP = 8


class ClientPool:
    """Sync clients by configuration, async clients by configuration and event loop.

    Args:
        http_client: An ``httpx.Client`` for every sync client (not closed here).
        async_http_client: An ``httpx.AsyncClient`` for every async client (not closed here).
    """

    def __init__(
        self,
        http_client: httpx.Client | None = None,
        async_http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.http_client = http_client
        self.async_http_client = async_http_client
        self._lock = threading.Lock()
        self._sync: OrderedDict[bytes, ChatClient] = OrderedDict()
        self._async: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, OrderedDict[bytes, AsyncChatClient]
        ] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"ClientPool(sync={len(self._sync)}, loops={len(self._async)})"

    def __deepcopy__(self, memo: dict[int, Any]) -> ClientPool:
        return ClientPool(self.http_client, self.async_http_client)

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
                client = ChatClient(config, http_client=self.http_client)
                _keep(self._sync, key, client)
            return client

    def async_(self, config: ClientConfig) -> AsyncChatClient:
        """The async client for ``config`` in the running event loop."""
        key = config.pool_key()
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = self._async.get(loop)
            if clients is None:
                clients = self._async[loop] = OrderedDict()
            client = clients.get(key)
            if client is None:
                client = AsyncChatClient(config, http_client=self.async_http_client)
                _keep(clients, key, client)
            return client

    def close(self) -> None:
        """Close the sync clients' connections (an injected httpx client is left open)."""
        with self._lock:
            clients, self._sync = list(self._sync.values()), OrderedDict()
        for client in clients:
            client.close()

    async def aclose(self) -> None:
        """Close the running loop's async clients (an injected httpx client is left open)."""
        with self._lock:
            clients = self._async.pop(asyncio.get_running_loop(), OrderedDict())
        for client in clients.values():
            await client.aclose()


def _keep(clients: OrderedDict[bytes, Any], key: bytes, client: Any) -> None:
    clients[key] = client
    while len(clients) > _KEEP:
        clients.popitem(last=False)  # the oldest: its connections close when it is collected
