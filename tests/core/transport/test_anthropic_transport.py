"""The request side of ``protocol="anthropic"`` on the core clients, sync and async, over
loopback HTTP/1.1 (``tests/raw_server.py`` serving Anthropic bytes): the URL (``/v1/messages``
after the root, ``/messages`` after ``/v1``, the query kept), the headers (``x-api-key``,
``anthropic-version``, ``auth="bearer"``, ``anthropic-beta`` through ``default_headers``),
the body (``stream`` only, never ``stream_options``; ``stream: false`` decoded whole), the
error statuses with Anthropic's error bodies (typed, retried where they may be, request id
kept), and the key nowhere: not in a repr, an error, a log line or a recording."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from sse_core import (
    AsyncChatClient,
    AuthenticationError,
    BadRequestError,
    ChatClient,
    ClientConfig,
    ConfigurationError,
    GatewayHTTPError,
    RateLimitError,
    ServerError,
    UnexpectedResponseError,
    recording_client,
)
from sse_core.transport.wire import ANTHROPIC_VERSION
from tests.anthropic_http import (
    KEY,
    PAYLOAD,
    call,
    error_body,
    head_of,
    headers_of,
    json_of,
    message,
    stream_answer,
    text_stream,
)
from tests.raw_server import serving

pytestmark = pytest.mark.timeout(60)

MODES = ["sync", "async"]
OK = stream_answer(text_stream("Hel", "lo"))


def ok(_: int, __: bytes) -> bytes:
    return OK


def request_line(request: bytes) -> str:
    return request.partition(b"\r\n")[0].decode()


def sent_body(request: bytes) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(request.partition(b"\r\n\r\n")[2])
    return body


# --- configuration and URL ---


@pytest.mark.parametrize(
    ("base_url", "settings", "expected"),
    [
        ("https://api.anthropic.com", {}, "https://api.anthropic.com/v1/messages"),
        ("https://api.anthropic.com/", {}, "https://api.anthropic.com/v1/messages"),
        ("https://api.anthropic.com/v1", {}, "https://api.anthropic.com/v1/messages"),
        ("https://api.anthropic.com/v1/", {}, "https://api.anthropic.com/v1/messages"),
        ("https://openrouter.ai/api", {}, "https://openrouter.ai/api/v1/messages"),
        ("https://openrouter.ai/api/v1", {}, "https://openrouter.ai/api/v1/messages"),
        ("http://localhost:4000", {}, "http://localhost:4000/v1/messages"),
        (
            "https://gw.test/anthropic?tenant=a",
            {},
            "https://gw.test/anthropic/v1/messages?tenant=a",
        ),
        ("https://gw.test/v1?api-version=2", {}, "https://gw.test/v1/messages?api-version=2"),
        (
            "https://gw.test",
            {"default_query": {"beta": "true"}},
            "https://gw.test/v1/messages?beta=true",
        ),
        ("https://gw.test/v1", {"path": "/v1/messages"}, "https://gw.test/v1/v1/messages"),
        (
            "https://gw.test/proxy",
            {"path": "/claude/messages"},
            "https://gw.test/proxy/claude/messages",
        ),
        # A /v1 that is not the end of the path is the gateway's own prefix.
        ("https://gw.test/v1/anthropic", {}, "https://gw.test/v1/anthropic/v1/messages"),
        ("https://gw.test/apiv1", {}, "https://gw.test/apiv1/v1/messages"),
    ],
)
def test_the_request_url_appends_v1_messages_unless_the_base_url_ends_in_v1(
    base_url: str, settings: dict[str, Any], expected: str
) -> None:
    assert ClientConfig.build(base_url=base_url, protocol="anthropic", **settings).url == expected
    assert ChatClient(base_url=base_url, protocol="anthropic", **settings).url == expected


def test_chat_completions_keeps_its_path_and_bearer_key() -> None:
    config = ClientConfig.build(base_url="http://h.test/v1", api_key=KEY)
    assert (config.protocol, config.auth, config.url) == (
        "chat_completions",
        "bearer",
        "http://h.test/v1/chat/completions",
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("suffix", "query", "line"),
    [
        ("", None, "POST /v1/messages HTTP/1.1"),
        ("/v1", None, "POST /v1/messages HTTP/1.1"),
        ("/v1?tenant=t1", {"beta": "yes"}, "POST /v1/messages?tenant=t1&beta=yes HTTP/1.1"),
        ("/gateway", None, "POST /gateway/v1/messages HTTP/1.1"),
    ],
)
def test_the_gateway_sees_the_joined_request_line(
    mode: str, suffix: str, query: dict[str, str] | None, line: str
) -> None:
    with serving(ok) as served:
        root = served.url.removesuffix("/v1")
        completion = call(mode, base_url=root + suffix, default_query=query)
    assert completion.content == "Hello"
    assert request_line(served.requests[0]) == line


@pytest.mark.parametrize("cls", [ChatClient, AsyncChatClient])
@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"protocol": "messages"}, "'chat_completions', 'anthropic'"),
        ({"protocol": None}, "'chat_completions', 'anthropic'"),
        ({"protocol": "anthropic", "auth": "basic"}, "'bearer' or the name of the header"),
        ({"auth": 1}, "'bearer' or the name of the header"),
        ({"auth": "x api key"}, "'x-api-key', 'x-goog-api-key'"),
        ({"auth": "Content-Type"}, "a header the request sets itself"),
        ({"auth": "authorization"}, "use 'bearer'"),
    ],
)
def test_an_unknown_protocol_or_auth_is_refused_naming_the_choices(
    cls: type[ChatClient] | type[AsyncChatClient], settings: dict[str, Any], named: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        cls(base_url="http://h.test", api_key=KEY, **settings)
    assert named in str(caught.value)
    assert KEY not in str(caught.value)


def test_protocol_and_auth_are_part_of_the_pool_key() -> None:
    base = {"base_url": "http://h.test/v1", "api_key": KEY, "path": "/messages"}
    chat = ClientConfig.build(**base)
    anthropic = ClientConfig.build(**base, protocol="anthropic")
    bearer = ClientConfig.build(**base, protocol="anthropic", auth="bearer")
    assert len({chat.pool_key(), anthropic.pool_key(), bearer.pool_key()}) == 3
    assert anthropic.pool_key() == ClientConfig.build(**base, protocol="anthropic").pool_key()


# --- headers ---


@pytest.mark.parametrize("mode", MODES)
def test_the_key_goes_in_x_api_key_with_the_anthropic_version(mode: str) -> None:
    with serving(ok) as served:
        call(mode, base_url=served.url)
    headers = headers_of(served.requests[0])
    assert headers["x-api-key"] == KEY
    assert headers["anthropic-version"] == ANTHROPIC_VERSION == "2023-06-01"
    assert headers["accept"] == "text/event-stream"
    assert "authorization" not in headers


@pytest.mark.parametrize("mode", MODES)
def test_auth_bearer_sends_authorization_for_gateways_that_want_it(mode: str) -> None:
    with serving(ok) as served:
        call(mode, base_url=served.url, auth="bearer")
    headers = headers_of(served.requests[0])
    assert headers["authorization"] == f"Bearer {KEY}"
    assert "x-api-key" not in headers
    assert headers["anthropic-version"] == "2023-06-01"


@pytest.mark.parametrize("mode", MODES)
def test_anthropic_beta_and_a_version_come_through_default_headers(mode: str) -> None:
    beta = "interleaved-thinking-2025-05-14,prompt-caching-2024-07-31"
    with serving(ok) as served:
        call(
            mode,
            base_url=served.url,
            default_headers={"anthropic-beta": beta, "Anthropic-Version": "2024-01-01"},
            headers={"x-trace": "t1"},
        )
    headers = headers_of(served.requests[0])
    assert (headers["anthropic-beta"], headers["anthropic-version"]) == (beta, "2024-01-01")
    assert headers["x-trace"] == "t1"


@pytest.mark.parametrize("mode", MODES)
def test_chat_completions_can_send_its_key_as_x_api_key(mode: str) -> None:
    chat = b'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n'
    with serving(lambda n, r: stream_answer(chat + b"data: [DONE]\n\n")) as served:
        completion = call(mode, base_url=served.url, protocol="chat_completions", auth="x-api-key")
    headers = headers_of(served.requests[0])
    assert completion.content == "ok"
    assert headers["x-api-key"] == KEY and "authorization" not in headers
    assert "anthropic-version" not in headers


# --- body ---


@pytest.mark.parametrize("mode", MODES)
def test_the_body_says_stream_true_and_never_stream_options(mode: str) -> None:
    payload = {**PAYLOAD, "stream_options": {"include_usage": True}}
    with serving(ok) as served:
        call(mode, payload, base_url=served.url, include_usage=True, extra_body={"top_k": 5})
    body = sent_body(served.requests[0])
    assert body == {**PAYLOAD, "top_k": 5, "stream": True}


@pytest.mark.parametrize("mode", MODES)
def test_streaming_false_sends_stream_false_and_decodes_the_whole_message(mode: str) -> None:
    answer = json_of("200 OK", json.dumps(message()).encode(), "request-id: req_whole")
    with serving(lambda n, r: answer) as served:
        completion = call(mode, base_url=served.url, streaming=False, extra_body={"top_k": 3})
    body = sent_body(served.requests[0])
    assert (body["stream"], body["top_k"], "stream_options" in body) == (False, 3, False)
    assert headers_of(served.requests[0])["accept"] == "application/json"
    assert (completion.id, completion.content, completion.finish_reason) == (
        "msg_whole",
        "whole answer",
        "tool_calls",
    )
    assert completion.stop_reason == "tool_use"
    [tool] = completion.tool_calls
    assert (tool.id, tool.name, json.loads(tool.arguments)) == (
        "toolu_1",
        "get_weather",
        {"city": "Oslo"},
    )
    assert completion.usage is not None and completion.usage.cached_tokens == 4
    assert completion.headers["request-id"] == "req_whole"


# --- error statuses ---

ERRORS = [
    (401, "Unauthorized", AuthenticationError, "authentication_error", "invalid x-api-key"),
    (403, "Forbidden", AuthenticationError, "permission_error", "no access to this model"),
    (404, "Not Found", BadRequestError, "not_found_error", "model: claude-nope"),
    (413, "Payload Too Large", BadRequestError, "request_too_large", "request exceeds 32 MB"),
    (429, "Too Many Requests", RateLimitError, "rate_limit_error", "rate limited"),
    (500, "Internal Server Error", ServerError, "api_error", "internal error"),
    (529, "Overloaded", ServerError, "overloaded_error", "Overloaded"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("status", "reason", "cls", "kind", "text"), ERRORS)
def test_an_error_body_becomes_the_typed_error_with_its_message_and_request_id(
    mode: str, status: int, reason: str, cls: type[GatewayHTTPError], kind: str, text: str
) -> None:
    answer = json_of(f"{status} {reason}", error_body(kind, text), "request-id: req_011CSHo")
    with serving(lambda n, r: answer) as served, pytest.raises(cls) as caught:
        call(mode, base_url=served.url, max_retries=0)
    error = caught.value
    assert type(error) is cls and error.status_code == status
    assert (error.error_message, error.type) == (text, kind)
    assert error.headers["request-id"] == "req_011CSHo"
    assert "Request id: req_011CSHo" in str(error) and text in str(error)
    assert len(served.requests) == 1


def test_an_x_request_id_is_named_in_the_message_too() -> None:
    answer = json_of(
        "400 Bad Request", error_body("invalid_request_error", "bad"), "x-request-id: r-9"
    )
    with serving(lambda n, r: answer) as served, pytest.raises(BadRequestError) as caught:
        call("sync", base_url=served.url)
    assert caught.value.headers["x-request-id"] == "r-9"
    assert str(caught.value).endswith("Request id: r-9.")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", ["529 Overloaded", "503 Service Unavailable"])
def test_overloaded_before_the_first_byte_is_retried(mode: str, status: str) -> None:
    def answer(n: int, _: bytes) -> bytes:
        return json_of(status, error_body("overloaded_error", "Overloaded")) if n == 0 else OK

    with serving(answer) as served:
        completion = call(mode, base_url=served.url)
    assert completion.content == "Hello"
    assert len(served.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_529_every_time_gives_up_after_max_retries(mode: str) -> None:
    answer = json_of("529 Overloaded", error_body("overloaded_error", "Overloaded"))
    with serving(lambda n, r: answer) as served, pytest.raises(ServerError) as caught:
        call(mode, base_url=served.url)
    assert caught.value.status_code == 529 and caught.value.type == "overloaded_error"
    assert len(served.requests) == 3  # the first try and max_retries=2


@pytest.mark.parametrize("mode", MODES)
def test_429_waits_the_retry_after_it_was_given(mode: str) -> None:
    def answer(n: int, _: bytes) -> bytes:
        if n == 0:
            return json_of(
                "429 Too Many Requests", error_body("rate_limit_error", "slow"), "retry-after: 0.4"
            )
        return OK

    began = time.monotonic()
    with serving(answer) as served:
        completion = call(mode, base_url=served.url)
    assert completion.content == "Hello" and len(served.requests) == 2
    assert time.monotonic() - began >= 0.4


@pytest.mark.parametrize("mode", MODES)
def test_a_429_asking_too_long_a_wait_raises_with_its_retry_after(mode: str) -> None:
    answer = json_of(
        "429 Too Many Requests", error_body("rate_limit_error", "slow"), "retry-after: 120"
    )
    with serving(lambda n, r: answer) as served, pytest.raises(RateLimitError) as caught:
        call(mode, base_url=served.url)
    assert caught.value.retry_after == 120 and len(served.requests) == 1
    assert "Retry-After: 120 s" in str(caught.value)


# --- the key is never shown ---


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("auth", ["x-api-key", "bearer"])
def test_a_key_echoed_in_an_error_body_is_masked(mode: str, auth: str) -> None:
    echo = json_of(
        "401 Unauthorized",
        error_body("authentication_error", f"invalid x-api-key {KEY}"),
        f"x-echo: {KEY}",
    )
    with serving(lambda n, r: echo) as served, pytest.raises(AuthenticationError) as caught:
        call(mode, base_url=served.url, auth=auth)
    error = caught.value
    shown = [str(error), repr(error), error.error_message, repr(error.headers), repr(error.args)]
    assert all(KEY not in text for text in shown)
    assert "invalid x-api-key" in error.error_message


def test_no_repr_shows_the_key() -> None:
    settings = {"base_url": "https://api.anthropic.com", "api_key": KEY, "protocol": "anthropic"}
    config = ClientConfig.build(**settings)
    for text in (
        repr(config),
        str(config),
        repr(ChatClient(**settings)),
        repr(AsyncChatClient(**settings)),
    ):
        assert KEY not in text and "protocol='anthropic'" in text


@pytest.mark.parametrize("mode", MODES)
def test_retry_logs_do_not_show_the_key(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    def answer(n: int, _: bytes) -> bytes:
        return json_of("529 Overloaded", error_body("overloaded_error", KEY)) if n == 0 else OK

    with caplog.at_level(logging.DEBUG), serving(answer) as served:
        call(mode, base_url=served.url)
    assert caplog.records and all(KEY not in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("auth", ["x-api-key", "bearer"])
def test_a_recording_keeps_no_key_and_no_x_api_key_header(tmp_path: Path, auth: str) -> None:
    body = text_stream("the key is ", KEY)
    with (
        serving(lambda n, r: stream_answer(body)) as served,
        recording_client(tmp_path) as http,
        ChatClient(
            base_url=served.url, api_key=KEY, protocol="anthropic", auth=auth, http_client=http
        ) as client,
    ):
        assert client.complete(PAYLOAD).content == f"the key is {KEY}"
    written = sorted(tmp_path.iterdir())
    assert [p.suffix for p in written] == [".json", ".sse"]
    for path in written:
        assert KEY.encode() not in path.read_bytes()
    meta = json.loads(written[0].read_text())
    sent = {name.lower() for name in meta["request"]["headers"]}
    assert "anthropic-version" in sent and not sent & {"x-api-key", "authorization"}


@pytest.mark.parametrize("mode", MODES)
def test_a_web_page_where_messages_were_expected_names_the_messages_api(mode: str) -> None:
    page = b"<html><title>Sign in</title></html>"
    answer = head_of("200 OK", "content-type: text/html", f"content-length: {len(page)}") + page
    with serving(lambda n, r: answer) as served, pytest.raises(UnexpectedResponseError) as caught:
        call(mode, base_url=served.url)
    assert "Messages API (/v1/messages)" in str(caught.value)
    assert "Sign in" in caught.value.error_message
