"""``sse-chat info``: versions, tested ranges and each fast path with whether it is on and why,
run as a user runs it (a fresh process), and in-process for a simulated newer version."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from sse_chat.cli import main
from sse_core import fast_paths

#: Every fast path the core and both adapters register.
PATHS = {
    "langchain.chunks",
    "langchain.own_loop",
    "langchain.tiktoken_copy",
    "langchain.unmerged_invoke",
    "llamaindex.lazy_responses",
    "pydantic.private_reads",
    "transport.closed_loop_sockets",
    "transport.head",
    "transport.read_timeout",
    "transport.reuse",
}


def _run(*args: str, fast: str | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != fast_paths.ENV}
    if fast is not None:
        env[fast_paths.ENV] = fast
    return subprocess.run(
        [sys.executable, "-m", "sse_chat", "info", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_info_json_says_every_path_is_on_inside_the_tested_ranges() -> None:
    done = _run("--json", fast=None)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["fast_paths"]) == PATHS
    for name, state in report["fast_paths"].items():
        assert state["on"] is True, (name, state["why"])
        assert state["why"].endswith("probe passed")
    versions = report["versions"]
    assert versions["sse-connectors"] and versions["httpx"] and versions["langchain-core"]
    assert report["tested"]["langchain.own_loop"] == {"langchain-core": ">=1.8,<1.9"}
    assert report["python"] == ".".join(map(str, sys.version_info[:3]))
    assert report["platform"]
    assert report["hooks"]["langchain.chat_model_hooks"]["probe"] is None


def test_info_json_with_the_switch_says_off_and_why() -> None:
    done = _run("--json", fast="0")
    assert done.returncode == 0, done.stderr
    paths = json.loads(done.stdout)["fast_paths"]
    assert paths == {name: {"on": False, "why": "SSE_CONNECTORS_FAST=0"} for name in PATHS}


def test_info_prints_each_path_with_its_state_and_range() -> None:
    done = _run(fast="0")
    assert done.returncode == 0, done.stderr
    assert "langchain.own_loop: off (SSE_CONNECTORS_FAST=0)" in done.stdout
    assert "tested on httpx >=0.27,<0.29, httpcore >=1.0,<1.1" in done.stdout
    assert "llamaindex.function_calling_hooks of llama_index" in done.stdout
    assert f"Python {sys.version.split()[0]}" in done.stdout


def test_with_the_switch_the_adapters_choose_their_faithful_paths_at_import() -> None:
    code = (
        "import json\n"
        "from langchain_sse import ChatSSE, _chunks\n"
        "from llamaindex_sse import _lazy\n"
        "print(json.dumps([_chunks.make_chunk is _chunks.make_validated,"
        " _lazy.default_build().lazy]))\n"
    )
    env = {**os.environ, fast_paths.ENV: "0"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, False]


@pytest.fixture
def fresh_decisions() -> Iterator[None]:
    fast_paths.reset()
    yield
    fast_paths.reset()


@pytest.mark.usefixtures("fresh_decisions")
def test_a_newer_framework_turns_its_paths_off_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(fast_paths.ENV, raising=False)
    real = fast_paths.metadata.version

    def version(name: str) -> str:
        return "1.9.0" if name == "langchain-core" else real(name)

    monkeypatch.setattr(fast_paths.metadata, "version", version)
    assert main(["info", "--json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    why = "langchain-core 1.9.0 is newer than the tested <1.9"
    assert report["fast_paths"]["langchain.own_loop"] == {"on": False, "why": why}
    assert report["fast_paths"]["langchain.chunks"] == {"on": False, "why": why}
    assert report["fast_paths"]["transport.reuse"]["on"] is True
    assert report["versions"]["langchain-core"] == "1.9.0"
