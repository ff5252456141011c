"""``StreamSession``: every decision about one response body, made once, for every loop.

The transport's sync and async loops, and :func:`decode`, only move bytes: they hand each
piece to :meth:`StreamSession.step`, pass on the events it returns, stop when it says
:attr:`~StreamSession.stopped`, call :meth:`~StreamSession.end` when the body ends, and ask
:meth:`~StreamSession.completion` for the result (which raises what went wrong).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from sse_core._redact import scrub
from sse_core.completion import Completion
from sse_core.errors import (
    IncompleteStreamError,
    StreamError,
    StreamProtocolError,
    StreamTimeoutError,
    UnexpectedResponseError,
)
from sse_core.events import StreamEvent
from sse_core.pipeline.accumulator import Accumulator, incomplete_message
from sse_core.pipeline.decoder import StreamDecoder
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES, as_bytes
from sse_core.pipeline.protocol import Decodable, resolve

__all__ = ["StreamSession", "decode"]

_PREVIEW = 120
#: Content types that are never an event stream (besides anything HTML or XML).
_NOT_A_STREAM = ("image/", "audio/", "video/", "application/pdf", "application/zip", "font/")


_Read = Callable[["StreamSession", bytes, "float | None"], list[StreamEvent]]
_Finish = Callable[["StreamSession"], list[StreamEvent]]


class StreamSession:
    """Decoder and accumulator for one response, and the rules for ending it.

    Args:
        max_event_bytes: The bound on one SSE line or event (and on a JSON body).
        deadline: A deadline for the whole body on the caller's clock (the transport's is
            ``time.monotonic()``), or None.
            The session reads no clock: its caller gives the time to :meth:`begin`,
            :meth:`read_timeout` and :meth:`step` (``now``), where :attr:`timed` says it counts.
        idle: The longest silence allowed between two reads of the body, or None.
        data_idle: The longest time allowed between two data events, or None.
        source: What the body comes from, for messages (a URL; never holds a key).
        secrets: Values masked in every error this session raises (the key, secret headers):
            a gateway may echo them in an error frame.
        accelerator: ``"msgspec"`` to decode common chunks with msgspec (see
            :class:`StreamDecoder`); None: the pure path.
        protocol: A registered protocol's name (``sse_core.protocol_names()``; the first,
            the default) or the protocol itself: the events the body holds (see
            :class:`StreamDecoder`).

    Raises:
        ConfigurationError: An unknown accelerator or protocol.
    """

    __slots__ = (
        "_data_idle",
        "_deadline",
        "_decoder",
        "_error",
        "_finish",
        "_idle",
        "_json",
        "_json_size",
        "_last_data",
        "_max",
        "_protocol",
        "_read",
        "_refuse",
        "_secrets",
        "_source",
        "_start",
        "answer",
        "stopped",
        "timed",
    )

    def __init__(
        self,
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        deadline: float | None = None,
        idle: float | None = None,
        data_idle: float | None = None,
        source: str = "the gateway",
        secrets: Sequence[str] = (),
        accelerator: str | None = None,
        protocol: str | Decodable = "chat_completions",
    ) -> None:
        self._protocol: Decodable = resolve(protocol)
        self._decoder = StreamDecoder(
            max_event_bytes=max_event_bytes,
            accelerator=accelerator,
            protocol=self._protocol,
            source=source,
        )
        self._max = max_event_bytes
        self._deadline = deadline
        self._idle = idle
        self._data_idle = data_idle
        self._last_data = 0.0  # when the last data event (or the head) arrived
        self._secrets = tuple(secrets)
        self._source = source
        self._json: list[bytes] = []  # a JSON body's pieces, joined at the end
        self._refuse: tuple[str, int] = ("", 0)  # (content type, status) of a refused body
        self._json_size = 0
        self._error: StreamError | None = None
        self._start = b""  # the first bytes of a body refused by its type, to say what came
        #: The answer so far: the one accumulator of this response.
        self.answer: Accumulator = Accumulator()
        #: True once the loop must stop reading: ``[DONE]``, or an error frame arrived.
        self.stopped: bool = False
        #: Whether the time matters (a deadline or ``data_idle``): :meth:`step` wants ``now``.
        self.timed: bool = deadline is not None or data_idle is not None
        # How to read the body and end it, chosen once by begin() from the content type (an
        # event stream until then): no piece asks what kind of body it belongs to. Kept as
        # plain functions: a bound method kept on the session would be a reference cycle,
        # leaving every finished session (its whole answer) to the cycle collector.
        self._read: _Read = StreamSession._read_stream
        self._finish: _Finish = StreamSession._finish_stream

    def begin(
        self, headers: Mapping[str, str], *, status: int = 200, now: float | None = None
    ) -> None:
        """The response head arrived: keep its headers, and read the body by its type.

        ``text/event-stream`` (or no type, or another text type: gateways are careless) is
        decoded as a stream; a JSON type as one whole ``chat.completion`` (a gateway that
        answered JSON where SSE was asked for); a web page, XML or binary type is refused
        (:class:`UnexpectedResponseError`) once its first bytes arrived, to say what came.
        ``now``: the time the head arrived, where :attr:`timed` (``data_idle`` counts from it).
        """
        self.answer.headers = headers
        if now is not None:
            self._last_data = now
        kind = headers.get("content-type", "").lower()
        if "event-stream" in kind:
            return
        if "json" in kind:
            self._read, self._finish = StreamSession._read_json, StreamSession._finish_json
        elif kind.startswith(_NOT_A_STREAM) or "html" in kind or "xml" in kind:
            self._refuse = (kind, status)
            self._read, self._finish = StreamSession._read_refused, StreamSession._refused

    @property
    def keepalives(self) -> int:
        """How many keep-alives arrived (:attr:`sse_core.StreamDecoder.keepalives`)."""
        return self._decoder.keepalives

    @property
    def dialect(self) -> tuple[str, ...]:
        """What the stream showed of its gateway's dialect
        (:attr:`sse_core.StreamDecoder.dialect`)."""
        return self._decoder.dialect

    @property
    def deadline(self) -> float | None:
        """The deadline for the whole body it was given, or None."""
        return self._deadline

    def read_timeout(self, now: float) -> float | None:
        """The timeout for each read of the body from ``now``: the idle bound, within the
        deadline."""
        if self._deadline is None:
            return self._idle
        remaining = max(self._deadline - now, 0.001)
        return remaining if self._idle is None else min(self._idle, remaining)

    def step(self, piece: bytes, now: float | None = None) -> list[StreamEvent]:
        """Take the next piece of the body, which arrived at ``now``; return the events to
        hand on. The deadline and ``data_idle`` are checked where ``now`` is given (the
        caller gives it where :attr:`timed`).

        After an error frame the events before it are returned and :attr:`stopped` is set;
        :meth:`completion` then raises the error.

        Raises:
            StreamProtocolError: Malformed bytes (with the partial answer).
            StreamTimeoutError: The body ran past the deadline.
            UnexpectedResponseError: The body's type said it was no event stream (once its
                first bytes arrived, to say what came).
        """
        return self._read(self, piece, now)

    def _read_stream(self, piece: bytes, now: float | None) -> list[StreamEvent]:
        """:meth:`step` for an event stream: decode the piece."""
        try:
            events = self._decoder.feed(piece)
        except StreamError as exc:
            raise self.fail(exc) from None
        if events:
            events = self._accept(events)
        if self._decoder.done:
            self.stopped = True
        if now is not None:
            self._check_clock(now, bool(events))
        return events

    def _read_json(self, piece: bytes, now: float | None) -> list[StreamEvent]:
        """:meth:`step` for a JSON body: keep the piece (decoded whole by :meth:`end`)."""
        self._collect(piece)
        if now is not None:
            self._check_clock(now, True)  # a JSON body's bytes are all data
        return []

    def _read_refused(self, piece: bytes, now: float | None) -> list[StreamEvent]:
        """:meth:`step` for a body refused by its type: keep its start, to say what came."""
        self._note_start(piece)
        if len(self._start) >= _PREVIEW:
            raise self._unexpected()
        return []

    def end(self) -> list[StreamEvent]:
        """The body ended: the last events (a final frame without blank line, held text).

        Nothing after :attr:`stopped`: the loop left the body on purpose.

        Raises:
            StreamProtocolError: A last frame broke the protocol, or the body held no SSE
                event at all (the decoder's verdict, with the partial answer).
            UnexpectedResponseError: The body's type said it was no event stream.
        """
        if self.stopped:
            return []
        try:
            events = self._finish(self)
        except StreamError as exc:
            raise self.fail(exc) from None
        return self._accept(events)

    def completion(self) -> Completion:
        """The Completion, or the error that ended the stream (with the partial answer).

        Raises:
            GatewayStreamError: An error frame arrived.
            IncompleteStreamError: The stream was cut (no finish_reason, no ``[DONE]``).
        """
        if self._error is not None:
            raise self._error
        if not self.answer.complete:  # no Finish and no StreamEnd: the protocol's ends are missing
            partial = self.answer.completion()
            ends = self._protocol.ends
            raise IncompleteStreamError(incomplete_message(partial, ends), partial=partial)
        return self.answer.finish()

    def partial(self) -> Completion:
        """What arrived so far (not checked for completeness)."""
        return self.answer.completion()

    def fail(self, exc: StreamError) -> StreamError:
        """Attach the partial Completion to ``exc`` (events decoded with it included).

        An error frame among those events wins over ``exc``: the gateway said what failed.
        """
        if not exc.has_partial:
            try:
                self.answer.extend(exc.events)
            except StreamError as earlier:  # an error frame came before the failure
                return self._scrubbed(earlier)
            exc.partial = self.answer.completion()
        return self._scrubbed(exc)

    def _scrubbed(self, exc: StreamError) -> StreamError:
        if self._secrets:
            scrub(exc, self._secrets)
        return exc

    def _accept(self, events: list[StreamEvent]) -> list[StreamEvent]:
        add = self.answer.add
        taken = 0
        try:
            for event in events:
                add(event)
                taken += 1
        except StreamError as exc:
            self._error = self._scrubbed(exc)
            self.stopped = True
            return events[:taken]
        return events

    def _collect(self, piece: bytes) -> None:
        self._json_size += len(piece)
        if self._json_size > self._max:
            raise self.fail(
                StreamProtocolError(
                    f"the JSON response body exceeded {self._max} bytes (max_event_bytes); "
                    "raise it if the gateway really sends answers this large"
                )
            )
        self._json.append(piece)

    def _finish_stream(self) -> list[StreamEvent]:
        return self._decoder.finish()

    def _finish_json(self) -> list[StreamEvent]:
        return self._decoder.decode_whole(b"".join(self._json))

    def _refused(self) -> list[StreamEvent]:
        raise self._unexpected()

    def _unexpected(self) -> UnexpectedResponseError:
        kind, status = self._refuse
        what = (
            f"a {kind.split(';')[0]} body starting with {_preview(self._start)}"
            if self._start.strip()
            else f"an empty {kind.split(';')[0]} body"
        )
        error = UnexpectedResponseError(
            f"expected an event stream from {self._source}, got {what}: check base_url and "
            f"path (do they point at the gateway's {self._protocol.api}?)",
            status_code=status,
            error_message=what,
            headers=dict(self.answer.headers),
        )
        if self._secrets:
            scrub(error, self._secrets)
        return error

    def _note_start(self, piece: bytes) -> None:
        if len(self._start) < _PREVIEW:
            self._start += bytes(piece[: _PREVIEW - len(self._start)])

    def _check_clock(self, now: float, data: bool) -> None:
        if self._deadline is not None and now > self._deadline:
            raise self.fail(
                StreamTimeoutError(f"the stream from {self._source} ran past the total timeout")
            )
        if self._data_idle is None:
            return
        if data:
            self._last_data = now
        elif now - self._last_data > self._data_idle:
            raise self.fail(
                StreamTimeoutError(
                    f"no data from {self._source} for {now - self._last_data:.3g} s, only "
                    f"keep-alive lines (data_idle is {self._data_idle:g} s): the upstream "
                    "stalled behind a gateway that keeps the connection alive"
                )
            )


def _preview(data: bytes) -> str:
    return repr(data[:_PREVIEW].decode("utf-8", "replace"))


def decode(
    body: bytes | Iterable[bytes],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    protocol: str | Decodable = "chat_completions",
) -> Completion:
    """Decode an SSE body of a registered protocol into a :class:`Completion`.

    Args:
        body: The body bytes, whole or as an iterable of pieces (split anywhere).
        max_event_bytes: Upper bound on one SSE line or event.
        protocol: A registered protocol (``sse_core.protocol_names()``; the first, the
            default).

    Raises:
        GatewayStreamError: The stream carried an error frame or ``event: error``.
        IncompleteStreamError: It ended without a finish_reason and without ``[DONE]``.
        StreamProtocolError: Malformed bytes, invalid JSON, an event over the bound, or no
            event stream at all. Each carries ``.partial``, the Completion received before.
        TypeError: ``body`` (or one of its pieces) is not bytes-like.
        ConfigurationError: An unknown protocol.
    """
    if isinstance(body, (bytes, bytearray, memoryview)):
        pieces: Iterable[object] = (as_bytes(body),)
    elif isinstance(body, str) or not isinstance(body, Iterable):
        raise TypeError(f"expected bytes or an iterable of bytes, got {type(body).__name__}")
    else:
        pieces = body
    session = StreamSession(max_event_bytes=max_event_bytes, source="the body", protocol=protocol)
    for piece in pieces:
        session.step(as_bytes(piece))
        if session.stopped:
            break
    session.end()
    return session.completion()
