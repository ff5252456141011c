"""One verdict for one body: ``decode()`` of the whole body, the README's incremental loop
(``StreamDecoder`` + ``Accumulator``) and ``StreamSession`` fed the body split anywhere, and
the transport clients reading it over loopback HTTP all end the same way: the same
Completion, or the same error class. The rules that decide it (no SSE event at all, an error
frame that ends the stream) live in the decoder, so no driver can decide otherwise.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
import random
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sse_core import (
    AsyncChatClient,
    ChatClient,
    Completion,
    ErrorFrame,
    GatewayStreamError,
    RetryPolicy,
    StreamDecoder,
    StreamError,
    StreamProtocolError,
    TextDelta,
    decode,
)
from sse_core.pipeline import Accumulator, StreamSession
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES
from sse_emulator.pytest_plugin import ReplayFactory
from tests.core.core_frames import delta, sse

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"
Verdict = tuple[str, Completion | None]

NO_EVENT = [
    b"Hello, this is a plain text page.\n",
    b"<!DOCTYPE html><html><body>Bad gateway</body></html>",
    b'{"choices":[{"message":{"content":"hi"}}]}',
    b"\xef\xbb\xbfnot an event stream at all, only words and more words\n\nand more\n",
    b"garbage line\n\n: a comment after it\n\n",
]
#: An error frame, then a frame that breaks the protocol (invalid JSON).
ERROR_THEN_BAD = (
    sse(delta(content="a"), {"error": {"message": "upstream timeout"}}, done=False)
    + b"data: {not json\n\n"
)


def _load_fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sse_fuzz_drivers", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


FUZZ = _load_fuzz()
CORPUS = FUZZ.load_corpus()


def chop(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    return [body[a:b] for a, b in itertools.pairwise([0, *points, len(body)])]


def whole(body: bytes, bound: int = DEFAULT_MAX_EVENT_BYTES) -> Verdict:
    """``decode()`` of the whole body."""
    try:
        return "ok", decode(body, max_event_bytes=bound)
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def readme_loop(pieces: Sequence[bytes], bound: int = DEFAULT_MAX_EVENT_BYTES) -> Verdict:
    """The README's "Incrementally" snippet, as printed there."""
    decoder, acc = StreamDecoder(max_event_bytes=bound), Accumulator()
    try:
        for piece in pieces:
            for event in decoder.feed(piece):
                acc.add(event)
            if decoder.done:
                break
        acc.extend(decoder.finish())
        return "ok", acc.finish()
    except StreamError as exc:
        return type(exc).__name__, None


def session_loop(pieces: Sequence[bytes], bound: int = DEFAULT_MAX_EVENT_BYTES) -> Verdict:
    """A transport loop's use of StreamSession, for an event-stream response."""
    session = StreamSession(max_event_bytes=bound)
    session.begin({"content-type": "text/event-stream"})
    try:
        for piece in pieces:
            session.step(piece)
            if session.stopped:
                break
        session.end()
        return "ok", session.completion()
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def assert_one_verdict(body: bytes, pieces: Sequence[bytes], bound: int) -> None:
    want = whole(body, bound)
    loop = readme_loop(pieces, bound)
    sizes = [len(p) for p in pieces]
    assert loop[0] == want[0], f"decode: {want[0]}, README loop cut at {sizes}: {loop[0]}"
    if want[0] == "ok":
        assert loop[1] == want[1]
    assert session_loop(pieces, bound) == want, f"cut at {sizes}"


# --- the property, over the fuzzer's shapes -----------------------------------------------------


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    cuts=st.lists(st.integers(0, 200_000), max_size=12),
    bound=st.sampled_from(FUZZ.BOUNDS),
)
def test_mutated_captures_get_one_verdict_whole_or_split(
    seed: int, cuts: list[int], bound: int
) -> None:
    _, body = FUZZ.mutate(random.Random(seed), CORPUS)
    assert_one_verdict(body, chop(body, [c % (len(body) + 1) for c in cuts]), bound)


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=300), cuts=st.lists(st.integers(0, 300), max_size=8))
def test_any_bytes_get_one_verdict_whole_or_split(body: bytes, cuts: list[int]) -> None:
    assert_one_verdict(body, chop(body, cuts), DEFAULT_MAX_EVENT_BYTES)


# --- the two rules, byte level ------------------------------------------------------------------


