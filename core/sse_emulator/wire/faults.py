"""The ``X-Emulator-Fault`` request header: its grammar, its catalogue, its counters.

Syntax: faults separated by commas, each a name followed by ``;``-separated
``key=value`` parameters::

    X-Emulator-Fault: rate-limit; count=2; retry-after=0, crlf, keepalive; every=2

Unknown names, unknown parameters and bad values are the client's mistake and get an
HTTP 400 (``invalid_fault``) that says what was expected. Every duration is bounded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

FAULT_HEADER = "x-emulator-fault"

Param = tuple[type, int | float | str]

#: Every fault with its parameters and their defaults (``count=0`` means every request).
CATALOG: dict[str, dict[str, Param]] = {
    "rate-limit": {"count": (int, 1), "retry-after": (str, "1"), "key": (str, "")},
    "unavailable": {"count": (int, 0), "retry-after": (str, ""), "key": (str, "")},
    "bad-gateway": {"count": (int, 0), "key": (str, "")},
    "bad-gateway-html": {"count": (int, 0), "key": (str, "")},
    "unauthorized": {"count": (int, 0), "key": (str, "")},
    "forbidden": {"count": (int, 0), "key": (str, "")},
    "not-found": {"count": (int, 0), "key": (str, "")},
    "too-large": {"count": (int, 0), "key": (str, "")},
    "server-error": {"count": (int, 0), "key": (str, "")},
    "overloaded": {"count": (int, 0), "key": (str, "")},
    "json-body": {},
    "error-frame": {"after": (int, 2)},
    "event-error": {"after": (int, 2)},
    "truncate": {"after": (int, 2)},
    "reset": {"after": (int, 2)},
    "stall": {"after": (int, 2), "seconds": (float, 30.0)},
    "slow": {"delay": (float, 0.05)},
    "split-utf8": {"pause": (float, 0.01)},
    "crlf": {},
    "cr": {},
    "lf": {},
    "single-newline": {},
    "keepalive": {"every": (int, 1), "text": (str, "ping")},
    "bom": {},
    "oversized": {"after": (int, 1), "size": (int, 1 << 20)},
    "invalid-json": {"after": (int, 1)},
    "named-event": {"name": (str, ""), "after": (int, 0)},
    "think-tags": {},
    "burst": {"frames": (int, 10)},
    "hold-open": {"seconds": (float, 30.0)},
    "data-only": {},
    "prefilled": {},
    "usage-late": {},
    "usage-output-only": {},
    "usage-twice": {},
    # The Responses API's gateway variants (``responses`` only; wire/openai_responses.py).
    "output-empty": {},
    "output-reordered": {},
    "lost-delta": {},
    "item-id-per-event": {},
    "done-marker": {},
    "no-argument-deltas": {},
    "interleaved-arguments": {},
    "web-search": {},
    "reasoning-text": {},
    "incomplete-as-completed": {},
    "response-failed": {"after": (int, 1000000)},
}
#: Faults answered with an HTTP error status instead of a completion.
STATUS_FAULTS = (
    "rate-limit",
    "unavailable",
    "bad-gateway",
    "bad-gateway-html",
    "unauthorized",
    "forbidden",
    "not-found",
    "too-large",
    "server-error",
    "overloaded",
)
#: Faults that end the stream early; the first by position wins.
TERMINAL_FAULTS = ("error-frame", "event-error", "truncate", "reset", "stall")
#: Upper bounds that keep every server loop bounded in time and memory.
LIMITS: dict[str, float] = {
    "seconds": 300.0,
    "delay": 10.0,
    "pause": 10.0,
    "size": float(64 << 20),
    "count": 1e9,
    "after": 1e6,
    "every": 1e6,
    "frames": 1e6,
}


class FaultError(ValueError):
    """The ``X-Emulator-Fault`` header is malformed (the client's mistake)."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Fault:
    """One requested fault with its parameters, defaults filled in.

    Attributes:
        name: The fault's name, e.g. ``stall``.
        params: Each parameter's typed value.
    """

    name: str
    params: dict[str, int | float | str] = field(default_factory=dict)

    def number(self, key: str) -> float:
        """A numeric parameter as a float."""
        return float(self.params[key])

    def integer(self, key: str) -> int:
        """A numeric parameter as an int."""
        return int(self.params[key])

    def text(self, key: str) -> str:
        """A parameter as text."""
        return str(self.params[key])


def parse_faults(header: str | None) -> tuple[Fault, ...]:
    """Parse an ``X-Emulator-Fault`` header value.

    Args:
        header: The header value, or ``None`` when absent.

    Returns:
        The faults in header order.

    Raises:
        FaultError: When a name, parameter or value is not in the catalogue.
    """
    if not header or not header.strip():
        return ()
    return tuple(_parse_one(item) for item in header.split(",") if item.strip())


def _parse_one(item: str) -> Fault:
    name, *pairs = (part.strip() for part in item.split(";"))
    name = name.lower()
    if name not in CATALOG:
        known = ", ".join(sorted(CATALOG))
        raise FaultError(f"unknown emulator fault {name!r}; expected one of: {known}")
    spec = CATALOG[name]
    params: dict[str, int | float | str] = {key: default for key, (_, default) in spec.items()}
    for pair in filter(None, pairs):
        key, sep, raw = (piece.strip() for piece in pair.partition("="))
        if key not in spec or not sep:
            expected = ", ".join(f"{k}=..." for k in spec) or "no parameters"
            raise FaultError(f"fault {name!r} got {pair!r}; expected {expected}")
        params[key] = _convert(name, key, spec[key][0], raw)
    return Fault(name=name, params=params)


def _convert(name: str, key: str, kind: type, raw: str) -> int | float | str:
    if kind is str:
        return raw
    try:
        value = float(raw) if kind is float else int(raw)
    except ValueError:
        what = "a number" if kind is float else "an integer"
        raise FaultError(f"fault {name!r}: {key} must be {what}, got {raw!r}") from None
    if value < 0:
        raise FaultError(f"fault {name!r}: {key} must not be negative, got {raw!r}")
    return min(value, type(value)(LIMITS.get(key, value)))


def first(faults: tuple[Fault, ...], name: str) -> Fault | None:
    """The first fault with that name, if requested."""
    return next((fault for fault in faults if fault.name == name), None)


class FaultCounters:
    """How many requests each counted status fault has seen, so retries can succeed.

    A status fault with ``count=N`` fails the first N requests that carry it with the
    same ``key`` (by default, the same path and body: a retry of the same request).
    Thread-safe: the server thread counts while a test thread may reset.
    """

    def __init__(self) -> None:
        """Start with every count at zero."""
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], int] = {}

    def should_fail(self, fault: Fault, default_key: str) -> bool:
        """Count one more request carrying ``fault`` and say whether it fails."""
        key = (fault.name, fault.text("key") or default_key)
        with self._lock:
            self._seen[key] = seen = self._seen.get(key, 0) + 1
        limit = fault.integer("count")
        return limit == 0 or seen <= limit

    def clear(self) -> None:
        """Forget every count."""
        with self._lock:
            self._seen.clear()


def status_fault(
    faults: tuple[Fault, ...], counters: FaultCounters, default_key: str
) -> Fault | None:
    """The status fault this request fails with, if any (the first that applies)."""
    for fault in faults:
        if fault.name in STATUS_FAULTS and counters.should_fail(fault, default_key):
            return fault
    return None
