"""What the migration guides say of the other class's behaviour, checked on the version each
guide names (the one requirements/newest.txt pins, which ``test_migrations.py`` checks): each
claim here runs the anchor itself against the emulator, beside ChatSSE on the same answer.

The claims are of that one version, so this file runs on the newest set alone (scripts/test
leaves it out of the lowest sets, whose anchors are older releases)."""

from __future__ import annotations

import importlib.metadata
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from langchain_sse import ChatSSE
from sse_emulator import Emulator

from .test_migrations import named_version


@pytest.mark.parametrize("page", ["chatopenai-responses.md"])
def test_the_installed_anchor_is_the_version_the_guide_names(page: str) -> None:
    """The claims below are run on the version the guide names, not another one."""
    assert importlib.metadata.version("langchain-openai") == named_version(page)


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _streamed(model: Any, prompt: str) -> AIMessageChunk:
    chunks = list(model.bind_tools([get_weather, add]).stream(prompt))
    whole = chunks[0]
    for chunk in chunks[1:]:
        whole = whole + chunk
    assert isinstance(whole, AIMessageChunk)
    return whole


def _both(emulator: Emulator, fault: str) -> tuple[ChatOpenAI, ChatSSE]:
    headers = {"X-Emulator-Fault": fault}
    base = emulator.base_url("responses")
    anchor = ChatOpenAI(model="gpt-4o", use_responses_api=True, base_url=base, api_key="k",
                        default_headers=headers, streaming=True, max_retries=0)  # fmt: skip
    ours = ChatSSE(model="gpt-4o", protocol="responses", base_url=base, api_key="k",
                   default_headers=headers, max_retries=0)  # fmt: skip
    return anchor, ours


def test_arguments_sent_only_in_done_are_the_calls_in_both(emulator: Emulator) -> None:
    """chatopenai-responses.md: "Arguments sent only in function_call_arguments.done are the
    call's arguments (as ChatOpenAI's)"."""
    anchor, ours = _both(emulator, "no-argument-deltas")
    for model in (anchor, ours):
        calls = _streamed(model, "weather in Paris?").tool_calls
        assert [(c["name"], c["args"]) for c in calls] == [("get_weather", {"city": "Paris"})]


def test_interleaved_argument_deltas_stay_two_calls_where_chatopenai_splits_them(
    emulator: Emulator,
) -> None:
    """chatopenai-responses.md: "parallel calls whose argument deltas interleave stay two
    calls (ChatOpenAI splits them into calls without names and invalid calls)"."""
    anchor, ours = _both(emulator, "interleaved-arguments")
    prompt = "weather in Paris and add 2 and 3"
    theirs = _streamed(anchor, prompt)
    assert any(not call["name"] for call in theirs.tool_calls)
    assert theirs.invalid_tool_calls
    mine = _streamed(ours, prompt)
    assert [(c["name"], c["args"]) for c in mine.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("add", {"a": 2, "b": 3}),
    ]
    assert not mine.invalid_tool_calls
