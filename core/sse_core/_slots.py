"""pydantic's instance slots, for the adapters' fast constructors.

Both adapters build framework objects (LangChain chunks, LlamaIndex responses) the way
``model_construct`` does, writing pydantic's four instance slots directly. The setters are
looked up here once; a slot pydantic no longer has gets a setter that raises, and
:func:`missing_slots` names it, so each adapter's probe can turn its validated fallback on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

__all__ = ["SLOTS", "missing_slots", "slot_setters"]

#: The slots written directly; each must be a data descriptor on BaseModel.
SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")

Setter = Callable[[Any, Any], None]


def _no_slot(instance: Any, value: Any) -> None:
    raise AttributeError("a pydantic slot is missing (FALLBACK_REASON says which)")


def slot_setters() -> tuple[Setter, Setter, Setter, Setter]:
    """The setters of ``__dict__``, the fields set, the extra and the private slot."""
    found = [getattr(BaseModel.__dict__.get(name), "__set__", _no_slot) for name in SLOTS]
    return found[0], found[1], found[2], found[3]


def missing_slots(names: Iterable[str] = SLOTS) -> list[str]:
    """The ``names`` that are no data descriptor (a getter and a setter) on BaseModel."""
    return [
        name
        for name in names
        if not (
            hasattr(BaseModel.__dict__.get(name), "__get__")
            and hasattr(BaseModel.__dict__.get(name), "__set__")
        )
    ]
