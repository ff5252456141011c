"""No private name of a dependency outside the inventory of :mod:`sse_core.fast_paths`.

A private name of httpx, httpcore, h11, pydantic, langchain-core, llama-index-core, anyio,
uvicorn, starlette, msgspec or tiktoken may be used only where a registered fast path (on only
inside its tested ranges, with its probe passing, never with ``SSE_CONNECTORS_FAST=0``) or a
registered subclass hook declares it, in the module that uses it. The walker reads the source
of every package with :mod:`ast` and finds:

- an import of a dependency's private module or name (``from httpx import _client``);
- an attribute read or written on something other than ``self``/``cls``/``super()`` whose
  name only a dependency defines (``stream._httpcore_stream``), and every
  ``__pydantic_...__`` slot;
- a string naming one, as ``getattr`` and the probes name attributes (``"_transport"``), or
  a private folder of a dependency (``"_static"``);
- on a class of ours that derives from a dependency's class: a private name it defines or
  reads through ``self``/``super()`` that one of those dependency classes defines (an
  override of ``BaseChatModel._should_stream``, a call of ``super()._get_invocation_params``).

A dependency's names are what its own source defines (functions, classes, assignments,
attribute stores, slots, private modules and folders), read once from the installed copy.
The inventory must hold no name that is not used any more, so it stays the list of what the
code relies on.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sse_core import fast_paths

ROOT = Path(__file__).resolve().parents[1]
#: Our packages: name -> folder.
PACKAGES = {
    "sse_core": ROOT / "core" / "sse_core",
    "sse_emulator": ROOT / "core" / "sse_emulator",
    "langchain_sse": ROOT / "langchain_sse",
    "llamaindex_sse": ROOT / "llamaindex_sse",
    "sse_chat": ROOT / "sse_chat",
}
#: The dependencies whose private names are checked (import names).
DEPENDENCIES = (
    "httpx",
    "httpcore",
    "h11",
    "pydantic",
    "pydantic_core",
    "langchain_core",
    "llama_index.core",
    "anyio",
    "uvicorn",
    "starlette",
    "msgspec",
    "tiktoken",
)
#: The modules that register fast paths and hooks (imported before the inventory is read).
REGISTERING = ("langchain_sse.model", "llamaindex_sse.model", "sse_core.transport")


#: Underscored by design, public by documentation: a named tuple's methods (the underscore
#: keeps them apart from its field names).
PUBLIC = frozenset({"_asdict", "_field_defaults", "_fields", "_make", "_replace"})


def is_private(name: str) -> bool:
    """A leading underscore; of the dunders only pydantic's slots (``__pydantic_private__``),
    not the protocol methods (``__init__``, ``__enter__``)."""
    if name.startswith("__") and name.endswith("__"):
        return name.startswith("__pydantic_")
    return name.startswith("_") and name != "_" and name not in PUBLIC


def is_dependency(module: str) -> bool:
    return any(module == dep or module.startswith(dep + ".") for dep in DEPENDENCIES)


@dataclass(frozen=True, slots=True)
class Use:
    """One use of a private name: where, which, and how it was found."""

    module: str
    line: int
    name: str
    how: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.name} ({self.how})"


@dataclass(frozen=True, slots=True)
class ClassUse:
    """A private name defined on, or read through ``self``/``super()`` of, one of our classes
    (a dependency's only if a dependency class of its bases defines it)."""

    module: str
    line: int
    name: str
    owner: str
    how: str


# --- the dependencies' names ----------------------------------------------------------------


def _defined(tree: ast.Module) -> Iterator[str]:
    """The names a dependency's module defines: functions, classes, assignments, attribute
    stores and slots."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            yield node.attr
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
                if isinstance(target, ast.Name) and target.id == "__slots__" and node.value:
                    yield from _strings(node.value)


def _strings(node: ast.AST) -> Iterator[str]:
    for found in ast.walk(node):
        if isinstance(found, ast.Constant) and isinstance(found.value, str):
            yield found.value


@cache
def dependency_names() -> frozenset[str]:
    """Every private name the installed dependencies define, their private modules and
    folders (``_static``) included."""
    names: set[str] = set()
    for dependency in DEPENDENCIES:
        spec = importlib.util.find_spec(dependency)
        if spec is None or not spec.submodule_search_locations:
            continue
        for folder in spec.submodule_search_locations:
            for path in Path(folder).rglob("*"):
                if path.is_dir():
                    names.add(path.name)
                elif path.suffix == ".py":
                    names.add(path.stem)
                    try:
                        names.update(_defined(ast.parse(path.read_bytes())))
                    except SyntaxError:  # pragma: no cover - a template, not a module
                        continue
    return frozenset(name for name in names if is_private(name))


# --- the walker -------------------------------------------------------------------------------


def own_attributes(trees: Iterable[ast.Module]) -> frozenset[str]:
    """The attribute names our code defines: stores on ``self``/``cls``, class-body names,
    slots (a store on anything else may be a dependency's attribute)."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                names.update(_class_names(node))
    return frozenset(names)


def _class_names(node: ast.ClassDef) -> Iterator[str]:
    return (name for name, _line in _class_body(node))


def _class_body(node: ast.ClassDef) -> Iterator[tuple[str, int]]:
    """The names a class body defines (methods, attributes, slots) and their lines."""
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            yield item.name, item.lineno
        elif isinstance(item, ast.Assign | ast.AnnAssign):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    yield target.id, item.lineno
                    if target.id == "__slots__" and item.value is not None:
                        yield from ((s, item.lineno) for s in _strings(item.value))


class Walker(ast.NodeVisitor):
    """The private names one module of ours uses (see the module docstring)."""

    def __init__(self, module: str, dependency: frozenset[str], own: frozenset[str]) -> None:
        self.module = module
        self.dependency = dependency
        self.own = own
        self.found: list[Use] = []
        self.classes: list[ClassUse] = []
        self._owners: list[str] = []
        self._quiet: set[int] = set()  # docstrings, dict keys, slots: no attribute names

    def _use(self, node: ast.AST, name: str, how: str) -> None:
        self.found.append(Use(self.module, getattr(node, "lineno", 0), name, how))

    def _theirs(self, name: str) -> bool:
        return name.startswith("__pydantic_") or (name in self.dependency and name not in self.own)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if is_dependency(alias.name):
                for part in alias.name.split("."):
                    if is_private(part):
                        self._use(node, part, f"import {alias.name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or node.module is None or not is_dependency(node.module):
            return
        for part in node.module.split("."):
            if is_private(part):
                self._use(node, part, f"from {node.module} import")
        for alias in node.names:
            if is_private(alias.name):
                self._use(node, alias.name, f"from {node.module} import {alias.name}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        owner = ".".join([*self._owners, node.name])
        for name, line in _class_body(node):
            if is_private(name):
                self.classes.append(ClassUse(self.module, line, name, owner, "defined"))
        for item in node.body:
            if isinstance(item, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in item.targets
            ):
                self._quiet.update(id(n) for n in ast.walk(item.value))
        self._owners.append(node.name)
        self.generic_visit(node)
        self._owners.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._quiet_docstring(node.body)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Module(self, node: ast.Module) -> None:
        self._quiet_docstring(node.body)
        self.generic_visit(node)

    def _quiet_docstring(self, body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                self._quiet.add(id(statement.value))  # docstrings, attribute docstrings

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg == "uses":  # a fast path's or hook's declaration is no use
                self._quiet.update(id(n) for n in ast.walk(keyword.value))
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        self._quiet.update(id(key) for key in node.keys if key is not None)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if is_private(node.attr):
            receiver = node.value
            through_self = (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")) or (
                isinstance(receiver, ast.Call)
                and isinstance(receiver.func, ast.Name)
                and receiver.func.id == "super"
            )
            if through_self and self._owners and not node.attr.startswith("__pydantic_"):
                owner = ".".join(self._owners)
                self.classes.append(ClassUse(self.module, node.lineno, node.attr, owner, "read"))
            elif self._theirs(node.attr):
                self._use(node, node.attr, "attribute")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self._quiet:
            for part in node.value.replace("/", ".").split("."):
                if part.isidentifier() and is_private(part) and self._theirs(part):
                    self._use(node, part, "string")


def walk_source(
    source: str,
    module: str,
    resolve: Callable[[str], type | None],
    *,
    own: frozenset[str] | None = None,
) -> list[Use]:
    """The private names of dependencies ``source`` (module ``module``) uses; ``resolve``
    finds one of its classes by qualified name, to compare with the dependency bases."""
    tree = ast.parse(source)
    walker = Walker(module, dependency_names(), own_attributes([tree]) if own is None else own)
    walker.visit(tree)
    found = list(walker.found)
    for use in walker.classes:
        cls = resolve(use.owner)
        base = _dependency_base_with(cls, use.name) if cls is not None else None
        if base is not None:
            found.append(Use(use.module, use.line, use.name, f"{use.how} on {base}"))
    return found


def _dependency_base_with(cls: type, name: str) -> str | None:
    """The first dependency class among ``cls``'s bases that defines ``name``, or None."""
    for base in cls.__mro__[1:]:
        if not is_dependency(base.__module__):
            continue
        init = getattr(vars(base).get("__init__"), "__code__", None)
        if (
            name in vars(base)
            or name in (getattr(base, "__private_attributes__", None) or {})
            or (init is not None and name in init.co_names)
        ):
            return f"{base.__module__}.{base.__qualname__}"
    return None


def _modules() -> Iterator[tuple[str, Path]]:
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


def _resolver(module: str) -> Callable[[str], type | None]:
    def resolve(qualname: str) -> type | None:
        if module.endswith("__main__"):
            return None  # importing it would run it; it defines no class
        found: object = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part, None)
        return found if isinstance(found, type) else None

    return resolve


@cache
def uses_by_module() -> dict[str, list[Use]]:
    """Every private name of a dependency each of our modules uses."""
    sources = {module: path.read_text(encoding="utf-8") for module, path in _modules()}
    own = own_attributes(ast.parse(source) for source in sources.values())
    found: dict[str, list[Use]] = {}
    for module, source in sources.items():
        uses = walk_source(source, module, _resolver(module), own=own)
        if uses:
            found[module] = uses
    return found


@cache
def declared() -> dict[str, tuple[str, ...]]:
    """The registry's inventory, once every registering module is imported."""
    for module in REGISTERING:
        importlib.import_module(module)
    return fast_paths.inventory()


# --- the checks -------------------------------------------------------------------------------


def test_every_private_name_of_a_dependency_is_in_the_inventory() -> None:
    inventory = declared()
    stray = [
        str(use)
        for module, uses in uses_by_module().items()
        for use in uses
        if use.name not in inventory.get(module, ())
    ]
    assert not stray, "private names of dependencies outside the registry:\n" + "\n".join(stray)


def test_the_inventory_names_only_what_is_used() -> None:
    used = {module: {use.name for use in uses} for module, uses in uses_by_module().items()}
    stale = [
        f"{module}: {name}"
        for module, names in declared().items()
        for name in names
        if name not in used.get(module, set())
    ]
    assert not stale, "the inventory declares names no longer used:\n" + "\n".join(stale)


#: A module that takes every kind of shortcut, and one that takes none.
PLANTED = '''
from httpx._client import BoundSyncStream
from langchain_core.language_models.chat_models import _format_for_tracing
from langchain_core.language_models import BaseChatModel
import httpcore._async.http11


class Model(BaseChatModel):
    """A docstring naming _httpcore_stream is no use."""

    def _should_stream(self, **kwargs):
        return super()._get_invocation_params()


def read(response, block, path):
    state = response.stream._httpcore_stream
    mimetype = getattr(block, "_guess_mimetype")()
    private = block.__pydantic_private__
    return path / "_static" / "tiktoken_cache", state, mimetype, private
'''
CLEAN = """
import sys
from collections import namedtuple


class Own:
    __slots__ = ("_state",)

    def __init__(self):
        self._state = 0

    def _step(self):
        return self._state


def read(own, point):
    frame = sys._getframe()
    return own._state, {"_type": "x"}, point._replace(x=1), frame
"""


def _planted(source: str) -> set[str]:
    namespace: dict[str, object] = {}
    exec(compile(source, "<planted>", "exec"), namespace)  # our own test source

    def resolve(qualname: str) -> type | None:
        found = namespace.get(qualname)
        return found if isinstance(found, type) else None

    return {use.name for use in walk_source(source, "planted", resolve)}


def test_the_walker_finds_every_kind_of_use() -> None:
    assert _planted(PLANTED) == {
        "_client",
        "_format_for_tracing",
        "_async",
        "_should_stream",
        "_get_invocation_params",
        "_httpcore_stream",
        "_guess_mimetype",
        "__pydantic_private__",
        "_static",
    }


def test_the_walker_leaves_our_own_and_the_standard_librarys_names_alone() -> None:
    assert _planted(CLEAN) == set()


def test_a_use_outside_the_inventory_fails_the_check() -> None:
    inventory = declared()
    uses = walk_source(PLANTED, "langchain_sse._run", lambda qualname: None)
    stray = {use.name for use in uses if use.name not in inventory.get("langchain_sse._run", ())}
    assert "_format_for_tracing" not in stray  # the own loop's, declared
    assert {"_client", "_httpcore_stream", "_guess_mimetype", "_static"} <= stray


def test_every_hook_is_still_on_its_base_class() -> None:
    declared()
    assert fast_paths.hooks(), "no subclass hook registered"
    for name, state in fast_paths.hooks().items():
        assert state["probe"] is None, (name, state)


def test_with_the_switch_no_registered_private_name_is_used() -> None:
    """``SSE_CONNECTORS_FAST=0``: every fast path, each holding its private names, is off,
    so what remains are the hooks' (a fresh process: the adapters decide at import)."""
    code = (
        "import json\n"
        "import langchain_sse.model, llamaindex_sse.model, sse_core.transport\n"
        "from sse_core import fast_paths\n"
        "print(json.dumps({name: state['on'] for name, state in "
        "fast_paths.fast_paths().items()}))\n"
    )
    env = {**os.environ, fast_paths.ENV: "0"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    states = json.loads(done.stdout)
    declared()  # the same registrations in this process
    assert set(states) == set(fast_paths.registered())
    assert not any(states.values()), states


def test_every_fast_path_declares_what_it_uses() -> None:
    declared()
    assert [name for name, path in fast_paths.registered().items() if not path.uses] == []
