"""The protocol seam (:mod:`sse_core.protocols`): one payload-decoder interface, one registry.

A third protocol, a toy one defined here, is registered and decodes through
``StreamDecoder(protocol=...)``, ``StreamSession`` and ``decode(..., protocol=...)`` with
nothing of the two built-in protocols touched; both built-in decoders have the interface.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sse_core import (
    ConfigurationError,
    ErrorFrame,
    Finish,
    GatewayEvent,
    GatewayStreamError,
    IncompleteStreamError,
    StreamDecoder,
    StreamEnd,
    StreamEvent,
    StreamProtocolError,
    TextDelta,
    decode,
)
from sse_core.pipeline import (
    ChunkDecoder,
    MessagesDecoder,
    ResponsesDecoder,
    ServerSentEvent,
    SSEParser,
)
from sse_core.pipeline.session import StreamSession
from sse_core.protocols import registry as protocols
from sse_core.protocols.registry import PayloadDecoder, WireProtocol, register_protocol


class LinesDecoder:
    """A toy protocol: an unnamed event's data is plain text (not JSON); ``event: end`` ends
    the answer, ``event: fail`` is an error; other names are gateway events."""

    def __init__(self) -> None:
        self.done = False

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        if data == b"boom":
            raise StreamProtocolError("a toy frame that breaks the toy protocol")
        if data:
            events.append(TextDelta(text=data.decode()))

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        if name == "end":
            self.done = True
            events += (Finish(reason="stop", stop_reason=data.decode()), StreamEnd())
        elif name == "fail":
            self.done = True
            events.append(ErrorFrame(message=data.decode()))
        else:
            events.append(GatewayEvent(name=name, data=data.decode()))

    def flush(self) -> list[StreamEvent]:
        return []

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        return [TextDelta(text=body.decode()), Finish(reason="stop"), StreamEnd()]

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if sse.event == "message":
            self.data_into(sse.data.encode(), events)
        else:
            self.named_into(sse.event, sse.data.encode(), events)
        return events


LINES = WireProtocol(
    name="lines", decoder=LinesDecoder, api="toy lines endpoint", ends="an end event"
)
BODY = (
    b"data: Hello\n\ndata: , \n\nevent: note\ndata: n1\n\ndata: world\n\nevent: end\ndata: eot\n\n"
)
CHAT = b'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
MESSAGES = (
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":"hi"}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)


@pytest.fixture
def lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireProtocol]:
    """``lines`` registered for one test (the registry is restored after it)."""
    monkeypatch.setattr(protocols, "REGISTRY", dict(protocols.REGISTRY))
    before = dict(protocols.REGISTRY)
    yield register_protocol(LINES)
    assert {name: protocols.REGISTRY[name] for name in before} == before  # others untouched


def _events(protocol: str, pieces: list[bytes]) -> list[StreamEvent]:
    decoder = StreamDecoder(protocol=protocol)
    events = [event for piece in pieces for event in decoder.feed(piece)]
    return events + decoder.finish()


EXPECTED: list[StreamEvent] = [
    TextDelta(text="Hello"),
    TextDelta(text=", "),
    GatewayEvent(name="note", data="n1"),
    TextDelta(text="world"),
    Finish(reason="stop", stop_reason="eot"),
    StreamEnd(),
]


@pytest.mark.usefixtures("lines")
def test_a_registered_third_protocol_decodes_through_the_stream_decoder() -> None:
    assert _events("lines", [BODY]) == EXPECTED  # one read: the parser's speed path
    frames = [frame + b"\n\n" for frame in BODY.split(b"\n\n")[:-1]]
    assert _events("lines", frames) == EXPECTED  # a frame per read: single_frame
    for cut in range(len(BODY) + 1):  # the line rules, for held frames
        assert _events("lines", [BODY[:cut], BODY[cut:]]) == EXPECTED, f"split at {cut}"
    assert _events("lines", [BODY[i : i + 1] for i in range(len(BODY))]) == EXPECTED


@pytest.mark.usefixtures("lines")
def test_a_registered_protocol_gets_the_session_rules() -> None:
    assert decode(BODY, protocol="lines").content == "Hello, world"
    with pytest.raises(IncompleteStreamError, match="without an end event") as cut:
        decode(BODY[: BODY.index(b"event: end")], protocol="lines")
    assert cut.value.partial is not None and cut.value.partial.content == "Hello, world"
    with pytest.raises(GatewayStreamError, match="overloaded"):
        decode(b"data: part\n\nevent: fail\ndata: overloaded\n\n", protocol="lines")
    with pytest.raises(StreamProtocolError, match="toy frame") as bad:
        decode(b"data: part\n\ndata: boom\n\n", protocol="lines")
    assert bad.value.partial is not None and bad.value.partial.content == "part"
    session = StreamSession(protocol="lines")
    session.begin({"content-type": "application/json"})
    session.step(b"whole")
    session.end()
    assert session.completion().content == "whole"


@pytest.mark.usefixtures("lines")
def test_registering_leaves_the_built_in_protocols_as_they_were() -> None:
    assert decode(CHAT).content == "hi"
    assert decode(MESSAGES, protocol="anthropic").content == "hi"
    with pytest.raises(ConfigurationError, match="already registered"):
        register_protocol(LINES)


def test_an_unregistered_protocol_is_refused_naming_the_registered_ones() -> None:
    with pytest.raises(
        ConfigurationError,
        match="'chat_completions', 'anthropic', 'responses', 'gemini', got 'lines'",
    ):
        StreamDecoder(protocol="lines")


@pytest.mark.parametrize("make", [ChunkDecoder, MessagesDecoder, ResponsesDecoder, LinesDecoder])
def test_every_payload_decoder_has_the_whole_interface(make: type[PayloadDecoder]) -> None:
    decoder = make()
    assert decoder.done is False
    members = [name for name in vars(PayloadDecoder) if not name.startswith("_")]
    assert sorted(members) == ["data_into", "decode", "decode_whole", "flush", "named_into"]
    for name in members:
        assert callable(getattr(decoder, name)), name
    events: list[StreamEvent] = []
    decoder.named_into("vendor.trace", b"x", events)
    assert events == [GatewayEvent(name="vendor.trace", data="x")]


@pytest.mark.parametrize(
    ("protocol", "body"), [("chat_completions", CHAT), ("anthropic", MESSAGES)]
)
def test_the_built_in_decoders_end_their_stream_through_the_interface(
    protocol: str, body: bytes
) -> None:
    decoder = protocols.payload_decoder(protocol)
    events: list[StreamEvent] = []
    for sse in SSEParser().feed(body):
        if sse.event == "message":
            decoder.data_into(sse.data.encode(), events)
        else:
            decoder.named_into(sse.event, sse.data.encode(), events)
    assert decoder.done and events[-1] == StreamEnd()
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta(text="hi")]
