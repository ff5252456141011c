"""Leaving LangChain's event streams early (``astream_events`` v2 and v3) closes the HTTP
connection: the emulator sees the client go.

Every case streams a long, slow answer (``count to 500`` with a pause before each event),
leaves after the first chunk, and waits (bounded) for the emulator's disconnect record.
(Leaving ``stream``/``astream`` and ``ainvoke`` early, for both adapters:
tests/adapters/test_cancel.py.)
"""

from __future__ import annotations

import contextlib
from typing import Any

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import ModelFactory

SLOW = {"X-Emulator-Fault": "slow; delay=0.05"}
LONG = "count to 500"
WAIT = 3.0


def _slow(make_model: ModelFactory) -> ChatSSE:
    return make_model(default_headers=SLOW)


def _assert_left_early(emulator: Emulator, record: Any) -> None:
    assert record.disconnected
    assert not record.completed
    assert len(emulator.requests) == 1


async def test_leaving_astream_events_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    events = _slow(make_model).astream_events(LONG, version="v2")
    async with contextlib.aclosing(events):  # type: ignore[type-var]
        async for event in events:
            if event["event"] == "on_chat_model_stream":
                break
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))


async def test_leaving_v3_astream_events_closes_the_connection(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    async with await _slow(make_model).astream_events(LONG, version="v3") as stream:
        async for _ in stream.text:
            break
    _assert_left_early(emulator, await emulator.wait_for_disconnect_async(WAIT))
