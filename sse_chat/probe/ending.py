"""Whether a gateway ends its body after the stream's end event (the Messages API's
``message_stop``, the Responses API's terminal event), or keeps the socket open: a client
that waits for the end of the body instead of stopping at that event hangs on the second
kind.

The client of sse_core stops at the end event (so the probe's other requests cannot
tell): this request reads on past it, for a bounded grace time. Async, so that the read
still waiting when the grace time is up is cancelled cleanly (the connection is closed,
never reused). Its parser is sse_core's; recorded like the other steps.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic_core import from_json

from sse_core import SSEConnectorError
from sse_core.pipeline import SSEParser
from sse_core.transport.config import ClientConfig
from sse_core.transport.http import build_headers
from sse_core.transport.recording import recording_async_client

__all__ = ["GRACE", "Ending", "body_ending"]

#: How long the body may go on after the end event before the socket counts as held open.
GRACE = 2.0
#: The Messages API's end event (the default of :func:`body_ending`).
MESSAGE_STOP = frozenset({"message_stop"})
#: ``closes``: the body ended within the grace time; ``held_open``: it did not;
#: ``no_message_stop``: the body ended (or the probe's timeout came) before any end event.
Ending = Literal["closes", "held_open", "no_message_stop"]


def _stops(parser: SSEParser, chunk: bytes, stops: frozenset[str]) -> bool:
    """Whether ``chunk`` completes one of the ``stops`` events (named, or typed in its
    data)."""
    for event in parser.feed(chunk):
        if event.event in stops:
            return True
        try:
            data: Any = from_json(event.data)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") in stops:
            return True
    return False


async def _until_stop(chunks: AsyncIterator[bytes], stops: frozenset[str]) -> bool:
    parser = SSEParser()
    async for chunk in chunks:
        if _stops(parser, chunk, stops):
            return True
    return False


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    async for _ in chunks:
        pass  # bytes after message_stop, if any (a chunked body's end usually has none)


async def _read(
    config: ClientConfig,
    payload: dict[str, Any],
    folder: Path,
    limit: float,
    stops: frozenset[str],
) -> Ending:
    headers = build_headers(
        config.api_key, config.default_headers, auth=config.auth, protocol=config.protocol
    )
    secrets = [config.api_key.get_secret_value()] if config.api_key is not None else []
    body = {**config.extra_body, **payload, "stream": True}
    async with (
        recording_async_client(
            folder, secret_headers=config.secret_headers, secrets=secrets
        ) as http,
        http.stream("POST", config.url, json=body, headers=headers, timeout=limit) as response,
    ):
        if response.status_code >= 300:
            raise SSEConnectorError(f"the gateway answered HTTP {response.status_code}")
        chunks = response.aiter_bytes()
        try:
            if not await asyncio.wait_for(_until_stop(chunks, stops), limit):
                return "no_message_stop"
        except asyncio.TimeoutError:
            return "no_message_stop"
        try:
            await asyncio.wait_for(_drain(chunks), GRACE)
        except asyncio.TimeoutError:
            return "held_open"
    return "closes"


def body_ending(
    config: ClientConfig,
    payload: dict[str, Any],
    folder: Path,
    limit: float,
    *,
    stops: frozenset[str] = MESSAGE_STOP,
) -> Ending:
    """Stream ``payload`` to the gateway of ``config`` and say how its body ends after the
    first of the ``stops`` events (``limit``: the probe's timeout, for everything before
    it).

    Raises:
        SSEConnectorError: The stream could not be read (the gateway's answer is recorded).
    """
    try:
        return asyncio.run(_read(config, payload, folder, limit, stops or MESSAGE_STOP))
    except (OSError, httpx.HTTPError) as error:
        raise SSEConnectorError(f"the request failed: {type(error).__name__}") from None
