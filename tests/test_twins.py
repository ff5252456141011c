"""Sync/async twins stay thin: where a function has an async twin (``x``/``ax``,
``_x``/``_ax``, or the same method name in a sync and an async class of one module), both
bodies are at most 15 lines, so every decision lives in shared code, once."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
FOLDERS = [ROOT / "core" / "sse_core", ROOT / "langchain_sse", ROOT / "llamaindex_sse"]
MODULES = sorted(p for folder in FOLDERS for p in folder.rglob("*.py"))
LIMIT = 15

Function = ast.FunctionDef | ast.AsyncFunctionDef


def body_lines(node: Function) -> int:
    """Lines of the body, docstring left out."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:] or body
    end = node.end_lineno or node.lineno
    return end - body[0].lineno + 1


def functions(tree: ast.Module) -> list[tuple[str, Function]]:
    """(owner, function) for module functions ("") and methods (their class name)."""
    found: list[tuple[str, Function]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(("", node))
        elif isinstance(node, ast.ClassDef):
            found += [
                (node.name, item)
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    return found


def sync_name(name: str) -> str:
    """The name of the sync twin of an async function named ``name``."""
    if name.startswith("_a"):
        return "_" + name[2:]
    if name.startswith("a"):
        return name[1:]
    return name


def twins(path: Path) -> list[tuple[Function, Function]]:
    found = functions(ast.parse(path.read_text(encoding="utf-8")))
    syncs = [(owner, f) for owner, f in found if isinstance(f, ast.FunctionDef)]
    pairs = []
    for owner, f in found:
        if not isinstance(f, ast.AsyncFunctionDef):
            continue
        for other_owner, g in syncs:
            same_place = other_owner == owner or (other_owner and owner)
            if same_place and g.name in {sync_name(f.name), f.name}:
                pairs.append((g, f))
    return pairs


def test_there_are_twins() -> None:
    assert sum(len(twins(path)) for path in MODULES) >= 10


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_twins_are_thin(path: Path) -> None:
    fat = [
        f"{f.name} ({body_lines(f)} lines)"
        for pair in twins(path)
        for f in pair
        if body_lines(f) > LIMIT
    ]
    assert not fat, f"twins over {LIMIT} lines: {fat}"
