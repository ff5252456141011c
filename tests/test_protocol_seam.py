"""The adapters look a protocol up; they do not branch on its name (DESIGN, "Protocols").

Each adapter keeps one table from a protocol's name to its framework mapping
(``_protocols.py``); nothing else in an adapter names a protocol in its code: no comparison,
no membership test, no literal but the ``protocol`` field's default. Checked from the
sources, so a new branch fails here. The tables cover every protocol the core registers, and
a protocol the core does not know, or one an adapter does not map, is refused by name.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path
from typing import Any

import pytest

import langchain_sse._protocols as lc_table
import llamaindex_sse._protocols as li_table
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ConfigurationError, protocol_names

ROOT = Path(__file__).parent.parent
ADAPTERS = (ROOT / "langchain_sse", ROOT / "llamaindex_sse")
TABLE = "_protocols.py"


def _is_text(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of ``tree``: of modules, classes and functions,
    and the string right after an assignment (that attribute's docstring)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue
        texts = [body[0]] if _is_text(body[0]) else []
        texts += [
            after
            for before, after in itertools.pairwise(body)
            if isinstance(before, (ast.Assign, ast.AnnAssign)) and _is_text(after)
        ]
        found |= {id(text.value) for text in texts if isinstance(text, ast.Expr)}
    return found


def _defaults(tree: ast.AST) -> set[int]:
    """The ids of the constants that are the ``protocol`` field's default."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        if node.target.id != "protocol" or node.value is None:
            continue
        if isinstance(node.value, ast.Constant):
            found.add(id(node.value))
        elif isinstance(node.value, ast.Call):
            found |= {id(k.value) for k in node.value.keywords if k.arg == "default"}
    return found


def protocol_names_in(source: str, names: set[str]) -> list[int]:
    """The lines of ``source`` that name one of ``names`` in code."""
    tree = ast.parse(source)
    allowed = _docstrings(tree) | _defaults(tree)
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in names
        and id(node) not in allowed
    )


def test_the_check_finds_a_branch_on_a_protocol_name() -> None:
    planted = 'def f(model):\n    """anthropic"""\n    return model.protocol == "anthropic"\n'
    assert protocol_names_in(planted, {"anthropic"}) == [3]
    membership = 'X = 1\nif p in ("chat_completions", "x"):\n    pass\n'
    assert protocol_names_in(membership, {"chat_completions"}) == [2]


@pytest.mark.parametrize("package", ADAPTERS, ids=lambda path: path.name)
def test_no_adapter_module_but_its_table_names_a_protocol(package: Path) -> None:
    names = set(protocol_names())
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted(package.rglob("*.py"))
        if path.name != TABLE
        and (lines := protocol_names_in(path.read_text(encoding="utf-8"), names))
    }
    assert not found, f"a protocol's name outside the adapter's table: {found}"


@pytest.mark.parametrize("table", [lc_table, li_table], ids=["lc", "li"])
def test_each_adapter_maps_every_protocol_the_core_registers(table: Any) -> None:
    """Every registered protocol has a mapping; the overrides name registered protocols only."""
    assert set(table.OVERRIDES) <= set(protocol_names())
    for name in protocol_names():
        assert table.mapping_of(name) is table.mapping_of(name)  # made once


def test_a_protocol_not_registered_is_refused_by_name() -> None:
    for cls in (ChatSSE, SSELLM):
        with pytest.raises(ConfigurationError, match="protocol must be one of 'chat_completions'"):
            cls(model="m", base_url="http://127.0.0.1:9/v1", protocol="nope")
