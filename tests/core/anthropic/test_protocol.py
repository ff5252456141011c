"""The ``protocol`` argument: the seam that picks the payload decoder. Unknown names are
refused naming the choices; chat completions stay the default; the Anthropic decoder's
events and ending rules through ``StreamDecoder`` and ``StreamSession``."""

from __future__ import annotations

import json

import pytest

from sse_core import (
    ConfigurationError,
    Finish,
    GatewayEvent,
    GatewayStreamError,
    IncompleteStreamError,
    Metadata,
    ReasoningDelta,
    ReasoningSignature,
    StreamDecoder,
    StreamEnd,
    TextDelta,
    UsageUpdate,
    decode,
)
from sse_core.pipeline import MessagesDecoder, StreamSession
from tests.core.anthropic.messages_wire import (
    PING,
    STOP,
    block,
    body,
    frame,
    message_delta,
    signature,
    start,
    text,
    thinking,
)
from tests.core.anthropic.test_messages_wire import THINKING, TOOL

CHAT = b'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'


@pytest.mark.parametrize("protocol", ["anthropic_messages", "openai", "", None, 1])
def test_an_unknown_protocol_is_refused_naming_the_choices(protocol: object) -> None:
    for make in (
        lambda: StreamDecoder(protocol=protocol),  # type: ignore[arg-type]
        lambda: StreamSession(protocol=protocol),  # type: ignore[arg-type]
        lambda: decode(CHAT, protocol=protocol),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigurationError, match="'chat_completions', 'anthropic'"):
            make()


def test_chat_completions_is_the_default_and_can_be_named() -> None:
    assert decode(CHAT).content == decode(CHAT, protocol="chat_completions").content == "hi"
    with pytest.raises(IncompleteStreamError):
        decode(TOOL)  # an Anthropic body read as chat completions has no finish_reason


def test_the_decoder_events_of_a_thinking_stream() -> None:
    events = StreamDecoder(protocol="anthropic").feed(THINKING)
    kinds = [type(event) for event in events]
    assert kinds == [
        Metadata,
        UsageUpdate,
        ReasoningDelta,
        ReasoningDelta,
        ReasoningSignature,
        TextDelta,
        UsageUpdate,
        Finish,
        StreamEnd,
    ]
    finish = events[-2]
    assert finish == Finish(reason="stop", stop_reason="end_turn", stop_sequence=None)


def test_the_signature_is_sent_when_its_block_closes_joined_whole() -> None:
    data = body(
        start(), block(0, "thinking"), thinking(0, "t"), signature(0, "ab"), signature(0, "c/=")
    )
    decoder = StreamDecoder(protocol="anthropic")
    events = decoder.feed(data)
    assert not any(isinstance(e, ReasoningSignature) for e in events)  # the block is open
    events = decoder.feed(frame({"type": "content_block_stop", "index": 0}))
    assert events == [ReasoningSignature(signature="abc/=")]


def test_message_stop_makes_the_decoder_done_and_later_bytes_are_ignored() -> None:
    decoder = StreamDecoder(protocol="anthropic")
    events = decoder.feed(body(start(), block(0), text(0, "a"), STOP))
    assert decoder.done and isinstance(events[-1], StreamEnd)
    assert decoder.feed(frame(text(0, "late"))) == []
    assert decoder.finish() == []


def test_a_ping_is_no_event() -> None:
    decoder = StreamDecoder(protocol="anthropic")
    decoder.feed(frame(start()))
    assert decoder.feed(frame(PING)) == []
    assert decoder.feed(frame(PING, named=False)) == []


def test_unknown_named_events_keep_their_name_and_data() -> None:
    decoder = StreamDecoder(protocol="anthropic")
    events = decoder.feed(b"event: vendor.trace\ndata: not json\n\n")
    assert events == [GatewayEvent(name="vendor.trace", data="not json")]


def test_payload_decoders_share_one_interface() -> None:
    decoder = MessagesDecoder()
    from sse_core.pipeline import ServerSentEvent

    events = decoder.decode(ServerSentEvent(data=json.dumps(start()), event="message_start"))
    assert isinstance(events[0], Metadata)
    assert decoder.flush() == []  # no stop reason: nothing closed at the end
    assert not decoder.done


def test_the_accelerator_leaves_anthropic_streams_on_the_pure_path() -> None:
    pytest.importorskip("msgspec")  # the optional extra, as tests/core/pipeline does
    plain = StreamDecoder(protocol="anthropic").feed(TOOL)
    assert StreamDecoder(protocol="anthropic", accelerator="msgspec").feed(TOOL) == plain


def test_a_bad_accelerator_name_is_refused_whatever_the_protocol() -> None:
    with pytest.raises(ConfigurationError, match="accelerator"):
        StreamDecoder(protocol="anthropic", accelerator="turbo")


def _json_session(payload: object) -> StreamSession:
    session = StreamSession(protocol="anthropic")
    session.begin({"content-type": "application/json"})
    session.step(json.dumps(payload).encode())
    session.end()
    return session


def test_a_whole_json_message_decodes_to_the_same_completion() -> None:
    message = {
        "id": "msg_j",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig="},
            {"type": "text", "text": "Hello"},
            {"type": "tool_use", "id": "toolu_j", "name": "f", "input": {"x": 1}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }
    completion = _json_session(message).completion()
    assert (completion.content, completion.reasoning) == ("Hello", "hmm")
    assert completion.reasoning_blocks[0].signature == "sig="
    assert completion.tool_calls[0].arguments == '{"x":1}'
    assert (completion.finish_reason, completion.done) == ("tool_calls", True)


def test_a_json_error_body_is_a_gateway_error() -> None:
    session = _json_session(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    with pytest.raises(GatewayStreamError) as info:
        session.completion()
    assert info.value.type == "overloaded_error"


def test_an_error_event_without_an_event_line_ends_the_stream() -> None:
    error = {"type": "error", "error": {"type": "api_error", "message": "boom"}}
    data = body(start(), block(0), text(0, "x"), named=False) + frame(error, named=False)
    with pytest.raises(GatewayStreamError, match="boom") as info:
        decode(data + frame(message_delta()), protocol="anthropic")
    assert info.value.partial.content == "x"


def test_chat_completions_finish_events_have_no_stop_reason() -> None:
    events = StreamDecoder().feed(CHAT)
    finish = next(e for e in events if isinstance(e, Finish))
    assert (finish.reason, finish.stop_reason, finish.stop_sequence) == ("stop", None, None)


def test_pings_do_not_count_as_data_for_data_idle() -> None:
    from sse_core import StreamTimeoutError

    session = StreamSession(protocol="anthropic", data_idle=5.0)
    session.begin({"content-type": "text/event-stream"}, now=0.0)
    assert session.step(frame(start()) + frame(block(0)) + frame(text(0, "a")), now=1.0)
    assert session.step(frame(PING), now=4.0) == []
    with pytest.raises(StreamTimeoutError, match="data_idle") as info:
        session.step(frame(PING), now=6.5)  # 5.5 s since the text, pings only
    assert info.value.partial.content == "a"
