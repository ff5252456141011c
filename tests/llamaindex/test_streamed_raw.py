"""A streamed ``ChatResponse.raw`` is the protocol's own object so far, with the keys ``chat()``
gives: Anthropic's message with its content blocks so far, the Responses API's response with its
output items so far and its status and incomplete details as known then; read when it is read,
as of its own chunk, in the lazy build and the faithful one alike, at a cost per chunk that does
not grow with the answer."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, ChatResponse
from llama_index.core.tools import FunctionTool
from pydantic import BaseModel

import sse_core
from llamaindex_sse import SSELLM
from llamaindex_sse._inbound import ResponseMapper
from llamaindex_sse._lazy import Build, StreamResponse, probe_pydantic
from sse_core import StreamEvent, TextDelta, ToolCallDelta, fast_paths
from sse_core.pipeline import Accumulator
from sse_core.protocols.anthropic import MESSAGE as ANTHROPIC_RAW
from sse_core.protocols.responses import RESPONSE as RESPONSES_RAW
from sse_emulator import Emulator
from tests.llamaindex.anthropic_support import THINK, anthropic_llm, raw_of
from tests.llamaindex.test_anthropic_blocks import BODY, FRAMES, responses

REASON = {"reasoning": {"effort": "low", "summary": "auto"}}
BUILDS = [Build(lazy=True), Build(lazy=False)]
BUILD_IDS = ["lazy", "faithful"]
LAZY_NAME = "llamaindex.lazy_responses"


def responses_llm(emulator: Emulator, **fields: Any) -> SSELLM:
    return SSELLM(model="gpt-5-mini", base_url=emulator.base_url("responses"), api_key="sk-x",
                  protocol="responses", max_retries=0, **fields)  # fmt: skip


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


def ask(text: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=text)]


def streamed(llm: SSELLM, messages: list[ChatMessage], mode: str, **kw: Any) -> list[ChatResponse]:
    if mode == "stream_chat":
        return list(llm.stream_chat(messages, **kw))

    async def collect() -> list[ChatResponse]:
        return [r async for r in await llm.astream_chat(messages, **kw)]

    return asyncio.run(collect())


def texts_of(raw: dict[str, Any]) -> str:
    """The text of an Anthropic message's or a Responses response's raw."""
    if raw.get("type") == "message":
        return "".join(b["text"] for b in raw["content"] if b["type"] == "text")
    parts = [p for item in raw["output"] if item["type"] == "message" for p in item["content"]]
    return "".join(p["text"] for p in parts if p["type"] == "output_text")


def tool_of(raw: dict[str, Any]) -> list[dict[str, Any]]:
    kinds = ("tool_use", "function_call")
    return [b for b in raw.get("content", raw.get("output", [])) if b["type"] in kinds]


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "faithful"])
@pytest.mark.parametrize("mode", ["stream_chat", "astream_chat"])
def test_anthropic_streamed_raws_are_the_message_so_far(
    emulator: Emulator, mode: str, fast: bool
) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK)
    with fast_paths.forced(LAZY_NAME, fast):
        got = streamed(llm, ask("count to 12"), mode)
    whole = llm.chat(ask("count to 12"))
    llm.close()
    keys = raw_of(whole).keys()
    assert len(got) > 3
    for response in got:
        raw = raw_of(response)
        assert raw.keys() == keys, keys ^ raw.keys()
        assert texts_of(raw) == (response.message.content or "")
    early = next(r for r in got if r.additional_kwargs.get("thinking_delta"))
    (block,) = raw_of(early)["content"]
    assert block["type"] == "thinking" and block["signature"] == ""  # still open, unsigned
    assert raw_of(early)["stop_reason"] is None
    assert raw_of(got[-1])["content"] == raw_of(whole)["content"]
    assert raw_of(got[-1])["stop_reason"] == "end_turn"


@pytest.mark.parametrize("mode", ["stream_chat", "astream_chat"])
def test_anthropic_streamed_tool_use_carries_its_input_so_far(
    emulator: Emulator, mode: str
) -> None:
    llm = anthropic_llm(emulator)
    tools = [FunctionTool.from_defaults(get_weather)]
    kw = llm._prepare_chat_with_tools(tools, user_msg="What is the weather in Paris?")
    got = streamed(llm, kw.pop("messages"), mode, **kw)
    llm.close()
    (use,) = tool_of(raw_of(got[-1]))
    assert use["name"] == "get_weather" and use["input"] == {"city": "Paris"}
    assert raw_of(got[-1])["stop_reason"] == "tool_use"


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "faithful"])
@pytest.mark.parametrize("mode", ["stream_chat", "astream_chat"])
def test_responses_streamed_raws_are_the_response_so_far(
    emulator: Emulator, mode: str, fast: bool
) -> None:
    llm = responses_llm(emulator, additional_kwargs=REASON)
    with fast_paths.forced(LAZY_NAME, fast):
        got = streamed(llm, ask("count to 12"), mode)
    whole = llm.chat(ask("count to 12"))
    llm.close()
    keys = raw_of(whole).keys()
    assert len(got) > 3
    for response in got:
        raw = raw_of(response)
        assert raw.keys() == keys, keys ^ raw.keys()
        assert texts_of(raw) == (response.message.content or "")
    first = raw_of(got[0])
    assert first["status"] == "in_progress" and first["incomplete_details"] is None
    last = raw_of(got[-1])
    assert last["status"] == "completed" and last["incomplete_details"] is None
    kinds = [item["type"] for item in last["output"]]
    assert kinds == [item["type"] for item in raw_of(whole)["output"]]
    assert kinds[0] == "reasoning"
    assert last["output"][0]["encrypted_content"]  # closed: whole


def test_responses_streamed_function_call_and_a_cut_answer(emulator: Emulator) -> None:
    llm = responses_llm(emulator)
    tools = [FunctionTool.from_defaults(get_weather)]
    kw = llm._prepare_chat_with_tools(tools, user_msg="What is the weather in Paris?")
    got = streamed(llm, kw.pop("messages"), "stream_chat", **kw)
    (call,) = tool_of(raw_of(got[-1]))
    assert call["name"] == "get_weather" and call["arguments"] == '{"city":"Paris"}'
    cut = responses_llm(emulator, max_tokens=16)
    last = raw_of(list(cut.stream_chat(ask("count to 200")))[-1])
    llm.close()
    cut.close()
    assert last["status"] == "incomplete"
    assert last["incomplete_details"] == {"reason": "max_output_tokens"}


@pytest.mark.parametrize("protocol", ["anthropic", "responses"])
def test_stream_complete_raws_are_the_object_so_far(emulator: Emulator, protocol: str) -> None:
    llm = anthropic_llm(emulator) if protocol == "anthropic" else responses_llm(emulator)
    got = list(llm.stream_complete("count to 5"))
    llm.close()
    assert got and all(isinstance(r.raw, dict) and texts_of(r.raw) == r.text for r in got)


def _instance_dict(model: BaseModel) -> dict[str, Any]:
    """The instance dict itself, past any assembly on read."""
    return BaseModel.__dict__["__dict__"].__get__(model)  # type: ignore[no-any-return]


def test_a_lazy_raw_is_built_on_read_as_of_its_own_chunk() -> None:
    got, _ = responses(FRAMES, Build(lazy=True))  # one frame per read
    assert all("raw" not in _instance_dict(r) for r in got)  # nothing built yet
    first = next(r for r in got if r.additional_kwargs.get("thinking_delta"))
    # Read after the stream ended: the content as it stood at its chunk.
    assert raw_of(first)["content"] == [
        {"type": "thinking", "thinking": "First, ", "signature": ""}
    ]
    assert raw_of(first)["usage"]["input_tokens"] == 20
    assert raw_of(first)["stop_reason"] is None


@pytest.mark.parametrize("build", BUILDS, ids=BUILD_IDS)
def test_lazy_and_faithful_raws_agree_and_dump_alike(build: Build) -> None:
    got, _ = responses(FRAMES, build)
    plain, _ = responses(FRAMES, Build(lazy=False))
    assert [r.model_dump() for r in got] == [r.model_dump() for r in plain]
    assert [r.model_dump_json() for r in got] == [r.model_dump_json() for r in plain]
    assert got == plain and plain == got
    whole = ANTHROPIC_RAW.whole(sse_core.decode(BODY, protocol="anthropic"))
    assert got[-1].raw == whole  # the last one is the whole message


def _seconds_per_chunk(chunks: int, shape: Any) -> float:
    best = float("inf")
    for _ in range(3):
        answer = Accumulator()
        mapper = ResponseMapper(answer, Build(lazy=True), raw=shape)
        started = time.perf_counter()
        for i in range(chunks):
            batch: list[StreamEvent] = [
                TextDelta(text=f"w{i} "),
                ToolCallDelta(index=0, id="c" if i == 0 else None, arguments="x"),
            ]
            answer.extend(batch)
            mapper.respond(answer.read())
        best = min(best, (time.perf_counter() - started) / chunks)
    return best


@pytest.mark.parametrize("shape", [ANTHROPIC_RAW, RESPONSES_RAW], ids=["anthropic", "responses"])
def test_the_cost_per_chunk_stays_flat_with_the_protocols_raw(shape: Any) -> None:
    short, long = _seconds_per_chunk(1_000, shape), _seconds_per_chunk(20_000, shape)
    # A raw built per chunk from the whole answer would make the long stream's chunks ~20x dearer.
    assert long < 3 * short, f"{long * 1e6:.1f} us per chunk at 20,000 vs {short * 1e6:.1f}"


def test_a_response_that_no_longer_dumps_through_dict_turns_the_fast_path_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As if pydantic read the instance dict slot directly, past StreamResponse's hook: a lazy
    # raw would be missing from dumps, so the probe names it and the faithful build runs.
    monkeypatch.setattr(StreamResponse, "_assembled", BaseModel.__dict__["__dict__"].__get__)
    reason = probe_pydantic()
    assert reason is not None and "ChatResponse" in reason