@pytest.mark.parametrize("body", NO_EVENT)
def test_a_body_with_no_sse_event_is_a_protocol_error_for_every_driver_and_split(
    body: bytes,
) -> None:
    assert whole(body)[0] == "StreamProtocolError"
    for cut in range(len(body) + 1):
        pieces = chop(body, [cut])
        assert readme_loop(pieces)[0] == "StreamProtocolError", f"split at {cut}"
        assert session_loop(pieces)[0] == "StreamProtocolError", f"split at {cut}"
    assert readme_loop([body[i : i + 1] for i in range(len(body))])[0] == "StreamProtocolError"


def test_the_decoder_itself_refuses_a_body_with_no_event_and_says_what_came() -> None:
    decoder = StreamDecoder()
    assert decoder.feed(b"<html><body>Bad ") == []
    assert decoder.feed(b"gateway</body></html>") == []
    with pytest.raises(StreamProtocolError, match="no SSE event") as info:
        decoder.finish()
    assert "<html><body>Bad gateway" in str(info.value)
    assert "retry the request" not in str(info.value)


@pytest.mark.parametrize("body", [b"", b"\n\n", b": ping\n\n", b"event: x\n\n", b"data: {}\n\n"])
def test_an_sse_shaped_body_without_events_is_incomplete_for_every_driver(body: bytes) -> None:
    for pieces in ([body], [body[i : i + 1] for i in range(len(body))]):
        assert readme_loop(pieces)[0] == "IncompleteStreamError"
        assert session_loop(pieces)[0] == "IncompleteStreamError"
    assert whole(body)[0] == "IncompleteStreamError"


def test_an_error_frame_ends_the_stream_in_the_decoder() -> None:
    decoder = StreamDecoder()
    events = decoder.feed(ERROR_THEN_BAD)  # the bad frame after it is never decoded
    assert decoder.done
    assert events[-1] == ErrorFrame(
        message="upstream timeout", data={"error": {"message": "upstream timeout"}}
    )
    assert TextDelta(text="a") in events
    assert decoder.feed(b"data: {more garbage\n\n") == [] and decoder.finish() == []


@pytest.mark.parametrize("named", [False, True])
def test_an_error_frame_then_a_bad_frame_is_the_gateway_error_however_split(named: bool) -> None:
    body = ERROR_THEN_BAD
    if named:
        body = sse(delta(content="a"), done=False) + b"event: error\ndata: {}\n\ndata: {x\n\n"
    assert whole(body)[0] == "GatewayStreamError"
    for cut in range(len(body) + 1):
        pieces = chop(body, [cut])
        assert readme_loop(pieces)[0] == "GatewayStreamError", f"split at {cut}"
        assert session_loop(pieces)[0] == "GatewayStreamError", f"split at {cut}"
    with pytest.raises(GatewayStreamError) as info:
        decode(body)
    assert info.value.partial.content == "a"


# --- the transport clients over loopback HTTP ---------------------------------------------------


def _recording(where: Path, body: bytes, sizes: Sequence[int]) -> Path:
    """A recording that serves ``body`` in reads of ``sizes`` bytes, twice (sync, async)."""
    where.mkdir()
    meta = {
        "format": "sse-connectors/recording@1",
        "status": 200,
        "headers": [["content-type", "text/event-stream"]],
        "head_time": 0.0,
        "reads": [[0.0, size] for size in sizes],
    }
    for name in ("001", "002"):
        (where / f"{name}.sse").write_bytes(body)
        (where / f"{name}.json").write_text(json.dumps(meta))
    return where


PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
NO_RETRY = RetryPolicy(max_retries=0)


def _sync(url: str) -> str:
    with ChatClient(base_url=url, retry=NO_RETRY) as client:
        try:
            with client.stream(PAYLOAD) as stream:
                for _ in stream:
                    pass
        except StreamError as exc:
            return type(exc).__name__
    return "ok"


async def _async(url: str) -> str:
    async with AsyncChatClient(base_url=url, retry=NO_RETRY) as client:
        try:
            async with client.stream(PAYLOAD) as stream:
                async for _ in stream:
                    pass
        except StreamError as exc:
            return type(exc).__name__
    return "ok"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "body", [NO_EVENT[0], NO_EVENT[4], ERROR_THEN_BAD], ids=["text", "garbage", "error"]
)
def test_the_clients_reach_decodes_verdict_whatever_the_reads(
    body: bytes, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    want = whole(body)[0]
    for index, sizes in enumerate([[len(body)], [1] * len(body), [3, len(body) - 3]]):
        where = _recording(tmp_path / str(index), body, sizes)
        url = emulator_replay(where).base_url()
        assert _sync(url) == want, sizes
        assert asyncio.run(_async(url)) == want, sizes
