"""Whether a Messages API gateway ends its body after ``message_stop``, or keeps the socket
open: a client that waits for the end of the body instead of stopping at ``message_stop``
hangs on the second kind.

The client of sse_core stops at ``message_stop`` (so the probe's other requests cannot
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

from sse_core import SSEConnectorError, SSEParser
from sse_core.transport.config import ClientConfig
from sse_core.transport.http import build_headers
from sse_core.transport.recording import recording_async_client

__all__ = ["GRACE", "Ending", "body_ending"]

#: How long the body may go on after ``message_stop`` before the socket counts as held open.
GRACE = 2.0
#: ``closes``: the body ended within the grace time; ``held_open``: it did not;
#: ``no_message_stop``: the body ended (or the probe's timeout came) before any.
Ending = Literal["closes", "held_open", "no_message_stop"]


def _stops(parser: SSEParser, chunk: bytes) -> bool:
    """Whether ``chunk`` completes a ``message_stop`` event (named, or typed in its data)."""
    for event in parser.feed(chunk):
        if event.event == "message_stop":
            return True
        try:
            data: Any = from_json(event.data)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") == "message_stop":
            return True
    return False


async def _until_stop(chunks: AsyncIterator[bytes]) -> bool:
    parser = SSEParser()
    async for chunk in chunks:
        if _stops(parser, chunk):
            return True
    return False


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    async for _ in chunks:
        pass  # bytes after message_stop, if any (a chunked body's end usually has none)


async def _read(
    config: ClientConfig, payload: dict[str, Any], folder: Path, limit: float
) -> Ending:
    headers = build_headers(
        config.api_key, config.default_headers, auth=config.auth, protocol=config.protocol
    )
    secrets = [config.api_key.get_secret_value()] if config.api_key is not None else []
    body = {**config.extra_body, **payload, "stream": True}
    async with (
        recording_async_client(folder, secrets=secrets) as http,
        http.stream("POST", config.url, json=body, headers=headers, timeout=limit) as response,
    ):
        if response.status_code >= 300:
            raise SSEConnectorError(f"the gateway answered HTTP {response.status_code}")
        chunks = response.aiter_bytes()
        try:
            if not await asyncio.wait_for(_until_stop(chunks), limit):
                return "no_message_stop"
        except asyncio.TimeoutError:
            return "no_message_stop"
        try:
            await asyncio.wait_for(_drain(chunks), GRACE)
        except asyncio.TimeoutError:
            return "held_open"
    return "closes"


def body_ending(
    config: ClientConfig, payload: dict[str, Any], folder: Path, limit: float
) -> Ending:
    """Stream ``payload`` to the gateway of ``config`` and say how its body ends after
    ``message_stop`` (``limit``: the probe's timeout, for everything before it).

    Raises:
        SSEConnectorError: The stream could not be read (the gateway's answer is recorded).
    """
    try:
        return asyncio.run(_read(config, payload, folder, limit))
    except (OSError, httpx.HTTPError) as error:
        raise SSEConnectorError(f"the request failed: {type(error).__name__}") from None
