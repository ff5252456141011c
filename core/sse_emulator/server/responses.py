"""Whole (non-streamed) HTTP responses over raw ASGI ``send``, and HTTP error problems.

A :class:`Problem` is an HTTP error decided before any byte of a completion: a bad
request, a missing SPASS header, or a status fault. It is rendered as the dialect's
JSON error body, or as nginx's HTML page for ``bad-gateway-html``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from sse_emulator.wire import gemini
from sse_emulator.wire.anthropic import error_object
from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.render import error_body

Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Headers = tuple[tuple[str, str], ...]

#: nginx's own 502 page, byte for byte, as a proxy in front of a gateway returns it.
NGINX_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)


class BodyTooLarge(Exception):
    """The request body is larger than the emulator accepts."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """An HTTP error response to send instead of a completion.

    Attributes:
        status: The HTTP status.
        message: The human-readable message.
        kind: The error ``type`` (on ``gemini``, the ``status``: ``INVALID_ARGUMENT``).
        code: The error ``code``.
        param: The error ``param`` (the request field at fault), where the dialect has one.
        headers: Extra headers (e.g. ``retry-after``).
        html: Send nginx's HTML page instead of a JSON body.
        details: The error's ``details``, where the dialect has them (Gemini's).
    """

    status: int
    message: str
    kind: str
    code: str | None = None
    param: str | None = None
    headers: Headers = ()
    html: bool = False
    details: tuple[dict[str, Any], ...] = ()


async def send_body(
    send: Send, status: int, body: bytes, content_type: str, headers: Headers = ()
) -> None:
    """Send a complete response in one body message.

    Args:
        send: The ASGI send callable.
        status: The HTTP status.
        body: The whole body.
        content_type: The ``content-type`` header value.
        headers: Extra headers.
    """
    raw = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    raw += [(key.encode(), value.encode()) for key, value in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def send_json(send: Send, status: int, value: Any, headers: Headers = ()) -> None:
    """Send a JSON response (compact, UTF-8)."""
    body = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    await send_body(send, status, body, "application/json", headers)


async def start_stream(send: Send, status: int, headers: Headers) -> None:
    """Start a streamed response; its body follows in ``more_body`` messages."""
    raw = [(key.encode(), value.encode()) for key, value in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """Read the whole request body.

    Args:
        receive: The ASGI receive callable.
        limit: The largest body accepted, in bytes.

    Returns:
        The body, or ``None`` if the client left before sending all of it.

    Raises:
        BodyTooLarge: When the body is larger than ``limit``.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"request body over {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def send_problem(
    send: Send, dialect: Dialect, problem: Problem, *, request_id: str | None = None
) -> None:
    """Send a problem as the dialect's JSON error (or nginx's HTML page).

    Args:
        send: The ASGI send callable.
        dialect: The dialect whose error shape to use.
        problem: The problem.
        request_id: The request's id, which Anthropic's error bodies carry.
    """
    if problem.html:
        headers = (("server", "nginx"), *problem.headers)
        await send_body(send, problem.status, NGINX_502.encode(), "text/html", headers)
    elif dialect.protocol == "anthropic":
        body = error_object(problem.status, problem.message, problem.kind, request_id)
        await send_json(send, problem.status, body, problem.headers)
    elif dialect.protocol == "gemini":
        # The checks of the gemini dialect name Google's status; the others (a 405, an
        # exhausted recording) take their HTTP status's own.
        name = problem.kind if problem.kind.isupper() else None
        body = gemini.error_body(problem.status, problem.message, name, problem.details)
        text = (gemini.pretty(body) + "\n").encode("utf-8")
        headers = gemini.JSON_HEADERS[1:] + problem.headers
        await send_body(send, problem.status, text, gemini.JSON_HEADERS[0][1], headers)
    else:
        body = error_body(dialect, problem.message, problem.kind, problem.code, problem.param)
        await send_json(send, problem.status, body, problem.headers)
