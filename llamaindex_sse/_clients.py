"""The sse_core clients behind one SSELLM: made on first use, async ones per event loop.

An ``httpx.AsyncClient`` pools connections bound to the loop that opened them, and a
LlamaIndex LLM is routinely shared across loops (``asyncio.run`` per call, a fresh loop per
test, a workflow in a thread). So each running loop gets its own async client; an injected
``httpx.AsyncClient`` is used as is (its owner picked its loop). Clients are kept per
configuration, so an LLM whose fields were changed (or a ``model_copy`` with another
``base_url``) never sends through a client built for the old values.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Mapping
from typing import Any

import httpx
from pydantic_core import to_json

from sse_core import AsyncChatClient, ChatClient

__all__ = ["ClientCache"]


def _key(config: Mapping[str, Any]) -> bytes:
    """A stable key for a client configuration (secrets stay in memory only)."""
    plain = {
        k: v.get_secret_value() if hasattr(v, "get_secret_value") else v for k, v in config.items()
    }
    return to_json(plain, fallback=repr)


class ClientCache:
    """Builds and keeps the clients of one LLM (and of its copies)."""

    def __init__(
        self,
        http_client: httpx.Client | None = None,
        async_http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._http_client = http_client
        self._async_http_client = async_http_client
        self._lock = threading.Lock()
        self._sync: dict[bytes, ChatClient] = {}
        self._async: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[bytes, AsyncChatClient]
        ] = weakref.WeakKeyDictionary()

    def __deepcopy__(self, memo: dict[int, Any]) -> ClientCache:
        return self  # clients are shared safely; locks and sockets cannot be copied

    def __getstate__(self) -> dict[str, Any]:
        return {}  # a pickled LLM gets fresh clients (and no injected httpx client)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def sync(self, config: Mapping[str, Any]) -> ChatClient:
        """The synchronous client for ``config`` (the ChatClient keyword arguments)."""
        key = _key(config)
        with self._lock:
            client = self._sync.get(key)
            if client is None:
                client = self._sync[key] = ChatClient(http_client=self._http_client, **config)
            return client

    def for_loop(self, config: Mapping[str, Any]) -> AsyncChatClient:
        """The async client for ``config`` in the running event loop."""
        key = _key(config)
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = self._async.setdefault(loop, {})
            client = clients.get(key)
            if client is None:
                client = clients[key] = AsyncChatClient(
                    http_client=self._async_http_client, **config
                )
            return client

    def close(self) -> None:
        """Close the sync clients' pools (an injected httpx client is left to its owner)."""
        with self._lock:
            clients, self._sync = list(self._sync.values()), {}
        for client in clients:
            client.close()

    async def aclose(self) -> None:
        """Close the running loop's async clients (an injected one is left alone)."""
        with self._lock:
            clients = self._async.pop(asyncio.get_running_loop(), {})
        for client in clients.values():
            await client.aclose()
