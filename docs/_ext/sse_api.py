"""The API reference's rules, over autodoc and napoleon.

- One description per object: a name several packages export (the adapters re-export the
  core's errors) is documented under the first package of :data:`sse_refs.PACKAGES` that
  exports it, and the others' module entries say where.
- A model class whose settings are pydantic fields (ChatSSE, SSELLM) gets a table of every
  field, with its type, default and description (:mod:`sse_fields`).
- Attribute and property docstrings are prose (``#: The response headers: ...``); napoleon
  would read a first line with a colon as ``type: description``, so they are kept as written.
"""

from __future__ import annotations

import importlib
from typing import Any

from sphinx.application import Sphinx
from sse_fields import field_lines, is_settings_model
from sse_refs import PACKAGES

#: The module whose members autodoc is documenting now (set by its module docstring).
_current: list[str] = [""]
#: Attribute docstrings as written, keyed by the object's name, until napoleon has run.
_prose: dict[str, list[str]] = {}
_PROSE = ("attribute", "property", "data")


def first_exporter(obj: Any, modules: tuple[str, ...]) -> str | None:
    """The first module (of ``modules``) whose ``__all__`` holds ``obj``."""
    for name in modules:
        module = importlib.import_module(name)
        if any(getattr(module, each, None) is obj for each in getattr(module, "__all__", ())):
            return name
    return None


def documented_modules(app: Sphinx) -> tuple[str, ...]:
    return tuple(app.config.sse_api_modules)


def _before_napoleon(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if what == "module":
        _current[0] = name
        others = _reexports(app, name)
        if others:
            lines.extend(
                [
                    "",
                    "Also exported here, and documented under their first package: "
                    + ", ".join(f":obj:`{target}`" for target in others)
                    + ".",
                ]
            )
    elif what in _PROSE:
        _prose[name] = list(lines)


def _after_napoleon(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if what in _PROSE and name in _prose:
        lines[:] = _prose.pop(name)
    elif what == "class" and is_settings_model(obj):
        lines.extend(field_lines(obj))  # its settings are fields, which autodoc does not list


def _reexports(app: Sphinx, module_name: str) -> list[str]:
    """The public names of ``module_name`` that an earlier package documents."""
    modules = documented_modules(app)
    if module_name not in modules:
        return []
    module = importlib.import_module(module_name)
    found = []
    for name in getattr(module, "__all__", ()):
        home = first_exporter(getattr(module, name), modules)
        if home is not None and home != module_name:
            found.append(f"{home}.{name}")
    return found


def _skip(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    if what != "module" or _current[0] not in documented_modules(app):
        return None
    home = first_exporter(obj, documented_modules(app))
    return True if home is not None and home != _current[0] else None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("sse_api_modules", PACKAGES, "env")
    app.connect("autodoc-process-docstring", _before_napoleon, priority=400)
    app.connect("autodoc-process-docstring", _after_napoleon, priority=600)
    app.connect("autodoc-skip-member", _skip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
