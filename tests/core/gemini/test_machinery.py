"""The Gemini decoder inside the core's own machinery: ``decode()``, the README's
StreamDecoder + Accumulator loop and a StreamSession give what the parser-and-decoder driver of
the other tests gives; a cut stream is an IncompleteStreamError naming what Gemini's streams
end with (:data:`~sse_core.protocols.gemini.ENDS`); a JSON body is a whole answer.

The package registers no protocol yet, so this module adds one to the registry for its own
tests only (under a name of its own) and takes it out after them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sse_core import (
    GatewayStreamError,
    IncompleteStreamError,
    StreamDecoder,
    StreamError,
    StreamProtocolError,
    decode,
)
from sse_core.pipeline import Accumulator, StreamSession
from sse_core.protocols.gemini import API, ENDS, GenerateContentDecoder
from sse_core.protocols.registry import REGISTRY, WireProtocol
from tests.core.gemini.gemini_wire import (
    Outcome,
    body,
    capture,
    chop,
    chunk,
    encoded,
    outcome,
    text,
    usage,
)
from tests.core.gemini.test_splits import ALL

NAME = "gemini-decoder-under-test"


@pytest.fixture(autouse=True, scope="module")
def _registered() -> Iterator[None]:
    protocol = WireProtocol(name=NAME, decoder=GenerateContentDecoder, api=API, ends=ENDS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(REGISTRY, NAME, protocol)
        yield


def core(pieces: Iterable[bytes]) -> Outcome:
    try:
        return "ok", decode(pieces, protocol=NAME)
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def readme_loop(pieces: Iterable[bytes]) -> Outcome:
    decoder, answer = StreamDecoder(protocol=NAME), Accumulator()
    try:
        for piece in pieces:
            answer.extend(decoder.feed(piece))
            if decoder.done:
                break
        answer.extend(decoder.finish())
        return "ok", answer.finish()
    except StreamError as exc:
        if not exc.has_partial:
            with contextlib.suppress(StreamError):
                answer.extend(exc.events)
            return type(exc).__name__, answer.completion()
        return type(exc).__name__, exc.partial


def session_loop(pieces: Iterable[bytes], kind: str = "text/event-stream") -> Outcome:
    session = StreamSession(protocol=NAME)
    session.begin({"content-type": kind})
    try:
        for piece in pieces:
            session.step(piece)
            if session.stopped:
                break
        session.end()
        return "ok", session.completion()
    except StreamError as exc:
        return type(exc).__name__, exc.partial


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_core_decodes_every_body_as_the_plain_driver_does(name: str) -> None:
    data = ALL[name]
    expected = outcome([data])
    assert core([data]) == expected
    assert session_loop([data]) == expected
    assert readme_loop(data[i : i + 1] for i in range(len(data))) == expected


@pytest.mark.parametrize("name", sorted(ALL))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_random_splits_through_every_driver(name: str, data: st.DataObject) -> None:
    whole = ALL[name]
    pieces = chop(whole, data.draw(st.lists(st.integers(0, len(whole)), max_size=20)))
    expected = core([whole])
    assert core(pieces) == expected
    assert session_loop(pieces) == expected
    assert readme_loop(pieces) == expected


def test_a_stream_without_a_finish_reason_is_cut_and_says_so() -> None:
    data = body(chunk(text("Hello"), counts=usage()), chunk(text(", wor")))
    with pytest.raises(IncompleteStreamError) as caught:
        decode(data, protocol=NAME)
    assert ENDS in str(caught.value) and "10 characters" in str(caught.value)
    assert caught.value.partial.content == "Hello, wor"
    assert caught.value.partial.usage is not None


def test_a_body_cut_inside_its_last_frame_is_cut() -> None:
    data = body(chunk(text("Hello")), chunk(text(" there"), finish="STOP"))
    with pytest.raises(IncompleteStreamError) as caught:
        decode(data[:-25], protocol=NAME)
    assert caught.value.partial.content == "Hello"


def test_a_finished_stream_is_complete_and_done() -> None:
    result = decode(body(chunk(text("Hi"), finish="STOP")), protocol=NAME)
    assert (result.content, result.finish_reason, result.done) == ("Hi", "stop", True)


def test_an_error_frame_is_a_gateway_stream_error_with_googles_status() -> None:
    failure = {"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}
    with pytest.raises(GatewayStreamError) as caught:
        decode(body(chunk(text("part")), failure), protocol=NAME)
    assert (caught.value.type, caught.value.code) == ("RESOURCE_EXHAUSTED", 429)
    assert "Quota exceeded" in str(caught.value)
    assert caught.value.partial.content == "part"


def test_a_json_body_is_a_whole_answer() -> None:
    whole = encoded(chunk(text("Whole"), finish="STOP", counts=usage()))
    verdict, result = session_loop([whole], "application/json; charset=UTF-8")
    assert verdict == "ok" and result is not None
    assert (result.content, result.finish_reason, result.done) == ("Whole", "stop", True)
    array = encoded([chunk(text("a")), chunk(text("b"), finish="STOP")])
    _, from_array = session_loop([array], "application/json")
    assert from_array is not None and from_array.content == "ab"


def test_googles_error_body_is_a_gateway_stream_error() -> None:
    data = capture("vercel-ai__gemini-429-resource-exhausted.json")
    verdict, _ = session_loop([data], "application/json")
    assert verdict == GatewayStreamError.__name__


def test_a_body_with_no_event_that_is_no_stream_is_refused() -> None:
    with pytest.raises(StreamProtocolError):
        decode(b"<html>Service Unavailable</html>", protocol=NAME)
