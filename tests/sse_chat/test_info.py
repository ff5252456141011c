"""``sse-chat info``: versions, tested ranges and each fast path with whether it is on and why,
run as a user runs it (a fresh process), and in-process for a simulated newer version."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

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


def _decision(tested: dict[str, str], probe: str | None) -> tuple[bool, str]:
    """The decision the registry must make, worked out here with ``packaging`` (not the
    registry's own range check): on inside every tested range with its probe passing, else
    off with the first reason."""
    for distribution, spec in tested.items():
        try:
            version = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            return False, f"{distribution} is not installed"
        if Version(version).release not in _Releases(spec):
            return False, f"{distribution} {version} is"
    if probe is not None:
        return False, f"probe: {probe}"
    return True, "probe passed"


class _Releases:
    """Release numbers inside a specifier set (``1.9.0rc1`` counts as ``1.9.0``, as the
    registry compares release segments only)."""

    def __init__(self, spec: str) -> None:
        self._spec = SpecifierSet(spec)

    def __contains__(self, release: tuple[int, ...]) -> bool:
        return self._spec.contains(".".join(map(str, release)), prereleases=True)


def test_info_json_reports_the_registrys_decision_for_every_path() -> None:
    """Inside its tested ranges with its probe passing a path is on; outside, off with the
    version and the range that failed: whatever set is installed (a newer release turns a
    path off, it does not fail this test)."""
    done = _run("--json", fast=None)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["fast_paths"]) == PATHS
    probes = json.loads(_run_probes().stdout)
    for name, state in report["fast_paths"].items():
        on, why = _decision(report["tested"][name], probes[name])
        assert state["on"] is on, (name, state["why"])
        assert why in state["why"], (name, state["why"])
    versions = report["versions"]
    assert versions["sse-connectors"] and versions["httpx"] and versions["langchain-core"]
    assert report["tested"]["langchain.own_loop"] == {"langchain-core": ">=1.8,<1.9"}
    assert report["python"] == ".".join(map(str, sys.version_info[:3]))
    assert report["platform"]
    assert report["hooks"]["langchain.chat_model_hooks"]["probe"] is None


def _run_probes() -> subprocess.CompletedProcess[str]:
    """Each path's probe run alone in a fresh process, whatever its range says."""
    code = (
        "import json, langchain_sse, llamaindex_sse\n"
        "from langchain_sse import _chunks, _hooks, _run, _tokens\n"
        "from llamaindex_sse import _lazy\n"
        "from sse_core import fast_paths\n"
        "print(json.dumps({n: p.probe() for n, p in fast_paths.registered().items()}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done


def test_info_json_with_the_switch_says_off_and_why() -> None:
    done = _run("--json", fast="0")
    assert done.returncode == 0, done.stderr
    paths = json.loads(done.stdout)["fast_paths"]
    assert paths == {name: {"on": False, "why": "SSE_CONNECTORS_FAST=0"} for name in PATHS}


def test_info_prints_each_path_with_its_state_and_range() -> None:
    done = _run(fast="0")
    assert done.returncode == 0, done.stderr
    assert "langchain.own_loop: off (SSE_CONNECTORS_FAST=0)" in done.stdout
    assert "tested on httpx >=0.27,<0.30, httpcore >=1.0,<1.1" in done.stdout
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
    # A path that does not rely on langchain-core keeps whatever the registry decided.
    assert report["fast_paths"]["transport.reuse"] == fast_paths.fast_paths()["transport.reuse"]
    assert report["versions"]["langchain-core"] == "1.9.0"
