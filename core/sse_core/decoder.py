"""``StreamDecoder``: body bytes in, StreamEvents out (SSE parser + chunk decoder, no I/O)."""

from __future__ import annotations

from pydantic_core import from_json

from sse_core.chunks import ChunkDecoder, parse_chunk_json
from sse_core.errors import StreamError
from sse_core.events import StreamEvent
from sse_core.sse import DEFAULT_MAX_EVENT_BYTES, SSEParser

__all__ = ["StreamDecoder"]


class StreamDecoder:
    """Feed the response body as it arrives; get StreamEvents back.

    After ``data: [DONE]`` the decoder is :attr:`done` and ignores further bytes: the caller
    should stop reading and close the response.

    Args:
        max_event_bytes: Upper bound on one SSE line or event; larger raises
            :class:`~sse_core.errors.StreamProtocolError`.
    """

    __slots__ = ("_chunks", "_parser")

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._parser = SSEParser(max_event_bytes=max_event_bytes)
        self._chunks = ChunkDecoder()

    @property
    def done(self) -> bool:
        """True once ``[DONE]`` was decoded."""
        return self._chunks.done

    def feed(self, data: bytes) -> list[StreamEvent]:
        """Decode the next bytes of the body.

        Raises:
            StreamProtocolError: The bytes broke the protocol. Events decoded from earlier
                frames of the same ``data`` are on the error's ``events``.
        """
        chunks = self._chunks
        if chunks.done:
            return []
        events: list[StreamEvent] = []
        single = self._parser.single_data(data)
        if single is not None and single[:1] == b"{":
            # One JSON frame in this read (the common case): no raw-event tuple, no loop.
            try:
                chunk = from_json(single)
            except ValueError:
                chunk = parse_chunk_json(single)  # recovers bad UTF-8, else raises
            chunks.decode_chunk_into(chunk, events)
            return events
        if single is not None:
            return chunks.decode_raw("message", single)
        try:
            for name, payload, _, _ in self._parser.feed_raw(data):
                if name == "message" and payload[:1] == b"{":  # the common case, inlined
                    try:
                        chunk = from_json(payload)  # starts with "{": a dict when it parses
                    except ValueError:
                        chunk = parse_chunk_json(payload)  # recovers bad UTF-8, else raises
                    chunks.decode_chunk_into(chunk, events)
                    continue
                events += chunks.decode_raw(name, payload)
                if chunks.done:
                    break
        except StreamError as exc:
            exc.events = tuple(events)
            raise
        return events

    def feed_json(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole ``chat.completion`` JSON body (a gateway that answered without SSE).

        A whole answer is complete by nature, so the events end with :class:`Done`.
        """
        chunks = self._chunks
        events = chunks.decode_chunk(parse_chunk_json(body))
        events += chunks.decode_raw("message", b"[DONE]")
        return events

    def finish(self) -> list[StreamEvent]:
        """The body ended: decode a last event left without its blank line, release held text."""
        if self._chunks.done:
            return []
        chunks = self._chunks
        events: list[StreamEvent] = []
        try:
            for name, payload, _, _ in self._parser.finish_raw():
                events += chunks.decode_raw(name, payload)
                if chunks.done:
                    return events
        except StreamError as exc:
            exc.events = tuple(events)
            raise
        events += chunks.flush()
        return events
