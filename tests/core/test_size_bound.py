"""Split invariance at the size bound: bodies that hold lines and events of about
``max_event_bytes`` (M) bytes decode to the same result however they are cut into reads.

For M = 256 every body is decoded whole, cut in two at every point, byte by byte, and at
random cuts (hypothesis). For the default M (16 MiB) the bodies are generated at that size
and cut in two at every point near where something happens (each line end, and each place
where a line or an event reaches M bytes), since cutting 16 MiB at all 16 million points is
out of reach. The result must always be the same Completion, or the same error class with
the same ``.partial``; each body's expected result is also asserted outright (events before
a protocol error in the same read are kept in ``.partial``; an error frame among them wins).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES
from tests.core.core_frames import chop, outcome

SMALL = 256
_CONTENT = b'data: {"choices":[{"delta":{"content":"'
_FINISHED = b'"},"finish_reason":"stop"}]}'
FINISH = b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
ERROR = b'data: {"error":{"message":"upstream failed","type":"server_error"}}\n\n'


def text(value: str) -> bytes:
    """A frame carrying ``value`` as content."""
    return b"data: " + json.dumps({"choices": [{"delta": {"content": value}}]}).encode() + b"\n\n"


def data_line(size: int) -> bytes:
    """A ``data:`` line of exactly ``size`` bytes (no line ending): a finished chunk of x's."""
    fill = size - len(_CONTENT) - len(_FINISHED)
    assert fill >= 0
    return _CONTENT + b"x" * fill + _FINISHED


def fill_of(size: int) -> str:
    return "x" * (size - len(_CONTENT) - len(_FINISHED))


def comment(size: int) -> bytes:
    """A comment line of exactly ``size`` bytes (no line ending)."""
    return b":" + b"c" * (size - 1)


_HEAD, _TAIL = b'{"choices":', b"}"
_MIDDLE = b'[{"delta":{"content":""}}]'


def y_fill(data_size: int) -> int:
    """How many y's the event of :func:`multiline_event` carries."""
    return data_size - len(_HEAD) - len(_TAIL) - 2 - len(_MIDDLE)


def multiline_event(data_size: int) -> bytes:
    """One event of three short ``data:`` lines whose joined data is ``data_size`` bytes."""
    middle = b'[{"delta":{"content":"' + b"y" * y_fill(data_size) + b'"}}]'
    return b"data: " + _HEAD + b"\ndata: " + middle + b"\ndata: " + _TAIL + b"\n\n"


@dataclass(frozen=True)
class Case:
    """A body and what it must decode to: the outcome class and the (partial) content."""

    name: str
    body: bytes
    expected: str
    content: str


def cases(m: int) -> Iterator[Case]:
    """The bodies near the bound ``m``."""
    yield Case(
        "comment over M",
        text("a") + comment(m + 1) + b"\n" + text("b") + FINISH,
        "StreamProtocolError",
        "a",
    )
    yield Case("comment of M", text("a") + comment(m) + b"\n" + text("b") + FINISH, "ok", "ab")
    yield Case(
        "data line of M-3 cut before its LF",
        text("a") + data_line(m - 3),
        "ok",
        "a" + fill_of(m - 3),
    )
    yield Case(
        "[DONE] then an oversized event",
        text("a") + b"data: [DONE]\n\n" + data_line(m + 10) + b"\n\n",
        "ok",
        "a",
    )
    yield Case(
        "text in the same read as an oversized event",
        text("hello") + data_line(m + 5) + b"\n\n" + FINISH,
        "StreamProtocolError",
        "hello",
    )
    yield Case(
        "an error frame in the same read as an oversized event",
        text("hi") + ERROR + data_line(m + 5) + b"\n\n" + FINISH,
        "GatewayStreamError",
        "hi",
    )
    yield Case(
        "an oversized event then an error frame",
        text("hi") + data_line(m + 5) + b"\n\n" + ERROR,
        "StreamProtocolError",
        "hi",
    )
    yield Case("a line of exactly M", text("a") + data_line(m) + b"\n\n", "ok", "a" + fill_of(m))
    yield Case(
        "a line of M+1", text("a") + data_line(m + 1) + b"\n\n" + FINISH, "StreamProtocolError", "a"
    )
    yield Case(
        "a line of M+1 without its LF at the end",
        text("a") + data_line(m + 1),
        "StreamProtocolError",
        "a",
    )
    for size in range(m - 3, m + 4):
        expected, content = (
            ("ok", "a" + fill_of(size)) if size <= m else ("StreamProtocolError", "a")
        )
        yield Case(
            f"an event line of {size - m:+d} around M",
            text("a") + data_line(size) + b"\n\n" + FINISH,
            expected,
            content,
        )
    for size in range(m - 3, m + 4):
        expected, content = (
            ("ok", "a" + "y" * y_fill(size)) if size <= m else ("StreamProtocolError", "a")
        )
        yield Case(
            f"event data of {size - m:+d} around M in short lines",
            text("a") + multiline_event(size) + FINISH,
            expected,
            content,
        )


