"""Differential tests, feature by feature: SSELLM's fast path, its faithful path and the
framework's own behaviour give the same answer through LlamaIndex.

Each test runs one feature three ways against the emulator's answer:

1. ``fast``: SSELLM with ``llamaindex.lazy_responses`` forced on (unvalidated responses,
   messages assembled on first read);
2. ``faithful``: SSELLM with it forced off (validated ``ChatMessage``/``ChatResponse``);
3. ``reference``: :class:`li_reference.ReferenceLLM`, a plain ``CustomLLM`` whose endpoints
   are decorated with llama-index-core's own ``llm_chat_callback`` (completions:
   ``llm_completion_callback`` over generic_utils' chat-to-completion helpers), replaying
   each run's wire deltas, ``raw``, ``additional_kwargs`` and error, and building
   each response with LlamaIndex's public constructors.

and compares everything a LlamaIndex user or handler can see, in order: instrumentation
events (chat start, in-progress with its response, end, exception, span drop), span
enter/exit/drop with their parents and arguments, ``callback_manager`` events and traces,
the caller's own reads, and every field of every ChatResponse (as dumped and as read
attribute by attribute, pickled, copied, re-validated), for chat, stream_chat, achat,
astream_chat and the four completion endpoints. Each build is compared with a reference
replaying its own reads; the two builds with each other wholly when they read the same
frames together, else by their answers. Only ids, timestamps and the LLM's class
name are normalised (:func:`li_reference.normal`), plus one inherent difference named
there: a completion span's arguments are compared under BaseLLM's declared names.

The emulator is paced (one frame per write, a few ms apart) so that each run reads the
same frames in the same reads (SSELLM yields one response per read, and the fast and
faithful runs are two requests), though a loaded machine may still coalesce.
"""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, CompletionResponse
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.dispatcher import instrument_tags  # type: ignore[attr-defined]
from llama_index.core.llms import LLM

from llamaindex_sse import _lazy
from llamaindex_sse._lazy import StreamMessage
from sse_core import fast_paths
from tests.llamaindex.li_reference import (
    Ids,
    ReferenceLLM,
    Script,
    Timeline,
    normal,
    normal_entry,
    recording,
    serialized,
)
from tests.llamaindex.li_support import LLMFactory

FAST = _lazy.LAZY.name
#: One frame per write, 5 ms apart: every run reads the same frames together.
PACE = "slow; delay=0.005"
#: A gateway error frame after a few chunks.
ERROR = f"{PACE}, error-frame; after=6"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    },
]


@dataclass(frozen=True)
class Scenario:
    """What is asked, and through which endpoints: chat (the default) or completion."""

    ask: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    completion: bool = False

    @property
    def messages(self) -> list[ChatMessage]:
        return [ChatMessage(role="user", content=self.ask)]

    def stream(self, llm: LLM) -> Generator[Any, None, None]:
        if self.completion:
            return llm.stream_complete(self.ask, **self.kwargs)
        return llm.stream_chat(self.messages, **self.kwargs)

    async def astream(self, llm: LLM) -> AsyncGenerator[Any, None]:
        if self.completion:
            return await llm.astream_complete(self.ask, **self.kwargs)
        return await llm.astream_chat(self.messages, **self.kwargs)

    def whole(self, llm: LLM) -> Any:
        if self.completion:
            return llm.complete(self.ask, **self.kwargs)
        return llm.chat(self.messages, **self.kwargs)

    async def awhole(self, llm: LLM) -> Any:
        if self.completion:
            return await llm.acomplete(self.ask, **self.kwargs)
        return await llm.achat(self.messages, **self.kwargs)


SCENARIOS = {
    "thinking": Scenario("count to 4"),
    "tools": Scenario(
        "weather in Paris and add 2 and 3", {"tools": TOOLS, "parallel_tool_calls": True}
    ),
    "refusal": Scenario("tell me something forbidden"),
}
ENDPOINTS = ("chat", "complete")


def _scenario(name: str, endpoint: str) -> Scenario:
    return replace(SCENARIOS[name], completion=endpoint == "complete")


