"""A body that ends inside an event is a cut stream, however it ended (issue 36): a clean
close (EOF) in the middle of an event's JSON, with no blank line after it, is an
IncompleteStreamError with the answer so far, as a reset at the same point is, on every
protocol, never a StreamProtocolError ("invalid JSON"). WHATWG drops an event the body ends
in; an unterminated last frame whose data is whole is still decoded (a gateway that closes
after its last frame without the blank line), and a frame with invalid JSON that did end (its
blank line came) is still a StreamProtocolError.

At the core: ``decode()`` at every cut inside the last event's JSON (and each cut body split
at every byte), ``StreamDecoder.finish``, and ``ChatClient`` / ``AsyncChatClient`` against a
loopback server that closes cleanly or resets at the cut.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

import pytest

import sse_core
from sse_core import (
    AsyncChatClient,
    ChatClient,
    IncompleteStreamError,
    StreamDecoder,
    StreamError,
    StreamProtocolError,
)
from tests.core import core_frames as chat
from tests.core.anthropic import messages_wire as anthropic
from tests.core.gemini import gemini_wire as gemini
from tests.core.responses import responses_wire as responses
from tests.raw_server import response, serving

#: Each protocol's answer, its text, and where its last JSON event's data starts.
CHAT = chat.sse(chat.delta(content="Hello"), chat.delta(content=" there"),
                chat.delta(finish="stop"), done=False)  # fmt: skip
ANTHROPIC = anthropic.body(
    anthropic.start(),
    anthropic.block(0),
    anthropic.text(0, "Hello"),
    anthropic.text(0, " there"),
    anthropic.stop_block(0),
    anthropic.message_delta(),
    anthropic.STOP,
)
RESPONSES = responses.body(
    responses.created(),
    responses.added(0, responses.message_item()),
    responses.text(0, "Hello"),
    responses.text(0, " there"),
    responses.completed(),
)
GEMINI = gemini.body(
    gemini.chunk(gemini.text("Hello")),
    gemini.chunk(gemini.text(" there")),
    gemini.chunk(finish="STOP"),
)
BODIES = {
    "chat_completions": CHAT,
    "anthropic": ANTHROPIC,
    "responses": RESPONSES,
    "gemini": GEMINI,
}
TEXT = "Hello there"


def last_json(whole: bytes) -> tuple[int, int]:
    """Where the last event's JSON starts and ends (its closing brace included)."""
    start = whole.rindex(b"data: {") + len(b"data: ")
    return start, whole.rindex(b"}") + 1


def cuts(protocol: str) -> list[bytes]:
    """The body cut at every byte inside its last event's JSON."""
    whole = BODIES[protocol]
    start, end = last_json(whole)
    return [whole[:at] for at in range(start + 1, end)]


def verdict(protocol: str, pieces: list[bytes]) -> tuple[str, str]:
    try:
        completion = sse_core.decode(pieces, protocol=protocol)
    except StreamError as error:
        return type(error).__name__, error.partial.content
    return "ok", completion.content


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_a_close_inside_the_last_events_json_is_a_cut_stream(protocol: str) -> None:
    for cut in cuts(protocol):
        assert verdict(protocol, [cut]) == ("IncompleteStreamError", TEXT), cut[-40:]


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_a_cut_body_split_at_every_byte_gives_the_same_verdict(protocol: str) -> None:
    cut = cuts(protocol)[len(cuts(protocol)) // 2]
    for at in range(len(cut) + 1):
        assert verdict(protocol, chat.chop(cut, [at])) == ("IncompleteStreamError", TEXT), at


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_the_message_says_the_stream_was_cut_inside_an_event(protocol: str) -> None:
    with pytest.raises(IncompleteStreamError) as caught:
        sse_core.decode(cuts(protocol)[3], protocol=protocol)
    assert "in the middle of an event" in str(caught.value)
    assert caught.value.partial.content == TEXT


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_stream_decoder_finish_says_the_body_was_cut(protocol: str) -> None:
    decoder = StreamDecoder(protocol=protocol)
    events = decoder.feed(cuts(protocol)[5])
    with pytest.raises(IncompleteStreamError) as caught:
        decoder.finish()
    texts = [e.text for e in [*events, *caught.value.events] if isinstance(e, sse_core.TextDelta)]
    assert "".join(texts) == TEXT


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_a_whole_last_frame_without_its_blank_line_is_still_decoded(protocol: str) -> None:
    whole = BODIES[protocol]
    _, end = last_json(whole)
    for tail in (b"", b"\n", b"\r\n"):
        assert verdict(protocol, [whole[:end] + tail]) == ("ok", TEXT)


def test_an_ended_frame_of_invalid_json_is_still_a_protocol_error() -> None:
    for protocol, whole in BODIES.items():
        _, end = last_json(whole)
        broken = whole[: end - 1] + b"\n\n"  # its blank line came: the frame is whole, and bad
        assert verdict(protocol, [broken])[0] == "StreamProtocolError", protocol
    with pytest.raises(StreamProtocolError):
        sse_core.decode(CHAT[: last_json(CHAT)[1] - 1] + b"\n\n" + b'data: {"x": 1}\n\n')


# --- over HTTP: a clean close and a reset at the same byte ---

_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


def _reset_after(data: bytes) -> Callable[[socket.socket], None]:
    def write(conn: socket.socket) -> None:
        conn.sendall(_HEAD + b"%x\r\n%s\r\n" % (len(data), data))
        time.sleep(0.2)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()  # RST, not FIN

    return write


def _failure(protocol: str, reply: object, sync: bool) -> StreamError:
    payload: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    if protocol == "responses":
        payload = {"model": "m", "input": "hi"}
    elif protocol == "anthropic":
        payload["max_tokens"] = 16
    with serving(lambda n, request: reply) as server:  # type: ignore[arg-type,return-value]
        settings = {"base_url": server.url, "api_key": "sk-test", "protocol": protocol,
                    "max_retries": 0, "timeout": 10}  # fmt: skip
        try:
            if sync:
                with ChatClient(**settings) as client:  # type: ignore[arg-type]
                    client.complete(payload)
            else:

                async def run() -> None:
                    async with AsyncChatClient(**settings) as client:  # type: ignore[arg-type]
                        await client.complete(payload)

                asyncio.run(asyncio.wait_for(run(), 30))
        except StreamError as error:
            return error
    raise AssertionError("no error")


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_a_clean_close_and_a_reset_inside_an_event_are_the_same_cut(
    protocol: str, sync: bool
) -> None:
    cut = cuts(protocol)[7]
    closed = _failure(protocol, response(cut), sync)
    reset = _failure(protocol, _reset_after(cut), sync)
    assert type(closed) is type(reset) is IncompleteStreamError, (closed, reset)
    assert closed.partial.content == reset.partial.content == TEXT


def test_a_last_frame_of_data_that_is_no_json_is_still_a_protocol_error() -> None:
    """Not a JSON value cut short: the payload decoder's verdict, as in any frame."""
    for tail in (b"data: hello", b'data: {"a"::', b'data: {"a": 1}}'):
        assert verdict("chat_completions", [CHAT + tail])[0] == "StreamProtocolError", tail


def test_a_cut_done_marker_is_a_cut_stream() -> None:
    for tail in (b"data: [", b"data: [DON"):
        assert verdict("chat_completions", [CHAT + tail]) == ("IncompleteStreamError", TEXT)
    assert verdict("chat_completions", [CHAT + b"data: [DONE]"]) == ("ok", TEXT)
