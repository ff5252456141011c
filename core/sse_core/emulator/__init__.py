"""``sse_core.emulator``: the emulator's former name, an alias of :mod:`sse_emulator`.

The emulator is its own package, ``sse_emulator``, in the same wheel: it writes its wire
bytes with code of its own and imports nothing from ``sse_core``. This module re-exports
its public names, ``python -m sse_core.emulator`` runs its command line, and each of its
submodules answers to both names as one module object (``sse_core.emulator.pytest_plugin``
*is* ``sse_emulator.pytest_plugin``), so a class reached through either name is one class.
New code uses ``sse_emulator``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

from sse_emulator import (
    DIALECTS,
    FAULT_HEADER,
    FAULTS,
    Emulator,
    EmulatorApp,
    EmulatorState,
    RequestRecord,
    serve,
)

__all__ = [
    "DIALECTS",
    "FAULTS",
    "FAULT_HEADER",
    "Emulator",
    "EmulatorApp",
    "EmulatorState",
    "RequestRecord",
    "serve",
]

_ALIAS = __name__ + "."
_TARGET = "sse_emulator."
#: Found in this folder as a file of its own: runpy reads its code to run it as __main__.
_OWN = {_ALIAS + "__main__"}


class _SameModule(Loader):
    """Loads ``sse_core.emulator.X`` as the module ``sse_emulator.X`` (never a copy)."""

    def __init__(self, target: str) -> None:
        self._target = target
        self._spec: ModuleSpec | None = None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = importlib.import_module(self._target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system stamps the alias's spec on the module it was given: give the
        # shared module back its own, so reloading and pickling use its real name.
        module.__spec__ = self._spec


class _AliasFinder(MetaPathFinder):
    """Resolves every ``sse_core.emulator.*`` name to its ``sse_emulator.*`` module."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith(_ALIAS) or fullname in _OWN:
            return None
        real = _TARGET + fullname[len(_ALIAS) :]
        found = importlib.util.find_spec(real)
        if found is None:
            return None
        package = found.submodule_search_locations is not None
        return ModuleSpec(fullname, _SameModule(real), is_package=package)


if not any(type(finder).__name__ == _AliasFinder.__name__ for finder in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())
