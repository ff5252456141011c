"""``ClientPool`` (``transport/pool.py``): one client per configuration (and per event loop
for async), never a stale one; copies and pickles start empty; injected httpx clients are
shared and never closed by the pool."""

from __future__ import annotations

import asyncio
import copy
import pickle
import threading
from collections.abc import Iterator

import httpx
import pytest

from sse_core import AsyncChatClient, ChatClient, ClientConfig, fast_paths
from sse_core.transport.keepalive import REUSE
from sse_core.transport.packages import ENV
from sse_core.transport.pool import SOCKETS, ClientPool, _sockets, probe_sockets
from tests.counting_server import Behaviour, serving, wait_until


def config(**settings: object) -> ClientConfig:
    settings.setdefault("base_url", "http://gw.test/v1")
    return ClientConfig.build(environ={}, **settings)  # type: ignore[arg-type]


def test_sync_clients_are_reused_per_configuration() -> None:
    pool = ClientPool()
    first = pool.sync(config(api_key="sk-1"))
    assert isinstance(first, ChatClient)
    assert pool.sync(config(api_key="sk-1")) is first  # an equal configuration
    other = pool.sync(config(api_key="sk-2"))
    assert other is not first and other.config.api_key is not None
    assert other.config.api_key.get_secret_value() == "sk-2"  # never a stale client
    pool.close()


def test_sync_from_many_threads_makes_one_client() -> None:
    pool = ClientPool()
    seen: list[ChatClient] = []
    start = threading.Barrier(8)

    def grab() -> None:
        start.wait()
        seen.append(pool.sync(config()))

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(seen) == 8 and len({id(client) for client in seen}) == 1
    pool.close()


def test_only_a_few_configurations_are_kept() -> None:
    pool = ClientPool()
    clients = [pool.sync(config(api_key=f"sk-{n}")) for n in range(10)]
    assert pool.sync(config(api_key="sk-9")) is clients[9]
    assert pool.sync(config(api_key="sk-0")) is not clients[0]  # the oldest was dropped
    pool.close()


def test_async_clients_are_per_configuration_and_per_loop() -> None:
    pool = ClientPool()

    async def grab() -> tuple[AsyncChatClient, AsyncChatClient, AsyncChatClient]:
        one, two = pool.async_(config()), pool.async_(config())
        other = pool.async_(config(path="/c1/chat"))
        await pool.aclose()
        return one, two, other

    one, two, other = asyncio.run(grab())
    assert one is two and other is not one and isinstance(one, AsyncChatClient)
    again, _, _ = asyncio.run(grab())
    assert again is not one  # another event loop, another client


def test_async_outside_a_running_loop_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        ClientPool().async_(config())


def test_close_closes_owned_clients_and_leaves_injected_ones_open() -> None:
    injected = httpx.Client()
    shared = ClientPool(http_client=injected)
    owned = ClientPool()
    uses_injected, owns = shared.sync(config()), owned.sync(config())
    assert uses_injected._http is injected
    shared.close()
    owned.close()
    assert not injected.is_closed and owns._http.is_closed
    assert shared.sync(config()) is not uses_injected  # a closed pool starts afresh
    injected.close()


def test_aclose_closes_the_loops_clients_and_leaves_an_injected_one_open() -> None:
    async def main() -> None:
        injected = httpx.AsyncClient()
        shared, owned = ClientPool(async_http_client=injected), ClientPool()
        uses_injected, owns = shared.async_(config()), owned.async_(config())
        assert uses_injected._http is injected
        await shared.aclose()
        await owned.aclose()
        assert not injected.is_closed and owns._http.is_closed
        await injected.aclose()

    asyncio.run(main())


def test_deepcopy_is_an_empty_pool_sharing_the_injected_clients() -> None:
    injected, ainjected = httpx.Client(), httpx.AsyncClient()
    pool = ClientPool(injected, ainjected)
    client = pool.sync(config())
    twin = copy.deepcopy(pool)
    assert twin is not pool and twin.http_client is injected
    assert twin.async_http_client is ainjected
    assert repr(twin) == "ClientPool(sync=0, loops=0)"
    assert twin.sync(config()) is not client and twin.sync(config())._http is injected
    injected.close()
    asyncio.run(ainjected.aclose())


