"""Decoding a body as the equivalence tests compare it: events, error and Completion."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sse_core import StreamDecoder, StreamError, StreamEvent, UsageUpdate
from sse_core.pipeline import Accumulator

#: The events (with what an error carried), the error's class name, and the Completion.
Outcome = tuple[list[Any], str, Any]


def view(event: StreamEvent) -> Any:
    """An event as compared: usage updates with their raw payload (not in ``==``; by
    ``repr``, where NaN equals NaN)."""
    if isinstance(event, UsageUpdate):
        return (event, repr(event.usage.raw))
    return event


def outcome(decoder: StreamDecoder, pieces: Iterable[bytes]) -> Outcome:
    """Feed ``pieces`` to ``decoder``, then finish: what came out, and how it ended."""
    answer = Accumulator()
    events: list[Any] = []
    error = ""
    try:
        for piece in pieces:
            got = decoder.feed(piece)
            events += [view(event) for event in got]
            answer.extend(got)
        got = decoder.finish()
        events += [view(event) for event in got]
        answer.extend(got)
    except StreamError as exc:
        error = type(exc).__name__
        events += ["error", *(view(event) for event in exc.events)]
    return events, error, answer.completion()
