"""The README runs as printed: every Python block, in order, against the gateway emulator.

The blocks name the emulator's default address (``sse-chat emulator`` serves on
127.0.0.1:8000); the test starts one on a free port and points the blocks at it. The
``sse-chat`` lines parse with the real parser, and the error tree and the extras it lists are
the code's own.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import re
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import tomllib

import sse_core
from sse_chat.cli import build_parser
from sse_emulator import Emulator

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
SHELL = re.findall(r"```bash\n(.*?)```", README, re.S)
COMMANDS = re.findall(r"^sse-chat (.*?)(?:\s+#.*)?$", README, re.M)
DEFAULT = "http://127.0.0.1:8000"

pytestmark = pytest.mark.timeout(240)


def test_the_readme_has_snippets() -> None:
    assert len(BLOCKS) >= 6 and len(COMMANDS) >= 8


def slow_llm(emu: Emulator) -> Any:
    """The README's SSELLM with each event 50 ms apart: 300 numbers take 15 s, so a stream
    closed at the first words is one the emulator sees the client leave."""
    from llamaindex_sse import SSELLM

    fault = {"X-Emulator-Fault": "slow; delay=0.05"}
    return SSELLM(model="qwen3", base_url=emu.base_url(), api_key="sk-...", default_headers=fault)


def test_every_python_block_runs_against_the_emulator(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    loop = asyncio.new_event_loop()
    with Emulator() as emu:
        try:
            for number, block in enumerate(BLOCKS):
                source = block.replace(DEFAULT, emu.url)
                code = compile(
                    source, f"README[{number}]", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
                )
                if "contextlib.aclosing" in block:  # a slow stream, to see it closed early
                    namespace["llm"] = slow_llm(emu)
                result = eval(code, namespace)
                if inspect.iscoroutine(result):
                    loop.run_until_complete(result)
            closed = [r for r in emu.requests if b"count to 300" in r.body]
            deadline = time.monotonic() + 10
            while not closed[0].finished_at and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            loop.close()
    out = capsys.readouterr().out
    # the LangChain block shows the reasoning, then the answer
    assert "I can answer this directly.\n--- answer: 1 2 3 4 5\n" in out
    assert "[thinking]" in out and "[answer]" in out  # the LlamaIndex loop keeps them apart
    assert "  " not in out.split("[answer]")[-1].split("\n")[0]  # no doubled spaces
    # aclosing() ended the kept stream at the break: the emulator saw the client leave
    assert len(closed) == 1 and closed[0].disconnected and not closed[0].completed


def test_the_command_after_the_set_up_works_as_printed() -> None:
    """After ./scripts/demo and ./scripts/test, in a shell where .venv is not activated, the
    first sse-chat command the README gives runs as printed."""
    assert SHELL[0].split()[0] == "./scripts/demo"
    command = SHELL[1].splitlines()[0].split("#")[0].strip()
    assert "sse-chat" in command and not re.search(r"^sse-chat", README.split(SHELL[1])[0], re.M)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if ".venv" not in p)
    env = {**os.environ, "PATH": path, "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        ["bash", "-c", command],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert "[answer] " in done.stdout and "finish_reason=stop" in done.stdout


def test_every_sse_chat_line_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recording = tmp_path / "recordings" / "s1"  # what the README's chat --record line makes
    recording.mkdir(parents=True)
    (recording / "001.sse").write_bytes((ROOT / "examples" / "deepseek-reasoning.sse").read_bytes())
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "deepseek-reasoning.sse").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    parser = build_parser()
    for command in COMMANDS:
        argv = shlex.split(command)
        if argv == ["--help"]:
            continue
        parser.parse_args(argv)


def test_the_error_tree_lists_every_error_class() -> None:
    tree = README.split("## Errors", 1)[1].split("```", 2)[1]
    listed = set(re.findall(r"^[│├└─ ]*([A-Z]\w+Error)\b", tree, re.M))
    exported = {
        name
        for name in sse_core.__all__
        if isinstance(getattr(sse_core, name), type)
        and issubclass(getattr(sse_core, name), sse_core.SSEConnectorError)
    }
    assert listed == exported


def test_the_extras_named_are_the_projects() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = set(pyproject["project"]["optional-dependencies"])
    sentence = " ".join(README.split("Extras: ", 1)[1].split(".\n", 1)[0].split())
    named = set(re.findall(r"`(\w+)`", sentence))
    assert {"langchain", "llamaindex", "emulator", "cli", "tokens", "all", "dev"} <= named
    assert named <= extras


def test_comparisons_with_other_clients_are_the_benchmarks_dated_figures() -> None:
    """The pitch claims nothing about other clients that no test or benchmark here backs:
    it points at the benchmarks' latest figures, under their date."""
    pitch = README.split("## Install", 1)[0]
    assert "lose" not in pitch and "today's clients" not in pitch
    (date,) = re.findall(r"\(figures of\s+(\d{4}-\d{2}-\d{2})\)", pitch)
    figures = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert f"## Latest figures ({date})" in figures
