"""The one registry of fast paths: shortcuts through framework internals, each proven or off.

The adapters and the transport take shortcuts where a framework's public machinery costs
much (an own stream loop, objects built without validation, connection reuse read from
httpcore's state). Each shortcut is a :class:`FastPath` registered here by the package
that takes it: what it skips, the distributions it relies on with the version ranges CI has
tested it on, a probe of the shapes it expects, and its faithful alternative (the
framework's public machinery, complete, only slower), and the dependencies' private names
it reads, writes or overrides, by the module that does (:attr:`FastPath.uses`).

A framework's subclass hook with a private name (LangChain's ``_generate``, LlamaIndex's
``_prepare_chat_with_tools``) is no shortcut: it is how the framework asks to be extended,
and there is no public alternative to fall back to. Each such override is a :class:`Hook`
registered here with where the framework documents it and a probe that the base class still
has it. These two inventories are the only places a private name of a dependency may be
used: ``tests/test_private_names.py`` walks the source and fails on any other, so with
``SSE_CONNECTORS_FAST=0`` the code uses public API and the registered hooks only.

A fast path is on only when ``SSE_CONNECTORS_FAST`` is not ``0``, every installed version
is inside its tested range, and its probe finds what it expects. The decision is made once,
at the first :func:`is_on` (the code that takes a shortcut asks at import or once per call,
never per chunk) and kept; :func:`fast_paths` says which are on and why, for bug reports
(``sse-chat info`` prints it). The adapters register their entries when they are imported.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

__all__ = [
    "ENV",
    "Decision",
    "FastPath",
    "Hook",
    "decide",
    "fast_paths",
    "forced",
    "hook",
    "hooks",
    "in_range",
    "installed_version",
    "inventory",
    "is_on",
    "register",
    "registered",
    "report",
    "reset",
    "stand_in",
    "switched_off",
    "unassigned",
]

#: The environment variable that turns every fast path off when it is ``0``.
ENV = "SSE_CONNECTORS_FAST"

#: A probe: None when the shapes are as expected, else what differs.
Probe = Callable[[], "str | None"]


@dataclass(frozen=True, slots=True)
class FastPath:
    """One shortcut and what it relies on."""

    name: str
    """Its name in reports (``"langchain.own_loop"``)."""
    shortcut: str
    """What it skips, in a sentence."""
    tested: Mapping[str, str]
    """Distribution name -> the version range CI has tested it on (``">=1.8,<1.9"``)."""
    probe: Probe = field(compare=False)
    """Run once, at the first decision: None when the shapes it expects are there."""
    faithful: str
    """What runs instead, in a sentence."""
    uses: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    """The dependencies' private names the shortcut reads, writes or overrides, by the module
    that does (``{"sse_core.transport.head": ("_pool", "_requests")}``); only when it is on."""


@dataclass(frozen=True, slots=True)
class Hook:
    """Subclass hooks of a framework with private names, overridden (always: no fast path)."""

    name: str
    """Its name in reports (``"langchain.chat_model_hooks"``)."""
    base: str
    """The framework class whose hooks they are (``"langchain_core...BaseChatModel"``)."""
    documented: str
    """Where the framework asks subclasses to override them, in a sentence."""
    uses: Mapping[str, tuple[str, ...]]
    """The hooks, by the module that overrides or calls them."""
    probe: Probe = field(compare=False)
    """None when the base class still has every hook, else what is gone."""


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a fast path is on, and why."""

    on: bool
    why: str


_REGISTRY: dict[str, FastPath] = {}
_DECISIONS: dict[str, Decision] = {}
_HOOKS: dict[str, Hook] = {}


def register(path: FastPath) -> FastPath:
    """Add ``path`` (again with the same name: replaced, its decision made anew)."""
    _REGISTRY[path.name] = path
    _DECISIONS.pop(path.name, None)
    return path


def registered() -> dict[str, FastPath]:
    """The registered fast paths by name (the adapters' only once they are imported)."""
    return dict(_REGISTRY)


def hook(entry: Hook) -> Hook:
    """Add the subclass hooks ``entry`` (again with the same name: replaced)."""
    _HOOKS[entry.name] = entry
    return entry


def hooks() -> dict[str, dict[str, Any]]:
    """Each registered set of hooks: ``{"base": str, "probe": None or what is gone}``."""
    found: dict[str, dict[str, Any]] = {}
    for name, entry in sorted(_HOOKS.items()):
        try:
            failed = entry.probe()
        except Exception as exc:  # a probe that breaks found shapes it did not expect
            failed = f"{type(exc).__name__}: {exc}"
        found[name] = {"base": entry.base, "probe": failed}
    return found


def inventory() -> dict[str, tuple[str, ...]]:
    """Every private name of a dependency the code may use, by module: the registered fast
    paths' and hooks' :attr:`~FastPath.uses` merged (for ``tests/test_private_names.py``)."""
    merged: dict[str, set[str]] = {}
    declarations = [path.uses for path in _REGISTRY.values()]
    declarations += [entry.uses for entry in _HOOKS.values()]
    for uses in declarations:
        for module, names in uses.items():
            merged.setdefault(module, set()).update(names)
    return {module: tuple(sorted(names)) for module, names in sorted(merged.items())}


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None if it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _numbers(version: str) -> tuple[int, ...]:
    """The release numbers of ``version`` (``"1.9.0rc1"`` -> ``(1, 9, 0)``)."""
    found = re.match(r"\d+(?:\.\d+)*", version.strip())
    return tuple(int(part) for part in found.group().split(".")) if found else ()


