"""Cross-references to this project's own names, under the names users import them by.

The docstrings name objects where they are defined (``sse_core.errors.StreamError``,
``.registry.WireProtocol``); the API reference documents them where users import them from
(``sse_core.StreamError``). A reference the Python domain cannot resolve is looked up in the
code: an object that one of the packages exports is linked at its public name; an object that
exists but is internal (a private module, a helper no page documents) is shown as code without
a link; a name that exists nowhere stays unresolved, and the strict build fails on it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from docutils import nodes  # type: ignore[import-untyped]
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

#: The packages whose ``__all__`` the API reference documents, in the order they are tried.
PACKAGES = ("sse_core", "sse_emulator", "langchain_sse", "llamaindex_sse", "sse_chat")


def _lookup(path: str) -> tuple[Any, str] | None:
    """The object a dotted path names and the module it was found under, or None."""
    parts = path.split(".")
    if not all(part.isidentifier() for part in parts):
        return None  # prose a docstring's field list took for a type
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # not a module, or one that cannot be imported here
            continue
        for attribute in parts[cut:]:
            try:
                obj = getattr(obj, attribute)
            except AttributeError:
                return None
        return obj, ".".join(parts[:cut])
    return None


def _public_name(obj: Any) -> str | None:
    """``package.Name`` where a package exports ``obj``, or None."""
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            if getattr(module, name, None) is obj:
                return f"{package}.{name}"
    return None


def _candidates(node: pending_xref) -> list[str]:
    """The dotted paths a target may mean where it was written."""
    target = node["reftarget"].lstrip("~")
    module = node.get("py:module") or ""
    klass = node.get("py:class") or ""
    if target.startswith("."):  # relative to the module the docstring belongs to
        base = module
        while target.startswith(".."):
            base, target = base.rpartition(".")[0], target[1:]
        return [f"{base}{target}"]
    found = [target]
    if klass:
        found.append(f"{module}.{klass}.{target}")
    if module:
        found.append(f"{module}.{target}")
    return found


def _resolve(
    app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.TextElement
) -> nodes.Element | None:
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    for path in _candidates(node):
        found = _lookup(path)
        if found is None:
            continue
        obj, _ = found
        head, _, tail = path.rpartition(".")
        public = _public_name(obj)
        if public is None:  # a member: its owner's public name, then the member's
            owner = _lookup(head)
            owner_public = _public_name(owner[0]) if owner else None
            public = f"{owner_public}.{tail}" if owner_public else None
        if public is not None:
            for kind in ("obj", node["reftype"]):
                resolved = domain.resolve_xref(
                    env, node["refdoc"], app.builder, kind, public, node, contnode
                )
                if resolved is not None:
                    return resolved
        if isinstance(obj, ModuleType) or public is None or not _documented(env, public):
            return contnode  # exists, but no page documents it: code, without a link
    target = node["reftarget"].lstrip("~")
    if target.isidentifier() and _bare_name_exists(target):
        return contnode  # a name a module of ours holds (its own, or one it imports)
    return None


def _bare_name_exists(name: str) -> bool:
    """Whether a module of the packages holds ``name`` or imports it (type-checking imports
    included): a docstring's short reference to a name of its own module, or a type hint's
    imported name (``BaseMessage`` in langchain_sse.model)."""
    for module_name, module in list(sys.modules.items()):
        if module_name.split(".")[0] in PACKAGES and hasattr(module, name):
            return True
    return name in _imported_names()


@functools.cache
def _imported_names() -> frozenset[str]:
    """Every name the packages' modules import, read from their source."""
    names: set[str] = set()
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for path in Path(folder).rglob("*.py"):
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        names.update((alias.asname or alias.name).split(".")[0]
                                     for alias in node.names)  # fmt: skip
    return frozenset(names)


def _documented(env: BuildEnvironment, name: str) -> bool:
    return name in env.get_domain("py").objects  # type: ignore[attr-defined]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
