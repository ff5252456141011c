"""The Responses API's stored responses, so ``previous_response_id`` continues a conversation.

The API stores every response unless the request sets ``store: false`` (the API reference:
"Whether to store the generated model response for later retrieval via API", default
true). A stored response carries the conversation up to and including its answer, as the
chat messages the assistant reads, and the ids of the output items it produced, so a later
request may name them (a reasoning item sent back by id only) or answer them (a
``function_call_output``). Thread-safe: the server thread stores while a test resets.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredResponse:
    """One stored response.

    Attributes:
        id: The response id (``resp_...``).
        messages: The conversation up to and including this answer, as chat messages
            (without the request's ``instructions``, which the API does not carry over).
        item_ids: The ids of the output items of this response and the ones it continued.
        call_ids: The ``call_id`` of every function call in that conversation.
    """

    id: str
    messages: tuple[dict[str, Any], ...]
    item_ids: frozenset[str]
    call_ids: frozenset[str]


class ResponseStore:
    """The responses stored since the last reset, by id."""

    def __init__(self, limit: int = 10000) -> None:
        """Start empty.

        Args:
            limit: How many responses are kept; the oldest go first.
        """
        self._lock = threading.Lock()
        self._limit = limit
        self._stored: dict[str, StoredResponse] = {}

    def get(self, response_id: object) -> StoredResponse | None:
        """The stored response with that id, if any."""
        if not isinstance(response_id, str):
            return None
        with self._lock:
            return self._stored.get(response_id)

    def has_item(self, item_id: object) -> bool:
        """Whether any stored response produced an output item with that id."""
        with self._lock:
            return any(item_id in stored.item_ids for stored in self._stored.values())

    def put(self, stored: StoredResponse) -> None:
        """Store a response (a response with the same id is replaced)."""
        with self._lock:
            self._stored.pop(stored.id, None)
            self._stored[stored.id] = stored
            while len(self._stored) > self._limit:
                del self._stored[next(iter(self._stored))]

    def clear(self) -> None:
        """Forget every stored response."""
        with self._lock:
            self._stored.clear()
