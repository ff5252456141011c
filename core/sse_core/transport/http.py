"""HTTP plumbing shared by the sync and async clients: request building, status to error,
and the one place where httpx (and httpx2) exceptions become sse_core errors."""

from __future__ import annotations

import re
import time
import traceback
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any

from pydantic import SecretStr
from pydantic_core import from_json

from sse_core._redact import redact
from sse_core.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    GatewayConnectionError,
    GatewayHTTPError,
    IncompleteStreamError,
    NotImplementedByServerError,
    RateLimitError,
    RedirectError,
    RetryableRequestError,
    ServerError,
    SSEConnectorError,
    StreamProtocolError,
    StreamTimeoutError,
)
from sse_core.protocols.registry import request_shape
from sse_core.transport.body import ACCEPT_ENCODING, adecoded, codings, decoded
from sse_core.transport.config import Timeouts
from sse_core.transport.packages import HttpPackage, error_names, holds_request, is_http_error
from sse_core.transport.retry import NOT_IMPLEMENTED, parse_retry_after
from sse_core.transport.wire import auth_header, protocol_headers, request_id

__all__ = [
    "HttpxErrors",
    "aread_error_body",
    "build_headers",
    "build_payload",
    "detach",
    "error_from_response",
    "head_timeout",
    "map_transport_error",
    "read_error_body",
    "rejects_stream_options",
]

MAX_ERROR_BODY = 64 * 1024
USER_AGENT = "sse-connectors/0.1"


def head_timeout(
    package: HttpPackage, timeouts: Timeouts, remaining: float | None, *, body_too: bool = False
) -> Any:
    """The timeout (``package``'s ``Timeout``) for sending the request and reading the head.

    ``body_too``: the read timeout also bounds the body's reads (it is not replaced once
    the head arrived), so it is the larger of ``first_byte`` and ``idle`` (None if either is),
    each phase's own bound kept by a watch (:mod:`.head`).
    """
    read = timeouts.first_byte
    if body_too:
        read = None if read is None or timeouts.idle is None else max(read, timeouts.idle)
    return package.timeout(
        connect=_least(timeouts.connect, remaining),
        read=_least(read, remaining),
        write=_least(timeouts.first_byte, remaining),
        pool=_least(timeouts.connect, remaining),
    )


def _least(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    return a if b is None else min(a, b)


def build_payload(
    payload: Mapping[str, Any],
    *,
    include_usage: bool,
    extra_body: Mapping[str, Any] | None,
    streaming: bool = True,
    protocol: str = "chat_completions",
) -> dict[str, Any]:
    """The JSON body, as the protocol builds it (:class:`~sse_core.protocols.RequestShape`): the
    caller's payload, ``extra_body`` merged, streaming switched on (chat completions: with
    ``stream_options.include_usage`` when asked), or off (``streaming=False``: the gateway
    answers one whole JSON answer).

    Raises:
        ConfigurationError: The payload is refused (chat completions: ``n`` asks for more
            than one choice, see sse_core._choices).
    """
    build = request_shape(protocol).body
    return build(payload, extra_body, streaming=streaming, include_usage=include_usage)


def build_headers(
    api_key: SecretStr | None,
    default_headers: Mapping[str, str] | None,
    extra: Mapping[str, str] | None = None,
    *,
    streaming: bool = True,
    auth: str = "bearer",
    protocol: str = "chat_completions",
) -> dict[str, str]:
    """Request headers: JSON in, an event stream (or, not streaming, JSON) out, the key
    (``auth``: ``"bearer"`` or ``"x-api-key"``), the protocol's own (``anthropic-version``),
    then the caller's, which replace any of these."""
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream" if streaming else "application/json",
        # Only codings inflated with bounded output (see .body), whatever httpx would offer.
        "accept-encoding": ACCEPT_ENCODING,
        "user-agent": USER_AGENT,
    }
    if api_key is not None and api_key.get_secret_value():
        name, value = auth_header(auth, api_key.get_secret_value())
        headers[name] = value
    for source in (protocol_headers(protocol), default_headers, extra):
        for name, value in (source or {}).items():
            headers[name.lower()] = value
    return headers


