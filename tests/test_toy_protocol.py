"""A protocol registered in the core from outside it streams through all four entry points
(``ChatClient`` / ``AsyncChatClient``, ``decode``, ``ChatSSE``, ``SSELLM``) with no edit to
either adapter: each adapter maps it from the core's facts alone (DESIGN, "Protocols").

The toy is shaped unlike the built-in three, as Gemini is: the model and the method are in the
path (``/toy/{model}:stream?alt=sse`` or ``:once``), the key goes in a header of its own
(``x-toy-key``), the body has no ``model`` and no ``stream``, frames are ``data:`` only with no
end marker (a ``done`` frame ends the answer; a body that ends without one is cut), and a whole
answer is a JSON array of the same frames.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from llama_index.core.base.llms.types import ChatMessage, MessageRole

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import (
    AsyncChatClient,
    ChatClient,
    ConfigurationError,
    ErrorFrame,
    Finish,
    IncompleteStreamError,
    ReasoningDelta,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    decode,
)
from sse_core.pipeline import ServerSentEvent
from sse_core.protocols import (
    RequestShape,
    WireProtocol,
    register_protocol,
    unregister_protocol,
)
from sse_core.protocols.turns import TextPart, ToolResultPart, ToolUsePart, Turn
from tests.raw_server import response, serving

KEY = "toy-key-canary-41f9"
NAME = "toy_json"
_FINISH = {"stop": "stop", "length": "length", "tools": "tool_calls"}


class ToyDecoder:
    """``data:`` frames of one JSON object each: ``say`` (text), ``think`` (reasoning),
    ``call`` (a whole tool call), ``done`` (how it ended: the end), ``oops`` (an error)."""

    def __init__(self) -> None:
        self.done = False
        self._calls = 0

    def data_into(self, data: bytes, events: list[StreamEvent]) -> None:
        self._frame(json.loads(data), events)

    def _frame(self, frame: Mapping[str, Any], events: list[StreamEvent]) -> None:
        if "say" in frame:
            events.append(TextDelta(text=frame["say"]))
        if "think" in frame:
            events.append(ReasoningDelta(text=frame["think"]))
        if "call" in frame:
            call = frame["call"]
            arguments = json.dumps(call["args"])
            delta = ToolCallDelta(index=self._calls, id=call["id"], name=call["name"])
            events.append(replace(delta, arguments=arguments))
            self._calls += 1
        if "oops" in frame:
            self.done = True
            events.append(ErrorFrame(message=frame["oops"], type="toy_error"))
        if "done" in frame:
            self.done = True
            reason = frame["done"]
            events += (Finish(reason=_FINISH[reason], stop_reason=reason), StreamEnd())

    def named_into(self, name: str, data: bytes, events: list[StreamEvent]) -> None:
        self.data_into(data, events)

    def flush(self) -> list[StreamEvent]:
        return []

    def decode_whole(self, body: bytes) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        for frame in json.loads(body):
            self._frame(frame, events)
        return events

    def decode(self, sse: ServerSentEvent) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self.data_into(sse.data.encode(), events)
        return events


def _route(path: str, model: str, streaming: bool) -> str:
    return f"{path}/{model}:stream?alt=sse" if streaming else f"{path}/{model}:once"


def _body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """The route says the model and whether it streams: neither is in the body."""
    body = {**payload, **(extra_body or {})}
    body.pop("model", None)
    return body


def _line(turn: Turn) -> dict[str, Any]:
    said = "".join(p.text for p in turn.parts if isinstance(p, TextPart))
    line: dict[str, Any] = {"who": turn.role, "say": said}
    calls = [p for p in turn.parts if isinstance(p, ToolUsePart)]
    if calls:
        line["calls"] = [{"id": p.id, "name": p.name, "input": p.input} for p in calls]
    results = [p for p in turn.parts if isinstance(p, ToolResultPart)]
    if results:
        line["results"] = [{"for": p.call_id, "said": str(p.content)} for p in results]
    return line


def _turns_body(model: str, turns: Sequence[Turn], params: Mapping[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "dialogue": [_line(turn) for turn in turns]}
    knobs = {k: params[k] for k in ("temperature", "max_tokens") if params.get(k) is not None}
    if knobs:
        body["knobs"] = knobs
    if params.get("tools"):
        body["tools"] = [t["function"]["name"] for t in params["tools"]]
    return body


TOY = WireProtocol(
    name=NAME,
    decoder=ToyDecoder,
    api="toy API (/toy/{model}:stream)",
    ends="a done frame",
    request=RequestShape(path=lambda base_url: "/toy", route=_route, auth="x-toy-key", body=_body),
    turns_body=_turns_body,
)


@pytest.fixture
def toy() -> Iterator[None]:
    register_protocol(TOY)
    try:
        yield
    finally:
        unregister_protocol(NAME)


def _sse(*frames: Mapping[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(frame).encode() + b"\n\n" for frame in frames)


def _frames(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The toy gateway's answer: a tool call when tools are bound and no result came back yet,
    the weather after a result, else reasoning then text."""
    last = body["dialogue"][-1]
    if last["who"] == "tool":
        return [{"say": "It is "}, {"say": "sunny."}, {"done": "stop"}]
    if body.get("tools"):
        call = {"id": "call_7", "name": "get_weather", "args": {"city": "Paris"}}
        return [{"call": call}, {"done": "tools"}]
    return [{"think": "Hm."}, {"say": "Hello"}, {"say": ", toy"}, {"done": "stop"}]


