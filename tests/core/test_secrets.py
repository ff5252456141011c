"""Keys never appear: canary secrets (the API key, a header marked secret with
``secret_headers=``, an ``api-key`` default header) sent through ChatClient and
AsyncChatClient over httpx.MockTransport, with gateways that echo them back in every way an
answer can fail. No canary may appear in the error's str/repr/args, its ``error_message``,
``data``, ``type``, ``code``, anywhere down its ``__cause__``/``__context__`` chain, in DEBUG
logs of httpx, httpcore and sse_core, or in the client's and configuration's reprs.

The same over real loopback HTTP against the emulator: tests/e2e/test_secrets.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest

from sse_core import (
    AsyncChatClient,
    AuthenticationError,
    ChatClient,
    Completion,
    ConfigurationError,
    GatewayConnectionError,
    GatewayStreamError,
    IncompleteStreamError,
    RedirectError,
    RetryPolicy,
    ServerError,
    SSEConnectorError,
    StreamProtocolError,
    UnexpectedResponseError,
)

KEY = "sk-canary-key-5f3b9c1d7e"
SECRET = "tenant-canary-4a8e2f6b"  # in X-Tenant-Token, marked secret with secret_headers=
API_KEY = "apikey-canary-9d1c7b3e"  # in the api-key default header (a credential header)
CANARIES = (KEY, SECRET, API_KEY)
ECHO = f"key {KEY} tenant {SECRET} api-key {API_KEY}"
PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
SETTINGS: dict[str, Any] = {
    "base_url": "http://gw.test/v1",
    "api_key": KEY,
    "default_headers": {"X-Tenant-Token": SECRET, "api-key": API_KEY},
    "secret_headers": {"x-tenant-token"},
    "retry": RetryPolicy(max_retries=1, initial_delay=0, max_delay=0),
}
FRAME = b'data: {"choices":[{"index":0,"delta":{"content":"so far"}}]}\n\n'

Handler = Callable[[httpx.Request], httpx.Response]
Runner = Callable[[Handler], "Completion | SSEConnectorError"]


def exposed(error: BaseException, canaries: tuple[str, ...] = CANARIES) -> list[str]:
    """Where a canary shows in ``error`` or down its cause/context chain (empty: nowhere)."""
    found = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts = {
            "str": str(current),
            "repr": repr(current),
            "args": repr(current.args),
            **{name: repr(getattr(current, name, None)) for name in ("error_message", "data")},
        }
        found += [
            f"{type(current).__name__}.{where}"
            for where, text in texts.items()
            if any(canary in text for canary in canaries)
        ]
        current = current.__cause__ or current.__context__
    return found


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Log records (httpx, httpcore, sse_core at DEBUG) that hold a canary."""
    out = []
    for record in caplog.get_records("call"):
        text = record.getMessage() + (record.exc_text or "")
        if any(canary in text for canary in CANARIES):
            out.append(f"{record.name}: {text}")
    return out


@pytest.fixture(autouse=True)
def debug_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    for name in ("httpx", "httpcore", "httpx2", "httpcore2", "sse_core"):
        caplog.set_level(logging.DEBUG, logger=name)
    yield
    assert logged(caplog) == []


