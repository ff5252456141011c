"""``StreamDecoder``: body bytes in, StreamEvents out (SSE parser + the protocol's payload
decoder, no I/O)."""

from __future__ import annotations

from pydantic_core import from_json

from sse_core.errors import StreamError, StreamProtocolError
from sse_core.events import StreamEvent
from sse_core.pipeline._accel import accelerator as _accelerator
from sse_core.pipeline._accel import check_accelerator
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.pipeline.parser import (
    DEFAULT_MAX_EVENT_BYTES,
    RawEvent,
    SSEParser,
    _named_frame,
    as_bytes,
)
from sse_core.pipeline.payloads import parse_chunk_json
from sse_core.pipeline.protocols import payload_decoder

__all__ = ["StreamDecoder"]

_PREVIEW = 120  # bytes of a body with no event shown in the error
_SSE_STARTS = (b"data", b"event", b"id", b"retry", b":")


class StreamDecoder:
    """Feed the response body as it arrives; get StreamEvents back.

    After ``data: [DONE]`` (Anthropic: ``message_stop``) or an error frame the decoder is
    :attr:`done` and ignores further bytes: the caller should stop reading and close the
    response. A body that ends without
    ever holding an SSE event, and does not start like one (a web page, plain text, a JSON
    answer read as a stream), is refused by :meth:`finish` with a StreamProtocolError: the
    verdict is the decoder's, so every way of driving it gives the same one.

    Args:
        max_event_bytes: Upper bound on one SSE line or event; larger raises
            :class:`~sse_core.errors.StreamProtocolError`.
        accelerator: ``"msgspec"`` decodes common chunks with msgspec (installed
            separately), the same events faster; None (the default): the pure path. It
            applies to chat completions; other protocols take the pure path.
        protocol: What the payloads are: ``"chat_completions"`` (the default) or
            ``"anthropic"`` (Anthropic Messages events, :class:`MessagesDecoder`).

    Raises:
        ConfigurationError: An unknown accelerator, or one whose package is missing; an
            unknown protocol.
    """

    __slots__ = ("_accelerated", "_chunks", "_parser", "_seen", "_source", "_start")

    def __init__(
        self,
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        accelerator: str | None = None,
        protocol: str = "chat_completions",
    ) -> None:
        self._parser = SSEParser(max_event_bytes=max_event_bytes)
        # Either payload decoder has the same entry points (protocols.PayloadDecoder), so
        # the paths below drive both; the accelerator knows chat chunks only.
        chunks = self._chunks = payload_decoder(protocol)
        if type(chunks) is ChunkDecoder:
            self._accelerated = _accelerator(accelerator, chunks)
        else:
            if accelerator is not None:
                check_accelerator(accelerator)  # a bad name is refused all the same
            self._accelerated = None
        self._seen = False  # an event came out of the body
        self._start = b""  # its first bytes, to say what arrived when no event ever did
        self._source = "the body"  # what the body comes from, for that message

    @property
    def done(self) -> bool:
        """True once ``[DONE]`` or an error frame was decoded."""
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
        if self._chunks.done:
            return []
        events: list[StreamEvent] = []
        parser = self._parser
        if not parser._bom_checked:
            parser._settle_bom(data)
        if not (parser._idle and len(data) <= parser._max and b"\r" not in data):
            self._resume(data, events)
        elif data[:7] == b"data: {" and data.find(b"\n") == len(data) - 2 == data.rfind(b"\n\n"):
            # One plain JSON frame, the whole read (a stream read as it is generated).
            self._json(data[6:-2], events)
        else:
            self._frames(data, events)
        if not self._seen:
            self._sight(data, events)
        return events

    def finish(self) -> list[StreamEvent]:
        """The body ended: decode a last event left without its blank line, release held text.

        Raises:
            StreamProtocolError: As :meth:`feed`; or the body held no SSE event at all and
                does not start like an event stream.
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
        if not (self._seen or events) and self._start.strip() and not _looks_like_sse(self._start):
            raise StreamProtocolError(
                f"expected an event stream from {self._source}, got a body with no SSE event; "
                f"it starts with {_preview(self._start)}"
            )
        return events

    def _sight(self, data: bytes, events: list[StreamEvent]) -> None:
        """Until the first event: keep the body's first bytes, for :meth:`finish`'s verdict."""
        self._seen = bool(events)
        if len(self._start) < _PREVIEW:
            self._start += data[: _PREVIEW - len(self._start)]

    # --- the speed path: whole plain frames decoded without the line parser ---
    #
    # A read that starts at a frame boundary, holds no CR and is within the size bound is
    # split on blank lines once. Each block that is one ``data: `` line (or an ``event:`` line
    # and one ``data: `` line) is exactly what the parser would dispatch, so it is decoded
    # here; from the first block that is anything else (comments, ``id:``/``retry:``, several
    # data lines, empty blocks) and for the unfinished last frame, the parser takes the rest
    # of the read. The parser always ends up having seen every byte, errors included.

    def _frames(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode ``data``, a read that starts at a frame boundary (no CR, within the bound)."""
        blocks = data.split(b"\n\n")
        tail = blocks.pop()
        taken = self._plain(blocks, tail, events)
        if self._chunks.done:
            return
        if taken < len(blocks):
            tail = b"\n\n".join([*blocks[taken:], tail])
        if tail:
            self._general(tail, events)

    def _plain(self, blocks: list[bytes], tail: bytes, events: list[StreamEvent]) -> int:
        """Decode the plain blocks at the start of ``blocks``; return how many were taken."""
        chunks = self._chunks
        decode_into = chunks._decode_into
        accelerated = self._accelerated
        taken = 0
        try:
            for block in blocks:
                if block[:6] == b"data: " and b"\n" not in block:
                    payload = block[6:]
                    if payload[:1] == b"{":
                        if accelerated is None or not accelerated(payload, events):
                            try:
                                chunk = from_json(payload, cache_strings="keys")  # "{": a dict
                            except ValueError:
                                chunk = parse_chunk_json(payload)  # recovers bad UTF-8
                            decode_into(chunk, events)
                    else:
                        events += chunks._decode_raw("message", payload)  # [DONE], keepalive
                elif block[:6] == b"event:" and (named := _named_frame(block)) is not None:
                    chunks._named_into(*named, events)
                else:
                    return taken
                taken += 1
                if chunks.done:
                    return taken
        except StreamError as exc:
            # As the parser would have: the rest of the read is parsed, not decoded.
            self._parser._feed_raw(b"\n\n".join([*blocks[taken + 1 :], tail]), [])
            exc.events = tuple(events)
            raise
        return taken

    def _resume(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode ``data`` when the parser holds part of a frame (or the read is unusual): the
        parser takes the read up to the first blank line, the speed path the rest."""
        parser = self._parser
        end = -1
        if (
            parser._error is None
            and parser._bom_checked
            and not parser._skip_lf
            and len(data) <= parser._max
            and b"\r" not in data
        ):
            end = data.find(b"\n\n")
        if end < 0:
            self._general(data, events)
            return
        end += 2
        try:
            self._general(data[:end], events)
        except StreamError:
            parser._feed_raw(data[end:], [])  # parsed, not decoded, as in one call
            raise
        if self._chunks.done:
            return
        if parser._idle:
            self._frames(data[end:], events)
        else:
            self._general(data[end:], events)

    def _json(self, payload: bytes, events: list[StreamEvent]) -> None:
        """Decode one ``{...}`` payload."""
        if self._accelerated is not None and self._accelerated(payload, events):
            return
        try:
            chunk = from_json(payload, cache_strings="keys")  # a dict: it starts with "{"
        except ValueError:
            chunk = parse_chunk_json(payload)  # recovers bad UTF-8, else raises
        self._chunks._decode_into(chunk, events)

    def _general(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode ``data`` through the parser (every rule), appending to ``events``."""
        raws: list[RawEvent] = []
        error = self._parser._feed_raw(data, raws)
        self._decode(raws, events)
        if error is not None and not self._chunks.done:
            error.events = tuple(events)
            raise error

    def _decode(self, raws: list[RawEvent], events: list[StreamEvent]) -> None:
        """Decode ``raws`` into ``events``, up to ``[DONE]``; a bad frame raises with the
        events decoded before it on the error."""
        chunks = self._chunks
        try:
            for name, payload, _, _ in raws:
                if name == "message" and payload[:1] == b"{":  # the common case, inlined
                    try:
                        chunk = from_json(payload, cache_strings="keys")  # "{...": a dict
                    except ValueError:
                        chunk = parse_chunk_json(payload)  # recovers bad UTF-8, else raises
                    chunks._decode_into(chunk, events)
                else:
                    events += chunks._decode_raw(name, payload)
                if chunks.done:
                    return
        except StreamError as exc:
            exc.events = tuple(events)
            raise

    def _feed_json(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole ``chat.completion`` (or Messages) JSON body (a gateway that
        answered without SSE).

        A whole answer is complete by nature, so the events end with :class:`Done`.

        Raises:
            StreamProtocolError: The body is no JSON object, or one with neither choices nor
                an error (``{}`` is not an empty answer).
        """
        chunks = self._chunks
        if not isinstance(chunks, ChunkDecoder):
            return chunks._feed_whole(body)  # another protocol's whole answer
        whole = parse_chunk_json(body, where="as the response body")
        choices = whole.get("choices")
        if not (choices and type(choices) is list) and not whole.get("error"):
            raise StreamProtocolError(
                "expected a chat completion (a JSON object with choices) as the response body, "
                f"got one with keys {sorted(whole)[:10]}"
            )
        events = chunks._decode_chunk(whole)
        events += chunks._decode_raw("message", b"[DONE]")
        return events


def _looks_like_sse(start: bytes) -> bool:
    first = start.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    return first.startswith(_SSE_STARTS)


def _preview(data: bytes) -> str:
    return repr(data[:_PREVIEW].decode("utf-8", "replace"))
