"""Differential tests, feature by feature: SSELLM's fast path, its faithful path and the
framework's own behaviour give the same answer through LlamaIndex.

Each test runs one feature three ways against the emulator's answer:

1. ``fast``: SSELLM with ``llamaindex.lazy_responses`` forced on (unvalidated responses,
   messages assembled on first read);
2. ``faithful``: SSELLM with it forced off (validated ``ChatMessage``/``ChatResponse``);
3. ``reference``: :class:`li_reference.ReferenceLLM`, a plain ``CustomLLM`` whose endpoints
   are decorated with llama-index-core's own ``llm_chat_callback``, replaying the faithful
   run's wire deltas, ``raw``, ``additional_kwargs`` and error, and building each response
   with LlamaIndex's public constructors.

and compares everything a LlamaIndex user or handler can see, in order: instrumentation
events (chat start, in-progress with its response, end, exception, span drop), span
enter/exit/drop with their parents and arguments, ``callback_manager`` events and traces,
the caller's own reads, and every field of every ChatResponse (as dumped and as read
attribute by attribute). Only ids, timestamps and the LLM's class name are normalised
(:func:`li_reference.normal`).

The emulator is paced (one frame per write, a few ms apart) so that each run reads the
same frames in the same reads: SSELLM yields one response per read, and the fast and
faithful runs are two requests.
"""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import pytest
from li_reference import Ids, ReferenceLLM, Script, Timeline, normal, normal_entry, recording
from li_support import LLMFactory
from llama_index.core.base.llms.types import ChatMessage, ChatResponse
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.llms import LLM

from llamaindex_sse import _lazy
from llamaindex_sse._lazy import StreamMessage
from sse_core import fast_paths

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
    """What is asked: reasoning and text, or reasoning and two tool calls."""

    ask: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def messages(self) -> list[ChatMessage]:
        return [ChatMessage(role="user", content=self.ask)]


SCENARIOS = {
    "thinking": Scenario("count to 4"),
    "tools": Scenario(
        "weather in Paris and add 2 and 3", {"tools": TOOLS, "parallel_tool_calls": True}
    ),
}


@dataclass
class Outcome:
    """What the caller got: the responses in order, and the error that ended the call."""

    responses: list[ChatResponse] = field(default_factory=list)
    error: BaseException | None = None


SyncCall = Callable[[LLM, Timeline], Outcome]
AsyncCall = Callable[[LLM, Timeline], Awaitable[Outcome]]

_dispatcher = get_dispatcher(__name__)


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
        stream = llm.stream_chat(scenario.messages, **scenario.kwargs)
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
            async with aclosing(
                await llm.astream_chat(scenario.messages, **scenario.kwargs)
            ) as stream:
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


def acancelled(scenario: Scenario, after: int) -> AsyncCall:
    """``astream_chat`` read in a task that is cancelled after ``after`` responses, while
    it waits for the next one."""

    async def call(llm: LLM, timeline: Timeline) -> Outcome:
        outcome = Outcome()

        async def consume() -> None:
            stream = await llm.astream_chat(scenario.messages, **scenario.kwargs)
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
            return Outcome([llm.chat(scenario.messages, **scenario.kwargs)])
        except Exception as exc:
            return Outcome(error=exc)

    return call


def awhole(scenario: Scenario) -> AsyncCall:
    """``achat``."""

    async def call(llm: LLM, timeline: Timeline) -> Outcome:
        try:
            return Outcome([await llm.achat(scenario.messages, **scenario.kwargs)])
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


def _facts(response: ChatResponse, ids: Ids) -> dict[str, Any]:
    """Every field of a response: dumped, as JSON, and read attribute by attribute."""
    message = response.message
    return {
        "dump": normal(response, ids),
        "json": json.loads(response.model_dump_json()),
        "read": {
            "role": message.role,
            "content": message.content,
            "blocks": normal(list(message.blocks), ids),
            "message.additional_kwargs": normal(message.additional_kwargs, ids),
            "delta": response.delta,
            "raw": response.raw,
            "logprobs": response.logprobs,
            "additional_kwargs": response.additional_kwargs,
        },
        "str": str(response),
        "pickled": normal(pickle.loads(pickle.dumps(response)), ids),
        "copied": normal(copy.deepcopy(response), ids),
        "validated": normal(ChatResponse.model_validate(response.model_dump()), ids),
    }


