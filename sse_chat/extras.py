"""Optional dependencies: which extra a command needs, checked before anything starts.

A core-only install (``pip install sse-connectors``) has neither uvicorn (the emulator)
nor the frameworks; the commands that need them say, in one line, what to install.
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRA_MODULES", "missing_extra"]

#: The module each extra brings, by extra name.
EXTRA_MODULES = {
    "emulator": "uvicorn",
    "cli": "uvicorn",
    "langchain": "langchain_core",
    "llamaindex": "llama_index.core",
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # the parent package of a dotted name is missing
        return False


def missing_extra(extra: str, what: str) -> str | None:
    """The one-line message when ``extra`` is not installed, else None.

    Args:
        extra: The extra's name (``emulator``, ``cli``, ``langchain``, ``llamaindex``).
        what: What needs it, for the message (``"the gateway emulator"``).
    """
    if _installed(EXTRA_MODULES[extra]):
        return None
    module = EXTRA_MODULES[extra].split(".")[0]
    return f"{what} needs {module}: pip install 'sse-connectors[{extra}]'"
