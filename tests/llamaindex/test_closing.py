"""The closing layer: close_after()/aclose_after() close the wrapper and every tracked generator;
the llama-index-core behaviour it leans on, checked loudly; and its fallback."""

from __future__ import annotations

import asyncio
import time
import warnings
from collections.abc import AsyncGenerator, Generator

import httpx
import pytest
from llama_index.core.llms import ChatMessage

from llamaindex_sse import SSELLM, model
from llamaindex_sse._closing import UNTRACKED, aclose_after, close_after, collecting, track
from sse_emulator import Emulator
from tests.llamaindex.li_support import (
    API_KEY,
    LLMFactory,
    chunk,
    closed_promptly,
    collect_events,
    frame,
    slow_llm,
    sse_transport,
)

ASK = [ChatMessage(role="user", content="count to 200")]


def numbers(log: list[str], name: str, fail_on_close: bool = False) -> Generator[int, None, None]:
    """0, 1, 2; logs ``name`` when it ends or is closed (started generators only)."""
    try:
        yield from range(3)
    finally:
        log.append(name)
        if fail_on_close:
            raise RuntimeError(f"{name} failed to close")


async def anumbers(
    log: list[str], name: str, fail_on_close: bool = False
) -> AsyncGenerator[int, None]:
    try:
        for n in range(3):
            yield n
    finally:
        log.append(name)
        if fail_on_close:
            raise RuntimeError(f"{name} failed to close")


def test_closing_closes_the_wrapper_then_the_tracked_newest_first() -> None:
    log: list[str] = []
    inner = [numbers(log, "first"), numbers(log, "second")]
    for generator in inner:
        next(generator)
    stream = close_after(numbers(log, "wrapper"), list(inner))
    assert next(stream) == 0
    stream.close()
    assert log == ["wrapper", "second", "first"]


def test_closing_passes_everything_through_and_closes_at_the_end() -> None:
    log: list[str] = []
    inner = numbers(log, "inner")
    next(inner)
    assert list(close_after(numbers(log, "wrapper"), [inner])) == [0, 1, 2]
    assert log == ["wrapper", "inner"]


def test_a_failing_close_still_closes_the_rest_and_raises_the_first() -> None:
    log: list[str] = []
    inner = [numbers(log, "a", fail_on_close=True), numbers(log, "b", fail_on_close=True)]
    for generator in inner:
        next(generator)
    stream = close_after(numbers(log, "wrapper"), inner)
    next(stream)
    with pytest.raises(RuntimeError, match="b failed"):
        stream.close()
    assert log == ["wrapper", "b", "a"]


async def test_aclose_after_closes_the_wrapper_then_the_tracked_newest_first() -> None:
    log: list[str] = []
    inner = [anumbers(log, "first"), anumbers(log, "second")]
    for generator in inner:
        await anext(generator)
    stream = aclose_after(anumbers(log, "wrapper"), list(inner))
    assert await anext(stream) == 0
    await stream.aclose()
    assert log == ["wrapper", "second", "first"]


async def test_a_failing_aclose_still_closes_the_rest_and_raises_the_first() -> None:
    log: list[str] = []
    inner = [anumbers(log, "a", fail_on_close=True), anumbers(log, "b", fail_on_close=True)]
    for generator in inner:
        await anext(generator)
    stream = aclose_after(anumbers(log, "wrapper"), inner)
    await anext(stream)
    with pytest.raises(RuntimeError, match="b failed"):
        await stream.aclose()
    assert log == ["wrapper", "b", "a"]


async def test_a_generator_another_closer_is_closing_is_left_to_it() -> None:
    release = asyncio.Event()
    log: list[str] = []

    async def slow_to_close() -> AsyncGenerator[int, None]:
        try:
            yield 1
        finally:
            await release.wait()
            log.append("inner")

    inner = slow_to_close()
    await anext(inner)
    closer = asyncio.create_task(inner.aclose())  # as the loop's shutdown_asyncgens() does
    await asyncio.sleep(0)  # it is inside its finally now: "already running"
    stream = aclose_after(anumbers(log, "wrapper"), [inner])
    await anext(stream)
    await stream.aclose()  # leaves the inner one to its closer, without an error
    release.set()
    await asyncio.wait_for(closer, 5)
    assert log == ["wrapper", "inner"]


def test_track_records_only_inside_collecting() -> None:
    log: list[str] = []
    outside = numbers(log, "x")
    assert track(outside) is outside
    with collecting() as opened:
        inside = track(numbers(log, "y"))
    assert opened == [inside]