@dataclass
class Outcome:
    """What the caller got: the responses in order, and the error that ended the call."""

    responses: list[Any] = field(default_factory=list)
    error: BaseException | None = None


SyncCall = Callable[[LLM, Timeline], Outcome]
AsyncCall = Callable[[LLM, Timeline], Awaitable[Outcome]]

_dispatcher = get_dispatcher(__name__)
#: Instrument tags around every call: spans and events must carry them.
TAGS = {"suite": "differential"}


@_dispatcher.span
def _in_span(run: Callable[[], Outcome]) -> Outcome:
    """The caller's own span: the LLM's spans must name it as their parent."""
    return run()


@_dispatcher.span
async def _ain_span(run: Callable[[], Awaitable[Outcome]]) -> Outcome:
    return await run()


# -- the calls ----------------------------------------------------------------------------


def streamed(scenario: Scenario, stop_after: int | None = None, drop: bool = False) -> SyncCall:
    """``stream_chat``, read to the end or until ``stop_after`` responses, then closed (or,
    with ``drop``, its last reference dropped)."""

    def call(llm: LLM, timeline: Timeline) -> Outcome:
        outcome = Outcome()
        stream = scenario.stream(llm)
        try:
            for response in stream:
                timeline.mark("got", len(outcome.responses))
                outcome.responses.append(response)
                if len(outcome.responses) == stop_after:
                    break
        except Exception as exc:
            outcome.error = exc
        if drop:
            del stream  # CPython finalizes the generator here, by reference counting
        else:
            stream.close()
        timeline.mark("closed")
        return outcome

    return call


def astreamed(scenario: Scenario, stop_after: int | None = None) -> AsyncCall:
    """Async twin of :func:`streamed`."""

    async def call(llm: LLM, timeline: Timeline) -> Outcome:
        outcome = Outcome()
        try:
            async with aclosing(await scenario.astream(llm)) as stream:
                async for response in stream:
                    timeline.mark("got", len(outcome.responses))
                    outcome.responses.append(response)
                    if len(outcome.responses) == stop_after:
                        break
        except Exception as exc:
            outcome.error = exc
        timeline.mark("closed")
        return outcome

    return call


def adropped(scenario: Scenario, stop_after: int) -> AsyncCall:
    """``astream_chat`` left after ``stop_after`` responses and dropped without ``aclose()``:
    the event loop's async-generator finalizer closes it a few loop turns later."""

    async def call(llm: LLM, timeline: Timeline) -> Outcome:
        outcome = Outcome()
        stream = await scenario.astream(llm)
        async for response in stream:
            timeline.mark("got", len(outcome.responses))
            outcome.responses.append(response)
            if len(outcome.responses) == stop_after:
                break
        del stream
        for _ in range(1000):  # the finalizer's aclose() runs as a task: wait for its event
            if any(
                entry[0] == "event" and entry[1].class_name() == "ExceptionEvent"
                for entry in timeline.entries
            ):
                break
            await asyncio.sleep(0.001)
        timeline.mark("closed")
        return outcome

    return call


def acancelled(scenario: Scenario, after: int) -> AsyncCall:
    """``astream_chat`` read in a task that is cancelled after ``after`` responses, while
    it waits for the next one."""

    async def call(llm: LLM, timeline: Timeline) -> Outcome:
        outcome = Outcome()

        async def consume() -> None:
            stream = await scenario.astream(llm)
            async for response in stream:
                timeline.mark("got", len(outcome.responses))
                outcome.responses.append(response)
                if len(outcome.responses) == after:
                    task.cancel()

        task = asyncio.create_task(consume())
        try:
            await asyncio.wait_for(task, 30)
        except asyncio.CancelledError as exc:
            outcome.error = exc
        timeline.mark("closed")
        return outcome

    return call


def whole(scenario: Scenario) -> SyncCall:
    """``chat``."""

    def call(llm: LLM, timeline: Timeline) -> Outcome:
        try:
            return Outcome([scenario.whole(llm)])
        except Exception as exc:
            return Outcome(error=exc)

    return call


def awhole(scenario: Scenario) -> AsyncCall:
    """``achat``."""

    async def call(llm: LLM, timeline: Timeline) -> Outcome:
        try:
            return Outcome([await scenario.awhole(llm)])
        except Exception as exc:
            return Outcome(error=exc)

    return call


