"""``sse_core.emulator``, the emulator's former name, is an alias of ``sse_emulator``.

The names, submodules and command line documented under the old name keep working, and
each resolves to the very object of the new package (one class, one module), never a copy.
"""

from __future__ import annotations

import importlib
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

import sse_core.emulator
import sse_emulator
import sse_emulator.pytest_plugin
import sse_emulator.replay.recording
import sse_emulator.server.background
from sse_core.emulator import Emulator

BODY = {"model": "m", "messages": [{"role": "user", "content": "count to 3"}], "stream": True}


def test_the_public_names_are_the_new_packages_objects() -> None:
    assert Emulator is sse_emulator.Emulator
    assert sse_core.emulator.__all__ == sse_emulator.__all__
    for name in sse_emulator.__all__:
        assert getattr(sse_core.emulator, name) is getattr(sse_emulator, name), name


@pytest.mark.parametrize(
    "name", ["pytest_plugin", "replay.recording", "server.background", "wire", "cli"]
)
def test_a_submodule_is_one_module_under_both_names(name: str) -> None:
    old = importlib.import_module(f"sse_core.emulator.{name}")
    new = importlib.import_module(f"sse_emulator.{name}")
    assert old is new
    # It keeps its own name and spec (reload and pickling use them).
    assert new.__name__ == new.__spec__.name == f"sse_emulator.{name}"


def test_a_class_from_an_aliased_submodule_is_the_same_class() -> None:
    from sse_core.emulator.replay.recording import RecordingError
    from sse_core.emulator.server.background import Emulator as Background

    assert RecordingError is sse_emulator.replay.recording.RecordingError
    assert Background is sse_emulator.server.background.Emulator is Emulator


def test_an_unknown_submodule_is_not_found_under_the_old_name() -> None:
    with pytest.raises(ModuleNotFoundError, match=r"sse_core\.emulator\.nope"):
        importlib.import_module("sse_core.emulator.nope")


def test_the_old_pytest_plugin_name_gives_the_fixtures(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["sse_core.emulator.pytest_plugin"]\n', encoding="utf-8"
    )
    (tmp_path / "test_it.py").write_text(
        textwrap.dedent(
            """
            import httpx

            def test_it(emulator):
                body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
                answer = httpx.post(emulator.base_url() + "/chat/completions", json=body)
                assert answer.status_code == 200
            """
        ),
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_python_m_the_old_name_serves() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "sse_core.emulator", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+) ", banner)
        assert match, banner
        url = f"http://127.0.0.1:{match.group(1)}/v1/chat/completions"
        with httpx.Client(timeout=30.0) as http:
            answer = http.post(url, json=BODY)
        assert answer.status_code == 200
        assert answer.text.rstrip().endswith("data: [DONE]")
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)


def test_python_m_the_old_name_names_itself_in_usage_errors() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sse_core.emulator", "--port", "x"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "python -m sse_core.emulator: error: argument --port" in result.stderr