def _compare(left: tuple[int, ...], right: tuple[int, ...]) -> int:
    width = max(len(left), len(right))
    padded_left = left + (0,) * (width - len(left))
    padded_right = right + (0,) * (width - len(right))
    return (padded_left > padded_right) - (padded_left < padded_right)


_HOLDS: dict[str, Callable[[int], bool]] = {
    ">=": lambda c: c >= 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    "<": lambda c: c < 0,
    "==": lambda c: c == 0,
}


def in_range(version: str, spec: str) -> str | None:
    """None if ``version`` satisfies every clause of ``spec`` (``">=1.8,<1.9"``), else the
    failed clause. Numeric release segments only, compared padded with zeros."""
    mine = _numbers(version)
    for clause in filter(None, (part.strip() for part in spec.split(","))):
        found = re.fullmatch(r"(>=|<=|==|<|>)\s*([\d.]+)", clause)
        if found is None:
            raise ValueError(f"unsupported version clause {clause!r} in {spec!r}")
        if not mine or not _HOLDS[found.group(1)](_compare(mine, _numbers(found.group(2)))):
            return clause
    return None


#: The module a distribution is imported as, where it is not its name with ``_`` for ``-``.
_MODULES = {"llama-index-core": "llama_index.core"}


def stand_in(distribution: str) -> str | None:
    """What runs under ``distribution``'s import name when it is another package, or None.

    ``httpx2.alias_httpx()`` makes ``import httpx`` give the module ``httpx2`` (and
    ``httpcore`` ``httpcore2``) while the distribution ``httpx`` may still be installed: its
    version says nothing of the code that runs. The module loaded is judged, not the
    distribution of the same name."""
    name = _MODULES.get(distribution, distribution.replace("-", "_"))
    module = sys.modules.get(name)
    actual = getattr(module, "__name__", name) if module is not None else name
    if actual == name:
        return None
    version = getattr(module, "__version__", None)
    return f"{actual} {version}" if isinstance(version, str) else actual


def _outside(distribution: str, spec: str) -> str | None:
    """Why ``distribution``'s installed version is outside ``spec`` (None: inside)."""
    other = stand_in(distribution)
    if other is not None:
        return f"{distribution} is {other} here (an alias): not the tested {distribution}"
    version = installed_version(distribution)
    if version is None:
        return f"{distribution} is not installed"
    clause = in_range(version, spec)
    if clause is None:
        return None
    side = "newer" if clause.startswith("<") else "older"
    return f"{distribution} {version} is {side} than the tested {clause}"


def unassigned(cls: type, *names: str) -> str | None:
    """For probes of private attributes: the first of ``names`` that ``cls`` neither has nor
    assigns in its ``__init__`` (``"Pool._requests"``), or None."""
    init = getattr(cls, "__init__", None)
    assigned = getattr(getattr(init, "__code__", None), "co_names", ())
    for name in names:
        if not hasattr(cls, name) and name not in assigned:
            return f"{cls.__module__}.{cls.__qualname__}.{name}"
    return None


def switched_off() -> bool:
    """Whether ``SSE_CONNECTORS_FAST=0`` turns every fast path off."""
    return os.environ.get(ENV, "").strip() == "0"


def _decide(path: FastPath) -> Decision:
    if switched_off():
        return Decision(False, f"{ENV}=0")
    for distribution, spec in path.tested.items():
        outside = _outside(distribution, spec)
        if outside is not None:
            return Decision(False, outside)
    try:
        failed = path.probe()
    except Exception as exc:  # a probe that breaks found shapes it did not expect
        failed = f"{type(exc).__name__}: {exc}"
    if failed is not None:
        return Decision(False, f"probe: {failed}")
    tested = "; ".join(
        f"{dist} {installed_version(dist)} in the tested {spec}"
        for dist, spec in path.tested.items()
    )
    return Decision(True, f"{tested}; probe passed")


def decide(name: str) -> Decision:
    """Whether the fast path ``name`` is on, and why (decided once, then kept)."""
    decision = _DECISIONS.get(name)
    if decision is None:
        decision = _DECISIONS[name] = _decide(_REGISTRY[name])
    return decision


def is_on(name: str) -> bool:
    """Whether the fast path ``name`` is on (see :func:`decide`)."""
    decision = _DECISIONS.get(name)
    return decision.on if decision is not None else decide(name).on


def reset() -> None:
    """Forget every decision (tests, after changing the environment or a version)."""
    _DECISIONS.clear()


@contextmanager
def forced(name: str, on: bool) -> Iterator[None]:
    """For tests: the fast path ``name`` on or off inside the block (where the code asks
    per call; a choice made at import is the module's to switch)."""
    before = _DECISIONS.get(name)
    _DECISIONS[name] = Decision(on, f"forced {'on' if on else 'off'}")
    try:
        yield
    finally:
        if before is None:
            _DECISIONS.pop(name, None)
        else:
            _DECISIONS[name] = before


def fast_paths() -> dict[str, dict[str, Any]]:
    """Each registered fast path: ``{"on": bool, "why": str}``."""
    return {
        name: {"on": decision.on, "why": decision.why}
        for name, decision in ((name, decide(name)) for name in sorted(_REGISTRY))
    }


def report() -> dict[str, Any]:
    """For bug reports: Python, platform, versions, tested ranges, the fast paths and the
    subclass hooks."""
    distributions = ["sse-connectors"]
    for path in _REGISTRY.values():
        distributions += [name for name in path.tested if name not in distributions]
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "versions": {name: installed_version(name) for name in distributions},
        "tested": {name: dict(path.tested) for name, path in sorted(_REGISTRY.items())},
        "fast_paths": fast_paths(),
        "hooks": hooks(),
    }
