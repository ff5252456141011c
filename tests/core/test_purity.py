"""The sans-IO modules import no I/O: no httpx, asyncio, sockets, threads or files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sse_core

PACKAGE = Path(sse_core.__file__).parent
#: The shared vocabulary at the package root, and the whole sans-IO pipeline folder.
ROOT = ["events", "completion", "errors", "_compat", "_redact", "_choices"]
PIPELINE = sorted(p.stem for p in (PACKAGE / "pipeline").glob("*.py") if p.stem != "__init__")
#: The protocol modules (a package each, or a module): decoders, request shapes and request
#: rules, no I/O either; as paths below the package, without ``.py``.
PROTOCOLS = sorted(
    str(p.relative_to(PACKAGE / "protocols").with_suffix("")).removesuffix("/__init__")
    for p in (PACKAGE / "protocols").rglob("*.py")
)
PURE = (
    [f"{name}.py" for name in ROOT]
    + [f"pipeline/{name}.py" for name in PIPELINE]
    + [str(p.relative_to(PACKAGE)) for p in sorted((PACKAGE / "protocols").rglob("*.py"))]
)
PURE_MODULES = (
    {f"sse_core.{name}" for name in ROOT}
    | {"sse_core.pipeline"}
    | {f"sse_core.pipeline.{name}" for name in PIPELINE}
    | {
        f"sse_core.protocols.{name}".replace("/", ".").removesuffix(".__init__")
        for name in PROTOCOLS
    }
)
FORBIDDEN = {
    "httpx", "asyncio", "anyio", "socket", "threading", "ssl", "select", "trio", "os",
    "pathlib", "io", "subprocess", "urllib", "http", "selectors", "multiprocessing",
}  # fmt: skip


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_pipeline_and_protocol_folders_are_covered() -> None:
    assert {"parser", "chunks", "accumulator", "session", "decoder", "think"} <= set(PIPELINE)
    assert {"registry", "turns", "chat_completions", "anthropic/rules"} <= set(PROTOCOLS)


@pytest.mark.parametrize("module", PURE)
def test_pure_module_imports_no_io(module: str) -> None:
    imports = imported_modules(PACKAGE / module)
    roots = {name.split(".")[0] for name in imports}
    assert not roots & FORBIDDEN, f"{module} imports {sorted(roots & FORBIDDEN)}"
    internal = {name for name in imports if name.startswith("sse_core")}
    assert internal <= PURE_MODULES, f"{module} imports non-pure {sorted(internal - PURE_MODULES)}"
