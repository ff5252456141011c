"""docs/gateway-tools.md runs as written: its ``sse-chat`` commands (run when they need no
real gateway and no server left running, else parsed) and its Python blocks, in order,
with the pytest example called with the ``emulator_replay`` fixture."""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from sse_chat.cli import build_parser, main
from sse_emulator.pytest_plugin import ReplayFactory

pytestmark = pytest.mark.timeout(180)

DOC = Path(__file__).parents[2] / "docs" / "gateway-tools.md"
TEXT = DOC.read_text()
COMMANDS = re.findall(r"^\$ (?:SSE_API_KEY=\S+ )?sse-chat (.*?)(?:\s+#.*)?$", TEXT, re.M)
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, re.S)


def runs_here(argv: list[str]) -> bool:
    """No real gateway, and no server that would keep running."""
    text = " ".join(argv)
    return argv[0] != "emulator" and "gateway.example" not in text and ":8000" not in text


def test_the_doc_has_commands_and_code() -> None:
    assert len(COMMANDS) >= 8 and len(BLOCKS) >= 5


def test_every_command_runs_or_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for command in COMMANDS:
        argv = shlex.split(command)
        if runs_here(argv):
            assert main(argv) in (0, 1), command  # 1: the unreachable example
        else:
            build_parser().parse_args(argv)
    out, err = capsys.readouterr()
    assert "(recorded 2 model call(s) in recordings/weather;" in err
    assert "[tool call 0] get_weather" in out and "unreachable: could not reach" in err


def test_every_python_block_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, emulator_replay: ReplayFactory
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__doc__"}
    loop = asyncio.new_event_loop()
    try:
        for number, block in enumerate(BLOCKS):
            code = compile(
                block, f"{DOC.name}[{number}]", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
            )
            result = eval(code, namespace)
            if inspect.iscoroutine(result):
                loop.run_until_complete(result)
    finally:
        loop.close()
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert tests
    for test in tests:
        test(emulator_replay)
    recorded = {p.parent.name for p in tmp_path.glob("recordings/*/001.sse")}
    assert recorded == {"core", "langchain", "llamaindex", "async", "proxied"}
