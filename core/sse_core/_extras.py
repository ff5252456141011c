"""Lazy names for the adapter packages: imported on first use, the extra named if missing.

``langchain_sse`` and ``llamaindex_sse`` install their framework only with an extra; their
module ``__getattr__`` loads each name through :func:`load_lazy` so that importing the
package works without the framework and using it says what to install.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["load_lazy"]


def load_lazy(package: str, name: str, home: str, *, framework: str, needs: str, extra: str) -> Any:
    """``name`` from module ``home``, for ``package``'s module ``__getattr__``.

    Args:
        package: The adapter package asking (named in the error).
        name: The attribute to load.
        home: The module that defines it.
        framework: The import-name prefix of the framework (``"langchain_core"``).
        needs: What the error says is needed (``"langchain-core >= 1.8 (Python 3.11+)"``).
        extra: The ``sse-connectors`` extra that installs it.

    Raises:
        ImportError: The framework is not installed (other missing modules propagate).
    """
    try:
        module = importlib.import_module(home)
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith(framework):
            raise
        raise ImportError(
            f"{package}.{name} needs {needs}: pip install 'sse-connectors[{extra}]'"
        ) from exc
    return getattr(module, name)
