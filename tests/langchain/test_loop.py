"""ChatSSE's own ``stream``/``astream`` loop against ``BaseChatModel``'s, on the same answers.

ChatSSE runs the streaming loop itself so that it keeps no chunk until the end (the
``on_llm_end`` message is built from the core's Completion). Whatever a caller or a
callback handler sees must stay what the base class's loop shows: the same chunks, the
same ``on_chat_model_start`` arguments, the same tokens, custom events and end (or error)
results. Each case streams one emulator answer through both loops, with the same fixed run
id, and compares everything recorded.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, closing
from types import MethodType
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models._utils import _update_message_content_to_blocks
from langchain_core.language_models.chat_models import agenerate_from_stream, generate_from_stream
from langchain_core.messages import AIMessageChunk, HumanMessage, SystemMessage
from langchain_core.outputs import LLMResult
from langchain_core.rate_limiters import InMemoryRateLimiter
from langchain_core.runnables import RunnableConfig

from langchain_sse import ChatSSE, IncompleteStreamError
from langchain_sse._custom_events import link_config
from langchain_sse._hooks import UNMERGED
from langchain_sse._run import OWN_LOOP
from sse_core import fast_paths
from tests.langchain.lc_support import ModelFactory

RUN_ID = UUID("01234567-89ab-7def-8123-456789abcdef")
MODES = ("sync", "async")


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


def _generation(generation: Any) -> dict[str, Any]:
    """A generation as data, its message whole (pydantic would dump only BaseMessage fields)."""
    data: dict[str, Any] = generation.model_dump(exclude={"message"})
    data["message"] = generation.message.model_dump()
    return data


def _result(response: LLMResult | None) -> Any:
    if response is None:
        return None
    generations = [[_generation(g) for g in gens] for gens in response.generations]
    return {"generations": generations, "llm_output": response.llm_output}


class Record(BaseCallbackHandler):
    """Every callback of a chat-model run, as comparable data."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        start = {k: v for k, v in kwargs.items() if k != "parent_run_id"}
        self.calls.append(("start", (serialized, [[m.model_dump() for m in messages[0]]], start)))

    def on_llm_new_token(self, token: Any, *, chunk: Any = None, **kwargs: Any) -> None:
        self.calls.append(("token", (token, _generation(chunk), kwargs["run_id"])))

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.calls.append(("custom", (name, data, kwargs["run_id"])))

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        self.calls.append(("end", (_result(response), kwargs["run_id"])))

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        dumped = _result(kwargs.get("response"))
        self.calls.append(("error", (type(error), str(error), dumped, kwargs["run_id"])))


def _config(record: Record) -> RunnableConfig:
    return {"callbacks": [record], "run_id": RUN_ID, "tags": ["t"], "metadata": {"m": 1},
            "run_name": "answer"}  # fmt: skip


def _own(model: Any, mode: str) -> Any:
    return model.stream if mode == "sync" else model.astream