class Body(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body that sends ``reads`` and then fails with ``error`` (if given)."""

    def __init__(self, reads: list[bytes], error: Exception | None = None) -> None:
        self.reads, self.error = reads, error

    def __iter__(self) -> Iterator[bytes]:
        yield from self.reads
        if self.error is not None:
            raise self.error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            yield read
        if self.error is not None:
            raise self.error


def run_sync(handler: Handler, **settings: Any) -> Completion | SSEConnectorError:
    http = httpx.Client(transport=httpx.MockTransport(handler))
    with ChatClient(http_client=http, **{**SETTINGS, **settings}) as client:
        assert not any(canary in repr(client) for canary in CANARIES)
        assert not any(canary in repr(client.config) for canary in CANARIES)
        try:
            return client.complete(PAYLOAD)
        except SSEConnectorError as exc:
            return exc
        finally:
            http.close()


def run_async(handler: Handler, **settings: Any) -> Completion | SSEConnectorError:
    async def main() -> Completion | SSEConnectorError:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with AsyncChatClient(http_client=http, **{**SETTINGS, **settings}) as client:
            assert not any(canary in repr(client) for canary in CANARIES)
            try:
                return await client.complete(PAYLOAD)
            except SSEConnectorError as exc:
                return exc
            finally:
                await http.aclose()

    return asyncio.run(main())


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Iterator[Callable[..., Completion | SSEConnectorError]]:
    yield run_sync if request.param == "sync" else run_async


def answer(status: int, body: bytes, kind: str = "application/json", **headers: str) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers={"content-type": kind, **headers}, content=body)

    return handler


def streaming(reads: list[bytes], error: Exception | None = None) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Body(reads, error)
        )

    return handler


# --- the key as sent ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", [f"{KEY}\n", f"{KEY} \r\n", f"\t{KEY}"])
def test_a_key_with_surrounding_whitespace_is_sent_stripped(
    run: Callable[..., Completion | SSEConnectorError], key: str, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return streaming([FRAME, b"data: [DONE]\n\n"])(request)

    result = run(handler, api_key=key)
    assert isinstance(result, Completion) and result.content == "so far"
    assert seen[0].headers["authorization"] == f"Bearer {KEY}"
    assert seen[0].headers["x-tenant-token"] == SECRET and seen[0].headers["api-key"] == API_KEY
    assert any(r.name == "httpx" for r in caplog.records)  # the logs checked are really on


@pytest.mark.parametrize("cls", [ChatClient, AsyncChatClient])
@pytest.mark.parametrize("key", [f"{KEY}\x00", f"{KEY[:6]}\x00{KEY[6:]}", f"{KEY}é", f"é{KEY}"])
def test_an_unsendable_key_is_a_configuration_error_that_hides_it(cls: type, key: str) -> None:
    with pytest.raises(ConfigurationError, match="api_key") as info:
        cls(base_url="http://gw.test/v1", api_key=key)
    assert exposed(info.value, (KEY, KEY[:6], KEY[6:])) == []


# --- gateways that echo the secrets -------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "kind", "cls"),
    [
        (
            401,
            json.dumps({"error": {"message": ECHO}}).encode(),
            "application/json",
            AuthenticationError,
        ),
        (403, ECHO.encode(), "text/plain", AuthenticationError),
        (401, f"<html><title>{ECHO}</title></html>".encode(), "text/html", AuthenticationError),
        (503, json.dumps({"error": ECHO}).encode(), "application/json", ServerError),
    ],
)
def test_an_http_error_echoing_the_secrets_hides_them(
    run: Callable[..., Completion | SSEConnectorError],
    status: int,
    body: bytes,
    kind: str,
    cls: type,
) -> None:
    result = run(answer(status, body, kind))
    assert type(result) is cls and exposed(result) == []
    assert "***" in str(result)


def test_http_error_type_and_code_echoing_the_secrets_are_masked(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    body = json.dumps({"error": {"message": "bad key", "type": KEY, "code": SECRET}}).encode()
    result = run(answer(401, body))
    assert isinstance(result, AuthenticationError)
    assert (result.type, result.code) == ("***", "***")


def test_a_redirect_to_a_url_holding_the_key_hides_it(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    result = run(answer(307, b"", location=f"https://other.test/v1?key={KEY}"))
    assert isinstance(result, RedirectError) and "redirect" in str(result)
    assert exposed(result) == []


def test_an_error_frame_echoing_the_secrets_hides_them(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    frame = {"error": {"message": ECHO, "type": KEY, "code": SECRET, "param": API_KEY}}
    result = run(streaming([FRAME, b"data: " + json.dumps(frame).encode() + b"\n\n"]))
    assert isinstance(result, GatewayStreamError) and exposed(result) == []
    assert (result.type, result.code) == ("***", "***")
    assert result.partial.content == "so far"


def test_an_event_error_echoing_the_secrets_hides_them(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    result = run(streaming([FRAME, f"event: error\ndata: {ECHO}\n\n".encode()]))
    assert isinstance(result, GatewayStreamError) and exposed(result) == []


def test_a_malformed_frame_quoting_the_secrets_hides_them(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    result = run(streaming([FRAME, f"data: {{{ECHO}\n\n".encode()]))
    assert isinstance(result, StreamProtocolError) and exposed(result) == []


def test_a_web_page_quoting_the_secrets_hides_them(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    result = run(answer(200, f"<html>{ECHO}</html>".encode(), "text/html"))
    assert isinstance(result, UnexpectedResponseError) and exposed(result) == []


# --- transport errors whose messages quote the secrets -----------------------------------------


def test_a_connect_error_quoting_the_secrets_hides_them(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"refused: {ECHO}", request=request)

    result = run(refuse)
    assert isinstance(result, GatewayConnectionError) and exposed(result) == []


def test_an_error_in_the_body_quoting_the_secrets_hides_them(
    run: Callable[..., Completion | SSEConnectorError],
) -> None:
    cause = httpx.ReadError(f"connection reset: {ECHO}")
    cause.__context__ = OSError(f"socket: {ECHO}")
    result = run(streaming([FRAME], cause))
    assert isinstance(result, IncompleteStreamError) and exposed(result) == []
    assert result.__cause__ is not None and result.partial.content == "so far"


# --- secrets given per request ------------------------------------------------------------------


def test_secret_headers_given_per_request_are_masked_too() -> None:
    # A header named in secret_headers (or a credential header) sent with one request is
    # as secret as one in default_headers.
    http = httpx.Client(transport=httpx.MockTransport(answer(401, ECHO.encode(), "text/plain")))
    settings = {**SETTINGS, "api_key": None, "default_headers": {}}
    with (
        ChatClient(http_client=http, **settings) as client,
        pytest.raises(AuthenticationError) as info,
    ):
        client.complete(PAYLOAD, headers={"X-Tenant-Token": SECRET, "api-key": API_KEY})
    # This client has no api_key: the echoed KEY is not a secret it could know of.
    assert exposed(info.value, (SECRET, API_KEY)) == []
    http.close()


def test_an_unsendable_per_request_secret_header_is_not_shown() -> None:
    with ChatClient(**{**SETTINGS, "retry": RetryPolicy(max_retries=0)}) as client:
        for name in ("Authorization", "X-Tenant-Token"):
            with pytest.raises(ConfigurationError) as info:
                client.stream(PAYLOAD, headers={name: f"{SECRET}\x01"})
            assert exposed(info.value) == [], name
