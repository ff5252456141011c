"""``decode()``: a whole body (or its pieces) to a Completion, raising the typed errors."""

from __future__ import annotations

from collections.abc import Iterable

from sse_core.completion import Completion
from sse_core.session import StreamSession
from sse_core.sse import DEFAULT_MAX_EVENT_BYTES

__all__ = ["decode"]


def decode(
    body: bytes | Iterable[bytes], *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
) -> Completion:
    """Decode an SSE chat-completions body into a :class:`Completion`.

    Args:
        body: The body bytes, whole or as an iterable of pieces (split anywhere).
        max_event_bytes: Upper bound on one SSE line or event.

    Raises:
        GatewayStreamError: The stream carried an error frame or ``event: error``.
        IncompleteStreamError: It ended without a finish_reason and without ``[DONE]``.
        StreamProtocolError: Malformed bytes, invalid JSON, or an event over the bound.
        Each carries ``.partial``, the Completion received before the failure.
    """
    if isinstance(body, (bytes, bytearray, memoryview)):
        body = (bytes(body),)
    session = StreamSession(headers={}, max_event_bytes=max_event_bytes)
    for piece in body:
        if not isinstance(piece, (bytes, bytearray, memoryview)):
            raise TypeError(f"decode() expected bytes pieces, got {type(piece).__name__}")
        _, error = session.accept(session.feed(bytes(piece)))
        if error is not None:
            raise error
        if session.done:
            break
    _, error = session.accept(session.end())
    if error is not None:
        raise error
    return session.completion()
