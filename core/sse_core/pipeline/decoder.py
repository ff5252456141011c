"""``StreamDecoder``: body bytes in, StreamEvents out (SSE parser + the protocol's payload
decoder, no I/O)."""

from __future__ import annotations

from pydantic_core import from_json

from sse_core.errors import IncompleteStreamError, StreamError, StreamProtocolError
from sse_core.events import StreamEvent
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES, RawEvent, SSEParser, as_bytes
from sse_core.pipeline.protocol import Decodable, resolve

__all__ = ["StreamDecoder"]

_PREVIEW = 120  # bytes of a body with no event shown in the error
_SSE_STARTS = (b"data", b"event", b"id", b"retry", b":")


class StreamDecoder:
    """Feed the response body as it arrives; get StreamEvents back.

    The SSE parser splits the bytes into events; the protocol's payload decoder (see
    :mod:`~sse_core.protocols`) turns each into StreamEvents.

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
        protocol: What the payloads are: a registered protocol's name
            (``sse_core.protocol_names()``, the first the default), or a protocol object
            (:class:`~sse_core.pipeline.protocol.Decodable`, as
            :class:`~sse_core.protocols.WireProtocol` is).
        source: What the body comes from, for the message of a body with no event.

    Raises:
        ConfigurationError: An unknown accelerator, or one whose package is missing; an
            unknown protocol.
    """

    __slots__ = (
        "_data_into",
        "_named_into",
        "_parser",
        "_payloads",
        "_seen",
        "_single_frame",
        "_source",
        "_start",
    )

    def __init__(
        self,
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        accelerator: str | None = None,
        protocol: str | Decodable = "chat_completions",
        source: str = "the body",
    ) -> None:
        self._parser = SSEParser(max_event_bytes=max_event_bytes)
        payloads = self._payloads = resolve(protocol).new_decoder(accelerator)
        # Bound once: a stream read one frame at a time calls them for every frame.
        self._single_frame = self._parser.single_frame
        self._data_into = payloads.data_into
        self._named_into = payloads.named_into
        self._seen = False  # an event came out of the body
        self._start = b""  # its first bytes, to say what arrived when no event ever did
        self._source = source

    @property
    def done(self) -> bool:
        """True once ``[DONE]`` (or the protocol's end) or an error frame was decoded."""
        return self._payloads.done

    @property
    def keepalives(self) -> int:
        """How many keep-alives arrived: comment lines, and the protocol's own keep-alive
        events where it has some (a payload decoder's ``keepalives``: Anthropic's ``ping``)."""
        own: int = getattr(self._payloads, "keepalives", 0)
        return self._parser.comments + own

    @property
    def dialect(self) -> tuple[str, ...]:
        """What the stream showed of its gateway's dialect, sorted (a payload decoder's
        ``traits``, where it notes some: chat completions' ``TRAITS``); () for none."""
        traits: set[str] | None = getattr(self._payloads, "traits", None)
        return tuple(sorted(traits)) if traits else ()

    def feed(self, data: bytes) -> list[StreamEvent]:
        """Decode the next bytes of the body (``bytes``, ``bytearray`` or ``memoryview``).

        Raises:
            StreamProtocolError: The bytes broke the protocol. Events decoded from earlier
                frames of the same ``data`` are on the error's ``events``.
            TypeError: ``data`` is not bytes-like.
        """
        if type(data) is not bytes:
            data = as_bytes(data)
        if self._payloads.done:
            return []
        events: list[StreamEvent] = []
        single = self._single_frame(data)  # a read of one frame: no list of events
        if single is None:
            self._parse(data, events)
        else:
            name, payload, _, _ = single
            try:
                if name == "message":
                    self._data_into(payload, events)
                else:
                    self._named_into(name, payload, events)
            except StreamError as exc:
                exc.events = tuple(events)
                raise
        if not self._seen:
            self._sight(data, events)
        return events

    def finish(self) -> list[StreamEvent]:
        """The body ended: decode a last event left without its blank line, release held text.

        A last event whose JSON (or ``[DONE]``) is cut short is one the body ended in the
        middle of: the stream was cut, as a reset there would say. WHATWG drops the event a
        body ends in; one whose data is whole is still decoded (a gateway that closes after
        its last frame without the blank line), and data that is no JSON is judged by the
        payload decoder, as in any frame.

        Raises:
            IncompleteStreamError: The body ended in the middle of an event.
            StreamProtocolError: As :meth:`feed`; or the body held no SSE event at all and
                does not start like an event stream.
        """
        payloads = self._payloads
        if payloads.done:
            return []
        raws: list[RawEvent] = []
        events: list[StreamEvent] = []
        error = self._parser.finish_raw(raws)
        cut = raws[-1][1] if raws and _cut_short(raws[-1][1]) else None
        self._decode(raws[:-1] if cut is not None else raws, events)
        if payloads.done:
            return events
        if cut is not None:
            raise self._cut(cut, events)
        if error is not None:
            error.events = tuple(events)
            raise error
        events += payloads.flush()
        if not (self._seen or events) and self._start.strip() and not _looks_like_sse(self._start):
            raise StreamProtocolError(
                f"expected an event stream from {self._source}, got a body with no SSE event; "
                f"it starts with {_preview(self._start)}"
            )
        return events

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        """Decode a whole JSON answer (a gateway that answered without SSE) in the protocol's
        shape: a ``chat.completion`` (or a Messages answer). A whole answer is complete by
        nature, so the events end with :class:`StreamEnd` (unless it is an error).

        Raises:
            StreamProtocolError: The body is no JSON object, or not an answer (``{}`` is not
                an empty answer).
        """
        return self._payloads.decode_whole(body)

    def _cut(self, data: bytes, events: list[StreamEvent]) -> IncompleteStreamError:
        """The body ended inside an event whose data is ``data``: the answer is cut (with the
        events before it, and what the payload decoder held)."""
        cut = IncompleteStreamError(
            f"the stream from {self._source} ended in the middle of an event (its data cut "
            f"short: {_preview(data)}): the answer is incomplete; retry the request, or use "
            "what arrived (.partial)"
        )
        cut.events = (*events, *self._payloads.flush())
        return cut

    def _sight(self, data: bytes, events: list[StreamEvent]) -> None:
        """Until the first event: keep the body's first bytes, for :meth:`finish`'s verdict."""
        self._seen = bool(events)
        if len(self._start) < _PREVIEW:
            self._start += data[: _PREVIEW - len(self._start)]

    def _parse(self, data: bytes, events: list[StreamEvent]) -> None:
        """Decode ``data`` through the parser (every rule), appending to ``events``."""
        raws: list[RawEvent] = []
        error = self._parser.feed_raw(data, raws)
        if raws:
            self._decode(raws, events)
        if error is not None and not self._payloads.done:
            error.events = tuple(events)
            raise error

    def _decode(self, raws: list[RawEvent], events: list[StreamEvent]) -> None:
        """Decode ``raws`` into ``events``, up to the end of the stream; a bad frame raises
        with the events decoded before it on the error."""
        payloads = self._payloads
        data_into = self._data_into
        named_into = self._named_into
        try:
            for name, data, _, _ in raws:
                if name == "message":
                    data_into(data, events)
                else:
                    named_into(name, data, events)
                if payloads.done:
                    return
        except StreamError as exc:
            exc.events = tuple(events)
            raise


def _cut_short(data: bytes) -> bool:
    """Whether an event's data is a JSON value (or ``[DONE]``) cut short: what the last event
    of a body that ended in the middle of it holds. Anything else is decoded as it is (a
    whole value, or data that is no JSON, which the payload decoder judges)."""
    head = data.strip()
    if not head or head == b"[DONE]":
        return False
    if b"[DONE]".startswith(head):
        return True
    if head[:1] not in (b"{", b"["):
        return False
    try:
        from_json(head)
    except ValueError as error:
        # jiter (pydantic-core's parser) says where it ran out of input: "EOF while parsing
        # an object / a list / a string / a value"; any other error is data that is no JSON.
        return str(error).startswith("EOF while parsing")
    return False


def _looks_like_sse(start: bytes) -> bool:
    first = start.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    return first.startswith(_SSE_STARTS)


def _preview(data: bytes) -> str:
    return repr(data[:_PREVIEW].decode("utf-8", "replace"))
