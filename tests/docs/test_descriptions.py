"""Every public name says what it is (issue 30, item 2): ``help()``, an IDE's hover and the
API reference read the same docstrings and field descriptions.

- every name in the ``__all__`` of the four packages has a docstring of its own (a class's,
  a function's; data is documented where the page lists it);
- every field ChatSSE and SSELLM add to their framework's class has a ``description``, and
  so does every field of the core's pydantic settings models;
- every public method and property a public class defines has a docstring.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import pytest
from pydantic import BaseModel

PACKAGES = ("sse_core", "sse_emulator", "langchain_sse", "llamaindex_sse", "sse_chat")


def public_objects() -> list[tuple[str, Any]]:
    found = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                found.append((f"{package}.{name}", obj))
    return found


OBJECTS = public_objects()
CLASSES = [(name, obj) for name, obj in OBJECTS if inspect.isclass(obj)]


@pytest.mark.parametrize(("name", "obj"), OBJECTS, ids=[name for name, _ in OBJECTS])
def test_every_public_name_has_a_docstring(name: str, obj: Any) -> None:
    assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
    # a dataclass without a docstring gets its signature as one
    assert not obj.__doc__.startswith(f"{obj.__name__}("), f"{name} has no docstring"


def own_members(cls: type) -> list[tuple[str, Any]]:
    """The public methods and properties ``cls`` itself defines (not its bases)."""
    return [
        (name, value)
        for name, value in vars(cls).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod)))
    ]


@pytest.mark.parametrize(("name", "cls"), CLASSES, ids=[name for name, _ in CLASSES])
def test_every_public_method_and_property_has_a_docstring(name: str, cls: type) -> None:
    missing = []
    for member, value in own_members(cls):
        function = value.fget if isinstance(value, property) else value
        function = getattr(function, "__func__", function)
        if not (getattr(function, "__doc__", None) or "").strip():
            missing.append(member)
    assert not missing, f"{name}: no docstring on {missing}"


def own_fields(cls: type[BaseModel]) -> dict[str, Any]:
    """The fields ``cls`` adds to its bases outside this project (the framework's own
    fields are documented by the framework)."""
    inherited: set[str] = set()
    for base in cls.__mro__[1:]:
        if (
            isinstance(base, type)
            and issubclass(base, BaseModel)
            and not base.__module__.startswith(PACKAGES)
        ):
            inherited.update(base.model_fields)
    return {name: field for name, field in cls.model_fields.items() if name not in inherited}


MODELS = [(name, obj) for name, obj in CLASSES if issubclass(obj, BaseModel)]


@pytest.mark.parametrize(("name", "cls"), MODELS, ids=[name for name, _ in MODELS])
def test_every_public_field_has_a_description(name: str, cls: type[BaseModel]) -> None:
    fields = own_fields(cls)
    assert fields or name.endswith("Error"), f"{name} adds no field"
    missing = [field for field, info in fields.items() if not (info.description or "").strip()]
    assert not missing, f"{name}: no description on {missing}"


def test_the_adapters_fields_are_checked() -> None:
    names = {name for name, _ in MODELS}
    assert {"langchain_sse.ChatSSE", "llamaindex_sse.SSELLM"} <= names