def _base(model: Any, mode: str) -> Any:
    """The base class's loop (with ChatSSE's run link, as ChatSSE's fallback runs it)."""
    method = BaseChatModel.stream if mode == "sync" else BaseChatModel.astream

    def call(prompt: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        config, kwargs = link_config(config, kwargs)
        return method(model, prompt, config, **kwargs)

    return call


async def _drain(stream: Any, limit: int | None = None) -> list[dict[str, Any]]:
    """The chunks of a stream (``limit``: leave after that many), as data; errors re-raised."""
    chunks: list[dict[str, Any]] = []
    if isinstance(stream, Iterator):
        with closing(stream):  # type: ignore[type-var]
            for message in stream:
                chunks.append(message.model_dump())
                if len(chunks) == limit:
                    break
        return chunks
    assert isinstance(stream, AsyncIterator)
    async with aclosing(stream):  # type: ignore[type-var]
        async for message in stream:
            chunks.append(message.model_dump())
            if len(chunks) == limit:
                break
    return chunks


async def _run(loop: Any, prompt: Any, limit: int | None = None, **kwargs: Any) -> Any:
    record = Record()
    try:
        chunks: Any = await _drain(loop(prompt, _config(record), **kwargs), limit)
    except Exception as exc:  # the error is part of what is compared
        chunks = (type(exc), str(exc))
    return chunks, record.calls


async def _compare(model: ChatSSE, mode: str, prompt: Any, **kwargs: Any) -> list[Any]:
    """Stream through both loops; assert they yield and report the same; return the calls."""
    with fast_paths.forced(OWN_LOOP.name, True):  # compared in both modes of the suite
        own = await _run(_own(model, mode), prompt, **kwargs)
    base = await _run(_base(model, mode), prompt, **kwargs)
    assert own[0] == base[0]
    assert [name for name, _ in own[1]] == [name for name, _ in base[1]]
    for (name, mine), (_, theirs) in zip(own[1], base[1], strict=True):
        if name == "error":
            _set_aside_partial_metadata(mine, theirs)
        assert mine == theirs, name
    calls: list[Any] = own[1]
    return calls


def _set_aside_partial_metadata(mine: Any, theirs: Any) -> None:
    """An error's partial answer, with ChatSSE's extra metadata checked and then set aside.

    The base class merges the chunks that arrived, so its partial answer has only the first
    chunk's ``model_provider``; ChatSSE's, built from the Completion, also names the model,
    the response id and headers already known. Everything else must be equal.
    """
    for own_gens, base_gens in zip(mine[2]["generations"], theirs[2]["generations"], strict=True):
        for own, base in zip(own_gens, base_gens, strict=True):
            own_meta = own["message"]["response_metadata"]
            base_meta = base["message"]["response_metadata"]
            assert base_meta.items() <= own_meta.items()
            assert own_meta.keys() - base_meta.keys() <= {"model_name", "id", "system_fingerprint",
                                                          "headers", "gateway_events"}  # fmt: skip
            own["message"]["response_metadata"] = base_meta


def test_the_own_loop_is_available_unless_switched_off() -> None:
    # else ChatSSE silently keeps every chunk, as the base class does
    decision = fast_paths.decide(OWN_LOOP.name)
    assert decision.on is not fast_paths.switched_off(), decision.why


CASES = [
    pytest.param("openai", {}, "echo: hello streaming world", {}, id="text"),
    pytest.param("shroud", {"reasoning_effort": "high"}, "echo: why", {}, id="reasoning"),
    pytest.param("aivene", {"reasoning_effort": "low"}, "echo: why", {}, id="aivene-reasoning"),
    pytest.param("openai", {}, "forbidden topic", {}, id="refusal"),
    pytest.param("aivene", {}, "forbidden topic", {}, id="content-filter"),
    pytest.param("streamchat", {}, "count to 30", {}, id="streamchat"),
    pytest.param("gateway", {}, "echo: 你好 café ☕", {}, id="gateway-unicode"),
    pytest.param(
        "spass",
        {
            "default_headers": {
                "SPASS-User-Id": "u",
                "X-Emulator-Fault": "named-event; name=spass.tool-cap; after=2",
            }
        },
        "echo: with events",
        {},
        id="spass-named-events",
    ),
    pytest.param(
        "openai",
        {"default_headers": {"X-Emulator-Fault": "think-tags"}},
        "echo: tagged",
        {"reasoning_effort": "medium"},
        id="think-tags",
    ),
    pytest.param("openai", {"coalesce": True}, "count to 200", {}, id="coalesce"),
    pytest.param(
        "openai", {"output_version": "v1", "reasoning_effort": "low"}, "echo: v1", {}, id="v1"
    ),
    pytest.param("openai", {"max_tokens": 3}, "count to 10", {"stop": ["9"]}, id="length"),
]


Case = tuple[ChatSSE, str, dict[str, Any]]


@pytest.fixture(params=[pytest.param(c.values, id=c.id) for c in CASES])
def case(request: pytest.FixtureRequest, make_model: ModelFactory) -> Case:
    """One of :data:`CASES`: the model, the prompt and the call kwargs."""
    dialect, fields, prompt, kwargs = request.param
    return make_model(dialect, **fields), prompt, kwargs


@pytest.mark.parametrize("mode", MODES)
async def test_streams_and_reports_what_the_base_loop_does(case: Case, mode: str) -> None:
    model, prompt, kwargs = case
    calls = await _compare(model, mode, prompt, **kwargs)
    assert calls[0][0] == "start" and calls[-1][0] == "end"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("output_version", ["v0", "v1"])
async def test_tool_calls_and_structured_output_format_match(
    make_model: ModelFactory, mode: str, output_version: str
) -> None:
    model = make_model(output_version=output_version)
    bound = model.bind_tools([get_weather], tool_choice="any")
    fmt = {"schema": get_weather, "kwargs": {"method": "function_calling"}}
    prompt = [SystemMessage("be brief"), HumanMessage("weather in Paris and Tokyo?")]
    calls = await _compare(model, mode, prompt, ls_structured_output_format=fmt, **bound.kwargs)  # type: ignore[attr-defined]
    start = calls[0][1][2]
    assert start["options"]["ls_structured_output_format"]["schema"]["title"] == "get_weather"
    end = calls[-1][1][0]["generations"][0][0]["message"]
    assert [call["name"] for call in end["tool_calls"]] == ["get_weather", "get_weather"]


FAULTS = [
    pytest.param("truncate; after=4", id="truncate"),
    pytest.param("error-frame; after=3", id="error-frame"),
    pytest.param("reset; after=3", id="reset"),
    pytest.param("unauthorized", id="unauthorized"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", FAULTS)
async def test_failures_report_what_arrived_as_the_base_loop_does(
    make_model: ModelFactory, fault: str, mode: str
) -> None:
    model = make_model(default_headers={"X-Emulator-Fault": fault})
    calls = await _compare(model, mode, "count to 12")
    assert calls[-1][0] == "error"


@pytest.mark.parametrize("mode", MODES)
async def test_leaving_early_reports_the_partial_answer_as_the_base_loop_does(
    make_model: ModelFactory, mode: str
) -> None:
    calls = await _compare(make_model(), mode, "count to 50", limit=6)
    kind, (error, _, response, run_id) = calls[-1]
    assert kind == "error" and error is GeneratorExit and run_id == RUN_ID
    assert response["generations"][0][0]["text"] == "1 2 3 4 5 6"


@pytest.mark.parametrize("mode", MODES)
async def test_a_truncated_stream_raises_with_the_partial_message(
    make_model: ModelFactory, mode: str
) -> None:
    model = make_model(default_headers={"X-Emulator-Fault": "truncate; after=4"})
    record = Record()
    with pytest.raises(IncompleteStreamError) as caught:
        await _drain(_own(model, mode)("count to 12", _config(record)))
    assert caught.value.partial_message.content == "1 2 3"
    response = record.calls[-1][1][2]
    assert response["generations"][0][0]["message"]["content"] == "1 2 3"


async def _alive_while_streaming(stream: Any) -> list[int]:
    """For each chunk handed over: how many of the earlier ones are still alive."""
    seen: list[weakref.ref[AIMessageChunk]] = []
    alive: list[int] = []

    def look(message: AIMessageChunk) -> None:
        seen.append(weakref.ref(message))
        gc.collect(1)  # the young generations: a full collection per chunk took minutes
        alive.append(sum(ref() is not None for ref in seen[:-1]))

    if isinstance(stream, Iterator):
        for message in stream:
            look(message)
    else:
        async for message in stream:
            look(message)
    return alive


@pytest.mark.parametrize("mode", MODES)
async def test_no_chunk_is_kept_while_streaming(make_model: ModelFactory, mode: str) -> None:
    """The base class keeps every chunk until the end; ChatSSE's loop lets each one go."""
    model = make_model()
    with fast_paths.forced(OWN_LOOP.name, True):
        own = await _alive_while_streaming(_own(model, mode)("count to 40"))
    base = await _alive_while_streaming(_base(model, mode)("count to 40"))
    assert len(own) == len(base) == 41
    assert base[-1] == 40  # the contrast: every earlier chunk still held for on_llm_end
    assert max(own) <= 1  # at most the one a generator's loop variable still names


@pytest.mark.parametrize("mode", MODES)
async def test_the_rate_limiter_is_asked_once_per_stream(
    make_model: ModelFactory, mode: str
) -> None:
    limiter = InMemoryRateLimiter(requests_per_second=1000, max_bucket_size=1)
    asked: list[bool] = []
    acquire, aacquire = limiter.acquire, limiter.aacquire

    def counting(*, blocking: bool = True) -> bool:
        asked.append(blocking)
        return acquire(blocking=blocking)

    async def acounting(*, blocking: bool = True) -> bool:
        asked.append(blocking)
        return await aacquire(blocking=blocking)

    object.__setattr__(limiter, "acquire", counting)
    object.__setattr__(limiter, "aacquire", acounting)
    chunks = await _drain(_own(make_model(rate_limiter=limiter), mode)("echo: limited"))
    assert asked == [True]
    assert "".join(c["content"] for c in chunks) == "limited"


@pytest.mark.parametrize("mode", MODES)
async def test_disabled_streaming_falls_back_to_one_invoked_message(
    make_model: ModelFactory, mode: str
) -> None:
    calls = await _compare(make_model(disable_streaming=True), mode, "echo: whole")
    assert [name for name, _ in calls] == ["start", "end"]  # an invoke LangChain does not stream


@pytest.mark.parametrize("mode", MODES)
async def test_generate_assembles_what_merging_the_chunks_gives(case: Case, mode: str) -> None:
    """``_generate`` builds its result from the Completion instead of merging every chunk."""
    model, prompt, kwargs = case
    messages = [HumanMessage(prompt)]
    if mode == "sync":
        result = model._generate(messages, **kwargs)
        merged = generate_from_stream(model._stream(messages, **kwargs))
    else:
        result = await model._agenerate(messages, **kwargs)
        merged = await agenerate_from_stream(model._astream(messages, **kwargs))
    (generation,), (expected,) = result.generations, merged.generations
    mine, theirs = generation.message, expected.message
    if model.output_version == "v1":
        # LangChain's loop turns _generate's answer into v1 blocks; _stream's chunks come as
        # v1 blocks numbered for merging (see test_v1_stream_blocks.py).
        mine = _update_message_content_to_blocks(mine, "v1")
        blocks = [{k: v for k, v in b.items() if k != "index"} for b in theirs.content]
        theirs = theirs.model_copy(update={"content": blocks})
    assert mine.model_dump() == theirs.model_dump()
    assert generation.model_dump(exclude={"message"}) == expected.model_dump(exclude={"message"})
    assert result.llm_output is not None and result.llm_output["model_name"] == "emulator"


class StreamingRecord(Record):
    """A :class:`Record` that LangChain takes for a streaming handler (as LangGraph's is)."""

    def tap_output_iter(self, run_id: UUID, output: Iterator[Any]) -> Iterator[Any]:
        return output

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[Any]) -> AsyncIterator[Any]:
        return output


def _base_streaming_twin(model: ChatSSE, used: list[str] | None = None) -> ChatSSE:
    """The same model, with LangChain's own choice to stream ``invoke`` through ``_stream``.

    ``used`` gets ``"_stream"`` or ``"_astream"`` each time LangChain's path calls them.
    """
    twin = ChatSSE(**{name: getattr(model, name) for name in model.model_fields_set})
    object.__setattr__(twin, "_should_stream", MethodType(BaseChatModel._should_stream, twin))
    if used is not None:
        for name in ("_stream", "_astream"):

            def wrapped(*args: Any, _name: str = name, **kwargs: Any) -> Any:
                used.append(_name)
                return getattr(ChatSSE, _name)(twin, *args, **kwargs)

            object.__setattr__(twin, name, wrapped)
    return twin


async def _invoke(model: ChatSSE, mode: str, record: Record, prompt: Any, **kwargs: Any) -> Any:
    config = _config(record)
    if mode == "sync":
        return model.invoke(prompt, config, **kwargs).model_dump()
    return (await model.ainvoke(prompt, config, **kwargs)).model_dump()


INVOKE_CASES = [
    pytest.param("openai", {}, "echo: hello streaming world", id="text"),
    pytest.param("shroud", {"reasoning_effort": "high"}, "echo: why", id="reasoning"),
    pytest.param("openai", {}, "forbidden topic", id="refusal"),
    pytest.param(
        "spass",
        {"default_headers": {"SPASS-User-Id": "u", "X-Emulator-Fault": "named-event"}},
        "echo: with events",
        id="spass-named-events",
    ),
    pytest.param("openai", {"coalesce": True}, "count to 200", id="coalesce"),
    pytest.param("openai", {"output_version": "v1", "reasoning_effort": "low"}, "echo: v1",
                 id="v1"),
]  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", ["streaming=True", "streaming handler"])
@pytest.mark.parametrize(("dialect", "fields", "prompt"), INVOKE_CASES)
async def test_invoke_that_langchain_would_stream_reports_the_same(
    make_model: ModelFactory,
    dialect: str,
    fields: dict[str, Any],
    prompt: str,
    how: str,
    mode: str,
) -> None:
    """``invoke`` with streaming on: ChatSSE's ``_generate`` sends the tokens LangChain's
    streaming path sends, stamped alike, and returns the same message; it keeps no chunk.
    (With the fast path off, ChatSSE's invoke is LangChain's streaming path.)"""
    if how == "streaming=True":
        fields = {**fields, "streaming": True}
    model = make_model(dialect, **fields)
    record_type = Record if how == "streaming=True" else StreamingRecord
    own, base = record_type(), record_type()
    used: list[str] = []
    assert await _invoke(model, mode, own, prompt) == await _invoke(
        _base_streaming_twin(model, used), mode, base, prompt
    )
    assert used == (["_stream"] if mode == "sync" else ["_astream"])  # LangChain's path ran
    assert [name for name, _ in own.calls] == [name for name, _ in base.calls]
    assert sum(name == "token" for name, _ in own.calls) >= 2
    for (name, mine), (_, theirs) in zip(own.calls, base.calls, strict=True):
        if name == "end" and fast_paths.is_on(UNMERGED.name):  # _generate's llm_output
            assert mine[0].pop("llm_output")["token_usage"]["total_tokens"] > 0
            theirs[0].pop("llm_output")
        assert mine == theirs, name


@pytest.mark.parametrize("mode", MODES)
async def test_quiet_streaming_invoke_keeps_langchains_message_id(
    make_model: ModelFactory, mode: str
) -> None:
    """No handler: no chunk is made at all, and the message is what LangChain would give."""
    model = make_model(streaming=True, output_version="v1", reasoning_effort="low")
    twin = _base_streaming_twin(model)
    if mode == "sync":
        own, base = model.invoke("echo: quiet"), twin.invoke("echo: quiet")
    else:
        own, base = await model.ainvoke("echo: quiet"), await twin.ainvoke("echo: quiet")
    assert own.id is not None and own.id.startswith("lc_run--")
    assert own.model_dump(exclude={"id"}) == base.model_dump(exclude={"id"})
    assert own.content_blocks[0]["type"] == "reasoning"


@pytest.mark.parametrize("mode", MODES)
async def test_without_the_own_loop_the_base_loop_streams(
    make_model: ModelFactory, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the own loop off (SSE_CONNECTORS_FAST=0, a langchain-core outside its tested range
    or without the helpers it needs), the base class's loop runs, and gives what the own
    loop gives: the same chunks, the same callbacks."""
    model = make_model()
    record = Record()
    called: list[str] = []
    name = "stream" if mode == "sync" else "astream"
    original = getattr(BaseChatModel, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        called.append(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(BaseChatModel, name, spy)
    with fast_paths.forced(OWN_LOOP.name, False):
        alive = await _alive_while_streaming(_own(model, mode)("count to 5", _config(record)))
        faithful = await _run(_own(model, mode), "count to 5")
    assert called == [name, name]
    assert alive[-1] == 5  # the base class's loop keeps its chunks: it is the one that ran
    assert [name for name, _ in record.calls] == ["start"] + ["token"] * 6 + ["end"]
    with fast_paths.forced(OWN_LOOP.name, True):
        fast = await _run(_own(model, mode), "count to 5")
    assert called == [name, name]  # the own loop does not call the base class's
    assert fast == faithful
