"""The emulator writes its own bytes: neither it nor its tests import the decoder."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sse_core.emulator

PACKAGE = Path(sse_core.emulator.__file__).parent
TESTS = Path(__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize(
    "path",
    sorted(PACKAGE.glob("*.py")) + sorted(TESTS.glob("*.py")),
    ids=lambda path: f"{path.parent.name}/{path.name}",
)
def test_no_decoder_import(path: Path) -> None:
    for module in imported_modules(path):
        assert not module.startswith("."), f"{path.name}: relative import {module}"
        if module == "sse_core" or module.startswith("sse_core."):
            assert module.startswith("sse_core.emulator"), f"{path.name} imports {module}"


def test_the_source_binds_loopback_and_never_all_interfaces() -> None:
    sources = "".join(path.read_text(encoding="utf-8") for path in PACKAGE.glob("*.py"))
    assert "0.0.0.0" not in sources
    assert 'HOST = "127.0.0.1"' in sources
