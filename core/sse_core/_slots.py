"""pydantic's instance slots, for the adapters' fast constructors and private reads.

Both adapters build framework objects (LangChain chunks, LlamaIndex responses) the way
``model_construct`` does, writing pydantic's four instance slots directly. The setters are
looked up here once; a slot pydantic no longer has gets a setter that raises, and
:func:`missing_slots` names it, so each adapter's probe can turn its validated fallback on.

Both adapters also read their models' private attributes (the client pool) on every call:
:func:`read_private` takes them from pydantic's ``__pydantic_private__`` slot where the fast
path :data:`PRIVATE_READS` is on, else reads the attribute (pydantic's ``__getattr__``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, PrivateAttr

from sse_core.fast_paths import FastPath, is_on, register

__all__ = ["PRIVATE_READS", "SLOTS", "missing_slots", "read_private", "slot_setters"]

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


class _Probe(BaseModel):
    _kept: int = PrivateAttr(default=1)


def probe_private() -> str | None:
    """None if a model's private attributes are kept in ``__pydantic_private__``."""
    missing = missing_slots(("__pydantic_private__",))
    if missing:
        return f"BaseModel has no {missing[0]} slot"
    probe = _Probe()
    probe._kept = 2
    values = probe.__pydantic_private__
    if not isinstance(values, dict) or values.get("_kept") != 2:
        return f"a private attribute is not kept in __pydantic_private__ ({values!r})"
    return None


#: A model's private attributes read from pydantic's slot (else through ``__getattr__``).
PRIVATE_READS = register(
    FastPath(
        name="pydantic.private_reads",
        shortcut="the adapters read their models' private attributes (the client pool, the "
        "config cache) on every call from pydantic's __pydantic_private__ slot, not through "
        "BaseModel.__getattr__, which raises and catches an AttributeError on each read",
        tested={"pydantic": ">=2.11,<2.15"},  # what the adapters run on
        probe=probe_private,
        faithful="the attribute read as any attribute is (getattr through pydantic)",
        uses={"sse_core._slots": ("__pydantic_private__",)},
    )
)


def read_private(model: BaseModel, name: str) -> Any:
    """The private attribute ``name`` of ``model`` (see :data:`PRIVATE_READS`)."""
    if is_on(PRIVATE_READS.name):
        values = model.__pydantic_private__
        if values is not None:
            return values[name]
    return getattr(model, name)