def _trace(timeline: Timeline, outcome: Outcome) -> Trace:
    ids = Ids()
    entries = [normal_entry(entry, ids) for entry in timeline.entries]
    in_progress = [
        entry[1].response
        for entry in timeline.entries
        if entry[0] == "event" and entry[1].class_name() == "LLMChatInProgressEvent"
    ]
    error = outcome.error
    return Trace(
        timeline=entries,
        responses=[_facts(response, ids) for response in outcome.responses],
        error=None
        if error is None
        else (normal(error, ids), normal(getattr(error, "partial_response", None), ids)),
        same_objects=[a is b for a, b in zip(in_progress, outcome.responses, strict=False)],
        fields_set=[
            (sorted(r.model_fields_set), sorted(r.message.model_fields_set))
            for r in outcome.responses
        ],
        objects=outcome.responses,
    )


def _assert_same(traces: dict[str, Trace]) -> None:
    """fast == faithful == reference, part by part, naming the first difference."""
    faithful = traces["faithful"]
    for name in ("fast", "reference"):
        other = traces[name]
        for part in ("timeline", "responses", "error", "same_objects"):
            mine, theirs = getattr(faithful, part), getattr(other, part)
            if isinstance(mine, list):
                for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
                    assert a == b, f"{part}[{index}]: faithful != {name}"
                assert len(mine) == len(theirs), f"{part}: faithful != {name} in length"
            else:
                assert mine == theirs, f"{part}: faithful != {name}"
    # fields_set is the reference's choice of keywords, not the framework's: compared only
    # between SSELLM's two builds (the fast path writes pydantic's slots by hand).
    assert traces["fast"].fields_set == faithful.fields_set
    # The runs compared are the two builds: streamed responses of the fast run are lazy.
    streamed = [r for r in traces["fast"].objects if r.delta is not None]
    assert all(isinstance(r.message, StreamMessage) for r in streamed)
    plain = faithful.objects + traces["reference"].objects
    assert all(type(r.message) is ChatMessage for r in plain)
    for index, response in enumerate(faithful.objects):
        fast, reference = traces["fast"].objects[index], traces["reference"].objects[index]
        assert fast == response == reference, f"responses[{index}] differ as pydantic sees them"
        assert response == fast and reference == response
    assert all(faithful.same_objects)


def _reference(llm: LLM, outcome: Outcome, timeline: Timeline) -> ReferenceLLM:
    script = Script.of(outcome.responses, outcome.error)
    return ReferenceLLM(script, llm.metadata, timeline.callback_manager())


def run(make_llm: LLMFactory, call: SyncCall, fault: str = PACE, **fields: Any) -> Trace:
    """Run ``call`` fast, faithful and on the reference; assert they agree; the trace."""
    traces: dict[str, Trace] = {}
    for mode in ("fast", "faithful"):
        timeline = Timeline()
        llm = make_llm(fault=fault, callback_manager=timeline.callback_manager(), **fields)
        with recording(timeline), fast_paths.forced(FAST, mode == "fast"):
            outcome = _in_span(lambda: call(llm, timeline))  # noqa: B023 - called at once
        traces[mode] = _trace(timeline, outcome)
    timeline = Timeline()
    reference = _reference(llm, outcome, timeline)
    with recording(timeline):
        replayed = _in_span(lambda: call(reference, timeline))
    traces["reference"] = _trace(timeline, replayed)
    _assert_same(traces)
    return traces["reference"]


async def arun(make_llm: LLMFactory, call: AsyncCall, fault: str = PACE, **fields: Any) -> Trace:
    """Async twin of :func:`run`."""
    traces: dict[str, Trace] = {}
    for mode in ("fast", "faithful"):
        timeline = Timeline()
        llm = make_llm(fault=fault, callback_manager=timeline.callback_manager(), **fields)
        with recording(timeline), fast_paths.forced(FAST, mode == "fast"):
            outcome = await _ain_span(lambda: call(llm, timeline))  # noqa: B023 - awaited at once
        traces[mode] = _trace(timeline, outcome)
    timeline = Timeline()
    reference = _reference(llm, outcome, timeline)
    with recording(timeline):
        replayed = await _ain_span(lambda: call(reference, timeline))
    traces["reference"] = _trace(timeline, replayed)
    _assert_same(traces)
    return traces["reference"]


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


