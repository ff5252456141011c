"""The app's LangChain driver (``sse_chat/via_langchain.py``): the same usage words as the core
renderer, no chunk kept to be merged, and ``--record`` through ChatSSE."""

from __future__ import annotations

import gc
import io
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from langchain_sse import ChatSSE
from langchain_sse._run import OWN_LOOP
from sse_chat.cli import main
from sse_chat.demo_tool import WEATHER_TOOL, run_tool
from sse_chat.render import Renderer
from sse_chat.via_langchain import run_langchain_chat, usage_of
from sse_core import Usage, fast_paths
from sse_emulator import Emulator


def _summaries(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[str]:
    assert main(argv) == 0
    return [line for line in capsys.readouterr().out.splitlines() if "finish_reason=" in line]


def test_the_usage_line_has_the_words_of_the_core_path(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "weather in Paris"]
    core = _summaries(capsys, argv)
    langchain = _summaries(capsys, [*argv, "--via", "langchain"])
    assert langchain == core
    assert "cached_tokens=" in core[1] and "reasoning_tokens=" in core[1]


def test_usage_metadata_in_the_core_words() -> None:
    assert usage_of(None) is None
    usage = usage_of({
        "input_tokens": 10, "output_tokens": 4, "total_tokens": 14,
        "input_token_details": {"cache_read": 6, "cache_creation": 2},
        "output_token_details": {"reasoning": 3},
    })  # fmt: skip
    assert usage == Usage(prompt_tokens=10, completion_tokens=4, total_tokens=14,
                          cached_tokens=6, cache_write_tokens=2, reasoning_tokens=3)  # fmt: skip
    plain = usage_of({"input_tokens": 1, "output_tokens": 2, "total_tokens": 3})
    assert plain == Usage(prompt_tokens=1, completion_tokens=2, total_tokens=3)


def test_no_chunk_is_kept_while_a_turn_streams(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk is let go once rendered (the driver used to keep them all to merge), on
    ChatSSE's own loop (the base class's, its faithful alternative, keeps them to merge)."""
    alive: list[int] = []
    stream = ChatSSE.stream

    def watched(self: ChatSSE, *args: Any, **kwargs: Any) -> Iterator[AIMessageChunk]:
        seen: list[weakref.ref[AIMessageChunk]] = []
        for chunk in stream(self, *args, **kwargs):
            seen.append(weakref.ref(chunk))
            del chunk
            gc.collect(1)  # the young generations: a full collection per chunk took minutes
            alive.append(sum(ref() is not None for ref in seen[:-1]))
            yield seen[-1]()  # type: ignore[misc]

    monkeypatch.setattr(ChatSSE, "stream", watched)
    out = io.StringIO()
    with fast_paths.forced(OWN_LOOP.name, True):
        run_langchain_chat(base_url=emulator.base_url(), api_key="", model="demo-think",
                           path="/chat/completions", headers={}, prompt="weather in Paris",
                           tool=WEATHER_TOOL, run_tool=run_tool, view=Renderer(out))  # fmt: skip
    assert len(alive) > 20
    assert max(alive) <= 1  # at most the one the driver's loop variable still names
    assert "[tool call] get_weather" in out.getvalue()
    assert "Based on the tool results" in out.getvalue()


def test_record_works_through_chatsse(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--via", "langchain", "--base-url", emulator.base_url()]
    assert main([*argv, "--record", str(tmp_path), "weather in Paris"]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.sse")) == ["001.sse", "002.sse"]
    assert f"in {tmp_path}; replay with" in capsys.readouterr().err  # the closing note: stderr
