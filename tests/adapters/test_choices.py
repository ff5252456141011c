"""Both adapters ask for one choice per request: ``n`` other than 1 as a call's keyword
argument is the core's ConfigurationError naming it, on every call path, before any request;
``n=1`` goes through. Several choices arriving anyway are never mixed into the one shown.
(Where a setting may hold ``n`` differs by framework: tests/langchain/test_n_in_model_kwargs.py
and tests/llamaindex/test_n_in_additional_kwargs.py.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from sse_core import ConfigurationError
from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory

pytestmark = pytest.mark.timeout(60)


def _paths(driver: Any, model: Any, **kwargs: Any) -> dict[str, Any]:
    """Every call path of the driver, each a thunk that makes the call with ``kwargs``."""
    if driver.name == "ChatSSE":
        call, stream = model.invoke, model.stream
        acall, astream = model.ainvoke, model.astream
        ask: Any = "hi"
    else:
        from llama_index.core.llms import ChatMessage

        call, stream = model.chat, model.stream_chat
        acall = model.achat
        ask = [ChatMessage(role="user", content="hi")]

        async def astream(messages: Any, **kw: Any) -> Any:
            async for response in await model.astream_chat(messages, **kw):
                yield response

    async def collect() -> list[Any]:
        return [item async for item in astream(ask, **kwargs)]

    return {
        "call": lambda: call(ask, **kwargs),
        "stream": lambda: list(stream(ask, **kwargs)),
        "acall": lambda: asyncio.run(acall(ask, **kwargs)),
        "astream": lambda: asyncio.run(collect()),
    }


@pytest.mark.parametrize("path", ["call", "stream", "acall", "astream"])
def test_n_as_a_call_argument_is_refused_before_any_request(
    driver: Any, path: str, on_emulator: Any, emulator: Emulator
) -> None:
    with pytest.raises(ConfigurationError) as info:
        _paths(driver, on_emulator(), n=2)[path]()
    assert "n=2 in" in str(info.value) and "keyword" in str(info.value)
    assert emulator.requests == []


def test_n_of_one_goes_through(driver: Any, on_emulator: Any, emulator: Emulator) -> None:
    assert _paths(driver, on_emulator(), n=1)["call"]()
    assert json.loads(emulator.requests[-1].body)["n"] == 1


def _chunk(choice: int, text: str, finish: str | None = None) -> bytes:
    entry = {"index": choice, "delta": {"content": text}, "finish_reason": finish}
    return b"data: " + json.dumps({"id": "c", "choices": [entry]}).encode() + b"\n\n"


#: Two choices though one was asked for, interleaved (as OpenAI sends n > 1).
TWO = (
    _chunk(0, "A1 ")
    + _chunk(1, "B1 ")
    + _chunk(1, "B2", "length")
    + _chunk(0, "A2", "stop")
    + b"data: [DONE]\n\n"
)


def test_a_second_choice_is_never_mixed_into_the_one_shown(
    driver: Any, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    where = tmp_path / "two.sse"
    where.write_bytes(TWO)
    model = driver.make(base_url=emulator_replay(where).base_url(), max_retries=0)
    assert "".join(driver.stream(model)) == "A1 A2"
    assert driver.ask(model) == "A1 A2"


def test_with_another_choice_first_the_stream_follows_it_unmixed(
    driver: Any, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    where = tmp_path / "b-first.sse"
    where.write_bytes(_chunk(1, "B1 ") + TWO)
    model = driver.make(base_url=emulator_replay(where).base_url(), max_retries=0)
    streamed = "".join(driver.stream(model))
    assert streamed == "B1 B1 B2"  # the first choice to arrive, alone
    # (Which choice a whole answer shows differs: SSELLM.chat reads the lowest index,
    # Completion's rule, tests/llamaindex/test_n_in_additional_kwargs.py; ChatSSE.invoke
    # streams, and shows the choice its stream followed.)
