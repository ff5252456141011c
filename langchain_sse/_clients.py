"""The pooled sse_core clients of a ChatSSE: made on first use, never stale.

A client is reused for the same connection settings (a ``model_copy`` with another
``base_url`` gets its own, while the original keeps its pool) and, for the async client, in
the same event loop (pooled connections belong to one loop: ``asyncio.run`` twice works).
A deep copy of a model starts with no clients rather than copying sockets.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any

import httpx

from sse_core import AsyncChatClient, ChatClient

__all__ = ["ClientCache"]

Config = dict[str, Any]
#: Clients kept per model (copies of a model share its cache; a handful of settings at most).
_KEEP = 4


class ClientCache:
    """A model's sync and async clients, by the settings (and loop) they were made for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sync: list[tuple[Config, ChatClient]] = []
        self._async: list[tuple[Config, weakref.ref[asyncio.AbstractEventLoop], AsyncChatClient]]
        self._async = []

    def __deepcopy__(self, memo: dict[int, Any]) -> ClientCache:
        return ClientCache()

    def sync(self, config: Config, http_client: httpx.Client | None) -> ChatClient:
        """The sync client for ``config`` (made under a lock: batch() runs in threads)."""
        for known, client in self._sync:
            if known == config:
                return client
        with self._lock:
            for known, client in self._sync:
                if known == config:
                    return client
            client = ChatClient(http_client=http_client, **config)
            self._sync = [*self._sync[-(_KEEP - 1) :], (config, client)]
            return client

    def async_(self, config: Config, http_client: httpx.AsyncClient | None) -> AsyncChatClient:
        """The async client for ``config`` in the running event loop."""
        loop = asyncio.get_running_loop()
        for known, owner, client in self._async:
            if known == config and (http_client is not None or owner() is loop):
                return client
        client = AsyncChatClient(http_client=http_client, **config)
        alive = [entry for entry in self._async if entry[1]() is not None]
        self._async = [*alive[-(_KEEP - 1) :], (config, weakref.ref(loop), client)]
        return client