def test_collecting_warns_when_nothing_was_tracked() -> None:
    with pytest.warns(RuntimeWarning, match="llm_chat_callback"), collecting():
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="boom"), collecting():
            raise ValueError("boom")  # a failed call tracked nothing: no warning


# --- the llama-index-core behaviour the layer leans on ------------------------------------

BODY = [frame(chunk({"content": "Hi"})), frame(chunk({}, "stop")), b"data: [DONE]\n\n"]


def mock_llm() -> SSELLM:
    return SSELLM(
        model="m",
        base_url="http://gateway.test/v1",
        api_key=API_KEY,
        http_client=httpx.Client(transport=sse_transport(BODY)),
        async_http_client=httpx.AsyncClient(transport=sse_transport(BODY)),
    )


def test_llm_chat_callback_runs_the_stream_method_in_the_callers_context() -> None:
    with collecting() as opened:
        wrapped = mock_llm()._stream_chat_events(ASK)
    assert len(opened) == 1, (
        "llama-index-core's llm_chat_callback no longer runs the decorated stream method in "
        "the caller's context: track() recorded nothing, so _closing.py cannot close the "
        "inner generator (SSELLM falls back and warns)"
    )
    assert opened[0] is not wrapped, (
        "llama-index-core's llm_chat_callback no longer wraps the generator it is given: "
        "the closing layer in _closing.py may be simplified"
    )
    assert [r.delta for r in wrapped] == ["Hi", ""]


async def test_async_llm_chat_callback_runs_the_stream_method_in_the_callers_context() -> None:
    with collecting() as opened:
        wrapped = await mock_llm()._astream_chat_events(ASK)
    assert len(opened) == 1, (
        "llama-index-core's async llm_chat_callback no longer runs the decorated stream method "
        "in the caller's context (see the sync test)"
    )
    assert opened[0] is not wrapped
    assert [r.delta async for r in wrapped] == ["Hi", ""]


GAP_GONE = (
    "llama-index-core's llm_chat_callback now closes the generator it wraps: the gap "
    "_closing.py works around is fixed upstream, and the layer may be simplified"
)


async def test_the_gap_is_real_without_the_closing_layer(
    emulator: Emulator, make_llm: LLMFactory
) -> None:
    """The decorated method alone leaves the stream open while a handler keeps the
    exception, so the cancellation tests would catch a regression of the fix."""
    llm = slow_llm(make_llm, debug=True)
    with collecting() as opened:
        wrapped = await llm._astream_chat_events(ASK)
    async for _ in wrapped:
        break
    await wrapped.aclose()
    with pytest.raises(TimeoutError):
        await emulator.wait_for_disconnect_async(0.3)
        pytest.fail(GAP_GONE)
    since = time.monotonic()
    await opened[0].aclose()
    closed_promptly(await emulator.wait_for_disconnect_async(2.0), since)


def test_the_sync_gap_is_real_without_the_closing_layer(
    emulator: Emulator, make_llm: LLMFactory
) -> None:
    llm = slow_llm(make_llm, debug=True)
    with collecting() as opened:
        wrapped = llm._stream_chat_events(ASK)
    for _ in wrapped:
        break
    wrapped.close()
    with pytest.raises(TimeoutError):
        emulator.wait_for_disconnect(0.3)
        pytest.fail(GAP_GONE)
    since = time.monotonic()
    opened[0].close()
    closed_promptly(emulator.wait_for_disconnect(2.0), since)


# --- the fallback -------------------------------------------------------------------------


def test_streams_still_work_when_nothing_is_tracked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "track", lambda generator: generator)
    llm = mock_llm()
    with collect_events() as seen, pytest.warns(RuntimeWarning) as warned:
        responses = list(llm.stream_chat(ASK))
    assert [str(w.message) for w in warned] == [UNTRACKED]
    assert [r.delta for r in responses] == ["Hi", ""]
    assert responses[-1].message.content == "Hi"
    kinds = [e.class_name() for e in seen.events]
    assert kinds.count("LLMChatEndEvent") == 1


async def test_async_streams_still_work_when_nothing_is_tracked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(model, "track", lambda generator: generator)
    with pytest.warns(RuntimeWarning, match="garbage-collected"):
        stream = await mock_llm().astream_chat(ASK)
    responses = [r async for r in stream]
    assert responses[-1].message.content == "Hi"
    await asyncio.sleep(0)
