"""``StreamSession`` and ``decode`` (``pipeline/session.py``): the per-response rules every
loop follows: body by content type, stop on ``[DONE]`` or an error frame, the partial answer
on every error, the deadline, and secrets masked in whatever it raises."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import pytest

import sse_core.pipeline
from sse_core import (
    Completion,
    ErrorFrame,
    GatewayStreamError,
    IncompleteStreamError,
    ReasoningDelta,
    StreamProtocolError,
    StreamTimeoutError,
    TextDelta,
    UnexpectedResponseError,
    decode,
)
from sse_core.pipeline import StreamSession
from tests.core.core_frames import delta, sse

SECRET = "sk-session-canary-9f8e7d"
SSE = {"content-type": "text/event-stream"}
TEXT = sse(delta(content="Hel"), delta(content="lo", finish="stop"))
WHOLE = (
    b'{"id":"c","object":"chat.completion","choices":[{"index":0,'
    b'"message":{"content":"whole"},"finish_reason":"stop"}]}'
)


def run(session: StreamSession, *pieces: bytes) -> list[object]:
    """Feed ``pieces`` as a loop does; the events handed on."""
    events: list[object] = []
    for piece in pieces:
        events += session.step(piece)
        if session.stopped:
            break
    events += session.end()
    return events


# --- moved from the decoder suite ---------------------------------------------------------------


@pytest.mark.parametrize("frame", [b"data: {oops\n\n", b"data: [1, 2]\n\n", b'data: "str"\n\n'])
def test_invalid_json_or_non_object_is_a_protocol_error_with_partial(frame: bytes) -> None:
    with pytest.raises(StreamProtocolError, match="expected a JSON object") as info:
        decode(sse(delta(content="ok"), done=False) + frame)
    assert info.value.partial.content == "ok"


def test_decode_accepts_an_iterable_of_pieces() -> None:
    body = sse(delta(content="héllo"), delta(finish="stop"))
    assert decode(body[i : i + 3] for i in range(0, len(body), 3)).content == "héllo"


def test_decode_rejects_non_bytes_pieces() -> None:
    with pytest.raises(TypeError, match="expected bytes"):
        decode(["data: x\n\n"])  # type: ignore[list-item]


# --- step, end, completion ----------------------------------------------------------------------


def test_step_end_completion_on_a_good_stream() -> None:
    session = StreamSession()
    session.begin(SSE)
    events = run(session, TEXT[:10], TEXT[10:])
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]
    assert session.stopped  # [DONE] arrived
    result = session.completion()
    assert (result.content, result.done, result.headers) == ("Hello", True, SSE)
    assert session.partial().content == "Hello"


def test_the_answer_holds_each_read_before_its_events_are_handed_on() -> None:
    session = StreamSession()
    session.begin(SSE)
    session.step(sse(delta(content="a"), done=False))
    assert session.answer.completion().content == "a"


def test_an_error_frame_stops_the_loop_and_completion_raises_it() -> None:
    session = StreamSession()
    session.begin(SSE)
    body = sse(delta(content="before"), {"error": {"message": "boom"}}, delta(content="after"))
    events = session.step(body)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["before"]
    assert session.stopped and session.end() == []
    with pytest.raises(GatewayStreamError, match="boom") as info:
        session.completion()
    assert info.value.partial.content == "before"


def test_a_cut_stream_is_incomplete_at_completion() -> None:
    session = StreamSession()
    session.begin(SSE)
    run(session, sse(delta(content="cut"), done=False))
    with pytest.raises(IncompleteStreamError) as info:
        session.completion()
    assert info.value.partial.content == "cut"


def test_a_protocol_error_carries_the_partial_including_its_own_read() -> None:
    session = StreamSession()
    session.begin(SSE)
    session.step(sse(delta(content="a"), done=False))
    with pytest.raises(StreamProtocolError) as info:
        session.step(sse(delta(content="b"), done=False) + b"data: {bad\n\n")
    assert info.value.partial.content == "ab"


def test_an_error_frame_before_a_protocol_error_in_the_same_read_wins() -> None:
    session = StreamSession()
    session.begin(SSE)
    body = sse(delta(content="a"), {"error": {"message": "first"}}, done=False) + b"data: {x\n\n"
    session.step(body)  # the decoder stops at the error frame: the bad frame is never read
    assert session.stopped
    with pytest.raises(GatewayStreamError, match="first") as info:
        session.completion()
    assert info.value.partial.content == "a"


# --- bodies by content type ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["", "text/plain", "text/event-stream; charset=utf-8"])
def test_event_streams_and_careless_text_types_are_decoded(kind: str) -> None:
    session = StreamSession()
    session.begin({"content-type": kind} if kind else {})
    run(session, TEXT)
    assert session.completion().content == "Hello"


@pytest.mark.parametrize("kind", ["application/json", "application/json; charset=utf-8"])
def test_a_json_body_is_one_whole_completion(kind: str) -> None:
    session = StreamSession()
    session.begin({"content-type": kind})
    assert session.step(WHOLE[:20]) == [] and session.step(WHOLE[20:]) == []
    events = session.end()
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["whole"]
    result = session.completion()
    assert (result.content, result.finish_reason, result.done) == ("whole", "stop", True)


@pytest.mark.parametrize(
    ("kind", "body"), [("text/event-stream", TEXT), ("application/json", WHOLE)]
)
def test_a_finished_session_is_freed_without_the_cycle_collector(kind: str, body: bytes) -> None:
    """The body's reader, chosen once by ``begin``, is kept without a reference cycle: a
    finished session (its whole answer) is freed when its last reference goes."""
    gc.collect()
    gc.disable()
    try:
        session = StreamSession()
        session.begin({"content-type": kind})
        run(session, body)
        assert session.completion().content in ("Hello", "whole")
        del session
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_json_body_that_is_not_a_completion_object_is_a_protocol_error() -> None:
    session = StreamSession()
    session.begin({"content-type": "application/json"})
    session.step(b"[1, 2]")
    with pytest.raises(StreamProtocolError, match="expected a JSON object"):
        session.end()


@pytest.mark.parametrize("body", [b"{}", b'{"foo": 1}', b'{"choices": []}', b'{"usage": {}}'])
def test_a_json_object_that_is_no_completion_is_not_an_empty_answer(body: bytes) -> None:
    session = StreamSession()
    session.begin({"content-type": "application/json"})
    session.step(body)
    with pytest.raises(StreamProtocolError, match=r"expected a chat completion .* response body"):
        session.end()


def test_a_json_error_object_is_the_gateways_error() -> None:
    session = StreamSession()
    session.begin({"content-type": "application/json"})
    session.step(b'{"error": {"message": "model overloaded", "code": "busy"}}')
    session.end()
    with pytest.raises(GatewayStreamError, match="model overloaded"):
        session.completion()


def test_the_total_deadline_holds_while_a_json_body_arrives() -> None:
    session = StreamSession(deadline=100.05)
    session.begin({"content-type": "application/json"}, now=100.0)
    session.step(WHOLE[:10], 100.01)
    with pytest.raises(StreamTimeoutError, match="total timeout"):
        session.step(WHOLE[10:20], 100.1)


def test_a_json_body_over_the_bound_is_refused_while_it_arrives() -> None:
    session = StreamSession(max_event_bytes=32)
    session.begin({"content-type": "application/json"})
    session.step(b"{" + b" " * 20)
    with pytest.raises(StreamProtocolError, match="exceeded 32 bytes"):
        session.step(b" " * 20)


@pytest.mark.parametrize(
    "kind",
    [
        "text/html; charset=utf-8",
        "application/xhtml+xml",
        "application/xml",
        "image/png",
        "application/pdf",
        "application/zip",
        "video/mp4",
    ],
)
def test_a_page_or_binary_is_an_unexpected_response(kind: str) -> None:
    page = b"<!doctype html><html><head><title>Sign in</title></head><body>" + b"x" * 200
    session = StreamSession(source="http://gw.test/v1/chat/completions")
    session.begin({"content-type": kind}, status=203)
    with pytest.raises(UnexpectedResponseError) as info:
        run(session, page[:50], page[50:])
    error = info.value
    base = kind.split(";", maxsplit=1)[0]
    assert base in str(error) and "<!doctype html>" in str(error)
    assert "http://gw.test/v1/chat/completions" in str(error) and "base_url" in str(error)
    assert error.status_code == 203 and not error.is_retryable
    assert error.error_message.startswith(f"a {base} body starting with")


def test_a_short_page_is_refused_at_the_end_of_its_body() -> None:
    session = StreamSession()
    session.begin({"content-type": "text/html"})
    assert session.step(b"<p>hi</p>") == []
    with pytest.raises(UnexpectedResponseError, match="<p>hi</p>"):
        session.end()


def test_an_empty_page_says_it_was_empty() -> None:
    session = StreamSession()
    session.begin({"content-type": "text/html"})
    with pytest.raises(UnexpectedResponseError, match="an empty text/html body"):
        session.end()


@pytest.mark.parametrize(
    "body", [b"Hello, this is a plain text page.\n", b"# README\n\nsse-connectors...\n", b"{}"]
)
def test_a_body_with_no_sse_event_at_all_is_a_protocol_error(body: bytes) -> None:
    session = StreamSession(source="the body")
    session.begin({"content-type": "text/plain"})
    with pytest.raises(StreamProtocolError, match="got a body with no SSE event") as info:
        run(session, body)  # the decoder's verdict, when the body ends
    assert repr(body[:10].decode())[1:-1] in str(info.value)
    assert "retry the request" not in str(info.value)


@pytest.mark.parametrize("body", [b"", b"\n\n", b": keepalive only\n\n", b"event: x\n\n"])
def test_an_sse_shaped_body_without_events_is_incomplete_not_that_error(body: bytes) -> None:
    session = StreamSession()
    session.begin(SSE)
    run(session, body)
    with pytest.raises(IncompleteStreamError):
        session.completion()


def test_a_body_of_only_done_is_a_complete_empty_answer() -> None:
    session = StreamSession()
    session.begin(SSE)
    run(session, b"data: [DONE]\n\n")
    assert session.completion().done and session.completion().content == ""


# --- time ---------------------------------------------------------------------------------------


def test_read_timeout_is_the_idle_bound_within_the_deadline() -> None:
    assert StreamSession().read_timeout(7.0) is None
    assert StreamSession(idle=5).read_timeout(7.0) == 5
    assert StreamSession(idle=5, deadline=8.0).read_timeout(7.0) == 1.0
    assert StreamSession(idle=5, deadline=20.0).read_timeout(7.0) == 5
    late = StreamSession(deadline=7.0 - 10).read_timeout(7.0)
    assert late == 0.001  # never zero or negative: httpx reads that as "no wait at all"


def test_a_body_past_the_deadline_is_a_timeout_with_the_partial() -> None:
    session = StreamSession(deadline=50.05, source="http://gw.test/v1")
    session.begin(SSE, now=50.0)
    session.step(sse(delta(content="a"), done=False), 50.01)
    with pytest.raises(StreamTimeoutError, match=r"http://gw\.test/v1 ran past") as info:
        session.step(sse(delta(content="b"), done=False), 50.06)
    assert info.value.partial.content == "ab"


def test_keepalive_lines_do_not_count_as_data_for_data_idle() -> None:
    session = StreamSession(data_idle=0.05, source="http://gw.test/v1")
    session.begin(SSE, now=3.0)
    session.step(sse(delta(content="a"), done=False), 3.01)
    assert session.step(b": ping\n\n", 3.04) == []
    with pytest.raises(StreamTimeoutError, match="only keep-alive lines") as info:
        session.step(b": ping\n\n", 3.07)
    assert info.value.partial.content == "a"


def test_data_arriving_in_time_keeps_data_idle_quiet() -> None:
    session = StreamSession(data_idle=0.2)
    session.begin(SSE, now=0.0)
    assert session.timed
    now = 0.0
    for piece in ["a", "b", "c"]:
        now += 0.15  # each data event within data_idle of the last, 0.45 s in all
        session.step(sse(delta(content=piece), done=False), now)
        session.step(b": ping\n\n", now + 0.1)
    session.step(sse(delta(finish="stop")), now + 0.15)
    session.end()
    assert session.completion().content == "abc"


# --- fail -----------------------------------------------------------------------------------------


def test_fail_attaches_the_partial_with_the_events_decoded_alongside() -> None:
    session = StreamSession()
    session.begin(SSE)
    session.step(sse(delta(content="a"), done=False))
    error = StreamProtocolError("bad bytes")
    error.events = (TextDelta(text="b"), ReasoningDelta(text="r"))
    assert session.fail(error) is error
    assert (error.partial.content, error.partial.reasoning) == ("ab", "r")


def test_fail_lets_an_error_frame_among_those_events_win() -> None:
    session = StreamSession(secrets=[SECRET])
    session.begin(SSE)
    error = StreamProtocolError("bad bytes")
    error.events = (TextDelta(text="x"), ErrorFrame(message=f"upstream {SECRET}"))
    won = session.fail(error)
    assert isinstance(won, GatewayStreamError) and won.partial.content == "x"
    assert SECRET not in str(won)


def test_fail_keeps_a_partial_already_attached() -> None:
    session = StreamSession()
    session.step(sse(delta(content="later"), done=False))
    given = Completion(done=True)
    error = IncompleteStreamError("cut", partial=given)
    assert session.fail(error).partial is given


# --- secrets --------------------------------------------------------------------------------------


def _texts(error: BaseException) -> str:
    parts = [str(error), repr(error), repr(error.args)]
    for name in ("error_message", "data", "type", "code"):
        parts.append(repr(getattr(error, name, None)))
    return " ".join(parts)


def test_an_error_frame_echoing_a_secret_is_masked() -> None:
    session = StreamSession(secrets=[SECRET])
    session.begin(SSE)
    frame = {"error": {"message": f"bad key {SECRET}", "type": SECRET, "code": SECRET}}
    session.step(sse(delta(content="x"), frame))
    with pytest.raises(GatewayStreamError) as info:
        session.completion()
    assert SECRET not in _texts(info.value) and "***" in str(info.value)


def test_a_protocol_error_quoting_a_secret_is_masked() -> None:
    session = StreamSession(secrets=[SECRET])
    session.begin(SSE)
    with pytest.raises(StreamProtocolError) as info:
        session.step(f"data: {{not json {SECRET}\n\n".encode())
    assert SECRET not in _texts(info.value)


def test_an_unexpected_page_quoting_a_secret_is_masked() -> None:
    session = StreamSession(secrets=[SECRET])
    session.begin({"content-type": "text/html"})
    session.step(f"<html>your key {SECRET} is wrong</html>".encode())
    with pytest.raises(UnexpectedResponseError) as info:
        session.end()
    assert SECRET not in _texts(info.value)


def test_no_sse_body_quoting_a_secret_is_masked() -> None:
    session = StreamSession(secrets=[SECRET])
    session.begin({})
    with pytest.raises(StreamProtocolError) as info:
        run(session, f"denied for {SECRET}\n".encode())
    assert SECRET not in _texts(info.value)


def test_the_session_decides_by_the_times_it_is_given() -> None:
    """The times come from the caller (the data_idle gap counts from the head's time), so a
    test or a replay can run the rules on any clock."""
    session = StreamSession(data_idle=1.0, deadline=100.0)
    session.begin(SSE, now=10.0)
    assert session.read_timeout(10.0) == 90.0
    session.step(b": ping\n\n", 10.5)
    with pytest.raises(StreamTimeoutError, match="no data"):
        session.step(b": ping\n\n", 11.5)


def test_the_pipeline_reads_no_clock() -> None:
    """No module of the sans-IO pipeline imports a clock: time is an argument."""
    for module in Path(sse_core.pipeline.__file__).parent.glob("*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not {"time", "datetime"} & {n.split(".")[0] for n in names}, module.name


def test_without_a_time_the_clock_rules_are_not_checked() -> None:
    """``now`` omitted (a caller with no deadline, as decode() and the CLI's decode are): no
    timing verdict, whatever the session was given."""
    session = StreamSession(deadline=0.0)
    session.begin(SSE)
    run(session, sse(delta(content="a"), delta(finish="stop")))
    assert session.completion().content == "a"
    assert not StreamSession().timed
