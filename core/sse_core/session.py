"""``StreamSession``: the pure per-response state both transport loops drive.

The loops do the I/O; every decision about the bytes is made here, once.
"""

from __future__ import annotations

from collections.abc import Mapping

from sse_core.accumulator import Accumulator
from sse_core.completion import Completion
from sse_core.decoder import StreamDecoder
from sse_core.errors import StreamError, StreamProtocolError
from sse_core.events import StreamEvent

__all__ = ["StreamSession"]


class StreamSession:
    """Decoder and accumulator for one response.

    The loop calls :meth:`feed` per piece of body and :meth:`accept` on the events (which
    adds them to the Completion and stops at an error frame), hands them on, and calls
    :meth:`end` and :meth:`completion` when the body ends. :meth:`fail` attaches the partial
    Completion to any StreamError.
    """

    __slots__ = ("_acc", "_decoder", "_json", "_json_size", "_max", "add")

    def __init__(self, *, headers: Mapping[str, str], max_event_bytes: int) -> None:
        self._decoder = StreamDecoder(max_event_bytes=max_event_bytes)
        self._acc = Accumulator(headers=headers)
        self._json: list[bytes] = []
        self._max = max_event_bytes
        self.add = self._acc.add
        self._json_size = 0

    @property
    def done(self) -> bool:
        """True once ``[DONE]`` arrived: stop reading and close the response."""
        return self._decoder.done

    def feed(self, piece: bytes) -> list[StreamEvent]:
        """Decode the next piece of the body."""
        try:
            return self._decoder.feed(piece)
        except StreamError as exc:
            raise self.fail(exc) from None

    def accept(self, events: list[StreamEvent]) -> tuple[list[StreamEvent], StreamError | None]:
        """Add ``events`` to the Completion; return those to hand on, and the error to raise.

        On an error frame the events before it are still handed on, then the error raised.
        """
        add = self.add
        taken = 0
        try:
            for event in events:
                add(event)
                taken += 1
        except StreamError as exc:
            return events[:taken], exc
        return events, None

    def collect(self, piece: bytes) -> None:
        """Keep a piece of a JSON body (a gateway answered JSON where SSE was asked for)."""
        self._json_size += len(piece)
        if self._json_size > self._max:
            raise self.fail(
                StreamProtocolError(
                    f"the JSON response body exceeded {self._max} bytes; "
                    "raise max_event_bytes if the gateway really sends answers this large"
                )
            )
        self._json.append(piece)

    def feed_json(self) -> list[StreamEvent]:
        """Decode the collected JSON body as one whole completion."""
        try:
            return self._decoder.feed_json(b"".join(self._json))
        except StreamError as exc:
            raise self.fail(exc) from None

    def end(self) -> list[StreamEvent]:
        """The body ended: the last events (a final frame without blank line, held text)."""
        try:
            return self._decoder.finish()
        except StreamError as exc:
            raise self.fail(exc) from None

    def completion(self) -> Completion:
        """The Completion, or IncompleteStreamError (with partial) if the stream was cut."""
        return self._acc.finish()

    def partial(self) -> Completion:
        """What arrived so far."""
        return self._acc.completion()

    def fail(self, exc: StreamError) -> StreamError:
        """Attach the partial Completion to ``exc`` (events decoded with it included)."""
        if not exc.has_partial:
            try:
                self._acc.extend(exc.events)
            except StreamError as earlier:  # an error frame came before the failure
                return earlier
            exc.partial = self._acc.completion()
        return exc
