"""The fields of the adapters' model classes, as tables in the API reference.

ChatSSE and SSELLM are pydantic models: their settings are fields (``model_fields``), not class
attributes, so autodoc's ``:members:`` lists none of them. :func:`field_lines` renders each as
a row (name and alias, type, default, description), ours first, then the framework's own
fields the class inherits (LangChain's ``BaseChatModel``, LlamaIndex's ``LLM``), so the page
shows every setting a user can pass. A default made by a factory (a key read from the
environment, a fresh dict) is said to be one, never called: it could hold a secret.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

#: The packages whose classes own the fields of the first table.
OURS = ("langchain_sse", "llamaindex_sse", "sse_core")


def _root(module: str) -> str:
    return module.partition(".")[0]


def owner(cls: type[BaseModel], name: str) -> type:
    """The class of ``cls``'s MRO that declares the field ``name``."""
    for base in cls.__mro__:
        if name in getattr(base, "__annotations__", {}):
            return base
    return cls


def type_text(annotation: Any) -> str:
    """A short spelling of a field's type (``dict[str, str] | None``, no module paths)."""
    spelled = annotation.__name__ if isinstance(annotation, type) else repr(annotation)
    spelled = re.sub(r"\b[a-z_][a-z_0-9]*(?:\.[a-z_0-9]+)*\.(?=[A-Za-z])", "", spelled)
    return spelled.replace("NoneType", "None")


def default_text(field: FieldInfo) -> str:
    """The field's default as a literal, or how it is made (never by calling a factory)."""
    if field.default_factory is not None:
        return "made at construction"
    if field.default is PydanticUndefined:
        return "required"
    shown = repr(field.default)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _description(field: FieldInfo, framework: str | None) -> list[str]:
    text = (field.description or "").strip()
    if framework is None:
        return text.splitlines() or [""]
    said = f"A field of {framework}."
    if text:
        # The framework's words are Markdown: keep their first sentence, code as code.
        first = re.split(r"(?<=\.)\s", " ".join(text.split()), maxsplit=1)[0]
        said += " " + re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", first)
    return [said]


def _row(name: str, field: FieldInfo, framework: str | None) -> list[str]:
    label = f"``{name}``" + (f" (alias ``{field.alias}``)" if field.alias else "")
    description = _description(field, framework)
    lines = [
        f"   * - {label}",
        f"     - ``{type_text(field.annotation)}``",
        f"     - ``{default_text(field)}``",
        f"     - {description[0]}",
    ]
    lines += [f"       {line}" if line.strip() else "" for line in description[1:]]
    return lines


def _table(title: str, rows: list[list[str]]) -> list[str]:
    head = [
        f".. list-table:: {title}",
        "   :header-rows: 1",
        "   :widths: 22 22 16 40",
        "",
        "   * - Field",
        "     - Type",
        "     - Default",
        "     - Description",
    ]
    return [*head, *(line for row in rows for line in row), ""]


def field_lines(cls: type[BaseModel]) -> list[str]:
    """The reST tables of every field of ``cls``: its own, then the framework's."""
    own: list[list[str]] = []
    inherited: dict[str, list[list[str]]] = {}
    for name, field in cls.model_fields.items():
        declared = owner(cls, name)
        if _root(declared.__module__) in OURS:
            own.append(_row(name, field, None))
        else:
            framework = f"{_root(declared.__module__)}'s ``{declared.__name__}``"
            inherited.setdefault(framework, []).append(_row(name, field, framework))
    lines = ["", *_table(f"The fields of {cls.__name__}", own)]
    for framework, rows in inherited.items():
        lines += _table(f"Inherited from {framework}", rows)
    return lines


def is_settings_model(obj: Any) -> bool:
    """Whether ``obj`` is one of our classes whose settings are pydantic fields."""
    return (
        isinstance(obj, type)
        and issubclass(obj, BaseModel)
        and _root(obj.__module__) in OURS
        and bool(obj.model_fields)
    )
