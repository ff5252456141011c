"""The record of every request: what arrived, and whether the client left early.

The app writes entries from the server's event loop; tests read snapshots
(:class:`RequestRecord`, frozen) from any thread and wait on a condition. Secrets in
headers and in the query string are masked before anything is stored: ``Authorization:
Bearer sk-...`` is kept as ``Bearer ***wxyz`` (the last four characters, only for keys
longer than 12), Google's ``?key=AIza...`` as ``key=***wxyz``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import unquote_plus

#: Headers whose values are always masked.
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"}
)
_SECRET_WORDS = ("key", "token", "secret", "password")


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestRecord:
    """One request as the emulator saw it.

    Attributes:
        index: Its position in the record (0 for the first since the last reset).
        method: The HTTP method.
        path: The URL path.
        query: The raw query string.
        headers: Lowercased header names with values, secrets masked.
        body: The raw request body.
        dialect: The dialect that served it, or ``None`` for other paths.
        status: The response status, once the response started.
        received_at: ``time.monotonic()`` when the request was read.
        completed: Whether the whole response was sent.
        disconnected: Whether the client went away before the response ended.
        disconnected_at: ``time.monotonic()`` when that was seen, if it was.
        finished_at: ``time.monotonic()`` when the emulator was done with the request.
    """

    index: int
    method: str
    path: str
    query: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    dialect: str | None = None
    status: int | None = None
    received_at: float
    completed: bool = False
    disconnected: bool = False
    disconnected_at: float | None = None
    finished_at: float | None = None

    @property
    def duration(self) -> float | None:
        """Seconds from the request's arrival until the emulator was done with it."""
        return None if self.finished_at is None else self.finished_at - self.received_at

    def header(self, name: str) -> str | None:
        """The (masked) value of a header, by case-insensitive name."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key == wanted), None)

    def json(self) -> Any:
        """The body decoded as JSON (``None`` when it is not JSON)."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable view, as ``GET /_emulator/requests`` returns it."""
        body = self.json()
        return {
            "index": self.index,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": dict(self.headers),
            "body": body if body is not None else self.body.decode("utf-8", "replace"),
            "dialect": self.dialect,
            "status": self.status,
            "completed": self.completed,
            "disconnected": self.disconnected,
            "disconnected_after": (
                None if self.disconnected_at is None else self.disconnected_at - self.received_at
            ),
            "duration": self.duration,
        }


def access_line(record: RequestRecord) -> str:
    """One log line for a finished request, without a header value but the faults.

    Args:
        record: The finished request's record.

    Returns:
        Method, path, dialect, status, faults, duration and how the response ended, e.g.
        ``POST /v1/chat/completions dialect=openai status=200 faults=- 0.012s complete``.
    """
    faults = "".join((record.header("x-emulator-fault") or "-").split())
    duration = f"{record.duration:.3f}s" if record.duration is not None else "-"
    if record.disconnected:
        ending = "client left early"
    else:
        ending = "complete" if record.completed else "cut off by the server"
    return (
        f"{record.method} {record.path} dialect={record.dialect or '-'} "
        f"status={record.status or '-'} faults={faults} {duration} {ending}"
    )


def mask(name: str, value: str) -> str:
    """Mask a header value if the header carries a secret.

    Args:
        name: The lowercase header name.
        value: The value as received.

    Returns:
        The value, or its masked form: the auth scheme (if any), ``***`` and the last
        four characters of secrets longer than 12 characters.
    """
    if name not in SECRET_HEADERS and not any(word in name for word in _SECRET_WORDS):
        return value
    scheme, _, secret = value.partition(" ") if " " in value else ("", "", value)
    tail = secret[-4:] if len(secret) > 12 else ""
    return f"{scheme} ***{tail}" if scheme else f"***{tail}"


def mask_query(query: str) -> str:
    """Mask the values of query parameters that carry a secret, as :func:`mask` does for
    headers: Google's clients may send their key as ``key=...`` in the URL.

    Args:
        query: The raw query string.

    Returns:
        The query with each secret parameter's value masked, the rest as received.
    """
    pieces = []
    for piece in query.split("&") if query else []:
        name, sep, value = piece.partition("=")
        masked = mask(unquote_plus(name).lower(), unquote_plus(value))
        pieces.append(f"{name}={masked}" if sep and masked != unquote_plus(value) else piece)
    return "&".join(pieces)


class Recorder:
    """A bounded, thread-safe log of requests."""

    def __init__(self, limit: int = 1000) -> None:
        """Start empty.

        Args:
            limit: How many records to keep (the oldest are dropped first).
        """
        self._records: deque[RequestRecord] = deque(maxlen=limit)
        self._condition = threading.Condition()
        self._next = 0

    def add(self, **fields: Any) -> int:
        """Record a new request and return its index (``index`` is assigned here)."""
        with self._condition:
            index = self._next
            self._next += 1
            self._records.append(RequestRecord(index=index, **fields))
            self._condition.notify_all()
            return index

    def update(self, index: int, **changes: Any) -> RequestRecord | None:
        """Change fields of a record.

        Returns:
            The changed record, or ``None`` if it was reset or dropped meanwhile.
        """
        with self._condition:
            for position, record in enumerate(self._records):
                if record.index == index:
                    self._records[position] = changed = replace(record, **changes)
                    self._condition.notify_all()
                    return changed
            return None

    def mark_disconnected(self, index: int) -> None:
        """Note that the client of request ``index`` left before the response ended."""
        self.update(index, disconnected=True, disconnected_at=time.monotonic())

    def records(self) -> list[RequestRecord]:
        """A snapshot of every record, oldest first."""
        with self._condition:
            return list(self._records)

    def clear(self) -> None:
        """Forget every record; indexes start again at 0."""
        with self._condition:
            self._records.clear()
            self._next = 0
            self._condition.notify_all()

    def wait_for(
        self, predicate: Callable[[list[RequestRecord]], RequestRecord | None], timeout: float
    ) -> RequestRecord | None:
        """Block until ``predicate(records)`` returns a record, or until ``timeout``.

        Args:
            predicate: Called with a snapshot under the lock; returns the awaited record.
            timeout: Seconds to wait at most.

        Returns:
            The record, or ``None`` on timeout.
        """
        deadline = time.monotonic() + timeout
        with self._condition:
            while (found := predicate(list(self._records))) is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._condition.wait(remaining)
            return found
