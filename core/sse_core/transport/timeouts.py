"""Timeouts by phase of a request: connect, first byte, idle body, between data events, total."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from sse_core._names import refuse_unknown
from sse_core.errors import ConfigurationError

__all__ = ["Timeouts"]


def _positive(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigurationError(f"{name} must be a number of seconds or None, got {value!r}")
    if not value > 0 or math.isnan(value):
        raise ConfigurationError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


_PHASES = ("connect", "first_byte", "idle", "data_idle", "total")
#: httpx's names for its timeouts, which a migrant's mapping may hold, with ours.
HTTPX_NAMES = {
    "read": "httpx's read bounds every wait for bytes: here first_byte bounds the wait for "
    "the response head and idle the silence between two reads of the body",
    "write": "first_byte bounds sending the request and waiting for the response head",
    "pool": "connect bounds opening a connection and waiting for a pooled one",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeouts:
    """Timeouts in seconds (None: no limit); each must be positive.

    Attributes:
        connect: Opening the connection (TCP and TLS), and waiting for a pooled one.
        first_byte: Sending the request and waiting for the response head. Reasoning
            models can think for minutes before a gateway answers, so the default is long.
        idle: The longest silence allowed in the body once the head arrived: no byte at
            all for this long. Any byte counts, keep-alive comments (``: ping``) included.
        data_idle: The longest time allowed between two data events (from the response
            head to the first one, too). Comments and empty lines do not count, so a relay
            that pings while its upstream stalled cannot keep a dead stream open. Checked
            whenever a read arrives: a relay pinging every 15 s trips it at the first ping
            past the bound.
        total: A deadline for the whole request, body included.
    """

    connect: float | None = 10.0
    first_byte: float | None = 600.0
    idle: float | None = 300.0
    data_idle: float | None = 600.0
    total: float | None = None

    def __post_init__(self) -> None:
        for name in _PHASES:
            object.__setattr__(self, name, _positive(f"Timeouts.{name}", getattr(self, name)))

    @classmethod
    def of(cls, value: float | Timeouts | Mapping[str, float | None] | None) -> Timeouts:
        """A Timeouts from a number (every phase but total gets it), None (no limit at all),
        a Timeouts, or a mapping of its fields (how dumps hold it)."""
        if isinstance(value, Timeouts):
            return value
        if isinstance(value, Mapping):
            phases = f"the phases are {', '.join(_PHASES)}"
            refuse_unknown("Timeouts", value, _PHASES, HTTPX_NAMES, phases)
            return cls(**value)
        if value is None:
            return cls(connect=None, first_byte=None, idle=None, data_idle=None)
        seconds = _positive("timeout", value)
        return cls(connect=seconds, first_byte=seconds, idle=seconds, data_idle=seconds)
