"""A core-only install (no uvicorn): the emulator says which extra to install.

Each case runs in a fresh interpreter with uvicorn blocked, so the test's own process,
which has uvicorn, proves nothing by accident.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import sse_emulator

PACKAGE = Path(sse_emulator.__file__).parent
#: The modules that run uvicorn, or import one that does.
NEEDS_UVICORN = {
    "__init__",
    "__main__",
    "cli",
    "pytest_plugin",
    "server.background",
    "server.foreground",
}
EXTRA = "pip install 'sse-connectors[emulator]'"

BLOCK_UVICORN = """
import sys

class BlockUvicorn:
    tried = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "uvicorn":
            BlockUvicorn.tried.append(name)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, BlockUvicorn())
"""


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    "statement",
    [
        "import sse_emulator",
        "from sse_emulator import Emulator",
        "import sse_core.emulator",
        "from sse_core.emulator import Emulator",
    ],
)
@pytest.mark.parametrize("blocking", ["finder", "none-in-sys-modules"])
def test_importing_the_emulator_without_uvicorn_names_the_extra(
    statement: str, blocking: str
) -> None:
    block = BLOCK_UVICORN if blocking == "finder" else "import sys\nsys.modules['uvicorn'] = None\n"
    code = f"""{block}
try:
    {statement}
except ImportError as error:
    print(type(error).__name__)
    print(error)
else:
    print("imported")
"""
    result = python(code)
    assert result.returncode == 0, result.stderr
    kind, message = result.stdout.strip().split("\n", 1)
    assert kind == "ImportError"  # not a bare ModuleNotFoundError
    assert EXTRA in message and "uvicorn" in message


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)
        names.append(name)
    return names


def test_every_module_but_the_runners_imports_without_uvicorn() -> None:
    """The package's ``__init__`` needs uvicorn (it exports ``Emulator``), so it is
    replaced by a bare package here: what is left must import with uvicorn blocked."""
    pure = [name for name in module_names() if name not in NEEDS_UVICORN]
    assert "wire.plan" in pure and "assistant.respond" in pure and "replay.recording" in pure
    code = f"""{BLOCK_UVICORN}
import importlib, types
package = types.ModuleType("sse_emulator")
package.__path__ = [{str(PACKAGE)!r}]
sys.modules["sse_emulator"] = package
for name in {pure!r}:
    importlib.import_module("sse_emulator." + name)
print("tried", BlockUvicorn.tried)
"""
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "tried []"
