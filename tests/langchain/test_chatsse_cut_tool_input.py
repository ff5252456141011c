"""Tool input cut short is flagged or refused by ChatSSE, never repaired into usable arguments.

LangChain parses tool-call fragments with ``parse_partial_json``, which closes a cut string
and object (``{"city": "Par`` becomes ``{"city": "Par"}``): a tool would then run with
arguments the model never finished. ChatSSE's whole answers (``invoke``, the run's end, a
failed stream's ``partial_message``) put such a call in ``invalid_tool_calls`` with the
core's reason, its arguments as written. A stream, whose merged chunks LangChain re-parses,
ends with :class:`langchain_sse.ToolArgumentsError` after its last chunk. For both
protocols, both output versions, sync and async, over the emulator (which cuts a call's
arguments at ``max_tokens``) and over exact bytes. (What both adapters do alike with a cut
call, and that whole calls are untouched: tests/adapters/test_cut_tool_input.py.)
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langchain_core.outputs import LLMResult
from langchain_core.tools import tool

from langchain_sse import ChatSSE, IncompleteStreamError, ToolArgumentsError
from sse_core import ToolArgumentsError as CoreToolArgumentsError
from sse_emulator import Emulator
from tests.langchain.lc_support import TIMEOUT, chunk, sse_body

pytestmark = pytest.mark.timeout(60)

PROTOCOLS = ("chat_completions", "anthropic")
RAN: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    RAN.append(city)
    return f"sunny in {city}"


@tool
def get_time(zone: str) -> str:
    """Get the time in a time zone."""
    return f"noon in {zone}"


def on_emulator(emulator: Emulator, protocol: str, **fields: Any) -> ChatSSE:
    url = emulator.base_url("anthropic") if protocol == "anthropic" else emulator.base_url()
    return ChatSSE(model="m", base_url=url, api_key="k", protocol=protocol,  # type: ignore[arg-type]
                   timeout=TIMEOUT, max_retries=0, **fields)  # fmt: skip


def merge(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    whole = chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]
    assert isinstance(whole, AIMessageChunk)
    return whole


def assert_flagged(message: AIMessage, args: str, name: str = "get_weather") -> None:
    """The cut call is invalid, kept as written, with the core's reason; none is repaired."""
    assert all(call["name"] != name for call in message.tool_calls)
    (bad,) = [call for call in message.invalid_tool_calls if call["name"] == name]
    assert bad["args"] == args
    assert bad["error"] and "not valid JSON" in bad["error"]


WEATHER = "What is the weather in Paris?"


@pytest.mark.parametrize(
    ("protocol", "output_version"),
    # (anthropic, v0: for both adapters, tests/adapters/test_cut_tool_input.py)
    [("chat_completions", "v0"), ("chat_completions", "v1"), ("anthropic", "v1")],
)
def test_invoke_gives_a_cut_call_as_invalid(
    emulator: Emulator, protocol: str, output_version: str
) -> None:
    model = on_emulator(emulator, protocol, max_tokens=1, output_version=output_version)
    message = model.bind_tools([get_weather]).invoke(WEATHER)
    assert message.response_metadata["finish_reason"] == "length"
    assert_flagged(message, '{"city":')
    if output_version == "v1":
        blocks = [b for b in message.content if isinstance(b, dict)]
        assert [b["type"] for b in blocks] == ["invalid_tool_call"]
        assert blocks[0]["args"] == '{"city":'


