"""SSELLM asks for one choice per request: ``n`` other than 1 is a ConfigurationError naming
where it was set (additional_kwargs or extra_body at construction, the call's keyword
arguments at the call), before any request. Several choices arriving anyway are never mixed:
SSELLM shows the first choice that arrives, whole."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.llms import ChatMessage

from llamaindex_sse import SSELLM
from sse_core import ConfigurationError
from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from tests.llamaindex.li_support import LLMFactory

pytestmark = pytest.mark.timeout(60)

MESSAGES = [ChatMessage(role="user", content="hi")]


@pytest.mark.parametrize("field", ["additional_kwargs", "extra_body"])
def test_n_in_a_setting_is_refused_at_construction(field: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        SSELLM(model="m", base_url="http://gw.test/v1", **{field: {"n": 2, "seed": 1}})
    assert f"n=2 in SSELLM's {field} asks for 2 choices per request" in str(info.value)
    with pytest.raises(ValueError, match=f"in SSELLM's {field}"):  # pydantic wraps it
        SSELLM.model_validate({"model": "m", "base_url": "http://gw.test/v1", field: {"n": 3}})


def test_n_of_one_is_fine() -> None:
    llm = SSELLM(model="m", base_url="http://gw.test/v1", additional_kwargs={"n": 1})
    body, _ = llm._build_request(MESSAGES, {})
    assert body["n"] == 1


def _calls(llm: SSELLM, **kwargs: Any) -> dict[str, Any]:
    """Every call path, each returning a thunk that makes the call."""

    async def achat() -> object:
        return await llm.achat(MESSAGES, **kwargs)

    async def astream() -> object:
        return [r async for r in await llm.astream_chat(MESSAGES, **kwargs)]

    return {
        "chat": lambda: llm.chat(MESSAGES, **kwargs),
        "stream_chat": lambda: list(llm.stream_chat(MESSAGES, **kwargs)),
        "complete": lambda: llm.complete("hi", **kwargs),
        "stream_complete": lambda: list(llm.stream_complete("hi", **kwargs)),
        "achat": lambda: asyncio.run(achat()),
        "astream_chat": lambda: asyncio.run(astream()),
    }


@pytest.mark.parametrize("path", ["complete", "stream_complete"])  # chat's: tests/adapters
def test_n_as_a_call_argument_is_refused_before_any_request(
    path: str, make_llm: LLMFactory, emulator: Emulator
) -> None:
    llm = make_llm()
    with pytest.raises(ConfigurationError, match="n=2 in the call's keyword arguments"):
        _calls(llm, n=2)[path]()
    assert emulator.requests == []


def test_n_set_after_construction_is_refused_at_the_call(
    make_llm: LLMFactory, emulator: Emulator
) -> None:
    llm = make_llm()
    llm.additional_kwargs["n"] = 3
    with pytest.raises(ConfigurationError, match="n=3 in SSELLM's additional_kwargs"):
        llm.chat(MESSAGES)
    llm.additional_kwargs["n"] = 1
    llm.extra_body["n"] = 2  # the transport's extra_body: the core refuses it
    with pytest.raises(ConfigurationError, match="n=2 in extra_body"):
        llm.chat(MESSAGES)
    assert emulator.requests == []
    with pytest.raises(ConfigurationError, match="call's keyword"):  # the call's n wins
        llm.chat(MESSAGES, n=4)


# --- several choices arriving anyway ------------------------------------------------------------


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
#: The same, choice 1 first.
TWO_B_FIRST = _chunk(1, "B1 ") + TWO


def _llm(emulator_replay: ReplayFactory, where: Path, body: bytes) -> SSELLM:
    where.write_bytes(body)
    return SSELLM(model="m", base_url=emulator_replay(where).base_url(), max_retries=0)


def test_a_second_choice_is_never_mixed_into_the_one_shown(
    emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    llm = _llm(emulator_replay, tmp_path / "two.sse", TWO)
    streamed = list(llm.stream_chat(MESSAGES))
    assert "".join(r.delta or "" for r in streamed) == "A1 A2"
    assert streamed[-1].message.content == "A1 A2"
    assert streamed[-1].additional_kwargs.get("finish_reason") == "stop"  # its own, not B's
    whole = llm.chat(MESSAGES)
    assert whole.message.content == "A1 A2"
    assert whole.additional_kwargs.get("finish_reason") == "stop"


def test_with_another_choice_first_the_stream_follows_it_unmixed(
    emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    llm = _llm(emulator_replay, tmp_path / "b-first.sse", TWO_B_FIRST)
    streamed = list(llm.stream_chat(MESSAGES))
    assert streamed[-1].message.content == "B1 B1 B2"  # the first choice to arrive, alone
    assert "A" not in "".join(r.delta or "" for r in streamed)
    assert streamed[-1].additional_kwargs.get("finish_reason") == "length"
    # a whole answer reads the lowest index (Completion's rule), alone too
    assert llm.chat(MESSAGES).message.content == "A1 A2"
