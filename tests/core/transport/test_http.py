"""Request building, status-to-error mapping and httpx error mapping."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr

from sse_core import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    GatewayConnectionError,
    IncompleteStreamError,
    NotImplementedByServerError,
    RateLimitError,
    RetryableRequestError,
    ServerError,
    StreamTimeoutError,
    Timeouts,
)
from sse_core._redact import redact
from sse_core.transport.http import (
    HttpxErrors,
    build_headers,
    build_payload,
    error_from_response,
    head_timeout,
    map_transport_error,
    rejects_stream_options,
)
from sse_core.transport.packages import ENV, default_package

KEY = SecretStr("sk-test-secret-123")


def test_payload_streams_and_asks_for_usage_and_merges_extra_body() -> None:
    body = build_payload(
        {"model": "m", "messages": [], "stream_options": {"other": 1}},
        include_usage=True,
        extra_body={"chat_template_kwargs": {"enable_thinking": True}},
    )
    assert body["stream"] is True
    assert body["stream_options"] == {"other": 1, "include_usage": True}
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert "stream_options" not in build_payload({}, include_usage=False, extra_body=None)


def test_headers_carry_bearer_and_defaults_lowercased() -> None:
    headers = build_headers(KEY, {"SPASS-User-Id": "u1"}, {"X-Extra": "1"})
    assert headers["authorization"] == "Bearer sk-test-secret-123"
    assert headers["spass-user-id"] == "u1" and headers["x-extra"] == "1"
    assert headers["accept"] == "text/event-stream"
    assert "authorization" not in build_headers(None, None)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (401, AuthenticationError),
        (403, AuthenticationError),
        (429, RateLimitError),
        (500, ServerError),
        (503, ServerError),
        (501, NotImplementedByServerError),
        (408, RetryableRequestError),
        (409, RetryableRequestError),
        (400, BadRequestError),
        (422, BadRequestError),
    ],
)
def test_status_classes(status: int, cls: type) -> None:
    assert type(error_from_response(status, {}, b"")) is cls


def test_json_error_body_is_parsed() -> None:
    body = b'{"error":{"message":"slow down","type":"rate_limit","code":"rl_1"}}'
    error = error_from_response(429, {"retry-after": "2", "content-type": "application/json"}, body)
    assert (error.error_message, error.type, error.code, error.retry_after) == (
        "slow down",
        "rate_limit",
        "rl_1",
        2.0,
    )
    assert "HTTP 429" in str(error) and "slow down" in str(error) and "Retry-After: 2" in str(error)


def test_the_message_reads_as_sentences() -> None:
    """The gateway's words, then the hint as a sentence of its own: never ``.;`` or a
    sentence that starts in lower case."""
    body = b'{"error":{"message":"messages must be a non-empty list."}}'
    error = error_from_response(400, {}, body, url="http://gw.test/v1/chat/completions")
    assert str(error) == (
        "the gateway answered HTTP 400 from http://gw.test/v1/chat/completions: messages must"
        " be a non-empty list. The gateway rejected the request as sent."
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"error":"plain"}', "plain"),
        (b'{"detail":"fastapi says no"}', "fastapi says no"),
        (b'{"message":"top level"}', "top level"),
    ],
)
def test_other_json_error_shapes(body: bytes, message: str) -> None:
    assert error_from_response(400, {}, body).error_message == message


def test_html_body_is_summarised_in_one_line() -> None:
    html = (
        b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center>"
        b"<h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
    )
    error = error_from_response(502, {"content-type": "text/html"}, html)
    assert error.error_message == "HTML page: 502 Bad Gateway"
    assert "\n" not in str(error)


def test_empty_body() -> None:
    assert "empty 503 body" in str(error_from_response(503, {}, b""))


def test_echoed_key_is_redacted() -> None:
    body = b'{"error":{"message":"Incorrect API key provided: sk-test-secret-123"}}'
    error = error_from_response(401, {}, body, secrets=[KEY.get_secret_value()])
    assert "sk-test-secret-123" not in str(error) and "***" in str(error)
    assert redact("Authorization: Bearer abc.def") == "Authorization: Bearer ***"


def test_stream_options_rejection_detection() -> None:
    reject = error_from_response(
        422, {}, b'{"detail":[{"loc":["body","stream_options"],"msg":"extra"}]}'
    )
    other = error_from_response(400, {}, b'{"error":{"message":"context too long"}}')
    assert rejects_stream_options(reject) and not rejects_stream_options(other)


URL = "http://127.0.0.1:1/v1/chat/completions"


@pytest.mark.parametrize(
    ("exc", "in_body", "cls"),
    [
        (httpx.ConnectError("refused"), False, GatewayConnectionError),
        (httpx.ConnectTimeout("slow"), False, GatewayConnectionError),
        (httpx.ReadTimeout("quiet"), False, StreamTimeoutError),
        (httpx.ReadTimeout("quiet"), True, StreamTimeoutError),
        (httpx.RemoteProtocolError("peer closed"), True, IncompleteStreamError),
        (httpx.RemoteProtocolError("no response"), False, GatewayConnectionError),
        (httpx.UnsupportedProtocol("ftp"), False, ConfigurationError),
    ],
)
def test_httpx_errors_are_mapped_once(exc: httpx.HTTPError, in_body: bool, cls: type) -> None:
    error = map_transport_error(exc, in_body=in_body, url=URL)
    assert type(error) is cls and URL in str(error)


@pytest.mark.parametrize("name", ["httpx", "httpx2"])
def test_head_timeout_is_bounded_by_what_remains_in_the_clients_own_type(name: str) -> None:
    package = default_package({ENV: name})
    head = head_timeout(package, Timeouts(connect=1, first_byte=100, idle=5), 2.0)
    assert (head.connect, head.read) == (1, 2.0)
    assert type(head) is package.module.Timeout


def _unreachable(exc: httpx.HTTPError) -> GatewayConnectionError:
    return GatewayConnectionError(f"mapped {type(exc).__name__}")


def test_httpx_errors_keeps_what_its_handler_returns_and_ends_the_block_quietly() -> None:
    with HttpxErrors(_unreachable) as head:
        raise httpx.ConnectError("refused")
    assert isinstance(head.error, GatewayConnectionError)
    assert str(head.error) == "mapped ConnectError"
    with HttpxErrors(_unreachable) as calm:
        pass
    assert calm.error is None


def test_httpx_errors_raises_what_its_handler_raises_from_the_httpx_error() -> None:
    def fail(exc: httpx.HTTPError) -> IncompleteStreamError:
        raise IncompleteStreamError("the body broke") from exc

    broken = httpx.ReadError("reset")
    with pytest.raises(IncompleteStreamError) as info, HttpxErrors(fail):
        raise broken
    assert info.value.__cause__ is broken


def test_httpx_errors_lets_anything_else_through() -> None:
    with pytest.raises(ValueError, match="not httpx"), HttpxErrors(_unreachable) as head:
        raise ValueError("not httpx")
    assert head.error is None