# -- running the three ways and comparing -------------------------------------------------


@dataclass
class Trace:
    """One run, normalised."""

    timeline: list[Any]
    responses: list[Any]
    error: Any
    #: Whether each LLMChatInProgressEvent carried the very response the caller got.
    same_objects: list[bool]
    #: pydantic's fields_set of each response and its message.
    fields_set: list[Any]
    #: The responses themselves, for pydantic's own equality across the runs.
    objects: list[ChatResponse]


def _read(response: ChatResponse | CompletionResponse, ids: Ids) -> dict[str, Any]:
    """The response's fields read attribute by attribute (the lazy message's own path)."""
    fields = {
        "delta": response.delta,
        "raw": response.raw,
        "logprobs": response.logprobs,
        "additional_kwargs": normal(response.additional_kwargs, ids),
    }
    if isinstance(response, CompletionResponse):
        return {**fields, "text": response.text}
    message = response.message
    return {
        **fields,
        "role": message.role,
        "content": message.content,
        "blocks": normal(list(message.blocks), ids),
        "message.additional_kwargs": normal(message.additional_kwargs, ids),
    }


def _facts(response: ChatResponse | CompletionResponse, ids: Ids) -> dict[str, Any]:
    """Every field of a response: read, dumped, as JSON, pickled, copied, validated."""
    return {
        "read": _read(response, ids),
        "dump": normal(response, ids),
        "json": json.loads(response.model_dump_json()),
        "str": str(response),
        "pickled": normal(pickle.loads(pickle.dumps(response)), ids),
        "copied": normal(copy.deepcopy(response), ids),
        "validated": normal(type(response).model_validate(response.model_dump()), ids),
        "model_copy": normal(response.model_copy(deep=True), ids),
    }


def _fields_set(response: ChatResponse | CompletionResponse) -> list[list[str]]:
    message = getattr(response, "message", None)
    inner = [] if message is None else [sorted(message.model_fields_set)]
    return [sorted(response.model_fields_set), *inner]


IN_PROGRESS = ("LLMChatInProgressEvent", "LLMCompletionInProgressEvent")


def _trace(timeline: Timeline, outcome: Outcome, llm: LLM) -> Trace:
    ids = Ids(serialized(llm))
    # Without a serializing handler nothing has read the streamed messages yet: read them
    # now, last first, before the events that carry them.
    order = range(len(outcome.responses))
    if not timeline.serialize:
        order = order[::-1]
    facts = {index: _facts(outcome.responses[index], ids) for index in order}
    entries = [normal_entry(entry, ids) for entry in timeline.entries]
    in_progress = [
        entry[1].response
        for entry in timeline.entries
        if entry[0] == "event" and entry[1].class_name() in IN_PROGRESS
    ]
    error = outcome.error
    return Trace(
        timeline=entries,
        responses=[facts[index] for index in range(len(outcome.responses))],
        error=None
        if error is None
        else (normal(error, ids), normal(getattr(error, "partial_response", None), ids)),
        same_objects=[a is b for a, b in zip(in_progress, outcome.responses, strict=False)],
        fields_set=[_fields_set(r) for r in outcome.responses],
        objects=outcome.responses,
    )


def _reads(trace: Trace) -> list[Any]:
    """What each response brought: its delta and additional_kwargs, in order."""
    return [(r["read"]["delta"], r["read"]["additional_kwargs"]) for r in trace.responses]


def _answer(trace: Trace) -> dict[str, Any]:
    """The last response as read, less what belongs to its own read (delta, thinking_delta)."""
    last = dict(trace.responses[-1]["read"]) if trace.responses else {}
    last.pop("delta", None)
    kwargs = {k: v for k, v in last.pop("additional_kwargs", {}).items() if k != "thinking_delta"}
    return {**last, "additional_kwargs": kwargs}


