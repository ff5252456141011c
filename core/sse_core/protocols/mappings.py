"""An adapter's mappings of the registered protocols, made of the core's facts of each.

An adapter maps any registered protocol (:class:`~sse_core.protocols.registry.WireProtocol`)
to its framework with one generic function of the protocol's facts, and overrides the fields
where a framework's own class of that protocol has a convention (ChatOpenAI's message shapes).
:class:`Mappings` makes each mapping once, again when a name is registered anew (as tests
do), and refuses a protocol the adapter cannot make a request of, naming it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from sse_core.errors import ConfigurationError
from sse_core.protocols.registry import WireProtocol, wire_protocol

__all__ = ["Mappings"]

M = TypeVar("M")


class Mappings(Generic[M]):
    """One adapter's mappings, by protocol.

    Args:
        adapter: The adapter's class name, for messages (``"ChatSSE"``).
        generic: The mapping of a protocol from its facts alone (a frozen dataclass).
        overrides: By protocol name, the fields of the generic mapping replaced.
        request_field: The mapping's field that makes a request: a protocol without a
            ``turns_body`` is refused unless its overrides give this field.
    """

    def __init__(
        self,
        adapter: str,
        generic: Callable[[WireProtocol], M],
        overrides: Mapping[str, Mapping[str, Any]],
        request_field: str,
    ) -> None:
        self.adapter = adapter
        self.generic = generic
        self.overrides = overrides
        self.request_field = request_field
        self._made: dict[str, tuple[WireProtocol, M]] = {}

    def of(self, protocol: object) -> M:
        """The mapping of ``protocol``: the generic one, with its overrides.

        Raises:
            ConfigurationError: Not a registered protocol (it names those there are), or one
                without a ``turns_body`` and no override that makes its request.
        """
        found = wire_protocol(protocol)
        made = self._made.get(found.name)
        if made is not None and made[0] is found:
            return made[1]
        overrides = self.overrides.get(found.name, {})
        if found.turns_body is None and self.request_field not in overrides:
            raise ConfigurationError(
                f"protocol {found.name!r} has no turns_body: {self.adapter} makes a request "
                "from the core's turns (register it with WireProtocol(turns_body=...))"
            )
        mapping: M = dataclasses.replace(self.generic(found), **overrides)  # type: ignore[type-var]
        self._made[found.name] = (found, mapping)
        return mapping
