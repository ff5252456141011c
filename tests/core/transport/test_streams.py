"""``ChatStream`` / ``AsyncChatStream`` (``transport/streams.py``) over httpx.MockTransport:
the request goes out on first iteration; each read's events are in ``answer`` before its
batch is handed on; every way of leaving a stream (close, ``with``, an error, dropping it,
dropping it inside a reference cycle) closes the HTTP response."""

from __future__ import annotations

import asyncio
import gc
import json
import time
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    Completion,
    IncompleteStreamError,
    TextDelta,
)

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def frame(text: str | None = None, finish: str | None = None) -> bytes:
    delta = {} if text is None else {"content": text}
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


READS = [frame("a") + frame("b"), frame("c"), frame(finish="stop") + b"data: [DONE]\n\n"]


class Body(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body served in the given reads; remembers whether it was closed."""

    def __init__(self, reads: list[bytes]) -> None:
        self.reads = reads
        self.closed = False
        self.served = 0

    def __iter__(self) -> Iterator[bytes]:
        for read in self.reads:
            self.served += 1
            yield read

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            self.served += 1
            yield read

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


class Gateway:
    """A MockTransport handler: every request gets a fresh :class:`Body` of ``reads``."""

    def __init__(self, reads: list[bytes] | None = None) -> None:
        self.reads = READS if reads is None else reads
        self.bodies: list[Body] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = Body(self.reads)
        self.bodies.append(body)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)


def sync_client(gateway: Gateway) -> ChatClient:
    http = httpx.Client(transport=httpx.MockTransport(gateway))
    return ChatClient(base_url="http://gw.test/v1", http_client=http)


def async_client(gateway: Gateway) -> AsyncChatClient:
    http = httpx.AsyncClient(transport=httpx.MockTransport(gateway))
    return AsyncChatClient(base_url="http://gw.test/v1", http_client=http)


def texts(events: list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextDelta)]


# --- sync -------------------------------------------------------------------------------------


def test_the_request_is_sent_on_first_iteration() -> None:
    gateway = Gateway()
    stream = sync_client(gateway).stream(PAYLOAD)
    assert gateway.bodies == [] and stream.response is None and stream.completion is None
    assert stream.answer.completion() == Completion() and stream.received() == Completion()
    first = next(iter(stream))
    assert isinstance(first, TextDelta) and len(gateway.bodies) == 1
    assert stream.response is not None and stream.response.status_code == 200
    stream.close()


def test_batches_are_reads_and_the_answer_holds_each_read_before_it_is_handed_on() -> None:
    stream = sync_client(Gateway()).stream(PAYLOAD)
    seen = []
    for batch in stream.batches():
        seen.append((texts(batch), stream.answer.completion().content))
    assert seen == [(["a", "b"], "ab"), (["c"], "abc"), ([], "abc")]  # the last: finish, [DONE]
    assert stream.completion is not None and stream.completion.content == "abc"
    assert stream.received() is stream.completion


def test_until_done_and_the_response_is_closed_at_the_end() -> None:
    gateway = Gateway()
    stream = sync_client(gateway).stream(PAYLOAD)
    result = stream.until_done()
    assert result.content == "abc" and stream.completion is result
    assert gateway.bodies[0].closed and stream.response is not None and stream.response.is_closed


def test_close_before_iterating_sends_nothing() -> None:
    gateway = Gateway()
    stream = sync_client(gateway).stream(PAYLOAD)
    stream.close()
    assert gateway.bodies == [] and list(stream) == []


@pytest.mark.parametrize("how", ["close", "with"])
def test_leaving_early_closes_the_response(how: str) -> None:
    gateway = Gateway()
    client = sync_client(gateway)
    if how == "close":
        stream = client.stream(PAYLOAD)
        next(iter(stream))
        stream.close()
    else:
        with client.stream(PAYLOAD) as stream:
            next(iter(stream))
    assert gateway.bodies[0].closed and gateway.bodies[0].served == 1
    assert stream.completion is None and stream.received().content == "ab"
    assert list(stream) == []  # a closed stream yields nothing more


def test_an_error_closes_the_response_and_keeps_what_arrived() -> None:
    gateway = Gateway([frame("cut")])
    stream = sync_client(gateway).stream(PAYLOAD)
    with pytest.raises(IncompleteStreamError):
        stream.until_done()
    assert gateway.bodies[0].closed and stream.received().content == "cut"


@pytest.mark.timeout(10)
def test_dropping_an_unfinished_stream_closes_its_response_at_once() -> None:
    gateway = Gateway()
    client = sync_client(gateway)
    stream = client.stream(PAYLOAD)
    for _ in stream:
        break
    alive = weakref.ref(stream)
    gc.disable()
    try:
        del stream  # reference counting alone must close it
        assert alive() is None and gateway.bodies[0].closed
    finally:
        gc.enable()


@pytest.mark.timeout(10)
def test_a_for_loop_over_a_temporary_stream_closes_when_left() -> None:
    gateway = Gateway()
    client = sync_client(gateway)
    for _ in client.stream(PAYLOAD):
        break
    assert gateway.bodies[0].closed


@pytest.mark.timeout(10)
def test_a_stream_dropped_in_a_reference_cycle_is_closed_by_the_collector() -> None:
    gateway = Gateway()
    client = sync_client(gateway)
    stream = client.stream(PAYLOAD)
    next(iter(stream))
    cycle: dict[str, Any] = {"stream": stream}
    cycle["self"] = cycle
    alive = weakref.ref(stream)
    del stream, cycle
    assert not gateway.bodies[0].closed  # only the collector can reach it now
    gc.collect()
    deadline = time.monotonic() + 5
    while not gateway.bodies[0].closed and time.monotonic() < deadline:
        time.sleep(0.001)  # the close runs on the closer thread
    assert gateway.bodies[0].closed and alive() is None


# --- async ------------------------------------------------------------------------------------


def test_async_lifetime() -> None:
    async def main() -> None:
        gateway = Gateway()
        client = async_client(gateway)
        stream = client.stream(PAYLOAD)
        assert gateway.bodies == [] and stream.response is None
        seen = []
        async for batch in stream.batches():
            seen.append((texts(batch), stream.answer.completion().content))
        assert seen == [(["a", "b"], "ab"), (["c"], "abc"), ([], "abc")]
        assert stream.completion is not None and gateway.bodies[0].closed

        early = client.stream(PAYLOAD)
        async with early:
            async for _ in early:
                break
        assert gateway.bodies[1].closed and early.received().content == "ab"

        closed = client.stream(PAYLOAD)
        await closed.aclose()
        assert len(gateway.bodies) == 2  # nothing sent for a stream closed before use

        cut = async_client(Gateway([frame("cut")])).stream(PAYLOAD)
        with pytest.raises(IncompleteStreamError):
            await cut.until_done()
        assert cut.received().content == "cut"

    asyncio.run(main())


def test_async_until_done() -> None:
    async def main() -> Completion:
        return await async_client(Gateway()).complete(PAYLOAD)

    assert asyncio.run(main()).content == "abc"


def test_the_closer_keeps_no_response_it_closed() -> None:
    """A response abandoned inside a collection is closed on the closer thread with its
    body, which it must then let go: the last one it held kept its connection, pool and
    socket alive (the soak found one socket open after every client was closed)."""
    from sse_core.transport.closing import Closer as _Closer

    closed: list[str] = []

    class Response:
        def close(self) -> None:
            closed.append("response")

    class Body:
        def close(self) -> None:
            closed.append("body")

    _Closer.start()
    response, body = Response(), Body()
    gone = [weakref.ref(response), weakref.ref(body)]
    _Closer.pending.put((response, body))  # type: ignore[arg-type]
    del response, body
    deadline = time.monotonic() + 5
    while len(closed) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert closed == ["response", "body"]
    deadline = time.monotonic() + 5
    while any(ref() is not None for ref in gone) and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert all(ref() is None for ref in gone)