def _answer(number: int, request: bytes) -> bytes:
    head, _, raw = request.partition(b"\r\n\r\n")
    frames = _frames(json.loads(raw))
    if b":once " in head.split(b"\r\n")[0]:
        return response(json.dumps(frames).encode(), headers=("content-type: application/json",))
    return response(_sse(*frames))


def _request(served_request: bytes) -> tuple[str, dict[str, str], dict[str, Any]]:
    head, _, raw = served_request.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return lines[0], headers, json.loads(raw)


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_core_clients_route_by_model_send_the_key_header_and_decode(mode: str) -> None:
    payload = {"model": "toy-1", "dialogue": [{"who": "user", "say": "hi"}]}
    settings: dict[str, Any] = {"api_key": KEY, "protocol": NAME}
    with serving(_answer) as served:
        base = served.url
        if mode == "sync":
            with ChatClient(base_url=base, **settings) as client:
                streamed = client.complete(payload)
                whole = client.complete(payload, streaming=False)
        else:

            async def run() -> tuple[Any, Any]:
                async with AsyncChatClient(base_url=base, **settings) as client:
                    return await client.complete(payload), await client.complete(
                        payload, streaming=False
                    )

            streamed, whole = asyncio.run(run())
    for completion in (streamed, whole):
        assert completion.content == "Hello, toy" and completion.reasoning == "Hm."
        assert completion.done and completion.finish_reason == "stop"
    (line, headers, body), (whole_line, _, whole_body) = map(_request, served.requests)
    assert line == "POST /v1/toy/toy-1:stream?alt=sse HTTP/1.1"
    assert whole_line == "POST /v1/toy/toy-1:once HTTP/1.1"
    assert headers["x-toy-key"] == KEY and "authorization" not in headers
    assert body == whole_body == {"dialogue": [{"who": "user", "say": "hi"}]}


@pytest.mark.usefixtures("toy")
def test_the_key_header_is_a_secret_and_a_model_is_needed_for_the_url() -> None:
    with ChatClient(base_url="http://127.0.0.1:9/v1", api_key=KEY, protocol=NAME) as client:
        assert client.config.is_secret_header("X-Toy-Key")
        assert KEY not in repr(client) and KEY not in repr(client.config)
        with pytest.raises(ConfigurationError, match="puts the model in the URL"):
            client.complete({"dialogue": []})


