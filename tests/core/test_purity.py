"""The sans-IO modules import no I/O: no httpx, asyncio, sockets, threads or files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sse_core

PACKAGE = Path(sse_core.__file__).parent
PURE = [
    "sse",
    "think",
    "chunks",
    "events",
    "completion",
    "accumulator",
    "decoder",
    "errors",
    "api",
    "session",
    "retry",
]
FORBIDDEN = {"httpx", "asyncio", "anyio", "socket", "threading", "ssl", "select", "trio"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", PURE)
def test_pure_module_imports_no_io(module: str) -> None:
    imports = imported_modules(PACKAGE / f"{module}.py")
    roots = {name.split(".")[0] for name in imports}
    assert not roots & FORBIDDEN, f"{module}.py imports {sorted(roots & FORBIDDEN)}"
    internal = {name.split(".")[1] for name in imports if name.startswith("sse_core.")}
    assert internal <= set(PURE), f"{module}.py imports non-pure {sorted(internal - set(PURE))}"
