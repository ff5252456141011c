"""Anthropic Messages streams through the core clients, sync and async, over loopback HTTP/1.1
(``tests/raw_server.py``): complete at ``message_stop`` without waiting for the end of the
body (a gateway that keeps the socket open must not hang the client), a stop reason then EOF
is complete, EOF with neither is IncompleteStreamError with the partial answer, an ``error``
event after a 200 is a GatewayStreamError with the partial answer (never retried), the
connection is reused after ``message_stop`` only when the body's end is here, and the real
captures decode through the transport as ``sse_core.decode`` decodes them."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    Completion,
    GatewayStreamError,
    IncompleteStreamError,
    StreamError,
    TextDelta,
    decode,
    fast_paths,
)
from sse_core.transport.keepalive import REUSE
from tests.anthropic_http import (
    CAPTURES,
    KEY,
    PAYLOAD,
    call,
    chunk,
    error_body,
    frames,
    head_of,
    hold_open,
    json_of,
    message,
    start,
    stream_answer,
    text_stream,
)
from tests.http_packages import kept_alive
from tests.raw_server import serving

pytestmark = pytest.mark.timeout(60)

MODES = ["sync", "async"]
HOLD = 15.0  # how long a server keeps a socket open after message_stop
PROMPT = 3.0  # the most a stream that ended at message_stop may take
CHUNKED = head_of("200 OK", "content-type: text/event-stream", "transfer-encoding: chunked")
UNTIL_CLOSE = head_of("200 OK", "content-type: text/event-stream", "connection: close")


def failure(mode: str, base_url: str) -> StreamError:
    with pytest.raises(StreamError) as caught:
        call(mode, base_url=base_url)
    return caught.value


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("framing", ["chunked", "until close"])
@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "no-reuse"])
def test_message_stop_ends_the_stream_while_the_gateway_keeps_the_socket_open(
    mode: str, framing: str, reuse: bool
) -> None:
    """On both paths of the fast path transport.reuse (off: httpx's public API only)."""
    body = text_stream("still ", "open")
    head, data = (CHUNKED, chunk(body)) if framing == "chunked" else (UNTIL_CLOSE, body)
    with (
        fast_paths.forced(REUSE.name, reuse),
        serving(lambda n, r: hold_open(head, data, HOLD)) as served,
    ):
        began = time.monotonic()
        completion = call(mode, base_url=served.url)
        took = time.monotonic() - began
        hung_up = served.closed.wait(PROMPT)
    assert completion.content == "still open" and completion.finish_reason == "stop"
    assert took < PROMPT
    assert hung_up  # the client closed the connection it could not reuse


@pytest.mark.parametrize("mode", MODES)
def test_events_stop_at_message_stop_and_bytes_after_it_are_not_read(mode: str) -> None:
    after = frames(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "X"}}
    )
    body = text_stream("done") + after
    with serving(lambda n, r: hold_open(CHUNKED, chunk(body), HOLD)) as served:
        texts = stream_texts(mode, served.url)
    assert texts == ["done"]


def stream_texts(mode: str, base_url: str) -> list[str]:
    settings = {"base_url": base_url, "api_key": KEY, "protocol": "anthropic"}
    if mode == "sync":
        with ChatClient(**settings) as client, client.stream(PAYLOAD) as stream:
            return [e.text for e in stream if isinstance(e, TextDelta)]

    async def run() -> list[str]:
        async with AsyncChatClient(**settings) as client, client.stream(PAYLOAD) as stream:
            return [e.text async for e in stream if isinstance(e, TextDelta)]

    return asyncio.run(run())


@pytest.mark.parametrize("mode", MODES)
def test_a_stop_reason_then_eof_without_message_stop_is_complete(mode: str) -> None:
    body = text_stream("no ", "stop event", stop=False)
    with serving(lambda n, r: stream_answer(body)) as served:
        completion = call(mode, base_url=served.url)
    assert (completion.content, completion.stop_reason) == ("no stop event", "end_turn")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("framing", ["length", "chunked", "until close"])
def test_eof_without_stop_reason_or_message_stop_is_incomplete_with_the_partial(
    mode: str, framing: str
) -> None:
    body = text_stream("cut ", "here", stop_reason=None, stop=False)
    if framing == "length":
        answer = stream_answer(body)
    elif framing == "chunked":
        answer = CHUNKED + chunk(body) + b"0\r\n\r\n"
    else:
        answer = UNTIL_CLOSE + body
    with serving(
        lambda n, r: answer if framing != "until close" else _then_close(answer)
    ) as served:
        error = failure(mode, served.url)
    assert type(error) is IncompleteStreamError
    assert error.partial.content == "cut here" and error.partial.id == "msg_1"
    assert "message_stop" in str(error)
    assert len(served.requests) == 1  # output had begun: never retried


def _then_close(answer: bytes) -> Callable[[socket.socket], None]:
    """A writer that sends ``answer`` and then ends the connection (EOF for the client)."""

    def write(conn: socket.socket) -> None:
        conn.sendall(answer)
        conn.shutdown(socket.SHUT_RDWR)

    return write


@pytest.mark.parametrize("mode", MODES)
def test_a_connection_broken_mid_stream_is_incomplete_with_the_partial(mode: str) -> None:
    body = text_stream("half ", "way", stop_reason=None, stop=False)
    head = head_of("200 OK", "content-type: text/event-stream", "content-length: 100000")
    with serving(lambda n, r: _then_close(head + body)) as served:
        error = failure(mode, served.url)
    assert type(error) is IncompleteStreamError and error.partial.content == "half way"