SMALL_CASES = {case.name: case for case in cases(SMALL)}  # the names are the same for any M


def check(case: Case, pieces: list[bytes], m: int, whole: object) -> None:
    got = outcome(pieces, max_event_bytes=m)
    assert got == whole, f"{case.name}: cut into {[len(p) for p in pieces]} differs from whole"


def whole_outcome(case: Case, m: int) -> object:
    whole = outcome([case.body], max_event_bytes=m)
    kind, completion = whole
    assert (kind, completion.content) == (case.expected, case.content), case.name
    if kind != "ok":
        assert completion.finish_reason is None  # what came after the failure is not in it
    return whole


# --- M = 256: every cut -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SMALL_CASES))
def test_small_bound_every_two_way_cut(name: str) -> None:
    case = SMALL_CASES[name]
    whole = whole_outcome(case, SMALL)
    for cut in range(1, len(case.body)):
        check(case, [case.body[:cut], case.body[cut:]], SMALL, whole)


@pytest.mark.parametrize("name", sorted(SMALL_CASES))
def test_small_bound_byte_by_byte(name: str) -> None:
    case = SMALL_CASES[name]
    whole = whole_outcome(case, SMALL)
    check(case, [case.body[i : i + 1] for i in range(len(case.body))], SMALL, whole)


@pytest.mark.parametrize("name", sorted(SMALL_CASES))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_small_bound_random_cuts(name: str, data: st.DataObject) -> None:
    case = SMALL_CASES[name]
    cuts = data.draw(st.lists(st.integers(0, len(case.body)), max_size=30))
    check(case, chop(case.body, cuts), SMALL, outcome([case.body], max_event_bytes=SMALL))


def test_events_before_a_bound_error_in_the_same_read_are_kept() -> None:
    body = text("one") + text("two") + comment(SMALL + 1) + b"\n" + FINISH
    kind, partial = outcome([body], max_event_bytes=SMALL)
    assert (kind, partial.content) == ("StreamProtocolError", "onetwo")


def test_the_bound_counts_the_joined_data_not_the_lines() -> None:
    assert outcome([multiline_event(SMALL) + FINISH], max_event_bytes=SMALL)[0] == "ok"
    assert outcome([multiline_event(SMALL + 1) + FINISH], max_event_bytes=SMALL)[0] == (
        "StreamProtocolError"
    )


# --- the default M (16 MiB): every cut near what happens -----------------------------------------


def landmarks(body: bytes, m: int) -> list[int]:
    """Cut points within 2 bytes of each line end and of where a line reaches ``m`` bytes."""
    points = {1, len(body) - 1}
    start = 0
    while start < len(body):
        end = body.find(b"\n", start)
        end = len(body) if end < 0 else end
        points.update({end, start + m, start + m + 1})
        start = end + 1
    return sorted({p + d for p in points for d in (-2, -1, 0, 1, 2) if 0 < p + d < len(body)})


def big_case(name: str) -> Case:
    """The case ``name`` at the default bound, built when asked (each body is 16 MiB)."""
    return next(case for case in cases(DEFAULT_MAX_EVENT_BYTES) if case.name == name)


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(SMALL_CASES))
def test_default_bound_cuts_near_every_landmark(name: str) -> None:
    m = DEFAULT_MAX_EVENT_BYTES
    case = big_case(name)
    whole = whole_outcome(case, m)
    for cut in landmarks(case.body, m):
        check(case, [case.body[:cut], case.body[cut:]], m, whole)


@pytest.mark.slow
@pytest.mark.timeout(120)
@settings(max_examples=10, deadline=None)
@given(name=st.sampled_from(sorted(SMALL_CASES)), data=st.data())
def test_default_bound_random_cuts(name: str, data: st.DataObject) -> None:
    m = DEFAULT_MAX_EVENT_BYTES
    case = big_case(name)
    cuts = data.draw(st.lists(st.integers(0, len(case.body)), min_size=1, max_size=6))
    check(case, chop(case.body, cuts), m, outcome([case.body], max_event_bytes=m))