def _assert_wrapped_stream(trace: Trace, method: str, responses: int) -> None:
    """llm_chat_callback's stream semantics: the LLM's span exits before the stream is
    read, each in-progress event fires as its response is read, the end events fire at
    exhaustion, all under the LLM's span, itself under the caller's."""
    shape = _shape(trace)
    exit_at = shape.index(f"span_exit:LLM.{method}")
    assert shape[exit_at + 1 :][: 2 * responses] == [
        label
        for index in range(responses)
        for label in ("event:LLMChatInProgressEvent", f"mark:got:{index}")
    ]
    assert shape[exit_at + 1 + 2 * responses :] == [
        "cb_end",
        "event:LLMChatEndEvent",
        "mark:closed",
        "span_exit:_ain_span" if method == "astream_chat" else "span_exit:_in_span",
    ]
    enters = [e for e in trace.timeline if e[0] == "span_enter"]
    outer, inner = enters
    assert inner[1].startswith(f"LLM.{method}#") and inner[2] == outer[1]
    (start,) = _event(trace, "LLMChatStartEvent")
    (end,) = _event(trace, "LLMChatEndEvent")
    assert start["span_id"] == end["span_id"] == inner[1]
    assert end["response"] == trace.responses[-1]["dump"]


# -- the features ---------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stream_chat(make_llm: LLMFactory, scenario: str) -> None:
    trace = run(make_llm, streamed(SCENARIOS[scenario]), model="emulator-think")
    _assert_wrapped_stream(trace, "stream_chat", len(trace.responses))
    _assert_answer(trace, scenario)


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_astream_chat(make_llm: LLMFactory, scenario: str) -> None:
    trace = await arun(make_llm, astreamed(SCENARIOS[scenario]), model="emulator-think")
    _assert_wrapped_stream(trace, "astream_chat", len(trace.responses))
    _assert_answer(trace, scenario)


def _assert_answer(trace: Trace, scenario: str) -> None:
    """The agreed answer is the one asked for (the comparison is not of empty runs)."""
    last = trace.responses[-1]["read"]
    assert last["additional_kwargs"]["finish_reason"] in ("stop", "tool_calls")
    assert last["raw"]["usage"]["total_tokens"] > 0
    types = [block[0] for block in last["blocks"]]
    if scenario == "tools":
        assert types == ["ThinkingBlock", "TextBlock", "ToolCallBlock", "ToolCallBlock"]
        calls = last["message.additional_kwargs"]["tool_calls"]
        assert [c["function"]["name"] for c in calls] == ["get_weather", "add"]
    else:
        assert types == ["ThinkingBlock", "TextBlock"]
        assert last["content"] == "1 2 3 4"
        if len(trace.responses) > 1:  # a stream: the reasoning came as deltas too
            assert any("thinking_delta" in r["read"]["additional_kwargs"] for r in trace.responses)


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "json"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_chat(make_llm: LLMFactory, scenario: str, streaming: bool) -> None:
    trace = run(
        make_llm, whole(SCENARIOS[scenario]), model="emulator-think", invoke_streaming=streaming
    )
    _assert_whole(trace, "chat")
    _assert_answer(trace, scenario)


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "json"])
@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_achat(make_llm: LLMFactory, scenario: str, streaming: bool) -> None:
    trace = await arun(
        make_llm, awhole(SCENARIOS[scenario]), model="emulator-think", invoke_streaming=streaming
    )
    _assert_whole(trace, "achat")
    _assert_answer(trace, scenario)


def _assert_whole(trace: Trace, method: str) -> None:
    outer = "_ain_span" if method == "achat" else "_in_span"
    assert _shape(trace) == [
        f"span_enter:{outer}",
        f"span_enter:LLM.{method}",
        "trace_start",
        "event:LLMChatStartEvent",
        "cb_start",
        "cb_end",
        "event:LLMChatEndEvent",
        "trace_end",
        f"span_exit:LLM.{method}",
        f"span_exit:{outer}",
    ]
    (end,) = _event(trace, "LLMChatEndEvent")
    assert end["response"] == trace.responses[0]["dump"]
    assert trace.responses[0]["read"]["delta"] is None