def _assert_parts(mine: Trace, theirs: Trace, names: str) -> None:
    for part in ("timeline", "responses", "error", "same_objects"):
        a_part, b_part = getattr(mine, part), getattr(theirs, part)
        if isinstance(a_part, list):
            for index, (a, b) in enumerate(zip(a_part, b_part, strict=False)):
                assert a == b, f"{part}[{index}]: {names}"
            assert len(a_part) == len(b_part), f"{part}: {names} in length"
        else:
            assert a_part == b_part, f"{part}: {names}"
    for index, (a, b) in enumerate(zip(mine.objects, theirs.objects, strict=True)):
        assert a == b and b == a, f"responses[{index}] differ as pydantic sees them: {names}"


def _assert_same(traces: dict[str, Trace]) -> None:
    """Each build == the reference replaying that build's own reads, part by part, naming
    the first difference; fast == faithful wholly when both runs read the same frames
    together (the emulator is paced for that, but a loaded machine can still coalesce two
    frames into one read in one run and not the other: then their answers must agree)."""
    fast, faithful = traces["fast"], traces["faithful"]
    for name in ("fast", "faithful"):
        _assert_parts(traces[name], traces[f"reference:{name}"], f"{name} != its reference")
    if _reads(fast) == _reads(faithful):
        _assert_parts(faithful, fast, "faithful != fast")
        # fields_set is the reference's choice of keywords, not the framework's: compared
        # only between SSELLM's two builds (the fast path writes pydantic's slots by hand).
        assert fast.fields_set == faithful.fields_set
    else:
        assert _answer(fast) == _answer(faithful)
        assert fast.error == faithful.error
        assert fast.fields_set[-1:] == faithful.fields_set[-1:]
        assert {str(f) for f in fast.fields_set} == {str(f) for f in faithful.fields_set}
    # The runs compared are the two builds: streamed responses of the fast run are lazy.
    chats = [r for r in fast.objects if isinstance(r, ChatResponse)]
    assert all(isinstance(r.message, StreamMessage) for r in chats if r.delta is not None)
    plain = [
        r
        for name in ("faithful", "reference:fast", "reference:faithful")
        for r in traces[name].objects
        if isinstance(r, ChatResponse)
    ]
    assert all(type(r.message) is ChatMessage for r in plain)
    assert all(faithful.same_objects) and all(fast.same_objects)


def _reference(llm: LLM, outcome: Outcome, timeline: Timeline) -> ReferenceLLM:
    script = Script.of(outcome.responses, outcome.error)
    return ReferenceLLM(script, llm.metadata, timeline.callback_manager())


def run(
    make_llm: LLMFactory,
    call: SyncCall,
    fault: str = PACE,
    serialize: bool = True,
    **fields: Any,
) -> Trace:
    """Run ``call`` fast, faithful and on the reference; assert they agree; the trace."""
    traces: dict[str, Trace] = {}
    for mode in ("fast", "faithful"):
        timeline = Timeline(serialize)
        llm = make_llm(fault=fault, callback_manager=timeline.callback_manager(), **fields)
        with recording(timeline), fast_paths.forced(FAST, mode == "fast"), instrument_tags(TAGS):
            outcome = _in_span(lambda: call(llm, timeline))  # noqa: B023 - called at once
        traces[mode] = _trace(timeline, outcome, llm)
        timeline = Timeline(serialize)
        reference = _reference(llm, outcome, timeline)
        with recording(timeline), instrument_tags(TAGS):
            replayed = _in_span(lambda: call(reference, timeline))  # noqa: B023 - called at once
        traces[f"reference:{mode}"] = _trace(timeline, replayed, reference)
    _assert_same(traces)
    return traces["reference:faithful"]


async def arun(
    make_llm: LLMFactory,
    call: AsyncCall,
    fault: str = PACE,
    serialize: bool = True,
    **fields: Any,
) -> Trace:
    """Async twin of :func:`run`."""
    traces: dict[str, Trace] = {}
    for mode in ("fast", "faithful"):
        timeline = Timeline(serialize)
        llm = make_llm(fault=fault, callback_manager=timeline.callback_manager(), **fields)
        with recording(timeline), fast_paths.forced(FAST, mode == "fast"), instrument_tags(TAGS):
            outcome = await _ain_span(lambda: call(llm, timeline))  # noqa: B023 - awaited at once
        traces[mode] = _trace(timeline, outcome, llm)
        timeline = Timeline(serialize)
        reference = _reference(llm, outcome, timeline)
        with recording(timeline), instrument_tags(TAGS):
            replayed = await _ain_span(lambda: call(reference, timeline))  # noqa: B023
        traces[f"reference:{mode}"] = _trace(timeline, replayed, reference)
    _assert_same(traces)
    return traces["reference:faithful"]


