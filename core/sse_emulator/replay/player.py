"""Write one recorded response over ASGI, in its recorded reads and, if asked, its times.

Each recorded network read becomes one ASGI body message, so a client reading an
HTTP/1.1 chunked body sees the same pieces the recording's client saw once timing spaces
them out. With timing, the head goes out ``head_time`` after the request arrived and
each read at its recorded offset; without, everything goes out as fast as possible.
"""

from __future__ import annotations

import time

from sse_emulator.replay.recording import RecordedResponse, Recording
from sse_emulator.server.responses import Problem, Send, start_stream
from sse_emulator.server.watcher import DisconnectWatcher


def pick(recording: Recording, position: int) -> RecordedResponse | None:
    """The response to serve as the ``position``-th chat request, or ``None`` if none is left.

    Args:
        recording: The recording being replayed.
        position: How many chat requests were answered from it before this one.
    """
    if recording.repeat:
        return recording.responses[0]
    return recording.responses[position] if position < len(recording.responses) else None


def exhausted(recording: Recording) -> Problem:
    """The 410 answered once every response of a recording was served."""
    count = len(recording.responses)
    message = (
        f"the recording {recording.path} is exhausted: it held {count} responses and all were"
        " served; reset the emulator (POST /_emulator/reset) to replay it again"
    )
    return Problem(
        status=410, message=message, kind="invalid_request_error", code="recording_exhausted"
    )


async def play(
    response: RecordedResponse, send: Send, watcher: DisconnectWatcher, *, arrived: float | None
) -> None:
    """Send a recorded response: status and headers, then the body read by read.

    Args:
        response: The recorded response.
        send: The ASGI send callable.
        watcher: The request's disconnect watcher (sleeps end when the client leaves).
        arrived: ``time.monotonic()`` when the request arrived, to keep the recorded
            timing; ``None`` to send as fast as possible.
    """
    if arrived is not None:
        await _until(watcher, arrived + response.head_time)
    await start_stream(send, response.status, response.headers)
    for read in response.reads:
        if arrived is not None and read.at is not None:
            await _until(watcher, arrived + read.at)
        if watcher.gone:
            return
        await send({"type": "http.response.body", "body": read.data, "more_body": True})
    if watcher.gone:
        return
    watcher.end()
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _until(watcher: DisconnectWatcher, deadline: float) -> None:
    """Sleep until ``deadline`` (``time.monotonic()``), if it is still ahead."""
    remaining = deadline - time.monotonic()
    if remaining > 0:
        await watcher.sleep(remaining)