def _assert_error_reached_everyone(trace: Trace, stream: bool) -> None:
    """The gateway's error reached the caller, the callback handler and (for a stream)
    instrumentation as an ExceptionEvent, and no end event was sent."""
    assert trace.error is not None and trace.error[0][1] == "GatewayStreamError"
    (failed,) = [e for e in trace.timeline if e[0] == "cb_end"]
    assert failed[2] == {"exception": trace.error[0]}
    assert not _event(trace, "LLMChatEndEvent")
    if stream:
        (exception,) = _event(trace, "ExceptionEvent")
        assert exception["exception"] == trace.error[0]
        assert trace.responses, "the error came after some chunks"
    else:
        (drop,) = [e for e in trace.timeline if e[0] == "span_drop"]
        assert drop[2] == trace.error[0]


def test_a_gateway_error_mid_stream(make_llm: LLMFactory) -> None:
    trace = run(make_llm, streamed(SCENARIOS["thinking"]), fault=ERROR, model="emulator-think")
    _assert_error_reached_everyone(trace, stream=True)


async def test_a_gateway_error_mid_astream(make_llm: LLMFactory) -> None:
    trace = await arun(
        make_llm, astreamed(SCENARIOS["thinking"]), fault=ERROR, model="emulator-think"
    )
    _assert_error_reached_everyone(trace, stream=True)


def test_a_gateway_error_in_chat(make_llm: LLMFactory) -> None:
    trace = run(make_llm, whole(SCENARIOS["thinking"]), fault=ERROR, model="emulator-think")
    _assert_error_reached_everyone(trace, stream=False)


async def test_a_gateway_error_in_achat(make_llm: LLMFactory) -> None:
    trace = await arun(make_llm, awhole(SCENARIOS["thinking"]), fault=ERROR, model="emulator-think")
    _assert_error_reached_everyone(trace, stream=False)


def _assert_closed_early(trace: Trace, method: str) -> None:
    """Closing after three responses: GeneratorExit reaches the handlers, no end event."""
    shape = _shape(trace)
    got = shape.index("mark:got:2")
    assert shape[got + 1 :] == [
        "cb_end",
        "event:ExceptionEvent",
        "mark:closed",
        "span_exit:_ain_span" if method == "astream_chat" else "span_exit:_in_span",
    ]
    (exception,) = _event(trace, "ExceptionEvent")
    assert exception["exception"] == ("exception", "GeneratorExit", "")
    assert trace.error is None and len(trace.responses) == 3


def test_breaking_out_of_stream_chat(make_llm: LLMFactory) -> None:
    trace = run(make_llm, streamed(SCENARIOS["tools"], stop_after=3), model="emulator-think")
    _assert_closed_early(trace, "stream_chat")


async def test_breaking_out_of_astream_chat(make_llm: LLMFactory) -> None:
    trace = await arun(
        make_llm, astreamed(SCENARIOS["tools"], stop_after=3), model="emulator-think"
    )
    _assert_closed_early(trace, "astream_chat")


def test_dropping_a_stream_chat_left_early(make_llm: LLMFactory) -> None:
    trace = run(
        make_llm, streamed(SCENARIOS["tools"], stop_after=3, drop=True), model="emulator-think"
    )
    _assert_closed_early(trace, "stream_chat")


async def test_cancelling_the_task_reading_astream_chat(make_llm: LLMFactory) -> None:
    """The cancel lands in the stream's wait for its next chunk: CancelledError reaches
    the handlers as an exception and the caller, never swallowed; no end event."""
    trace = await arun(make_llm, acancelled(SCENARIOS["tools"], after=3), model="emulator-think")
    shape = _shape(trace)
    assert shape[shape.index("mark:got:2") + 1 :] == [
        "cb_end",
        "event:ExceptionEvent",
        "mark:closed",
        "span_exit:_ain_span",
    ]
    (exception,) = _event(trace, "ExceptionEvent")
    assert exception["exception"][:2] == ("exception", "CancelledError")
    assert trace.error is not None and trace.error[0][1] == "CancelledError"
