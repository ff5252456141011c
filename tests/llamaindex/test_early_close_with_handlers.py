"""Stopping early closes the HTTP stream at once, proven by the emulator's disconnect record.

llama-index-core's callback wrapper never closes the generator it wraps, so without
SSELLM's closing layer an early stop leaves the response open until garbage collection,
and for ever while a handler keeps the exception (LlamaDebugHandler, or an instrumentation
handler keeping ExceptionEvent, as ``collect_events`` does). Every test here keeps such
handlers attached *and* keeps its own references, so only a deterministic close passes.
(Leaving a stream early without such handlers, for both adapters: tests/adapters/test_cancel.py.)
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import AgentStream, FunctionAgent
from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool

from llamaindex_sse import SSELLM
from sse_emulator import Emulator
from tests.llamaindex.li_support import (
    PROMPTLY,
    LLMFactory,
    closed_promptly,
    collect_events,
    slow_llm,
)

ASK = [ChatMessage(role="user", content="count to 200")]
PROMPT = "count to 200"


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "llama-debug"])
@pytest.mark.parametrize("endpoint", ["stream_chat", "stream_complete"])
def test_sync_break_then_close(
    emulator: Emulator, make_llm: LLMFactory, debug: bool, endpoint: str
) -> None:
    llm = slow_llm(make_llm, debug)
    with collect_events():
        stream = llm.stream_chat(ASK) if endpoint == "stream_chat" else llm.stream_complete(PROMPT)
        for _ in stream:
            break
        since = time.monotonic()
        stream.close()
        closed_promptly(emulator.wait_for_disconnect(2.0), since)


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "llama-debug"])
@pytest.mark.parametrize("endpoint", ["astream_chat", "astream_complete"])
async def test_async_break_then_aclose(
    emulator: Emulator, make_llm: LLMFactory, debug: bool, endpoint: str
) -> None:
    llm = slow_llm(make_llm, debug)
    with collect_events() as seen:
        if endpoint == "astream_chat":
            stream: Any = await llm.astream_chat(ASK)
        else:
            stream = await llm.astream_complete(PROMPT)
        async for _ in stream:
            break
        since = time.monotonic()
        await stream.aclose()
        closed_promptly(await emulator.wait_for_disconnect_async(2.0), since)
    kinds = [e.class_name() for e in seen.events]
    assert "ExceptionEvent" in kinds  # the core reports the early close as GeneratorExit
    assert "LLMChatEndEvent" not in kinds and "LLMCompletionEndEvent" not in kinds


async def _consume(llm: SSELLM, started: asyncio.Event) -> None:
    async for _ in await llm.astream_chat(ASK):
        started.set()


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "llama-debug"])
async def test_task_cancellation(emulator: Emulator, make_llm: LLMFactory, debug: bool) -> None:
    llm = slow_llm(make_llm, debug)
    started = asyncio.Event()
    with collect_events():
        task = asyncio.create_task(_consume(llm, started))
        await asyncio.wait_for(started.wait(), 5)
        since = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):  # never swallowed
            await task
        closed_promptly(await emulator.wait_for_disconnect_async(2.0), since)


async def test_a_timeout_around_the_stream(emulator: Emulator, make_llm: LLMFactory) -> None:
    llm = slow_llm(make_llm, debug=True)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(_consume(llm, asyncio.Event()), 0.3)
    # Measured from when the timeout's cancellation ended, not from when it was due: a
    # loaded machine may start it late, which says nothing about the close.
    ended = time.monotonic()
    closed_promptly(await emulator.wait_for_disconnect_async(2.0), ended)


async def test_a_bare_async_break_closes_at_once(emulator: Emulator, make_llm: LLMFactory) -> None:
    llm = slow_llm(make_llm, debug=True)
    with collect_events():
        async for _ in await llm.astream_chat(ASK):
            break  # no aclose(), no aclosing: the stream is dropped here
        since = time.monotonic()
        closed_promptly(await emulator.wait_for_disconnect_async(2.0), since)


def test_a_bare_break_closes_at_once_and_prints_nothing_at_shutdown(emulator: Emulator) -> None:
    script = Path(__file__).with_name("li_bare_break.py")
    support = str(script.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([support, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, str(script), emulator.base_url()],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", f"printed at shutdown:\n{result.stderr}"
    breaks = json.loads(result.stdout.strip().splitlines()[-1])
    records = emulator.requests
    assert len(records) == len(breaks) == 3
    for record, since in zip(records, breaks, strict=True):
        closed_promptly(record, since)


def test_sync_break_and_drop(emulator: Emulator, make_llm: LLMFactory) -> None:
    llm = slow_llm(make_llm, debug=True)
    for _ in llm.stream_chat(ASK):
        break  # the generator is dropped here; CPython closes it at once
    since = time.monotonic()
    closed_promptly(emulator.wait_for_disconnect(2.0), since - PROMPTLY / 2)


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "llama-debug"])
async def test_a_workflow_cancel_run(emulator: Emulator, make_llm: LLMFactory, debug: bool) -> None:
    llm = slow_llm(make_llm, debug)
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(add)], llm=llm)
    handler = agent.run(user_msg="count to 200")

    async def first_delta() -> None:
        async for event in handler.stream_events():
            if isinstance(event, AgentStream) and event.delta:
                return

    await asyncio.wait_for(first_delta(), 5)
    since = time.monotonic()
    await handler.cancel_run()
    closed_promptly(await emulator.wait_for_disconnect_async(2.0), since)
