"""Every benchmark runs in quick mode and passes its own checks.

Speed is never asserted here (the figures live in benchmarks/README.md): each script in
``benchmarks/`` that starts with ``bench_`` is run once with ``--quick`` in a fresh
interpreter, and must exit 0 (its checks of the decoded results passed) after printing its
table. Scripts that start servers on loopback must stop them: the script runs in a process
group of its own, and no process of that group may outlive it.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent.parent / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))
#: A table row: a name, then figures (a median, a ratio).
ROW = re.compile(r"^\s*\S.*\d+\.\d+")


def test_every_benchmark_is_covered() -> None:
    assert {path.name for path in SCRIPTS} >= {
        "bench_accumulator.py",
        "bench_anthropic.py",
        "bench_concurrency.py",
        "bench_decoder.py",
        "bench_first_token.py",
        "bench_fragments.py",
        "bench_framework_floor.py",
        "bench_gemini.py",
        "bench_langchain.py",
        "bench_llamaindex.py",
        "bench_pathological.py",
        "bench_responses.py",
        "bench_transport.py",
    }


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("script", SCRIPTS, ids=[path.stem for path in SCRIPTS])
def test_quick_mode_runs_and_checks_pass(script: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, str(script), "--quick"],
        cwd=BENCHMARKS.parent,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the servers it starts join it
    )
    try:
        out, err = proc.communicate(timeout=280)
        left = _group_alive(proc.pid)
    finally:
        _kill_group(proc.pid)
    assert proc.returncode == 0, f"{script.name} --quick failed:\n{out}\n{err}"
    assert not left, f"{script.name} --quick left a child process running"
    rows = [line for line in out.splitlines() if ROW.match(line)]
    assert len(rows) >= 3, f"{script.name} --quick printed no table:\n{out}"


def _group_alive(group: int, wait: float = 5.0) -> bool:
    """Whether a process of ``group`` is still running ``wait`` seconds after its leader."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        if time.monotonic() > deadline:
            return True
        time.sleep(0.1)


def _kill_group(group: int) -> None:
    """Stop what is left of the group this test started (nothing, when the script is right)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
