"""The ordinary test run reads well: no benchmark table, no third-party warning noise, and
the project's own warnings are errors (pytest configuration in pyproject.toml); the suites'
support modules import as a package, with no test folder on pytest's path, and no test file
name is in both adapter folders (what both adapters share is tested once, in tests/adapters)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
#: A test that uses pytest-benchmark's fixture, and one whose dependencies warn a lot.
NOISY = [
    "tests/langchain/test_standard.py::TestChatSSEUnit::test_init_time",
    "tests/emulator/test_react.py::test_llamaindex_react_agent_calls_the_tool_and_answers_from_it",
]


@pytest.mark.timeout(180)
def test_a_run_prints_no_benchmark_table_and_no_warnings() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *NOISY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=170,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    assert "benchmark" not in result.stdout.lower()
    assert "warning" not in result.stdout.lower(), result.stdout


@pytest.mark.parametrize("package", ["sse_core", "langchain_sse", "llamaindex_sse", "sse_chat"])
def test_the_projects_own_warnings_are_errors(package: str) -> None:
    code = compile("import warnings\nwarnings.warn('ours', DeprecationWarning)", package, "exec")
    with pytest.raises(DeprecationWarning):
        exec(code, {"__name__": f"{package}.somewhere"})
    with pytest.warns(DeprecationWarning):  # anyone else's: a warning, not an error
        exec(code, {"__name__": "somebody_else"})


def test_no_test_folder_is_on_pytests_path() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (line,) = re.findall(r"^pythonpath = .*$", text, flags=re.MULTILINE)
    assert line == 'pythonpath = ["."]'
    assert (ROOT / "tests" / "__init__.py").is_file()


def test_no_test_file_name_is_in_both_adapter_folders() -> None:
    def names(folder: str) -> set[str]:
        return {path.name for path in (ROOT / "tests" / folder).glob("test_*.py")}

    assert names("langchain") & names("llamaindex") == set()
    assert len(names("langchain")) > 10 and len(names("llamaindex")) > 10
