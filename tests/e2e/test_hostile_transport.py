"""Hostile gateways over real loopback HTTP/1.1 (``raw_server``): compression bombs and
codings nobody asked for, redirects with an injected client that follows them, bytes after a
body, heads that never finish. Each case runs through the sync and the async client.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import socket
import time
import tracemalloc
import zlib
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import zstandard

from sse_core import (
    AsyncChatClient,
    ChatClient,
    Completion,
    IncompleteStreamError,
    RedirectError,
    ServerError,
    SSEConnectorError,
    StreamProtocolError,
    StreamTimeoutError,
    Timeouts,
)
from tests.counting_server import FRAMES, PAYLOAD
from tests.raw_server import response, serving

Outcome = Completion | SSEConnectorError
MiB = 1024 * 1024
#: A bomb inflates to this; the client's bound (max_event_bytes) is far below.
BOMB = 64 * MiB
BOUND = 1 * MiB
#: The most the client may hold while it refuses a bomb.
HELD = 8 * MiB
API_KEY = "apikey-hostile-canary-5e1f"


def settings(url: str, **changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "base_url": url,
        "api_key": "sk-hostile-canary-9a7b",
        "default_headers": {"api-key": API_KEY},
        "timeout": Timeouts(connect=5, first_byte=5, idle=5, data_idle=5),
        "max_retries": 0,
        "max_event_bytes": BOUND,
    }
    return {**base, **changes}


def run_sync(config: dict[str, Any], *, http: Any = None, streaming: bool = True) -> Outcome:
    try:
        with ChatClient(http_client=http, **config) as client:
            return client.complete(PAYLOAD, streaming=streaming)
    except SSEConnectorError as exc:
        return exc


def run_async(config: dict[str, Any], *, http: Any = None, streaming: bool = True) -> Outcome:
    async def main() -> Outcome:
        try:
            async with AsyncChatClient(http_client=http, **config) as client:
                return await client.complete(PAYLOAD, streaming=streaming)
        except SSEConnectorError as exc:
            return exc

    return asyncio.run(main())


Runner = Callable[..., Outcome]


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Runner:
    return run_sync if request.param == "sync" else run_async


def peak(action: Callable[[], Outcome]) -> tuple[Outcome, int]:
    """What ``action`` returns and the most memory allocated while it ran."""
    tracemalloc.start()
    try:
        outcome = action()
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --- compression bombs and codings nobody asked for ---


def _deflating(wbits: int, start: bytes, size: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    block = b"a" * MiB
    parts = [packer.compress(start)] + [packer.compress(block) for _ in range(size // MiB)]
    return b"".join(parts) + packer.flush()


def _zstd(start: bytes, size: int) -> bytes:
    packer = zstandard.ZstdCompressor().compressobj()
    block = b"a" * MiB
    parts = [packer.compress(start)] + [packer.compress(block) for _ in range(size // MiB)]
    return b"".join(parts) + packer.flush()


def _brotli(start: bytes, size: int) -> bytes:
    try:
        import brotli  # type: ignore[import-not-found]
    except ImportError:
        # Not installed here: httpx would not decode it either. Any bytes will do to show
        # the coding is refused by name (with brotli installed, a real bomb).
        return b"\x1b\xff\xff\x0f" + b"\x00" * 64
    return bytes(brotli.compress(start + b"a" * size))


def bomb(coding: str, start: bytes = b"data: ") -> bytes:
    if coding == "gzip":
        return _deflating(zlib.MAX_WBITS | 16, start, BOMB)
    if coding == "deflate":
        return _deflating(zlib.MAX_WBITS, start, BOMB)
    if coding == "zstd":
        return _zstd(start, BOMB)
    return _brotli(start, BOMB)


CODINGS = ["gzip", "deflate", "br", "zstd"]


def encoded(body: bytes, coding: str, kind: str = "text/event-stream", status: str = "200 OK"):
    headers = (f"content-type: {kind}", f"content-encoding: {coding}")
    return response(body, status=status, headers=headers)


@pytest.mark.parametrize("coding", CODINGS)
def test_a_compression_bomb_is_refused_with_bounded_memory(coding: str, run: Runner) -> None:
    reply = encoded(bomb(coding), coding)
    with serving(lambda n, request: reply) as served:
        outcome, held = peak(lambda: run(settings(served.url)))
    assert isinstance(outcome, StreamProtocolError), outcome
    assert held < HELD, f"{held / MiB:.1f} MiB held for a {coding} bomb"
    if coding in ("br", "zstd"):
        assert repr(coding) in str(outcome)  # refused by name, before any byte was inflated


@pytest.mark.parametrize("coding", CODINGS)
def test_a_json_bomb_is_refused_with_bounded_memory(coding: str, run: Runner) -> None:
    reply = encoded(bomb(coding, b'{"choices": "'), coding, kind="application/json")
    with serving(lambda n, request: reply) as served:
        outcome, held = peak(lambda: run(settings(served.url), streaming=False))
    assert isinstance(outcome, StreamProtocolError), outcome
    assert held < HELD, f"{held / MiB:.1f} MiB held for a {coding} JSON bomb"


@pytest.mark.parametrize("coding", CODINGS)
def test_an_error_body_bomb_is_read_with_bounded_memory(coding: str, run: Runner) -> None:
    reply = encoded(bomb(coding, b""), coding, kind="text/plain", status="500 Oops")
    with serving(lambda n, request: reply) as served:
        outcome, held = peak(lambda: run(settings(served.url)))
    assert isinstance(outcome, ServerError), outcome
    assert held < HELD, f"{held / MiB:.1f} MiB held for a {coding} error body"
    if coding in ("br", "zstd"):
        assert repr(coding) in str(outcome)


def test_the_request_asks_only_for_codings_inflated_with_bounds() -> None:
    with serving(lambda n, request: response(FRAMES)) as served:
        assert isinstance(run_sync(settings(served.url)), Completion)
        assert isinstance(run_async(settings(served.url)), Completion)
    for request in served.requests:
        head = request.split(b"\r\n\r\n")[0].lower()
        assert b"\r\naccept-encoding: gzip, deflate\r\n" in head


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_compressed_stream_is_decoded(coding: str, run: Runner) -> None:
    wbits = zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    reply = encoded(packer.compress(FRAMES) + packer.flush(), coding)
    with serving(lambda n, request: reply) as served:
        outcome = run(settings(served.url))
    assert isinstance(outcome, Completion) and outcome.content == "hello", outcome


def test_raw_deflate_is_decoded_too(run: Runner) -> None:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    reply = encoded(packer.compress(FRAMES) + packer.flush(), "deflate")
    with serving(lambda n, request: reply) as served:
        outcome = run(settings(served.url))
    assert isinstance(outcome, Completion) and outcome.content == "hello", outcome


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_corrupt_compressed_body_is_a_decoding_error(coding: str, run: Runner) -> None:
    good = gzip.compress(FRAMES) if coding == "gzip" else zlib.compress(FRAMES)
    bad = good[:12] + bytes(b ^ 0xA5 for b in good[12:40]) + good[40:]
    with serving(lambda n, request: encoded(bad, coding)) as served:
        outcome = run(settings(served.url))
    assert isinstance(outcome, StreamProtocolError), outcome
    assert not isinstance(outcome, IncompleteStreamError)
    assert "decoded" in str(outcome) and repr(coding) in str(outcome)
    assert "broke" not in str(outcome)


def test_a_corrupt_json_body_is_a_decoding_error(run: Runner) -> None:
    good = gzip.compress(json.dumps({"choices": []}).encode() * 50)
    bad = good[:12] + bytes(b ^ 0xA5 for b in good[12:40]) + good[40:]
    reply = encoded(bad, "gzip", kind="application/json")
    with serving(lambda n, request: reply) as served:
        outcome = run(settings(served.url), streaming=False)
    assert isinstance(outcome, StreamProtocolError), outcome
    assert "'gzip'" in str(outcome) and "decoded" in str(outcome)


@pytest.mark.parametrize("coding", ["br", "zstd", "compress", "x-made-up", "gzip, br"])
def test_a_coding_that_cannot_be_decoded_is_named(coding: str, run: Runner) -> None:
    with serving(lambda n, request: encoded(b"\x8b\x00 not an event stream", coding)) as served:
        outcome = run(settings(served.url))
    assert isinstance(outcome, StreamProtocolError), outcome
    assert repr(coding) in str(outcome)
    assert "no SSE event" not in str(outcome)


# --- redirects are never followed, whatever client is injected ---


@pytest.mark.parametrize(
    "status", ["302 Found", "307 Temporary Redirect", "308 Permanent Redirect"]
)
def test_an_injected_client_that_follows_redirects_does_not(status: str) -> None:
    with serving(lambda n, request: response(FRAMES)) as elsewhere:
        target = f"location: {elsewhere.url}/chat/completions"
        redirect = response(b"moved", status=status, headers=("content-type: text/plain", target))
        with serving(lambda n, request: redirect) as gateway:
            with httpx.Client(follow_redirects=True) as http:
                sync = run_sync(settings(gateway.url), http=http)
            asynchronous = run_async(
                settings(gateway.url), http=httpx.AsyncClient(follow_redirects=True)
            )
    for outcome in (sync, asynchronous):
        assert isinstance(outcome, RedirectError), outcome
        assert outcome.location == f"{elsewhere.url}/chat/completions"
    assert elsewhere.connections == 0 and elsewhere.requests == []
    assert len(gateway.requests) == 2


# --- bytes after a body are never the next answer ---

INJECTED = json.dumps(
    {"choices": [{"index": 0, "delta": {"content": "INJECTED"}, "finish_reason": "stop"}]}
)
SECOND = response(b"data: " + INJECTED.encode() + b"\n\ndata: [DONE]\n\n")
JSON_ANSWER = json.dumps(
    {"choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}}]}
).encode()
JSON_INJECTED = response(
    JSON_ANSWER.replace(b"hello", b"INJECTED"), headers=("content-type: application/json",)
)


def _chunked(body: bytes) -> bytes:
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    return head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)


TRAILING = {
    "length": (response(FRAMES) + SECOND, True),
    "chunked": (_chunked(FRAMES) + SECOND, True),
    "json": (
        response(JSON_ANSWER, headers=("content-type: application/json",)) + JSON_INJECTED,
        False,
    ),
}


def _twice(runner: Runner, url: str, streaming: bool) -> list[Outcome]:
    if runner is run_sync:
        with ChatClient(**settings(url)) as client:
            return [client.complete(PAYLOAD, streaming=streaming) for _ in range(2)]

    async def main() -> list[Outcome]:
        async with AsyncChatClient(**settings(url)) as client:
            return [await client.complete(PAYLOAD, streaming=streaming) for _ in range(2)]

    return asyncio.run(main())


@pytest.mark.parametrize("framing", sorted(TRAILING))
def test_bytes_after_a_body_are_not_the_next_answer(framing: str, run: Runner) -> None:
    reply, streaming = TRAILING[framing]
    with serving(lambda n, request: reply) as served:
        outcomes = _twice(run, served.url, streaming)
    assert [getattr(o, "content", o) for o in outcomes] == ["hello", "hello"]
    assert served.connections == 2
    assert len(served.requests) == 2


def _bad_ending(n: int, request: bytes) -> bytes:
    # The body is whole by its length, but its last frame (ended by its blank line) is broken
    # JSON. (A body that ends inside a frame is a cut stream: test_cut_ending_... below.)
    return response(FRAMES.replace(b"data: [DONE]\n\n", b"") + b'data: {"choices": [\n\n')


def _cut_ending(n: int, request: bytes) -> bytes:
    # The body is whole by its length, but it ends inside its last frame's JSON.
    return response(FRAMES.replace(b"data: [DONE]\n\n", b"") + b'data: {"choices": [')


def test_a_connection_whose_body_broke_the_protocol_is_not_reused(run: Runner) -> None:
    with serving(_bad_ending) as served:
        config = settings(served.url)
        if run is run_sync:
            with ChatClient(**config) as client:
                outcomes = [_catch(lambda: client.complete(PAYLOAD)) for _ in range(2)]
        else:

            async def main() -> list[Outcome]:
                async with AsyncChatClient(**config) as client:
                    return [await _acatch(client) for _ in range(2)]

            outcomes = asyncio.run(main())
    assert all(isinstance(o, StreamProtocolError) for o in outcomes), outcomes
    assert served.connections == 2


def test_a_connection_whose_body_ended_inside_a_frame_is_not_reused() -> None:
    with serving(_cut_ending) as served, ChatClient(**settings(served.url)) as client:
        outcomes = [_catch(lambda: client.complete(PAYLOAD)) for _ in range(2)]
    assert all(isinstance(o, IncompleteStreamError) for o in outcomes), outcomes
    assert all(o.partial.content == "hello" for o in outcomes)  # type: ignore[union-attr]
    assert served.connections == 2


def _catch(action: Callable[[], Completion]) -> Outcome:
    try:
        return action()
    except SSEConnectorError as exc:
        return exc


async def _acatch(client: AsyncChatClient) -> Outcome:
    try:
        return await client.complete(PAYLOAD)
    except SSEConnectorError as exc:
        return exc


def _bad_then_hold(conn: socket.socket) -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 100000\r\n\r\n"
    conn.sendall(head + b"data: {broken json\n\n")
    conn.settimeout(5)
    with contextlib.suppress(OSError):
        conn.recv(1)  # until the client hangs up


def test_a_protocol_error_hangs_the_connection_up_at_once(run: Runner) -> None:
    with serving(lambda n, request: _bad_then_hold) as served:
        started = time.monotonic()
        outcome = run(settings(served.url))
        assert isinstance(outcome, StreamProtocolError), outcome
        assert served.closed.wait(2)
        assert time.monotonic() - started < 2


# --- first_byte bounds the whole head ---


def _early_hints(conn: socket.socket) -> None:
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        conn.sendall(b"HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n")
        time.sleep(0.1)
    conn.sendall(response(FRAMES))


def _dribbled_head(conn: socket.socket) -> None:
    head = response(FRAMES).split(b"\r\n\r\n")[0] + b"\r\nx-pad: " + b"p" * 200 + b"\r\n\r\n"
    for byte in head:
        conn.sendall(bytes([byte]))
        time.sleep(0.05)
    conn.sendall(FRAMES)


@pytest.mark.parametrize("server", [_early_hints, _dribbled_head], ids=["103s", "dribble"])
def test_first_byte_is_a_deadline_for_the_whole_head(server: Any, run: Runner) -> None:
    with serving(lambda n, request: server) as served:
        started = time.monotonic()
        outcome = run(settings(served.url, timeout=Timeouts(connect=5, first_byte=1, idle=5)))
        took = time.monotonic() - started
    assert isinstance(outcome, StreamTimeoutError), outcome
    assert "first_byte (1 s)" in str(outcome)
    assert took < 3, f"the head held the request for {took:.1f} s"
    assert served.closed.wait(2)  # the connection was hung up


def test_the_total_timeout_bounds_the_head_too(run: Runner) -> None:
    timeout = Timeouts(connect=5, first_byte=None, idle=5, total=1)
    with serving(lambda n, request: _early_hints) as served:
        started = time.monotonic()
        outcome = run(settings(served.url, timeout=timeout))
        took = time.monotonic() - started
    assert isinstance(outcome, StreamTimeoutError), outcome
    assert "total timeout" in str(outcome)
    assert took < 3


def test_a_silent_gateway_names_first_byte(run: Runner) -> None:
    def silent(conn: socket.socket) -> None:
        time.sleep(3)

    with serving(lambda n, request: silent) as served:
        outcome = run(settings(served.url, timeout=Timeouts(connect=5, first_byte=0.5)))
    assert isinstance(outcome, StreamTimeoutError), outcome
    assert "first_byte (0.5 s)" in str(outcome)


def test_a_head_in_time_leaves_the_body_alone(run: Runner) -> None:
    """The watch is disarmed by the head: a body slower than first_byte is the idle bound's."""

    def slow_body(conn: socket.socket) -> None:
        head, _, body = response(FRAMES).partition(b"\r\n\r\n")
        conn.sendall(head + b"\r\n\r\n")
        time.sleep(1.5)
        conn.sendall(body)

    with serving(lambda n, request: slow_body) as served:
        outcome = run(settings(served.url, timeout=Timeouts(connect=5, first_byte=1, idle=5)))
    assert isinstance(outcome, Completion) and outcome.content == "hello", outcome