@pytest.mark.usefixtures("toy")
def test_decode_takes_the_registered_protocol_and_knows_a_cut_answer() -> None:
    body = _sse({"think": "Hm."}, {"say": "Hello"}, {"done": "stop"})
    completion = decode([body[:7], body[7:]], protocol=NAME)
    assert completion.content == "Hello" and completion.done
    with pytest.raises(IncompleteStreamError, match="a done frame") as caught:
        decode(_sse({"say": "Hel"}), protocol=NAME)
    assert caught.value.partial.content == "Hel"


@pytest.mark.usefixtures("toy")
def test_chatsse_streams_and_runs_a_tool_loop_with_no_adapter_edit() -> None:
    with serving(_answer) as served:
        model = ChatSSE(model="toy-1", base_url=served.url, api_key=KEY, protocol=NAME)
        chunks = list(model.stream("hi"))
        assert "".join(c.text for c in chunks) == "Hello, toy"
        call = model.bind_tools([get_weather]).invoke("weather in Paris?")
        assert isinstance(call, AIMessage)
        assert [(c["name"], c["args"], c["id"]) for c in call.tool_calls] == [
            ("get_weather", {"city": "Paris"}, "call_7")
        ]
        thread = [
            HumanMessage("weather in Paris?"),
            call,
            ToolMessage("sunny", tool_call_id="call_7"),
        ]
        answer = asyncio.run(model.bind_tools([get_weather]).ainvoke(thread))
    assert answer.text == "It is sunny."
    _, headers, sent = _request(served.requests[-1])
    assert headers["x-toy-key"] == KEY
    assert sent["dialogue"][1]["calls"] == [
        {"id": "call_7", "name": "get_weather", "input": {"city": "Paris"}}
    ]
    assert sent["dialogue"][2]["results"] == [{"for": "call_7", "said": "sunny"}]


@pytest.mark.usefixtures("toy")
def test_sse_llm_chats_and_streams_with_no_adapter_edit() -> None:
    messages = [ChatMessage(role=MessageRole.USER, content="hi")]
    with serving(_answer) as served:
        llm = SSELLM(
            model="toy-1", base_url=served.url, api_key=KEY, protocol=NAME, temperature=0.2
        )
        whole = llm.chat(messages)
        streamed = list(llm.stream_chat(messages))

        async def run() -> str:
            last = ""
            async for response_ in await llm.astream_chat(messages):
                last = response_.message.content or ""
            return last

        streamed_async = asyncio.run(run())
    assert whole.message.content == "Hello, toy"
    assert streamed[-1].message.content == "Hello, toy" == streamed_async
    _, _, body = _request(served.requests[0])
    assert body["knobs"]["temperature"] == 0.2


@pytest.mark.usefixtures("toy")
def test_a_setting_the_toy_does_not_take_is_refused_by_name() -> None:
    base = "http://127.0.0.1:9/v1"
    with pytest.raises(ConfigurationError, match="thinking does not apply to protocol='toy_json'"):
        ChatSSE(model="m", base_url=base, protocol=NAME, thinking={"type": "enabled"})
    with pytest.raises(ConfigurationError, match="thinking_dict does not apply"):
        SSELLM(model="m", base_url=base, protocol=NAME, thinking_dict={"type": "enabled"})


def test_a_protocol_registered_without_a_turns_body_is_refused_by_the_adapters() -> None:
    register_protocol(WireProtocol(name="toy_decoded", decoder=ToyDecoder, api="toy", ends="."))
    try:
        for cls in (ChatSSE, SSELLM):
            with pytest.raises(ConfigurationError, match="toy_decoded"):
                cls(model="m", base_url="http://127.0.0.1:9/v1", protocol="toy_decoded")
    finally:
        unregister_protocol("toy_decoded")


def test_the_built_in_protocols_cannot_be_unregistered() -> None:
    with pytest.raises(ConfigurationError, match="not a registered protocol of one's own"):
        unregister_protocol("anthropic")
