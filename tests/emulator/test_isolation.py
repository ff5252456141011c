"""The emulator writes its own bytes: neither it nor its tests import the decoder.

Every module of the package, in every subfolder, is checked: it imports nothing from
``sse_core`` (it is a package of its own beside it) and uses no relative import. The tests
import ``sse_core`` only to check its ``sse_core.emulator`` alias. The pure layers
(``assistant/``, ``wire/``) import neither the server layer nor uvicorn.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sse_emulator

PACKAGE = Path(sse_emulator.__file__).parent
TESTS = Path(__file__).parent
SOURCES = sorted(PACKAGE.rglob("*.py"))
#: The one test module that imports the ``sse_core.emulator`` alias, to check it.
ALIAS_TESTS = "test_alias.py"
PURE = [path for path in SOURCES if path.parent.name in ("assistant", "wire")]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


def label(path: Path) -> str:
    root = PACKAGE if path.is_relative_to(PACKAGE) else TESTS.parent
    return str(path.relative_to(root))


def test_the_walk_covers_the_subfolders() -> None:
    folders = {path.parent.name for path in SOURCES}
    assert {"assistant", "wire", "server"} <= folders
    assert len(SOURCES) > 20


@pytest.mark.parametrize("path", SOURCES + sorted(TESTS.rglob("*.py")), ids=label)
def test_no_decoder_import(path: Path) -> None:
    for module in imported_modules(path):
        assert not module.startswith("."), f"{label(path)}: relative import {module}"
        if module.split(".")[0] != "sse_core":
            continue
        alias = module == "sse_core.emulator" or module.startswith("sse_core.emulator.")
        assert alias and path.name == ALIAS_TESTS, f"{label(path)} imports {module}"


@pytest.mark.parametrize("path", PURE, ids=label)
def test_the_pure_layers_import_no_server_and_no_uvicorn(path: Path) -> None:
    for module in imported_modules(path):
        assert not module.startswith("sse_emulator.server"), f"{label(path)}: {module}"
        assert module.split(".")[0] not in ("uvicorn", "asyncio", "socket"), label(path)


def test_only_the_background_runner_imports_uvicorn() -> None:
    importers = {label(path) for path in SOURCES if "uvicorn" in imported_modules(path)}
    assert importers == {"server/background.py"}


def test_the_source_binds_loopback_and_never_all_interfaces() -> None:
    sources = "".join(path.read_text(encoding="utf-8") for path in SOURCES)
    assert "0.0.0.0" not in sources
    assert 'HOST = "127.0.0.1"' in sources