def _error_fields(body: bytes, content_type: str) -> tuple[str | None, str | None, str | None]:
    """(message, type, code) from a JSON error body, or a one-line summary of another body."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return None, None, None
    try:
        data = from_json(body) if "html" not in content_type else None
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, str):
            return err, None, None
        if isinstance(err, dict):
            message = err.get("message") or err.get("detail") or err.get("msg")
            kind, code = err.get("type"), err.get("code")
            return (
                str(message) if message is not None else text[:300],
                kind if isinstance(kind, str) else None,
                str(code) if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
            )
    if "<" in text[:200]:
        title = re.search(r"<title>(.*?)</title>", text, re.I | re.S)
        words = re.sub(r"<[^>]+>", " ", title.group(1) if title else text)
        return "HTML page: " + " ".join(words.split())[:200], None, None
    return " ".join(text.split())[:300], None, None


_HINTS: dict[type[GatewayHTTPError], str] = {
    AuthenticationError: "check the API key and its permissions",
    RateLimitError: "slow down, or retry after the time the gateway asked for",
    ServerError: "the gateway or its upstream failed; retrying later may help",
    RetryableRequestError: "retrying may help",
    BadRequestError: "the gateway rejected the request as sent",
    NotImplementedByServerError: (
        "the server does not implement this request (501 Not Implemented), so it is not "
        "retried: check base_url and path, or whether the server offers the protocol asked "
        "for (chat completions, or Anthropic Messages)"
    ),
}


def _status_class(status: int) -> type[GatewayHTTPError]:
    if status in (401, 403):
        return AuthenticationError
    if status == 429:
        return RateLimitError
    if status >= 500:  # 501 alone is never retried: its own class says so
        return NotImplementedByServerError if status == NOT_IMPLEMENTED else ServerError
    if status in (408, 409):
        return RetryableRequestError
    if 300 <= status < 400:
        return RedirectError
    return BadRequestError


def sentences(*parts: str) -> str:
    """Parts joined as sentences: ``a: b. C.`` never ``a.; c`` (each part's end trimmed, each
    sentence after the first capitalised)."""
    cleaned = [part.strip().rstrip(".;,: ") for part in parts if part and part.strip()]
    cleaned[1:] = [part[:1].upper() + part[1:] for part in cleaned[1:]]
    return ". ".join(cleaned) + "." if cleaned else ""


def error_from_response(
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    secrets: Sequence[str] = (),
    url: str = "",
    keyless: str = "",
) -> GatewayHTTPError:
    """The :class:`GatewayHTTPError` subclass for a non-2xx answer, with the gateway's words
    (``keyless``: what an authentication error says when no key was sent)."""
    cls = _status_class(status)
    message, kind, code = (
        redact(field, secrets) if field else None
        for field in _error_fields(body, headers.get("content-type", ""))
    )
    retry_after = parse_retry_after(headers, now=time.time())
    where = f" from {url}" if url else ""
    summary = message or f"an empty {status} body"
    if cls is RedirectError:
        target = headers.get("location")
        hint = (
            f"it redirects to {redact(target, secrets)}: point base_url there (redirects are "
            "not followed)"
            if target
            else "it redirects without saying where; check base_url"
        )
        head = f"the gateway answered HTTP {status} (a redirect){where}"
    else:
        hint = _HINTS[cls]
        if keyless and cls is AuthenticationError:
            hint = keyless
        if retry_after is not None:
            hint += f" (Retry-After: {retry_after:g} s)"
        head = f"the gateway answered HTTP {status}{where}: {summary}"
    rid = request_id(headers)
    # The id a gateway's support asks for (Anthropic's request-id, x-request-id elsewhere).
    said = f"Request id: {redact(rid, secrets)}" if rid else ""
    return cls(
        sentences(head, hint, said),
        status_code=status,
        error_message=message,
        type=kind,
        code=code,
        retry_after=retry_after,
        headers={name: redact(value, secrets) for name, value in headers.items()},
    )


def rejects_stream_options(error: GatewayHTTPError) -> bool:
    """Whether a 400/422 says the gateway does not accept ``stream_options``."""
    if error.status_code not in (400, 422):
        return False
    text = f"{error.error_message} {error.code or ''}".lower()
    return "stream_options" in text or "include_usage" in text


def map_transport_error(
    exc: BaseException, *, in_body: bool, url: str, encoding: str = "", limit: str = ""
) -> SSEConnectorError:
    """The one mapping of httpx and httpx2 exceptions into the sse_core hierarchy (the two
    trees have the same class names: :func:`~sse_core.transport.packages.error_names`).

    Args:
        exc: What httpx (or httpx2, or a TLS or anyio stream error under it) raised.
        in_body: Whether the response head had arrived (the stream had begun).
        url: The request URL, for the message (never holds the key).
        encoding: The response's content-encoding, for a body that could not be decoded.
        limit: The timeout setting a read timeout ran into (``"first_byte (600 s)"``).
    """
    kind = type(exc).__name__
    names = error_names(type(exc))
    if "DecodingError" in names:
        coding = f" in content-encoding {encoding!r}" if encoding else ""
        return StreamProtocolError(
            f"the response body from {url}{coding} could not be decoded: {exc}"
        )
    if "TimeoutException" in names:
        if "ConnectTimeout" in names or "PoolTimeout" in names:
            return GatewayConnectionError(f"could not connect to {url} in time ({kind})")
        phase = "between two reads of the stream" if in_body else "waiting for the response"
        within = f"within {limit}" if limit else "within the timeout"
        return StreamTimeoutError(f"no bytes arrived from {url} {phase} {within} ({kind})")
    if in_body:
        # A broken body (reset, chunked framing cut short): the answer did not finish.
        return IncompleteStreamError(
            f"the connection to {url} broke in the middle of the stream ({kind}: {exc}); "
            "the answer is incomplete"
        )
    if "TransportError" in names and "UnsupportedProtocol" not in names:
        return GatewayConnectionError(f"could not reach {url} ({kind}: {exc})")
    return ConfigurationError(f"the request to {url} could not be sent ({kind}: {exc})")


class HttpxErrors:
    """Around the httpx calls of a request's head or of a body: what httpx (or httpx2)
    raises there is mapped once, as httpx's own ``map_httpcore_exceptions`` maps httpcore's. A
    plain ``with``, so it serves the async twins too (around their ``await``).

    An HTTP error (:func:`~sse_core.transport.packages.is_http_error`) that leaves the block
    goes to ``handle``, which makes the
    typed error (with :func:`map_transport_error`) and either raises it (a body: the answer
    is over) or returns it: it is then kept in :attr:`error` and the block ends quietly (a
    head, whose caller retries, or raises it once no retry is left).
    """

    __slots__ = ("_handle", "error")

    def __init__(self, handle: Callable[[Exception], SSEConnectorError]) -> None:
        self._handle = handle
        #: The typed error ``handle`` returned, or None.
        self.error: SSEConnectorError | None = None

    def __enter__(self) -> HttpxErrors:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> bool:
        if not isinstance(exc, Exception) or not is_http_error(exc):
            return False
        self.error = self._handle(exc)
        return True


def detach(exc: BaseException) -> None:
    """Drop the request httpx attached to ``exc`` and down its cause/context chain, and the
    locals of the finished frames their tracebacks keep (httpx's and httpcore's, which hold
    the request too).

    The error it becomes the cause of outlives the request; its headers hold the key.
    """
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if holds_request(current):
            current.request = None  # type: ignore[attr-defined]  # httpx's public setter
        traceback.clear_frames(current.__traceback__)  # a running frame is left alone
        pending += (current.__cause__, current.__context__)


# --- the body of an error answer, read to describe it ---


def read_error_body(response: Any) -> bytes:
    """Up to MAX_ERROR_BODY bytes of an error body (decoded), then close the response."""
    parts: list[bytes] = []
    size = 0
    try:
        for piece in _error_body(response):
            parts.append(piece)
            size += len(piece)
            if size >= MAX_ERROR_BODY:
                break
    except Exception as exc:
        if not is_http_error(exc):
            raise
        parts = _undecodable(response, exc, parts)
    finally:
        response.close()
    return b"".join(parts)[:MAX_ERROR_BODY]


def _error_body(response: Any) -> Iterator[bytes]:
    """The body's pieces, decoded with bounded output (:mod:`.body`)."""
    if response.is_stream_consumed:
        return iter((response.content,))
    names = codings(response.headers)
    return decoded(response.iter_raw(), names) if names else response.iter_raw()


def _undecodable(response: Any, exc: Exception, parts: list[bytes]) -> list[bytes]:
    """What arrived is enough to describe the error; a body that could not be decoded is
    described by its coding instead."""
    if "DecodingError" in error_names(type(exc)) and not parts:
        coding = response.headers.get("content-encoding", "")
        return [f"(a body in content-encoding {coding!r} that was not decoded: {exc})".encode()]
    return parts


async def aread_error_body(response: Any) -> bytes:
    """Async twin of :func:`read_error_body`."""
    parts: list[bytes] = []
    size = 0
    try:
        async for piece in _aerror_body(response):
            parts.append(piece)
            size += len(piece)
            if size >= MAX_ERROR_BODY:
                break
    except Exception as exc:
        if not is_http_error(exc):
            raise
        parts = _undecodable(response, exc, parts)
    finally:
        await response.aclose()
    return b"".join(parts)[:MAX_ERROR_BODY]


async def _aerror_body(response: Any) -> AsyncIterator[bytes]:
    if response.is_stream_consumed:
        yield response.content
        return
    names = codings(response.headers)
    raw = response.aiter_raw()
    async for piece in adecoded(raw, names) if names else raw:
        yield piece