@pytest.mark.parametrize("mode", MODES)
def test_an_error_event_after_200_is_a_gateway_stream_error_with_the_partial(mode: str) -> None:
    error_event = {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    body = text_stream("partial ", "answer", stop_reason=None, stop=False) + frames(error_event)
    answer = stream_answer(body, "request-id: req_stream_1")
    with serving(lambda n, r: answer) as served:
        error = failure(mode, served.url)
    assert type(error) is GatewayStreamError
    assert (error.type, error.partial.content) == ("overloaded_error", "partial answer")
    assert "Overloaded" in str(error)
    assert error.partial.headers["request-id"] == "req_stream_1"
    assert len(served.requests) == 1


@pytest.mark.parametrize("mode", MODES)
def test_the_request_id_of_a_good_stream_is_on_the_completion(mode: str) -> None:
    answer = stream_answer(text_stream("ok"), "request-id: req_good")
    with serving(lambda n, r: answer) as served:
        completion = call(mode, base_url=served.url)
    assert completion.headers["request-id"] == "req_good"


@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "faithful"])
@pytest.mark.parametrize("mode", MODES)
def test_a_connection_is_reused_after_message_stop_when_the_body_ended(
    mode: str, reuse: bool
) -> None:
    """Where the reuse fast path is on; the faithful transport asks for a new connection
    every time (``connection: close``)."""
    answer = lambda n, r: stream_answer(text_stream(f"answer {n}"))  # noqa: E731
    with fast_paths.forced(REUSE.name, reuse), serving(answer) as served:
        assert two_answers(mode, served.url) == ["answer 0", "answer 1"]
    assert served.connections == (1 if kept_alive(reuse) else 2)


@pytest.mark.parametrize("mode", MODES)
def test_a_connection_held_open_after_message_stop_is_not_reused(mode: str) -> None:
    def answer(n: int, _: bytes) -> Callable[[socket.socket], None]:
        return hold_open(CHUNKED, chunk(text_stream(f"answer {n}")), HOLD)

    with serving(answer) as served:
        began = time.monotonic()
        assert two_answers(mode, served.url) == ["answer 0", "answer 1"]
        took = time.monotonic() - began
    assert served.connections == 2 and took < 2 * PROMPT


def two_answers(mode: str, base_url: str) -> list[str]:
    settings = {"base_url": base_url, "api_key": KEY, "protocol": "anthropic"}
    if mode == "sync":
        with ChatClient(**settings) as client:
            return [client.complete(PAYLOAD).content for _ in range(2)]

    async def run() -> list[str]:
        async with AsyncChatClient(**settings) as client:
            return [(await client.complete(PAYLOAD)).content for _ in range(2)]

    return asyncio.run(run())


def _capture(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".payloads.jsonl"):  # the data of each event: framed without event:
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(p.name for p in CAPTURES.iterdir()))
def test_real_captures_decode_through_the_client_as_decode_does(mode: str, name: str) -> None:
    body = _capture(CAPTURES / name)
    expected = decode(body, protocol="anthropic")
    pieces = [body[i : i + 97] for i in range(0, len(body), 97)]  # many reads, cut anywhere

    def answer(n: int, _: bytes) -> Callable[[socket.socket], None]:
        def write(conn: socket.socket) -> None:
            conn.sendall(CHUNKED)
            for piece in pieces:
                conn.sendall(chunk(piece))
            conn.sendall(b"0\r\n\r\n")

        return write

    with serving(answer) as served:
        completion = call(mode, base_url=served.url)
    assert _same(completion, expected)
    assert completion.stop_reason is not None  # each capture is a whole answer


def _same(got: Completion, expected: Completion) -> bool:
    fields = ("content", "tool_calls", "reasoning_blocks", "usage", "finish_reason", "stop_reason")
    return all(getattr(got, f) == getattr(expected, f) for f in fields) and (
        got.id,
        got.model,
    ) == (expected.id, expected.model)


@pytest.mark.parametrize("mode", MODES)
def test_a_cut_tool_input_is_a_flagged_call_not_repaired_arguments(mode: str) -> None:
    events = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Os'},
        },
        {
            "type": "message_delta",
            "delta": {"stop_reason": "max_tokens", "stop_sequence": None},
            "usage": {"output_tokens": 64},
        },
        {"type": "message_stop"},
    ]
    with serving(lambda n, r: stream_answer(frames(start(), *events))) as served:
        completion = call(mode, base_url=served.url)
    [tool] = completion.tool_calls
    assert (completion.finish_reason, tool.arguments) == ("length", '{"city": "Os')
    assert tool.arguments_error is not None


@pytest.mark.parametrize("mode", MODES)
def test_a_whole_message_answered_where_a_stream_was_asked_is_decoded(mode: str) -> None:
    answer = json_of("200 OK", json.dumps(message("as JSON")).encode())
    with serving(lambda n, r: answer) as served:
        completion = call(mode, base_url=served.url)
    assert (completion.content, completion.stop_reason) == ("as JSON", "tool_use")
    assert [tool.name for tool in completion.tool_calls] == ["get_weather"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("streaming", [True, False])
def test_an_error_object_in_a_200_json_body_is_a_gateway_stream_error(
    mode: str, streaming: bool
) -> None:
    answer = json_of("200 OK", error_body("overloaded_error", "Overloaded"))
    with serving(lambda n, r: answer) as served, pytest.raises(GatewayStreamError) as caught:
        call(mode, base_url=served.url, streaming=streaming)
    assert caught.value.type == "overloaded_error" and "Overloaded" in str(caught.value)
    assert len(served.requests) == 1
