"""Clients of httpx2 (Pydantic's fork of httpx, which openai 3 and anthropic 2 send with) beside
httpx's: taken as given, their own types handed to them, both exception trees mapped into ours,
anything else refused naming the field; the clients the library makes chosen by
``SSE_CONNECTORS_HTTP``; and ``httpx2.alias_httpx()`` before our import changing nothing."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    ConfigurationError,
    GatewayConnectionError,
    IncompleteStreamError,
    RateLimitError,
    StreamProtocolError,
    StreamTimeoutError,
    decode,
    fast_paths,
)
from sse_core.transport.http import map_transport_error
from sse_core.transport.packages import ENV, default_package, error_names, package_of
from sse_core.transport.recording import recording_async_client, recording_client
from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory

ASK = {"model": "m", "messages": [{"role": "user", "content": "count to 5"}]}
PACKAGES = pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])


def _headers(fault: str) -> dict[str, str]:
    return {"X-Emulator-Fault": fault}


@PACKAGES
def test_a_sync_client_of_either_package_streams(module: Any, emulator: Emulator) -> None:
    with module.Client() as http:
        client = ChatClient(base_url=emulator.base_url(), api_key="k", http_client=http)
        assert client.package.module is module
        with client.stream(ASK) as stream:
            texts = [event.text for event in stream if hasattr(event, "text")]
        assert "".join(texts) == "1 2 3 4 5"
        assert isinstance(stream.response, module.Response)
        assert not http.is_closed  # an injected client is left to its owner


@PACKAGES
def test_an_async_client_of_either_package_streams(module: Any, emulator: Emulator) -> None:
    async def run() -> str:
        async with module.AsyncClient() as http:
            client = AsyncChatClient(base_url=emulator.base_url(), api_key="k", http_client=http)
            return (await client.complete(ASK)).content

    assert asyncio.run(run()) == "1 2 3 4 5"


@PACKAGES
def test_retries_timeouts_and_cut_streams_are_the_same_with_either_package(
    module: Any, emulator: Emulator
) -> None:
    with module.Client() as http:

        def client(fault: str, **settings: Any) -> ChatClient:
            return ChatClient(
                base_url=emulator.base_url(),
                api_key="k",
                http_client=http,
                default_headers=_headers(fault),
                **settings,
            )

        retried = client("rate-limit; count=1; retry-after=0", max_retries=1).complete(ASK)
        assert retried.content == "1 2 3 4 5"
        with pytest.raises(RateLimitError):
            client("rate-limit; count=1; retry-after=0; key=once", max_retries=0).complete(ASK)
        with pytest.raises(StreamTimeoutError) as idle:
            client("stall; after=2; seconds=5", timeout=0.3).complete(ASK)
        assert idle.value.partial is not None and idle.value.partial.content
        with pytest.raises(IncompleteStreamError) as cut:
            client("reset; after=2").complete(ASK)
        assert cut.value.partial is not None and cut.value.partial.content
        # the cause is the client's own package's exception, with no request left on it
        assert isinstance(cut.value.__cause__, module.HTTPError)


@PACKAGES
def test_leaving_a_stream_of_either_package_reaches_the_gateway(
    module: Any, emulator: Emulator
) -> None:
    async def run() -> None:
        async with module.AsyncClient() as http:
            client = AsyncChatClient(
                base_url=emulator.base_url(),
                api_key="k",
                http_client=http,
                default_headers=_headers("slow; delay=0.05"),
            )
            long = {**ASK, "messages": [{"role": "user", "content": "count to 500"}]}
            async with client.stream(long) as stream:
                async for _ in stream:
                    break

    asyncio.run(run())
    record = emulator.wait_for_disconnect(5.0)
    assert record.disconnected and not record.completed


def test_an_httpx2_recording_replays(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    with recording_client(tmp_path, package="httpx2") as http:
        assert isinstance(http, httpx2.Client)
        live = ChatClient(base_url=emulator.base_url(), api_key="k", http_client=http)
        answer = live.complete(ASK)
    assert decode((tmp_path / "001.sse").read_bytes()) == answer

    async def arecord() -> None:
        async with recording_async_client(tmp_path, package="httpx2") as http:
            assert isinstance(http, httpx2.AsyncClient)
            client = AsyncChatClient(base_url=emulator.base_url(), api_key="k", http_client=http)
            await client.complete(ASK)

    asyncio.run(arecord())
    replayed = emulator_replay(tmp_path)
    with httpx2.Client() as http:
        again = ChatClient(base_url=replayed.base_url(), api_key="k", http_client=http)
        assert again.complete(ASK).content == answer.content


@pytest.mark.parametrize(
    ("given", "field", "asynchronous"),
    [
        (object(), "http_client", False),
        ("http://proxy", "http_client", False),
        (httpx.AsyncClient(), "http_client", False),
        (httpx2.AsyncClient(), "http_client", False),
        (httpx.Client(), "http_client", True),
        (httpx2.Client(), "http_client", True),
    ],
    ids=["object", "str", "httpx-async-as-sync", "httpx2-async-as-sync", "httpx-as-async",
         "httpx2-as-async"],
)  # fmt: skip
def test_anything_else_is_refused_naming_the_field(
    given: object, field: str, asynchronous: bool
) -> None:
    cls = AsyncChatClient if asynchronous else ChatClient
    with pytest.raises(ConfigurationError) as refused:
        cls(base_url="http://gw.test/v1", http_client=given)  # type: ignore[arg-type]
    kind = "AsyncClient" if asynchronous else "Client"
    message = str(refused.value)
    assert message.startswith(f"{field} must be an httpx.{kind} or an httpx2.{kind}, got ")
    assert type(given).__qualname__ in message


def test_a_subclass_of_a_packages_client_is_that_packages() -> None:
    class Mine(httpx2.Client):
        pass

    with Mine() as http:
        assert package_of(http, field="http_client", asynchronous=False).module is httpx2


@pytest.mark.parametrize(
    ("name", "in_body", "expected"),
    [
        ("ConnectError", False, GatewayConnectionError),
        ("ConnectTimeout", False, GatewayConnectionError),
        ("PoolTimeout", False, GatewayConnectionError),
        ("ReadTimeout", False, StreamTimeoutError),
        ("ReadTimeout", True, StreamTimeoutError),
        ("ReadError", True, IncompleteStreamError),
        ("RemoteProtocolError", True, IncompleteStreamError),
        ("RemoteProtocolError", False, GatewayConnectionError),
        ("DecodingError", True, StreamProtocolError),
        ("UnsupportedProtocol", False, ConfigurationError),
    ],
)
@PACKAGES
def test_both_exception_trees_map_alike(
    module: Any, name: str, in_body: bool, expected: type[Exception]
) -> None:
    error = map_transport_error(getattr(module, name)("boom"), in_body=in_body, url="http://gw")
    assert type(error) is expected


@pytest.mark.parametrize(
    ("raised", "in_body", "expected"),
    [
        (ssl.SSLError(1, "bad record mac"), False, GatewayConnectionError),
        (ssl.SSLError(1, "bad record mac"), True, IncompleteStreamError),
        (anyio.EndOfStream(), True, IncompleteStreamError),
        (anyio.BrokenResourceError(), True, IncompleteStreamError),
        (anyio.ClosedResourceError(), False, GatewayConnectionError),
    ],
    ids=["ssl-head", "ssl-body", "end-of-stream", "broken", "closed"],
)
def test_what_escapes_a_transport_unmapped_is_mapped_too(
    raised: Exception, in_body: bool, expected: type[Exception]
) -> None:
    assert "HTTPError" in error_names(type(raised))
    assert type(map_transport_error(raised, in_body=in_body, url="http://gw")) is expected
    assert error_names(ValueError) == frozenset()


def test_the_clients_the_library_makes_are_the_settings_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, "httpx2")
    with ChatClient(base_url="http://gw.test/v1") as client:
        assert isinstance(client._http, httpx2.Client)
    monkeypatch.setenv(ENV, "httpx")
    with ChatClient(base_url="http://gw.test/v1") as client:
        assert isinstance(client._http, httpx.Client)
    monkeypatch.delenv(ENV)
    assert default_package().module is httpx  # the frameworks require httpx: the default
    monkeypatch.setenv(ENV, "requests")
    with pytest.raises(ConfigurationError, match="SSE_CONNECTORS_HTTP must be httpx or httpx2"):
        ChatClient(base_url="http://gw.test/v1")


def test_an_alias_made_before_our_import_changes_nothing(emulator: Emulator) -> None:
    """``httpx2.alias_httpx()`` first: our ``httpx`` is httpx2, a chat works, and the
    registry judges the module loaded (off, saying why), not the httpx distribution."""
    code = (
        "import httpx2, json, sys\n"
        "httpx2.alias_httpx()\n"
        "import httpx\n"
        "from sse_core import ChatClient, fast_paths\n"
        "client = ChatClient(base_url=sys.argv[1], api_key='k')\n"
        "answer = client.complete({'model': 'm', 'messages': [{'role': 'user',"
        " 'content': 'count to 3'}]})\n"
        "print(json.dumps({'module': httpx.__name__, 'package': client.package.name,"
        " 'answer': answer.content, 'paths': fast_paths.fast_paths()}))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != fast_paths.ENV}
    done = subprocess.run(
        [sys.executable, "-c", code, emulator.base_url()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,  # the registry decides (not SSE_CONNECTORS_FAST=0 of a faithful run)
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["module"] == seen["package"] == "httpx2"
    assert seen["answer"] == "1 2 3"
    transport = {name: state for name, state in seen["paths"].items() if "transport" in name}
    assert transport and all(not state["on"] for state in transport.values())
    assert all("httpx is httpx2" in state["why"] for state in transport.values())