# -- what the agreed trace must show -------------------------------------------------------


def _shape(trace: Trace) -> list[str]:
    """The timeline as short labels: ``event:LLMChatStartEvent``, ``mark:got:0``, ..."""
    labels = []
    for entry in trace.timeline:
        kind = entry[0]
        if kind == "event":
            labels.append(f"event:{entry[1]['event']}")
        elif kind == "mark":
            labels.append(":".join(str(part) for part in entry))
        elif kind.startswith("span"):
            labels.append(f"{kind}:{entry[1].split('#')[0]}")
        else:
            labels.append(kind)
    return labels


def _event(trace: Trace, name: str) -> list[dict[str, Any]]:
    return [e[1] for e in trace.timeline if e[0] == "event" and e[1]["event"] == name]


def _names(completion: bool) -> tuple[str, str]:
    """The event-name prefix and method-name stem of an endpoint family."""
    return ("LLMCompletion", "complete") if completion else ("LLMChat", "chat")


def _assert_wrapped_stream(trace: Trace, method: str, completion: bool) -> None:
    """llm_chat_callback's (llm_completion_callback's) stream semantics: the LLM's span
    exits before the stream is read, each in-progress event fires as its response is read,
    the end events fire at exhaustion, all under the LLM's span, itself under the caller's."""
    prefix, _ = _names(completion)
    shape, responses = _shape(trace), len(trace.responses)
    exit_at = shape.index(f"span_exit:LLM.{method}")
    assert shape[exit_at + 1 :][: 2 * responses] == [
        label
        for index in range(responses)
        for label in (f"event:{prefix}InProgressEvent", f"mark:got:{index}")
    ]
    assert shape[exit_at + 1 + 2 * responses :] == [
        "cb_end",
        f"event:{prefix}EndEvent",
        "mark:closed",
        "span_exit:_ain_span" if method.startswith("a") else "span_exit:_in_span",
    ]
    outer, inner = [e for e in trace.timeline if e[0] == "span_enter"]
    assert inner[1].startswith(f"LLM.{method}#") and inner[2] == outer[1]
    assert inner[4] == TAGS and all(e[1]["tags"] == TAGS for e in trace.timeline if e[0] == "event")
    (start,) = _event(trace, f"{prefix}StartEvent")
    (end,) = _event(trace, f"{prefix}EndEvent")
    assert start["span_id"] == end["span_id"] == inner[1]
    assert end["response"] == trace.responses[-1]["dump"]


def _assert_answer(trace: Trace, scenario: str, completion: bool) -> None:
    """The agreed answer is the one asked for (the comparison is not of empty runs)."""
    last = trace.responses[-1]["read"]
    kwargs = last["additional_kwargs"]
    assert kwargs["finish_reason"] in ("stop", "tool_calls")
    assert last["raw"]["usage"]["total_tokens"] > 0
    if completion:  # the message's additional_kwargs are merged into the completion's
        text, message_kwargs = last["text"], kwargs
    else:
        text, message_kwargs = last["content"], last["message.additional_kwargs"]
        types = [block[0] for block in last["blocks"]]
        calls = 2 if scenario == "tools" else 0
        # No empty TextBlock beside tool calls (as llama-index's Anthropic and OpenAI's whole
        # answers); an answer with no call keeps its one TextBlock.
        kept = ["TextBlock"] if text or not calls else []
        assert types == ["ThinkingBlock", *kept, *["ToolCallBlock"] * calls]
    if scenario == "tools":
        calls = message_kwargs["tool_calls"]
        assert [c["function"]["name"] for c in calls] == ["get_weather", "add"]
    elif scenario == "refusal":
        assert message_kwargs["refusal"] and not text
    else:
        assert text == "1 2 3 4"
    if len(trace.responses) > 1:  # a stream: the reasoning came as deltas too
        assert any("thinking_delta" in r["read"]["additional_kwargs"] for r in trace.responses)