@pytest.mark.parametrize("output_version", ["v0", "v1"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_stream_ends_with_a_typed_error_after_its_last_chunk(
    emulator: Emulator, protocol: str, output_version: str
) -> None:
    model = on_emulator(emulator, protocol, max_tokens=1, output_version=output_version)
    chunks: list[AIMessageChunk] = []
    with pytest.raises(ToolArgumentsError) as caught:
        for piece in model.bind_tools([get_weather]).stream(WEATHER):
            chunks.append(piece)
    assert chunks[-1].chunk_position == "last"  # nothing that arrived is held back
    assert chunks[-1].usage_metadata is not None
    error = caught.value
    assert isinstance(error, CoreToolArgumentsError) and not error.is_retryable
    assert error.call is not None and error.call.arguments == '{"city":'
    assert error.reason and "not valid JSON" in error.reason
    stop = "'max_tokens'" if protocol == "anthropic" else "'length'"  # the protocol's word
    assert "get_weather" in str(error) and f"stopped with {stop}" in str(error)
    assert_flagged(error.partial_message, '{"city":')
    # What LangChain's merge would have made of it: the repair the error stops.
    assert merge(chunks).tool_calls[0]["args"] == {}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_async_twins(emulator: Emulator, protocol: str) -> None:
    model = on_emulator(emulator, protocol, max_tokens=1).bind_tools([get_weather])

    async def run() -> tuple[AIMessage, list[AIMessageChunk]]:
        message = await model.ainvoke(WEATHER)
        chunks: list[AIMessageChunk] = []
        with pytest.raises(ToolArgumentsError):
            async for piece in model.astream(WEATHER):
                chunks.append(piece)
        return message, chunks

    message, chunks = asyncio.run(asyncio.wait_for(run(), 30))
    assert_flagged(message, '{"city":')
    assert chunks and chunks[-1].chunk_position == "last"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_finished_call_beside_a_cut_one_stays_usable(emulator: Emulator, protocol: str) -> None:
    # Two calls: the first fits whole in 3 pieces, the second is cut after its first piece.
    model = on_emulator(emulator, protocol, max_tokens=3).bind_tools([get_weather, get_time])
    message = model.invoke("What is the weather in Paris and the time in UTC?")
    calls = [(c["name"], c["args"]) for c in message.tool_calls]
    assert calls == [("get_weather", {"city": "Paris"})]
    assert_flagged(message, '{"zone":', name="get_time")


class Ends(BaseCallbackHandler):
    def __init__(self) -> None:
        self.ends: list[LLMResult] = []
        self.errors: list[BaseException] = []

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        self.ends.append(response)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.errors.append(error)


def test_the_run_reports_the_flag_at_its_end(emulator: Emulator) -> None:
    handler = Ends()
    model = on_emulator(emulator, "anthropic", max_tokens=1).bind_tools([get_weather])
    model.invoke(WEATHER, config={"callbacks": [handler]})
    (end,) = handler.ends
    message = end.generations[0][0].message  # type: ignore[attr-defined]
    assert_flagged(message, '{"city":')
    with pytest.raises(ToolArgumentsError):
        list(model.stream(WEATHER, config={"callbacks": [handler]}))
    assert isinstance(handler.errors[-1], ToolArgumentsError)


def test_an_agent_never_runs_a_tool_on_cut_input(emulator: Emulator) -> None:
    RAN.clear()
    agent = create_agent(on_emulator(emulator, "anthropic", max_tokens=1), tools=[get_weather])
    result = agent.invoke({"messages": [HumanMessage(WEATHER)]})
    final = result["messages"][-1]
    assert isinstance(final, AIMessage)
    assert_flagged(final, '{"city":')
    assert RAN == []


# --- Exact bytes: a cut inside a string, the case a repair hides best ---

ANTHROPIC_CUT = [
    ("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
        "type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "input_json_delta", "partial_json": '{"city": '}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "input_json_delta", "partial_json": '"Par'}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "max_tokens",
                       "stop_sequence": None}, "usage": {"output_tokens": 8}}),
    ("message_stop", {"type": "message_stop"}),
]  # fmt: skip


def anthropic_body() -> bytes:
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in ANTHROPIC_CUT).encode()


def chat_body() -> bytes:
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": '}}  # fmt: skip
    more = {"index": 0, "function": {"arguments": '"Par'}}
    return sse_body(
        chunk({"role": "assistant", "tool_calls": [call]}),
        chunk({"tool_calls": [more]}),
        chunk(finish_reason="length"),
    )


def on_bytes(protocol: str, body: bytes, **fields: Any) -> ChatSSE:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    transport = httpx.MockTransport(reply)
    return ChatSSE(model="m", base_url="http://gw.test", api_key="k", protocol=protocol,  # type: ignore[arg-type]
                   max_retries=0, http_client=httpx.Client(transport=transport),
                   http_async_client=httpx.AsyncClient(transport=transport), **fields)  # fmt: skip


@pytest.mark.parametrize("output_version", ["v0", "v1"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_cut_inside_a_string_is_not_closed(protocol: str, output_version: str) -> None:
    body = anthropic_body() if protocol == "anthropic" else chat_body()
    model = on_bytes(protocol, body, output_version=output_version)
    assert_flagged(model.invoke(WEATHER), '{"city": "Par')
    chunks: list[AIMessageChunk] = []
    with pytest.raises(ToolArgumentsError) as caught:
        chunks.extend(model.stream(WEATHER))
    assert caught.value.call is not None and caught.value.call.id in ("toolu_1", "call_1")
    assert str(merge(chunks).tool_calls[0]["args"]) == "{'city': 'Par'}"  # LangChain's repair


def test_an_incomplete_streams_partial_message_flags_a_cut_call() -> None:
    body = anthropic_body().split(b"event: content_block_stop")[0]  # EOF inside the input
    model = on_bytes("anthropic", body)
    with pytest.raises(IncompleteStreamError) as caught:
        model.invoke(WEATHER)
    assert_flagged(caught.value.partial_message, '{"city": "Par')