def test_pickle_gives_an_empty_pool_without_injected_clients() -> None:
    pool = ClientPool(httpx.Client())
    pool.sync(config(api_key="sk-pickled-secret"))
    data = pickle.dumps(pool)
    assert b"sk-pickled-secret" not in data
    back = pickle.loads(data)
    assert back.http_client is None and back.async_http_client is None
    assert repr(back) == "ClientPool(sync=0, loops=0)"
    assert isinstance(back.sync(config()), ChatClient)  # and it works
    back.close()
    pool.close()


PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def fast_sockets(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fast paths these tests are about: connections kept, and closed at once (on the
    clients of httpx, the package they were probed on)."""
    monkeypatch.setenv(ENV, "httpx")
    with fast_paths.forced(REUSE.name, True), fast_paths.forced(SOCKETS.name, True):
        yield


@pytest.mark.usefixtures("fast_sockets")
def test_the_sockets_of_a_closed_loops_client_are_found_and_closed() -> None:
    """A closed loop's client cannot be awaited: its sockets are reached through httpx's and
    httpcore's private attributes (``pool._sockets``). If those move, this fails, naming it."""
    assert probe_sockets() is None
    behaviour = Behaviour()
    pool = ClientPool()
    with serving(behaviour) as url:
        loop = asyncio.new_event_loop()

        async def call() -> AsyncChatClient:
            client = pool.async_(config(base_url=url))
            assert (await client.complete(PAYLOAD)).content == "hello"
            return client

        client = loop.run_until_complete(call())
        loop.close()  # bare: no shutdown_asyncgens, the clients are still in the pool
        found = list(_sockets(client._http))
        assert len(found) == 1, "httpx/httpcore moved: ClientPool cannot find the sockets"
        assert found[0].fileno() >= 0 and behaviour.ended == 0
        pool.close()
        assert wait_until(lambda: behaviour.ended == 1)  # the server saw it close
        assert repr(pool) == "ClientPool(sync=0, loops=0)"


def test_faithful_a_closed_loops_client_leaves_no_connection_open() -> None:
    """With those fast paths off (httpx's public API only), each stream's connection is shut
    down when the stream ends: a loop closed bare leaves none for the pool to find."""
    behaviour = Behaviour()
    pool = ClientPool()
    with (
        fast_paths.forced(REUSE.name, False),
        fast_paths.forced(SOCKETS.name, False),
        serving(behaviour) as url,
    ):
        loop = asyncio.new_event_loop()

        async def call() -> str:
            return (await pool.async_(config(base_url=url)).complete(PAYLOAD)).content

        assert loop.run_until_complete(call()) == "hello"
        loop.close()
        assert wait_until(lambda: behaviour.ended == 1)  # before any sweep or close
        pool.close()
        assert repr(pool) == "ClientPool(sync=0, loops=0)"


@pytest.mark.usefixtures("fast_sockets")
def test_a_new_loop_sweeps_the_clients_of_a_loop_closed_bare() -> None:
    behaviour = Behaviour()
    pool = ClientPool()

    async def call(url: str) -> str:
        return (await pool.async_(config(base_url=url)).complete(PAYLOAD)).content

    with serving(behaviour) as url:
        for _ in range(5):
            loop = asyncio.new_event_loop()
            assert loop.run_until_complete(call(url)) == "hello"
            loop.close()
        assert wait_until(lambda: behaviour.ended == 4)  # the last loop's is the one left
        assert repr(pool) == "ClientPool(sync=0, loops=1)"
        assert asyncio.run(call(url)) == "hello"  # and asyncio.run's own ends with it
        assert wait_until(lambda: behaviour.ended == 6)
        assert repr(pool) == "ClientPool(sync=0, loops=0)"


def test_close_reaches_a_loop_running_in_another_thread() -> None:
    behaviour = Behaviour()
    pool = ClientPool()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def call(url: str) -> str:
        return (await pool.async_(config(base_url=url)).complete(PAYLOAD)).content

    try:
        with serving(behaviour) as url:
            assert asyncio.run_coroutine_threadsafe(call(url), loop).result(10) == "hello"
            pool.close()  # from this thread: the clients are closed in their own loop
            assert wait_until(lambda: behaviour.ended == 1)
            assert repr(pool) == "ClientPool(sync=0, loops=0)"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