def _assert_whole(trace: Trace, method: str, completion: bool) -> None:
    prefix, _ = _names(completion)
    outer = "_ain_span" if method.startswith("a") else "_in_span"
    assert _shape(trace) == [
        f"span_enter:{outer}",
        f"span_enter:LLM.{method}",
        "trace_start",
        f"event:{prefix}StartEvent",
        "cb_start",
        "cb_end",
        f"event:{prefix}EndEvent",
        "trace_end",
        f"span_exit:LLM.{method}",
        f"span_exit:{outer}",
    ]
    (end,) = _event(trace, f"{prefix}EndEvent")
    assert end["response"] == trace.responses[0]["dump"]
    assert trace.responses[0]["read"]["delta"] is None


# -- the features ---------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stream(make_llm: LLMFactory, scenario: str, endpoint: str) -> None:
    asked = _scenario(scenario, endpoint)
    trace = run(make_llm, streamed(asked), model="emulator-think")
    _assert_wrapped_stream(trace, f"stream_{_names(asked.completion)[1]}", asked.completion)
    _assert_answer(trace, scenario, asked.completion)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_astream(make_llm: LLMFactory, scenario: str, endpoint: str) -> None:
    asked = _scenario(scenario, endpoint)
    trace = await arun(make_llm, astreamed(asked), model="emulator-think")
    _assert_wrapped_stream(trace, f"astream_{_names(asked.completion)[1]}", asked.completion)
    _assert_answer(trace, scenario, asked.completion)


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "json"])
@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_whole(make_llm: LLMFactory, scenario: str, endpoint: str, streaming: bool) -> None:
    asked = _scenario(scenario, endpoint)
    trace = run(make_llm, whole(asked), model="emulator-think", invoke_streaming=streaming)
    _assert_whole(trace, _names(asked.completion)[1], asked.completion)
    _assert_answer(trace, scenario, asked.completion)


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "json"])
@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_awhole(make_llm: LLMFactory, scenario: str, endpoint: str, streaming: bool) -> None:
    asked = _scenario(scenario, endpoint)
    trace = await arun(make_llm, awhole(asked), model="emulator-think", invoke_streaming=streaming)
    _assert_whole(trace, f"a{_names(asked.completion)[1]}", asked.completion)
    _assert_answer(trace, scenario, asked.completion)


def _assert_error_reached_everyone(
    trace: Trace, error: str, stream: bool, completion: bool
) -> None:
    """The gateway's error reached the caller, the callback handler and (for a stream)
    instrumentation as an ExceptionEvent, and no end event was sent."""
    prefix, _ = _names(completion)
    assert trace.error is not None and trace.error[0][1] == error
    (failed,) = [e for e in trace.timeline if e[0] == "cb_end"]
    assert failed[2] == {"exception": trace.error[0]}
    assert not _event(trace, f"{prefix}EndEvent")
    if stream:
        (exception,) = _event(trace, "ExceptionEvent")
        assert exception["exception"] == trace.error[0]
    else:
        (drop,) = [e for e in trace.timeline if e[0] == "span_drop"]
        assert drop[2] == trace.error[0]


#: A gateway error frame after a few chunks; an HTTP 502 before any.
FAULTS = {"GatewayStreamError": ERROR, "ServerError": "bad-gateway"}


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("error", FAULTS)
def test_an_error_in_a_stream(make_llm: LLMFactory, error: str, endpoint: str) -> None:
    asked = _scenario("thinking", endpoint)
    trace = run(make_llm, streamed(asked), fault=FAULTS[error], model="emulator-think")
    _assert_error_reached_everyone(trace, error, True, asked.completion)
    assert bool(trace.responses) is (error == "GatewayStreamError")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("error", FAULTS)
async def test_an_error_in_an_astream(make_llm: LLMFactory, error: str, endpoint: str) -> None:
    asked = _scenario("thinking", endpoint)
    trace = await arun(make_llm, astreamed(asked), fault=FAULTS[error], model="emulator-think")
    _assert_error_reached_everyone(trace, error, True, asked.completion)
    assert bool(trace.responses) is (error == "GatewayStreamError")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("error", FAULTS)
