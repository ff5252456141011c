"""``sse-chat chat --via llamaindex`` (sse_chat/via_llamaindex.py): the same usage line as
the core renderer, and ``--record`` through SSELLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.base.llms.types import ChatMessage, ChatResponse

from sse_chat.cli import main
from sse_chat.render import usage_line
from sse_chat.via_llamaindex import usage_of
from sse_core import Usage
from sse_emulator import Emulator


def summary_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("finish_reason=")]


@pytest.mark.parametrize("dialect", ["openai", "spass"])
def test_the_usage_line_is_the_core_renderers(
    dialect: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = {}
    for via in ("core", "llamaindex"):
        argv = ["chat", "--via", via, "--base-url", emulator.base_url(dialect)]
        argv += ["--model", "emulator-think", "--header", "SPASS-User-Id: u1", "--no-tools"]
        assert main([*argv, "count to 5"]) == 0
        lines[via] = summary_lines(capsys.readouterr().out)
    assert len(lines["core"]) == 1
    assert lines["llamaindex"] == lines["core"]
    if dialect == "openai":  # this dialect reports cached and reasoning tokens
        assert "cached_tokens=0" in lines["core"][-1] and "reasoning_tokens=" in lines["core"][-1]


def test_usage_of_a_response() -> None:
    counts = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7, "cached_tokens": 1}
    response = ChatResponse(message=ChatMessage(role="assistant"), additional_kwargs=counts)
    usage = usage_of(response)
    assert usage == Usage(prompt_tokens=3, completion_tokens=4, total_tokens=7, cached_tokens=1)
    assert usage_line(usage) == "usage: prompt=3 completion=4 total=7 cached_tokens=1"
    assert usage_of(ChatResponse(message=ChatMessage(role="assistant"))) is None


def test_record_goes_through_ssellm_too(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--via", "llamaindex", "--base-url", emulator.base_url()]
    assert main([*argv, "--record", str(tmp_path), "weather in Paris"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "001.json",
        "001.sse",
        "002.json",
        "002.sse",
    ]
    assert "(recorded 2 model call(s) in" in capsys.readouterr().err
