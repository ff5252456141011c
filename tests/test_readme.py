"""The README runs as printed: every Python block, in order, against the gateway emulator.

The blocks name the emulator's default address (``sse-chat emulator`` serves on
127.0.0.1:8000); the test starts one on a free port and points the blocks at it. The
``sse-chat`` lines parse with the real parser. The README is the pitch, the two commands,
a snippet per framework and links; the reference it held is the documentation site, whose
every block tests/docs/test_snippets.py runs. The error tree and the extras the site lists
are the code's own, and every page the README links to exists.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import tomllib

import sse_core
from sse_chat.cli import build_parser
from sse_emulator import Emulator

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
ERRORS_PAGE = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
INSTALL_PAGE = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
SHELL = re.findall(r"```bash\n(.*?)```", README, re.S)
COMMANDS = re.findall(r"^sse-chat (.*?)(?:\s+#.*)?$", README, re.M)
DEFAULT = "http://127.0.0.1:8000"

pytestmark = pytest.mark.timeout(240)


def test_the_readme_has_a_snippet_per_framework_and_links_to_the_site() -> None:
    assert len(BLOCKS) == 2 and "langchain_sse" in BLOCKS[0] and "llamaindex_sse" in BLOCKS[1]
    links = re.findall(r"\]\(((?:docs/|CHANGELOG|benchmarks/)[^)#]+)", README)
    assert len(links) >= 15
    for link in links:
        assert (ROOT / link).exists(), f"the README links to {link}, which does not exist"


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
                result = eval(code, namespace)
                if inspect.iscoroutine(result):
                    loop.run_until_complete(result)
        finally:
            loop.close()
    out = capsys.readouterr().out
    # the LangChain block shows the reasoning, then the answer
    assert "I can answer this directly.\n--- answer: 1 2 3 4 5\n" in out
    assert "[thinking]" in out and "[answer]" in out  # the LlamaIndex loop keeps them apart
    assert "  " not in out.split("[answer]")[-1].split("\n")[0]  # no doubled spaces


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
    tree = ERRORS_PAGE.split("## The error tree", 1)[1].split("```", 2)[1]
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
    sentence = " ".join(INSTALL_PAGE.split("Extras: ", 1)[1].split(".\n", 1)[0].split())
    named = set(re.findall(r"`(\w+)`", sentence))
    assert {"langchain", "llamaindex", "emulator", "cli", "tokens", "all", "dev"} <= named
    assert named <= extras


def test_comparisons_with_other_clients_are_the_benchmarks_dated_figures() -> None:
    """The pitch claims nothing about other clients that no test or benchmark here backs:
    it points at the benchmarks' latest figures, under their date."""
    pitch = README.split("## LangChain", 1)[0]
    assert "lose" not in pitch and "today's clients" not in pitch
    (date,) = re.findall(r"\(figures of\s+(\d{4}-\d{2}-\d{2})\)", pitch)
    figures = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert f"## Latest figures ({date})" in figures