def test_an_error_in_a_whole_answer(make_llm: LLMFactory, error: str, endpoint: str) -> None:
    asked = _scenario("thinking", endpoint)
    trace = run(make_llm, whole(asked), fault=FAULTS[error], model="emulator-think")
    _assert_error_reached_everyone(trace, error, False, asked.completion)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("error", FAULTS)
async def test_an_error_in_an_awaited_whole_answer(
    make_llm: LLMFactory, error: str, endpoint: str
) -> None:
    asked = _scenario("thinking", endpoint)
    trace = await arun(make_llm, awhole(asked), fault=FAULTS[error], model="emulator-think")
    _assert_error_reached_everyone(trace, error, False, asked.completion)


def _assert_closed_early(trace: Trace, is_async: bool, stopped: str = "GeneratorExit") -> None:
    """Stopped after three responses: the exception reaches the handlers, no end event."""
    shape = _shape(trace)
    assert shape[shape.index("mark:got:2") + 1 :] == [
        "cb_end",
        "event:ExceptionEvent",
        "mark:closed",
        "span_exit:_ain_span" if is_async else "span_exit:_in_span",
    ]
    (exception,) = _event(trace, "ExceptionEvent")
    assert exception["exception"][:2] == ("exception", stopped)
    assert len(trace.responses) == 3


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("drop", [False, True], ids=["close", "drop"])
def test_leaving_a_stream_early(make_llm: LLMFactory, endpoint: str, drop: bool) -> None:
    asked = _scenario("tools", endpoint)
    trace = run(make_llm, streamed(asked, stop_after=3, drop=drop), model="emulator-think")
    _assert_closed_early(trace, is_async=False)
    assert trace.error is None


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("drop", [False, True], ids=["aclose", "drop"])
async def test_leaving_an_astream_early(make_llm: LLMFactory, endpoint: str, drop: bool) -> None:
    asked = _scenario("tools", endpoint)
    call = adropped(asked, stop_after=3) if drop else astreamed(asked, stop_after=3)
    trace = await arun(make_llm, call, model="emulator-think")
    _assert_closed_early(trace, is_async=True)
    assert trace.error is None


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_cancelling_the_task_reading_an_astream(make_llm: LLMFactory, endpoint: str) -> None:
    """The cancel lands in the stream's wait for its next chunk: CancelledError reaches
    the handlers as an exception and the caller, never swallowed; no end event."""
    asked = _scenario("tools", endpoint)
    trace = await arun(make_llm, acancelled(asked, after=3), model="emulator-think")
    _assert_closed_early(trace, is_async=True, stopped="CancelledError")
    assert trace.error is not None and trace.error[0][1] == "CancelledError"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("scenario", ["thinking", "tools"])
def test_messages_read_late_and_last_first(
    make_llm: LLMFactory, scenario: str, endpoint: str
) -> None:
    """No handler reads the messages as they stream (only ``delta`` is looked at): each is
    first read after the stream ended, the last first, and is still the message as of its
    own chunk."""
    asked = _scenario(scenario, endpoint)
    trace = run(make_llm, streamed(asked), serialize=False, model="emulator-think")
    _assert_answer(trace, scenario, asked.completion)
    first, last = trace.responses[0]["read"], trace.responses[-1]["read"]
    if asked.completion:
        message = [(r["text"], r["additional_kwargs"].get("tool_calls")) for r in (first, last)]
    else:
        message = [r["blocks"] for r in (first, last)]
    assert message[0] != message[1], "the first chunk's message is not the whole answer"


@pytest.mark.parametrize("dialect", ["shroud", "aivene"])
def test_stream_in_other_reasoning_dialects(make_llm: LLMFactory, dialect: str) -> None:
    asked = _scenario("thinking", "chat")
    trace = run(make_llm, streamed(asked), dialect=dialect, model="emulator-think")
    _assert_wrapped_stream(trace, "stream_chat", completion=False)
    _assert_answer(trace, "thinking", completion=False)
