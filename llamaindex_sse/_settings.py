"""What SSELLM derives from its fields for every call, made again only when one changed.

A call needs the client configuration (checked by :meth:`sse_core.ClientConfig.build`), the
model's request parameters and, for LlamaIndex's events, the payload of its metadata. All
depend on the fields alone, so :class:`SettingsCache` keeps them with a snapshot of the
field values they were made from, and makes them again when any field differs from it: a
field set after construction, or a dict or list field (``default_headers``, ``extra_body``,
``additional_kwargs``, ``thinking_dict``, ``stop``, ...) changed in place. The snapshot holds
copies of those (their top level, as :class:`sse_core.transport.config.ConfigCache`
compares them), so while nothing changed a call only reads the fields and compares them.
Each part is made from the snapshot on first use, so a call fails where it failed before
the cache (a bad connection setting after the call's start event and its request body) and
nothing of a failure is kept. Copies and pickles of the cache start empty (it holds the key).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from llamaindex_sse._connection import CONNECTION_FIELDS, build_config
from llamaindex_sse._protocols import mapping_of
from sse_core import ClientConfig
from sse_core._slots import read_private
from sse_core.transport.pool import ClientPool

__all__ = ["FIELDS", "Derived", "SettingsCache", "pool_of", "request_settings"]

#: The fields of the request parameters (besides the connection settings).
REQUEST_FIELDS = (
    "model",
    "temperature",
    "reasoning_effort",
    "max_tokens",
    "thinking_dict",
    "stop",
    "additional_kwargs",
)
#: The other fields SSELLM's metadata shows (LlamaIndex's payload of every call).
METADATA_FIELDS = ("context_window", "is_function_calling_model")
#: Every field a call derives something from (and the max_tokens filled at construction).
FIELDS = (*CONNECTION_FIELDS, *REQUEST_FIELDS, *METADATA_FIELDS, "_filled_max_tokens")
_read_fields: Callable[[object], tuple[Any, ...]] = operator.attrgetter(*FIELDS)


def request_settings(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The model's own request parameters that its protocol carries, in the order the request
    builders take them (None values are theirs to leave out; ``additional_kwargs`` last, so
    it wins)."""
    chosen = {name: fields[name] for name in mapping_of(fields["protocol"]).settings}
    filled = fields.get("_filled_max_tokens")
    if filled is not None and chosen.get("max_tokens") == filled:
        chosen["max_tokens"] = None  # the protocol's rule fills it for the current thinking
    if "stop" in chosen:
        chosen["stop"] = chosen["stop"] or None  # an empty list is no setting
    return {**chosen, **fields["additional_kwargs"]}


class Derived:
    """What one set of field values gives every call, each part made on first use (so
    reading one part never fails for another: the payload of a model whose connection
    settings are bad, as its metadata, is still there, and a call fails where it did).

    Attributes:
        payload: LlamaIndex's payload of the model (class name and metadata), made by the
            model on first use; None until then.
    """

    __slots__ = ("_config", "_fields", "_settings", "payload")

    def __init__(self, fields: dict[str, Any]) -> None:
        self._fields = fields  # the snapshot's values: never changed afterwards
        self._config: ClientConfig | None = None
        self._settings: dict[str, Any] | None = None
        self.payload: dict[str, Any] | None = None

    @property
    def config(self) -> ClientConfig:
        """The checked client configuration.

        Raises:
            ConfigurationError: A connection setting is missing or cannot work (asked
                again on the next use: nothing is kept of a failure).
        """
        config = self._config
        if config is None:
            config = self._config = build_config(self._fields)
        return config

    @property
    def settings(self) -> dict[str, Any]:
        """:func:`request_settings` (read only: every request reads it)."""
        settings = self._settings
        if settings is None:
            settings = self._settings = request_settings(self._fields)
        return settings


def _snapshot(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """``values`` with their dicts and lists copied: a change in place then compares unequal."""
    return tuple(
        dict(value)
        if isinstance(value, dict)
        else list(value)
        if isinstance(value, list)
        else value
        for value in values
    )


def _same(seen: tuple[Any, ...], values: tuple[Any, ...]) -> bool:
    try:
        return bool(seen == values)
    except Exception:  # a value that cannot be compared (an array): made again, as changed
        return False


class SettingsCache:
    """The :class:`Derived` of a model's current field values, made again only when a
    field changed (set, or a dict or list field changed in place: see the module docstring).

    Thread-safe: the snapshot and what it gave are one tuple, replaced whole.
    """

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: tuple[tuple[Any, ...], Derived] | None = None

    def get(self, model: object) -> Derived:
        """What ``model``'s fields give a call, made again if any of them changed.

        Raises:
            AttributeError: ``model`` lacks one of :data:`FIELDS`.
        """
        values = _read_fields(model)
        seen = self._seen
        if seen is None or not _same(seen[0], values):
            snapshot = _snapshot(values)
            seen = self._seen = (snapshot, Derived(dict(zip(FIELDS, snapshot, strict=True))))
        return seen[1]

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def __deepcopy__(self, memo: dict[int, Any]) -> SettingsCache:
        return SettingsCache()


def pool_of(model: Any) -> ClientPool:
    """SSELLM's client pool, read on every call: see :func:`sse_core._slots.read_private`."""
    pool: ClientPool = read_private(model, "_pool")
    return pool
