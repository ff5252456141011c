"""``StreamDecoder``: body bytes in, StreamEvents out (SSE parser + chunk decoder, no I/O)."""

from __future__ import annotations

from pydantic_core import from_json

from sse_core.errors import StreamError
from sse_core.events import StreamEvent
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES, RawEvent, SSEParser, as_bytes
from sse_core.pipeline.payloads import parse_chunk_json

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
        """Decode the next bytes of the body (``bytes``, ``bytearray`` or ``memoryview``).

        Raises:
            StreamProtocolError: The bytes broke the protocol. Events decoded from earlier
                frames of the same ``data`` are on the error's ``events``.
            TypeError: ``data`` is not bytes-like.
        """
        if type(data) is not bytes:
            data = as_bytes(data)
        chunks = self._chunks
        if chunks.done:
            return []
        events: list[StreamEvent] = []
        single = self._parser._single_data(data)
        if single is not None and single[:1] == b"{":
            # One JSON frame in this read (the common case): no raw-event tuple, no loop.
            try:
                chunk = from_json(single)
            except ValueError:
                chunk = parse_chunk_json(single)  # recovers bad UTF-8, else raises
            chunks._decode_into(chunk, events)
            return events
        if single is not None:
            return chunks._decode_raw("message", single)
        raws: list[RawEvent] = []
        error = self._parser._feed_raw(data, raws)
        self._decode(raws, events)
        if error is not None and not chunks.done:
            error.events = tuple(events)
            raise error
        return events

    def finish(self) -> list[StreamEvent]:
        """The body ended: decode a last event left without its blank line, release held text.

        Raises:
            StreamProtocolError: As :meth:`feed`.
        """
        chunks = self._chunks
        if chunks.done:
            return []
        raws: list[RawEvent] = []
        events: list[StreamEvent] = []
        error = self._parser._finish_raw(raws)
        self._decode(raws, events)
        if chunks.done:
            return events
        if error is not None:
            error.events = tuple(events)
            raise error
        events += chunks.flush()
        return events

    def _decode(self, raws: list[RawEvent], events: list[StreamEvent]) -> None:
        """Decode ``raws`` into ``events``, up to ``[DONE]``; a bad frame raises with the
        events decoded before it on the error."""
        chunks = self._chunks
        try:
            for name, payload, _, _ in raws:
                if name == "message" and payload[:1] == b"{":  # the common case, inlined
                    try:
                        chunk = from_json(payload)  # starts with "{": a dict when it parses
                    except ValueError:
                        chunk = parse_chunk_json(payload)  # recovers bad UTF-8, else raises
                    chunks._decode_into(chunk, events)
                    continue
                events += chunks._decode_raw(name, payload)
                if chunks.done:
                    return
        except StreamError as exc:
            exc.events = tuple(events)
            raise

    def _feed_json(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole ``chat.completion`` JSON body (a gateway that answered without SSE).

        A whole answer is complete by nature, so the events end with :class:`Done`.
        """
        chunks = self._chunks
        events = chunks._decode_chunk(parse_chunk_json(body))
        events += chunks._decode_raw("message", b"[DONE]")
        return events
