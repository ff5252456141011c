"""Anthropic answers to LlamaIndex blocks, byte-level: a stream of interleaved thinking, a tool
call, redacted thinking and text, split at every byte, gives one ThinkingBlock per block with
its signature (or redacted data), as a whole answer does; mid-stream, the open block shows its
text so far unsigned, also when a lazy message is read after later blocks closed."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ContentBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

import sse_core
from llamaindex_sse import SSELLM
from llamaindex_sse._inbound import ResponseMapper, to_chat_response
from llamaindex_sse._lazy import Build
from sse_core import StreamDecoder, StreamEvent
from sse_core.pipeline import Accumulator
from sse_core.protocols.anthropic import MESSAGE as ANTHROPIC_RAW
from tests.llamaindex.li_support import sse_transport

BUILDS = [Build(lazy=True), Build(lazy=False)]
BUILD_IDS = ["lazy", "faithful"]


def event(kind: str, **payload: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n".encode()


def delta(index: int, **fields: Any) -> bytes:
    return event("content_block_delta", index=index, delta=fields)


def start(index: int, **block: Any) -> bytes:
    return event("content_block_start", index=index, content_block=block)


USAGE = {"input_tokens": 20, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 3}
FRAMES = [
    event("message_start", message={"id": "msg_1", "model": "claude-x", "usage": USAGE}),
    start(0, type="thinking", thinking="", signature=""),
    delta(0, type="thinking_delta", thinking="First, "),
    delta(0, type="thinking_delta", thinking="the tool…"),
    delta(0, type="signature_delta", signature="sig-A/+=="),
    event("content_block_stop", index=0),
    start(1, type="tool_use", id="toolu_1", name="get_weather", input={}),
    delta(1, type="input_json_delta", partial_json='{"city": '),
    delta(1, type="input_json_delta", partial_json='"Paris"}'),
    event("content_block_stop", index=1),
    start(2, type="redacted_thinking", data="RED+/=="),
    event("content_block_stop", index=2),
    start(3, type="thinking", thinking=""),
    delta(3, type="thinking_delta", thinking="Then answer."),
    delta(3, type="signature_delta", signature="sig-B"),
    event("content_block_stop", index=3),
    start(4, type="text", text=""),
    delta(4, type="text_delta", text="Sunny."),
    event("content_block_stop", index=4),
    event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 9}),
    event("message_stop"),
]
BODY = b"".join(FRAMES)
EXPECTED: list[ContentBlock] = [
    ThinkingBlock(
        content="First, the tool…",
        additional_information={"type": "thinking", "signature": "sig-A/+=="},
    ),
    ThinkingBlock(
        content="", additional_information={"type": "redacted_thinking", "data": "RED+/=="}
    ),
    ThinkingBlock(
        content="Then answer.", additional_information={"type": "thinking", "signature": "sig-B"}
    ),
    TextBlock(text="Sunny."),
    ToolCallBlock(tool_call_id="toolu_1", tool_name="get_weather", tool_kwargs='{"city": "Paris"}'),
]


def responses(pieces: list[bytes], build: Build) -> tuple[list[ChatResponse], Accumulator]:
    """The responses of a stream read as ``pieces``, mapped as the transport maps them."""
    decoder = StreamDecoder(protocol="anthropic")
    answer = Accumulator()
    mapper = ResponseMapper(answer, build, message_usage=True, raw=ANTHROPIC_RAW)
    out: list[ChatResponse] = []
    for piece in [*pieces, b""]:
        batch: list[StreamEvent] = decoder.feed(piece) if piece else decoder.finish()
        answer.extend(batch)
        response = mapper.respond(answer.read())
        if response is not None:
            out.append(response)
    last = mapper.last()
    return ([*out, last] if last is not None else out), answer


@pytest.mark.parametrize("build", BUILDS, ids=BUILD_IDS)
def test_every_split_gives_the_blocks_of_the_whole_answer(build: Build) -> None:
    whole = to_chat_response(
        sse_core.decode(BODY, protocol="anthropic"), message_usage=True, raw_shape=ANTHROPIC_RAW
    )
    assert whole.message.blocks == EXPECTED
    for at in range(1, len(BODY)):
        got, _ = responses([BODY[:at], BODY[at:]], build)
        last = got[-1]
        assert last.message.blocks == EXPECTED, at
        assert last.message.additional_kwargs["usage"] == {**USAGE, "output_tokens": 9}
        assert last.message.additional_kwargs["stop_reason"] == "end_turn"
        assert last.message.additional_kwargs == whole.message.additional_kwargs


def thinking(response: ChatResponse) -> list[ContentBlock]:
    return [b for b in response.message.blocks if isinstance(b, ThinkingBlock)]


def thinking_reads(got: list[ChatResponse]) -> list[ChatResponse]:
    """The responses of the reads that brought thinking text."""
    return [r for r in got if r.additional_kwargs.get("thinking_delta")]


@pytest.mark.parametrize("build", BUILDS, ids=BUILD_IDS)
def test_mid_stream_the_open_block_is_unsigned(build: Build) -> None:
    got, _ = responses(FRAMES, build)  # one frame per read
    first, second, third = thinking_reads(got)
    assert thinking(first) == [ThinkingBlock(content="First, ")]
    assert thinking(second) == [ThinkingBlock(content="First, the tool…")]
    assert thinking(third) == [*EXPECTED[:2], ThinkingBlock(content="Then answer.")]
    assert first.additional_kwargs["thinking_delta"] == "First, "
    assert first.message.additional_kwargs["stop_reason"] is None
    assert first.message.additional_kwargs["usage"] == USAGE


def test_a_lazy_message_read_after_its_block_closed_keeps_its_own_text() -> None:
    got, _ = responses(FRAMES, Build(lazy=True))
    # Nothing read until the stream is over: the first message still shows what it had.
    first, _, _ = thinking_reads(got)
    assert thinking(first) == [ThinkingBlock(content="First, ")]
    assert got[-1].message.blocks == EXPECTED


CUT = [
    event("message_start", message={"id": "msg_2", "model": "claude-x", "usage": USAGE}),
    start(0, type="tool_use", id="toolu_7", name="get_weather", input={}),
    delta(0, type="input_json_delta", partial_json='{"city": "Par'),
    event("message_delta", delta={"stop_reason": "max_tokens"}, usage={"output_tokens": 4}),
    event("message_stop"),
]


def cut_llm() -> SSELLM:
    return SSELLM(
        protocol="anthropic",
        model="claude-x",
        base_url="http://gateway.test",
        api_key="sk-test",
        http_client=httpx.Client(transport=sse_transport(CUT)),
    )


def test_cut_tool_input_is_never_repaired_into_usable_arguments() -> None:
    llm = cut_llm()
    streamed = list(llm.stream_chat([ChatMessage(role="user", content="weather in Paris")]))
    for response in streamed[:-1]:  # still streaming: as far as it goes, never raising
        llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
    whole = llm.chat([ChatMessage(role="user", content="weather in Paris")])
    for response in (streamed[-1], whole):
        (call,) = [b for b in response.message.blocks if isinstance(b, ToolCallBlock)]
        assert call.tool_kwargs == '{"city": "Par'  # as the model wrote it
        with pytest.raises(ValueError, match=r"'get_weather' \(toolu_7\).*'max_tokens'"):
            llm.get_tool_calls_from_response(response)
