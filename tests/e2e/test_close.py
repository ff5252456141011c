"""``close()`` / ``aclose()`` on ChatSSE and SSELLM: the pooled connections end (the server
sees them closed), an injected httpx client is left open, and the model stays usable (the
next call opens a new connection).

Over real loopback HTTP/1.1, with a server that counts the connections it accepts and those
the client ends (``tests/counting_server.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from llama_index.core.llms import ChatMessage
from pydantic import SecretStr

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import IncompleteStreamError, fast_paths
from sse_core.transport.keepalive import REUSE
from sse_emulator import Emulator
from tests.counting_server import Behaviour, serving, wait_until
from tests.http_packages import kept_alive

MESSAGES = [ChatMessage(role="user", content="hi")]


class Adapter:
    """One adapter's model on ``url`` and its calls, sync and async, giving the text."""

    def __init__(self, name: str, url: str, **fields: Any) -> None:
        self.name = name
        if name == "ChatSSE":
            self.model: Any = ChatSSE(model="m", base_url=url, api_key=SecretStr("k"), **fields)
        else:
            self.model = SSELLM(model="m", base_url=url, api_key="k", **fields)

    def call(self) -> str:
        if self.name == "ChatSSE":
            return str(self.model.invoke("hi").content)
        return str(self.model.chat(MESSAGES).message.content)

    async def acall(self) -> str:
        if self.name == "ChatSSE":
            return str((await self.model.ainvoke("hi")).content)
        return str((await self.model.achat(MESSAGES)).message.content)


ADAPTERS = pytest.mark.parametrize("name", ["ChatSSE", "SSELLM"])


REUSE_ON_OFF = pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "faithful"])


@ADAPTERS
@REUSE_ON_OFF
def test_close_ends_the_pooled_connections(name: str, reuse: bool) -> None:
    """With the reuse fast path, calls share a kept-alive connection that close() ends;
    without it (httpx's public API only) each call's connection ends with its answer."""
    behaviour = Behaviour()
    with fast_paths.forced(REUSE.name, reuse), serving(behaviour) as url:
        reuse = kept_alive(reuse)
        adapter = Adapter(name, url)
        assert adapter.call() == adapter.call() == "hello"
        if reuse:
            assert behaviour.connections == 1  # kept alive between calls
            adapter.model.close()
            assert wait_until(lambda: behaviour.ended == 1)  # the server saw it end
        else:
            assert behaviour.connections == 2  # a connection per call
            assert wait_until(lambda: behaviour.ended == 2)  # each ended with its answer
            adapter.model.close()
        assert adapter.call() == "hello"  # still usable: a new connection
        assert behaviour.connections == 3 - reuse
        adapter.model.close()
        assert wait_until(lambda: behaviour.ended == 3 - reuse)


@ADAPTERS
@REUSE_ON_OFF
def test_aclose_ends_the_loops_pooled_connections(name: str, reuse: bool) -> None:
    behaviour = Behaviour()

    async def run(adapter: Adapter) -> None:
        assert await adapter.acall() == await adapter.acall() == "hello"
        assert behaviour.connections == 2 - reuse
        if reuse:
            await adapter.model.aclose()
        assert await asyncio.to_thread(wait_until, lambda: behaviour.ended == 2 - reuse)
        if not reuse:
            await adapter.model.aclose()
        assert await adapter.acall() == "hello"
        assert behaviour.connections == 3 - reuse
        await adapter.model.aclose()

    with fast_paths.forced(REUSE.name, reuse), serving(behaviour) as url:
        reuse = kept_alive(reuse)
        asyncio.run(run(Adapter(name, url)))
        assert wait_until(lambda: behaviour.ended == 3 - reuse)


@ADAPTERS
@REUSE_ON_OFF
def test_an_injected_client_is_left_open(name: str, reuse: bool) -> None:
    behaviour = Behaviour()
    with fast_paths.forced(REUSE.name, reuse), serving(behaviour) as url, httpx.Client() as http:
        adapter = Adapter(name, url, http_client=http)
        assert adapter.call() == "hello"
        adapter.model.close()
        assert not http.is_closed
        assert adapter.call() == "hello"
        if reuse:
            assert behaviour.connections == 1  # the same connection of the injected client
            assert behaviour.ended == 0
        else:
            assert behaviour.connections == 2  # each answer's own, ended with it
            assert wait_until(lambda: behaviour.ended == 2)
        assert http.get(url + "/models").status_code  # the client itself still works


@ADAPTERS
def test_closing_under_an_open_stream_ends_it_with_a_typed_error(
    name: str, emulator: Emulator
) -> None:
    """The stream being read when the model is closed ends as an incomplete answer (with
    what arrived), never a bare httpx error or a hang; the model still works after."""
    slow = {"X-Emulator-Fault": "slow; delay=0.01"}
    adapter = Adapter(name, emulator.base_url(), default_headers=slow, max_retries=0)
    stream = (
        adapter.model.stream("count to 100")
        if name == "ChatSSE"
        else adapter.model.stream_chat(MESSAGES)
    )
    with pytest.raises(IncompleteStreamError) as caught:
        for seen, _ in enumerate(stream, start=1):
            if seen == 3:
                adapter.model.close()
    assert caught.value.partial.content  # what arrived before the close
    assert adapter.call()  # a new connection
