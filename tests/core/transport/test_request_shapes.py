"""The request side of the protocol seam (:mod:`sse_core.protocols`): each protocol's request
shape (path, key header, required headers, body) is registered by name, with its payload
decoder, in one registration.

A third protocol, a toy in the shape of OpenAI's Responses stream (``response.*`` events,
terminal ``response.completed``), is registered here with both halves and streams through
``ChatClient`` and ``AsyncChatClient`` from a loopback server, nothing of the two built-in
protocols touched.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    Completion,
    ConfigurationError,
    Finish,
    GatewayEvent,
    StreamEnd,
    StreamEvent,
    TextDelta,
)
from sse_core.pipeline import ServerSentEvent
from sse_core.protocols import registry, request_shape
from sse_core.protocols.registry import RequestShape, WireProtocol, plain_body, register_protocol
from sse_core.transport import wire
from tests.raw_server import response, serving

KEY = "sk-toy-canary-7d2e"


class ToyResponsesDecoder:
    """``response.output_text.delta`` events are text; ``response.completed`` ends the
    answer; every other event is a gateway event. A whole answer is ``{"output_text": ...}``."""

    def __init__(self) -> None:
        self.done = False

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        events.append(GatewayEvent(name="message", data=data.decode()))

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        if name == "response.output_text.delta":
            events.append(TextDelta(text=json.loads(data)["delta"]))
        elif name == "response.completed":
            self.done = True
            events += (Finish(reason="stop"), StreamEnd())
        else:
            events.append(GatewayEvent(name=name, data=data.decode()))

    def flush(self) -> list[StreamEvent]:
        return []

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        text = json.loads(body)["output_text"]
        return [TextDelta(text=text), Finish(reason="stop"), StreamEnd()]

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self.named_into(sse.event, sse.data.encode(), events)
        return events


TOY_REQUEST = RequestShape(path=lambda base_url: "/responses", headers={"toy-beta": "responses-1"})
#: The toy, decoded only (no request shape).
TOY_DECODED = WireProtocol(
    name="toy_responses",
    decoder=ToyResponsesDecoder,
    api="toy Responses endpoint",
    ends="response.completed",
)
TOY = dataclasses.replace(TOY_DECODED, request=TOY_REQUEST)
STREAM = b"".join(
    b"event: " + name.encode() + b"\ndata: " + json.dumps(data).encode() + b"\n\n"
    for name, data in (
        ("response.created", {"id": "resp_1"}),
        ("response.output_text.delta", {"delta": "Hello"}),
        ("response.output_text.delta", {"delta": ", world"}),
        ("response.completed", {"id": "resp_1"}),
    )
)
WHOLE = json.dumps({"output_text": "Hello, whole"}).encode()
PAYLOAD: dict[str, Any] = {"model": "toy", "input": "hi", "stream_options": {"x": 1}}


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy protocol registered, both halves, for one test (the registries restored)."""
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    built_in = dict(registry.REGISTRY)
    register_protocol(TOY)
    yield
    assert {name: registry.REGISTRY[name] for name in built_in} == built_in  # others untouched


def _answer(number: int, request: bytes) -> bytes:
    whole = b'"stream": false' in request or b'"stream":false' in request
    if whole:
        return response(WHOLE, headers=("content-type: application/json",))
    return response(STREAM)


def _head_and_body(request: bytes) -> tuple[list[str], dict[str, Any]]:
    head, _, body = request.partition(b"\r\n\r\n")
    return head.decode().split("\r\n"), json.loads(body)


def _complete(mode: str, url: str, *, streaming: bool) -> Completion:
    settings: dict[str, Any] = {"base_url": url, "api_key": KEY, "protocol": "toy_responses"}
    if mode == "sync":
        with ChatClient(**settings) as client:
            return client.complete(PAYLOAD, streaming=streaming)

    async def run() -> Completion:
        async with AsyncChatClient(**settings) as client:
            return await client.complete(PAYLOAD, streaming=streaming)

    return asyncio.run(run())


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_third_protocol_is_requested_and_decoded_as_it_registered(mode: str) -> None:
    with serving(_answer) as served:
        streamed = _complete(mode, served.url, streaming=True)
        whole = _complete(mode, served.url, streaming=False)
    assert streamed.content == "Hello, world" and streamed.done
    assert [e.name for e in streamed.events if isinstance(e, GatewayEvent)] == ["response.created"]
    assert whole.content == "Hello, whole"
    for request, streaming in zip(served.requests, (True, False), strict=True):
        lines, body = _head_and_body(request)
        assert lines[0] == "POST /v1/responses HTTP/1.1"
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
        assert headers["authorization"] == f"Bearer {KEY}"
        assert headers["toy-beta"] == "responses-1"
        assert "anthropic-version" not in headers and "x-api-key" not in headers
        # The plain body: the payload and ``stream``; OpenAI's stream_options is not its own.
        assert body == {"model": "toy", "input": "hi", "stream": streaming}


@pytest.mark.usefixtures("toy")
def test_the_built_in_shapes_are_unchanged_by_a_third() -> None:
    chat = request_shape("chat_completions")
    asked = chat.body({"model": "m", "messages": []}, None, streaming=True, include_usage=True)
    assert asked["stream_options"] == {"include_usage": True}
    assert wire.default_path("chat_completions", "http://h/v1") == "/chat/completions"
    assert wire.default_path("anthropic", "http://h") == "/v1/messages"
    assert wire.default_path("anthropic", "http://h/v1") == "/messages"
    assert wire.check_auth(None, "anthropic") == "x-api-key"
    assert wire.check_auth(None, "chat_completions") == "bearer"
    assert wire.check_auth(None, "toy_responses") == "bearer"
    assert dict(wire.protocol_headers("anthropic")) == {"anthropic-version": "2023-06-01"}
    assert dict(wire.protocol_headers("chat_completions")) == {}


def test_a_protocol_without_a_request_shape_is_refused_before_any_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    register_protocol(TOY_DECODED)
    with (
        serving(_answer) as served,
        pytest.raises(ConfigurationError, match="no request shape: register it"),
    ):
        ChatClient(base_url=served.url, api_key=KEY, protocol="toy_responses")
    assert served.connections == 0


@pytest.mark.parametrize(
    ("protocol", "message"),
    [
        (dataclasses.replace(TOY, name="anthropic"), "already registered"),
        (dataclasses.replace(TOY, name=""), "already registered \\(or empty\\)"),
        (
            dataclasses.replace(TOY, request=RequestShape(path=lambda url: "/x", auth="basic")),
            "auth must be .bearer. or the name of the header",
        ),
    ],
)
def test_a_protocol_is_refused_for_a_taken_or_empty_name_or_a_bad_auth(
    monkeypatch: pytest.MonkeyPatch, protocol: WireProtocol, message: str
) -> None:
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    before = dict(registry.REGISTRY)
    with pytest.raises(ConfigurationError, match=message):
        register_protocol(protocol)
    assert before == registry.REGISTRY


def test_the_plain_body_merges_extra_body_and_drops_stream_options() -> None:
    body = plain_body(
        {"a": 1, "stream_options": {"include_usage": True}},
        {"b": 2},
        streaming=False,
        include_usage=True,
    )
    assert body == {"a": 1, "b": 2, "stream": False}
