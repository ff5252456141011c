"""The body's idle bound, on both paths of the fast path ``transport.read_timeout``: on, the
idle bound replaces first_byte in httpcore's read timeout once the head arrived; off (httpx's
public API only), the read timeout stays the larger of the two and an IdleWatch hangs the
connection up after ``idle`` seconds without a byte. Either way: a head slower than ``idle``
but within ``first_byte`` is waited for, a body silent for ``idle`` ends as a timeout with
its partial answer (sync and async, chunked and close-delimited), and bytes arriving within
the bound keep it quiet. Over loopback HTTP/1.1 (``tests/raw_server.py``)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    StreamTimeoutError,
    TextDelta,
    Timeouts,
    fast_paths,
)
from sse_core.transport.head import READ_TIMEOUT, IdleWatch, probe_read_timeout
from tests.raw_server import serving

pytestmark = pytest.mark.timeout(60)

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def frame(text: str) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"content": text}}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


END = b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'


def chunked(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def scripted(pauses: list[tuple[float, bytes]], *, head_after: float = 0.0, framing: str) -> Any:
    """An answer writing the head after ``head_after`` s, then each piece after its pause."""
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    head += (
        b"transfer-encoding: chunked\r\n\r\n"
        if framing == "chunked"
        else b"connection: close\r\n\r\n"
    )

    def write(conn: socket.socket) -> None:
        time.sleep(head_after)
        conn.sendall(head)
        for pause, piece in pauses:
            time.sleep(pause)
            conn.sendall(chunked(piece) if framing == "chunked" else piece)
        if framing == "chunked":
            conn.sendall(b"0\r\n\r\n")
        else:
            conn.shutdown(socket.SHUT_WR)

    return lambda n, request: write


@pytest.fixture(params=[True, False], ids=["rewrite", "watch"])
def path(request: pytest.FixtureRequest) -> Iterator[bool]:
    with fast_paths.forced(READ_TIMEOUT.name, request.param):
        yield request.param


def complete(url: str, mode: str, timeouts: Timeouts) -> Any:
    """The Completion, or the error, of one streamed request."""
    if mode == "sync":
        with ChatClient(base_url=url, timeout=timeouts, max_retries=0) as client:
            try:
                return client.stream(PAYLOAD).until_done()
            except StreamTimeoutError as exc:
                return exc

    async def main() -> Any:
        async with AsyncChatClient(base_url=url, timeout=timeouts, max_retries=0) as client:
            try:
                return await client.stream(PAYLOAD).until_done()
            except StreamTimeoutError as exc:
                return exc

    return asyncio.run(main())


MODES = pytest.mark.parametrize("mode", ["sync", "async"])
FRAMINGS = pytest.mark.parametrize("framing", ["chunked", "close"])


@MODES
@FRAMINGS
def test_a_silent_body_times_out_after_idle_with_its_partial(
    path: bool, mode: str, framing: str
) -> None:
    answer = scripted([(0, frame("a")), (3.0, frame("b") + END)], framing=framing)
    with serving(answer) as served:
        start = time.monotonic()
        result = complete(served.url, mode, Timeouts(first_byte=30, idle=0.4))
        elapsed = time.monotonic() - start
    assert isinstance(result, StreamTimeoutError), result
    assert result.partial.content == "a"
    assert "idle" in str(result)
    assert 0.35 < elapsed < 2.5  # the idle bound, not first_byte's 30 s or the 3 s pause


@MODES
def test_a_head_slower_than_idle_is_waited_for_within_first_byte(path: bool, mode: str) -> None:
    answer = scripted([(0, frame("a")), (0.1, frame("b") + END)], head_after=0.8, framing="chunked")
    with serving(answer) as served:
        result = complete(served.url, mode, Timeouts(first_byte=5, idle=0.3))
    assert not isinstance(result, Exception), result
    assert result.content == "ab"


@MODES
def test_bytes_within_the_bound_keep_it_quiet(path: bool, mode: str) -> None:
    pieces = [(0.2, frame(str(n))) for n in range(6)] + [(0.2, END)]  # 1.4 s in all
    with serving(scripted(pieces, framing="chunked")) as served:
        result = complete(served.url, mode, Timeouts(first_byte=5, idle=0.5))
    assert not isinstance(result, Exception), result
    assert result.content == "012345"


def test_the_total_deadline_holds_through_a_silent_body_on_the_watch() -> None:
    answer = scripted([(0, frame("a")), (5.0, END)], framing="chunked")
    with fast_paths.forced(READ_TIMEOUT.name, False), serving(answer) as served:
        start = time.monotonic()
        result = complete(served.url, "sync", Timeouts(first_byte=30, idle=30, total=0.6))
    assert isinstance(result, StreamTimeoutError), result
    assert time.monotonic() - start < 3


def test_a_disarmed_watch_never_fires() -> None:
    hung: list[str] = []

    class Stream:
        def get_extra_info(self, name: str) -> Any:
            hung.append(name)
            return None

    watch = IdleWatch(0.05, None, Stream(), time.monotonic())
    watch.disarm()
    time.sleep(0.2)
    assert not watch.fired and hung == []
    late = IdleWatch(0.05, None, Stream(), time.monotonic())
    time.sleep(0.3)
    assert late.fired and "socket" in hung
    idle = IdleWatch(0.05, None, Stream(), time.monotonic())
    idle.reading_since = None  # the consumer holds a piece: no read waits
    time.sleep(0.3)
    assert not idle.fired
    idle.disarm()


def test_the_probe_finds_what_the_rewrite_relies_on() -> None:
    assert probe_read_timeout() is None
    assert fast_paths.registered()[READ_TIMEOUT.name].tested["httpcore"]


@MODES
def test_a_consumer_slower_than_idle_is_no_silence(path: bool, mode: str) -> None:
    """As with httpx's read timeout, only time spent waiting in a read counts: a consumer
    that holds each piece longer than ``idle`` (the server has sent everything) is fine."""
    answer = scripted([(0, frame("a")), (0.05, frame("b")), (0.05, END)], framing="chunked")
    with serving(answer) as served:
        texts = consume_slowly(served.url, mode, Timeouts(first_byte=5, idle=0.3), hold=0.6)
    assert texts == ["a", "b"]


def consume_slowly(url: str, mode: str, timeouts: Timeouts, hold: float) -> list[str]:
    """The text deltas of one stream, each held ``hold`` seconds by the consumer."""
    if mode == "sync":
        with ChatClient(base_url=url, timeout=timeouts, max_retries=0) as client:
            texts = []
            for event in client.stream(PAYLOAD):
                if isinstance(event, TextDelta):
                    texts.append(event.text)
                    time.sleep(hold)
            return texts

    async def main() -> list[str]:
        async with AsyncChatClient(base_url=url, timeout=timeouts, max_retries=0) as client:
            texts = []
            async for event in client.stream(PAYLOAD):
                if isinstance(event, TextDelta):
                    texts.append(event.text)
                    await asyncio.sleep(hold)
            return texts

    return asyncio.run(main())
