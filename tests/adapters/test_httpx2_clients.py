"""Both adapters with httpx2 clients given (``http_client`` and the async one, as openai 3 takes
them): answers the four ways, a retry, an idle timeout, a cut stream, a stream left early and a
recording, as with httpx's; anything but a client is a ConfigurationError naming the field.
(The whole adapter suite also runs with httpx2 clients made by the library: the CI part
``newest-httpx2``, ``SSE_CONNECTORS_HTTP=httpx2``.)"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

from sse_core import ConfigurationError
from sse_core.transport.recording import recording_async_client, recording_client
from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from tests.adapters.conftest import HOWS, Driver


@pytest.fixture
def clients() -> Iterator[tuple[httpx2.Client, httpx2.AsyncClient]]:
    sync, asynchronous = httpx2.Client(), httpx2.AsyncClient()
    yield sync, asynchronous
    sync.close()
    asyncio.run(asynchronous.aclose())


def _model(
    driver: Driver,
    emulator: Emulator,
    clients: tuple[Any, Any],
    fault: str | None = None,
    **fields: Any,
) -> Any:
    settings: dict[str, Any] = {
        "model": "emulator",
        "base_url": emulator.base_url(),
        "api_key": "sk-emulator-test-key",
        "timeout": 10.0,
        "max_retries": 0,
        "http_client": clients[0],
        "http_async_client": clients[1],
        **fields,
    }
    if fault is not None:
        settings["default_headers"] = {"X-Emulator-Fault": fault}
    return driver.make(**settings)


@pytest.mark.parametrize("how", HOWS)
async def test_an_answer_every_way(
    driver: Driver, emulator: Emulator, clients: tuple[Any, Any], how: str
) -> None:
    texts = await driver.call(_model(driver, emulator, clients), how, "count to 5")
    assert "".join(texts) == "1 2 3 4 5"
    assert emulator.wait_for_end(10).completed  # the server thread may record it after
    assert not clients[0].is_closed and not clients[1].is_closed  # left to their owner


@pytest.mark.parametrize("how", HOWS)
async def test_a_retry_a_timeout_and_a_cut_stream(
    driver: Driver, emulator: Emulator, clients: tuple[Any, Any], how: str
) -> None:
    retried = _model(
        driver, emulator, clients, fault="rate-limit; count=1; retry-after=0", max_retries=1
    )
    assert "".join(await driver.call(retried, how, "count to 3")) == "1 2 3"
    stalled = _model(driver, emulator, clients, fault="stall; after=2; seconds=5", timeout=0.3)
    with pytest.raises(driver.error("StreamTimeoutError")):
        await driver.call(stalled, how, "count to 9")
    cut = _model(driver, emulator, clients, fault="reset; after=2")
    with pytest.raises(driver.error("IncompleteStreamError")) as caught:
        await driver.call(cut, how, "count to 9")
    assert isinstance(caught.value.__cause__, httpx2.HTTPError)  # the client's own package


async def test_leaving_an_async_stream_early_reaches_the_gateway(
    driver: Driver, emulator: Emulator, clients: tuple[Any, Any]
) -> None:
    model = _model(driver, emulator, clients, fault="slow; delay=0.05")
    stream = await driver.open_astream(model, "count to 500")
    async with contextlib.aclosing(stream):
        async for _ in stream:
            break
        since = time.monotonic()
    record = await emulator.wait_for_disconnect_async(5.0)
    assert record.disconnected and not record.completed
    assert record.disconnected_at is not None and record.disconnected_at - since < 0.5


def test_leaving_a_sync_stream_early_reaches_the_gateway(
    driver: Driver, emulator: Emulator, clients: tuple[Any, Any]
) -> None:
    model = _model(driver, emulator, clients, fault="slow; delay=0.05")
    for _ in driver.stream(model, "count to 500"):
        break
    since = time.monotonic()
    record = emulator.wait_for_disconnect(5.0)
    assert record.disconnected and not record.completed
    assert record.disconnected_at is not None and record.disconnected_at - since < 0.5


async def test_a_recording_with_httpx2_clients_replays(
    driver: Driver, emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    sync = recording_client(tmp_path, package="httpx2")
    asynchronous = recording_async_client(tmp_path, package="httpx2")
    try:
        model = _model(driver, emulator, (sync, asynchronous))
        live = [driver.ask(model, "count to 3"), await driver.aask(model, "count to 4")]
    finally:
        sync.close()
        await asynchronous.aclose()
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "001.json", "001.sse", "002.json", "002.sse"
    ]  # fmt: skip
    replayed = emulator_replay(tmp_path)
    with httpx2.Client() as http:
        again = driver.make(model="emulator", base_url=replayed.base_url(), http_client=http)
        assert driver.ask(again, "count to 3") == live[0]


@pytest.mark.parametrize(
    ("field", "given"),
    [
        ("http_client", object()),
        ("http_client", httpx2.AsyncClient()),
        ("http_async_client", httpx.Client()),
        ("http_async_client", "http://proxy:3128"),
    ],
    ids=["object", "async-as-sync", "sync-as-async", "str"],
)
def test_anything_else_is_a_configuration_error_naming_the_field(
    driver: Driver, field: str, given: object
) -> None:
    with pytest.raises(ConfigurationError) as refused:
        driver.make(base_url="http://gw.test/v1", **{field: given})
    named = driver.renamed.get(field, field)
    assert named in str(refused.value)
    assert "httpx2" in str(refused.value) and type(given).__qualname__ in str(refused.value)
