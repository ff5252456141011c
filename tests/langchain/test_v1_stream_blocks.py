"""``output_version="v1"``: a streamed answer merges into the content blocks ``invoke`` gives.

Each tool-call fragment block carries its call's index (0 for the first call), and so would
the answer's first block (reasoning or text): merging the chunks then folded the first call
into that block. Every dialect's wire is rendered by the emulator's own renderer from one
answer with reasoning, text and two tool calls (a mix the emulator's assistant never
plans), and served over a MockTransport, streamed and whole.
"""

from __future__ import annotations

import json
from functools import reduce
from operator import add
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_sse import ChatSSE
from sse_emulator.assistant.reply import PlannedCall, Reply, TokenCounts
from sse_emulator.wire.dialects import DIALECTS
from sse_emulator.wire.frames import encode
from sse_emulator.wire.render import ChunkWriter, completion_body, stream_frames
from tests.langchain.lc_support import ALL_DIALECTS, REASONING_DIALECTS

MODES = ("sync", "async")


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


def _call(call_id: str, city: str) -> PlannedCall:
    arguments = json.dumps({"city": city}, separators=(",", ":"))
    return PlannedCall(id=call_id, name="get_weather", arguments=arguments,
                       pieces=(arguments[:8], arguments[8:]))  # fmt: skip


REPLY = Reply(
    model="m",
    digest="0123456789abcdef" * 4,
    reasoning=("Two", " cities", ": two calls."),
    content=("Checking", " both", "."),
    refusal=(),
    tool_calls=(_call("call_paris", "Paris"), _call("call_tokyo", "Tokyo")),
    finish_reason="tool_calls",
    usage=TokenCounts(prompt_tokens=30, completion_tokens=40, cached_tokens=0, reasoning_tokens=9),
)


def _answer(dialect: str, request: httpx.Request) -> httpx.Response:
    writer = ChunkWriter(DIALECTS[dialect], REPLY, include_usage=True)
    if json.loads(request.content)["stream"]:
        body = b"".join(encode(frame) for frame in stream_frames(writer))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    return httpx.Response(200, json=completion_body(DIALECTS[dialect], REPLY))


def _model(dialect: str, **fields: Any) -> Any:
    transport = httpx.MockTransport(lambda request: _answer(dialect, request))
    model = ChatSSE(
        model="m",
        base_url="http://gateway.test/v1",
        output_version="v1",
        http_client=httpx.Client(transport=transport),
        http_async_client=httpx.AsyncClient(transport=transport),
        **fields,
    )
    return model.bind_tools([get_weather])


async def _stream(model: Any, mode: str) -> AIMessageChunk:
    if mode == "sync":
        chunks = list(model.stream("weather?"))
    else:
        chunks = [chunk async for chunk in model.astream("weather?")]
    merged: AIMessageChunk = reduce(add, chunks)
    return merged


async def _invoke(model: Any, mode: str) -> AIMessage:
    message = model.invoke("weather?") if mode == "sync" else await model.ainvoke("weather?")
    assert isinstance(message, AIMessage)
    return message


def _unnumbered(blocks: list[Any]) -> list[dict[str, Any]]:
    """Blocks without their stream numbers (which only tell merging what goes together)."""
    return [{k: v for k, v in block.items() if k != "index"} for block in blocks]


def _expected_types(dialect: str) -> list[str]:
    reasoning = ["reasoning"] if dialect in REASONING_DIALECTS else []
    return [*reasoning, "text", "tool_call", "tool_call"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("invoke_streaming", [True, False])
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_merged_v1_stream_has_the_blocks_of_invoke(
    dialect: str, invoke_streaming: bool, mode: str
) -> None:
    model = _model(dialect, invoke_streaming=invoke_streaming)
    merged, invoked = await _stream(model, mode), await _invoke(model, mode)
    blocks = merged.content_blocks
    assert [b["type"] for b in blocks] == _expected_types(dialect)
    calls = [(b["id"], b["name"], b["args"]) for b in blocks if b["type"] == "tool_call"]
    assert calls == [("call_paris", "get_weather", {"city": "Paris"}),
                     ("call_tokyo", "get_weather", {"city": "Tokyo"})]  # fmt: skip
    assert _unnumbered(blocks) == _unnumbered(invoked.content_blocks)
    assert merged.tool_calls == invoked.tool_calls
    assert merged.text == invoked.text == "Checking both."


@pytest.mark.parametrize("mode", MODES)
async def test_each_call_keeps_one_block_number_across_its_fragments(mode: str) -> None:
    model = _model("openai")
    if mode == "sync":
        chunks = list(model.stream("weather?"))
    else:
        chunks = [chunk async for chunk in model.astream("weather?")]
    numbers: dict[str, set[int]] = {}
    for chunk in chunks:
        for block in chunk.content:
            kind = block["type"] if block["type"] != "tool_call_chunk" else block["id"] or "args"
            numbers.setdefault(kind, set()).add(block["index"])
    assert numbers == {"reasoning": {0}, "text": {1}, "call_paris": {2}, "call_tokyo": {3},
                       "args": {2, 3}}  # fmt: skip
