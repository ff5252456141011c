"""The retry policy, pure: which failures are retried, and after how long.

Retries happen only before the first byte of the body (connection errors, 408, 409, 429,
5xx but 501: a server that does not implement the request will not on the next try). Once
output began, nothing is retried: there is no resume, and a second generation would
duplicate what the user already saw.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from sse_core.errors import ConfigurationError, SSEConnectorError

__all__ = ["RetryPolicy", "parse_retry_after"]


#: The one 5xx that is never retried: the server does not implement the request (mapped to
#: NotImplementedByServerError, whose ``is_retryable`` is False).
NOT_IMPLEMENTED = 501
#: Headers that say how long to wait, in the order they are read.
RETRY_AFTER_HEADERS = ("retry-after-ms", "retry-after", "llm_provider-retry-after")


def parse_retry_after(headers: Mapping[str, str], *, now: float) -> float | None:
    """Seconds to wait, from the first header that says: ``retry-after-ms`` (milliseconds),
    ``retry-after`` (seconds or an HTTP date), then ``llm_provider-retry-after`` (LiteLLM's
    proxy forwards the upstream's ``Retry-After`` under this name; seconds or a date).

    Args:
        headers: Response headers (case-insensitive mapping, or lower-case keys).
        now: The current Unix time, for the HTTP-date form.

    Returns:
        A non-negative number of seconds, or None when absent or unreadable.
    """
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    for name in RETRY_AFTER_HEADERS[1:]:
        seconds = _seconds(headers.get(name), now)
        if seconds is not None:
            return seconds
    return None


def _number(raw: str | None) -> float | None:
    """A finite number, clamped at 0; None if absent or unreadable."""
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return max(value, 0.0) if math.isfinite(value) else None


def _seconds(raw: str | None, now: float) -> float | None:
    """A number, or an HTTP date as seconds from ``now``; None if absent or unreadable."""
    if raw is None:
        return None
    value = _number(raw)
    return value if value is not None else _date_seconds(raw.strip(), now)


def _date_seconds(raw: str, now: float) -> float | None:
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(when.timestamp() - now, 0.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter.

    Attributes:
        max_retries: Retries after the first attempt (0 disables retrying).
        initial_delay: The first backoff, in seconds.
        max_delay: The largest backoff.
        multiplier: Growth of the backoff per attempt.
        jitter: Fraction of the backoff randomised (0.25: +-25%).
        max_retry_after: The longest ``Retry-After`` honoured; longer waits are not retried.
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    multiplier: float = 2.0
    jitter: float = 0.25
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ConfigurationError(f"max_retries must be >= 0, got {self.max_retries}")
        if not 0 <= self.jitter <= 1:
            raise ConfigurationError(f"jitter must be within [0, 1], got {self.jitter}")
        if self.initial_delay < 0 or self.max_delay < 0:
            raise ConfigurationError("retry delays must be >= 0")

    def backoff(self, attempt: int, rand: float) -> float:
        """The backoff before retry number ``attempt`` (1-based); ``rand`` is in [0, 1)."""
        base = min(self.initial_delay * self.multiplier ** (attempt - 1), self.max_delay)
        return max(base * (1 + self.jitter * (2 * rand - 1)), 0.0)

    def next_delay(
        self, error: SSEConnectorError, *, attempt: int, retry_after: float | None, rand: float
    ) -> float | None:
        """How long to wait before retrying after ``error``, or None to give up.

        Args:
            error: What the failed attempt raised.
            attempt: How many attempts failed so far (1 after the first).
            retry_after: The server's ``Retry-After``, in seconds, when it sent one.
            rand: A random number in [0, 1) for the jitter.
        """
        if attempt > self.max_retries or not type(error).is_retryable:
            return None  # the class says it: a 501 is NotImplementedByServerError
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after else None
        return self.backoff(attempt, rand)
