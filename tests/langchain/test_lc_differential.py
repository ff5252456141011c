"""Fast vs faithful vs LangChain's own behaviour, feature by feature, on the same answers.

Each case streams one emulator answer three ways and compares everything a caller, a
callback handler, a tracer or ``astream_events`` sees:

- ``fast``: ChatSSE with its LangChain fast paths on (its own stream loop, chunks built
  without validation);
- ``faithful``: ChatSSE with them off (``BaseChatModel.stream``/``astream`` over its
  ``_stream``/``_astream``, validated chunks);
- ``reference``: :class:`lc_reference.ReplayModel`, a minimal ``BaseChatModel`` replaying the
  very chunks (and result, and error) the faithful ChatSSE produced for the same request,
  driven by langchain-core's own ``stream``/``astream``/``invoke``: the framework's own
  behaviour.

Only what must differ is normalised: run ids become the order of their first appearance
(the parent/child structure stays compared), tracer timings are dropped, and against the
reference the model's own class (its serialized form and default run name). Every other
difference is named where it is set aside, with why.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import operator
from collections.abc import AsyncGenerator, Callable, Generator, Iterator
from contextlib import aclosing, closing, contextmanager
from typing import Any, cast
from uuid import UUID

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import get_llm_cache, set_llm_cache
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk
from langchain_core.rate_limiters import InMemoryRateLimiter
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run

from langchain_sse import ChatSSE, _chunks, _hooks
from langchain_sse._chunks import CHUNKS
from langchain_sse._hooks import UNMERGED
from langchain_sse._run import OWN_LOOP
from sse_core import fast_paths
from sse_emulator import Emulator
from tests.langchain.lc_reference import Ids, Recording, ReplayModel, dump, record
from tests.langchain.lc_support import ModelFactory

MODES = ("sync", "async")
WAYS = ("fast", "faithful", "reference")
#: The key every model here sends (make_model's): it must appear in no trace.
API_KEY = "sk-emulator-test-key"
THINK = "emulator-think"  # the emulator's thinking model: reasoning on every answer


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


@contextmanager
def _fast(on: bool) -> Iterator[None]:
    """ChatSSE's LangChain fast paths all on or all off (the chunk builder and the
    ``_should_stream`` override are chosen at import: switched here, and back to the
    registry's decision after)."""
    try:
        with (
            fast_paths.forced(OWN_LOOP.name, on),
            fast_paths.forced(CHUNKS.name, on),
            fast_paths.forced(UNMERGED.name, on),
        ):
            _chunks.use(on)
            _hooks.use(ChatSSE, on)
            yield
    finally:  # once the forced decisions are gone
        _chunks.use(fast_paths.is_on(CHUNKS.name))
        _hooks.use(ChatSSE, fast_paths.is_on(UNMERGED.name))


class Events(BaseCallbackHandler):
    """Every callback of a run (chains and chat model), with all its arguments."""

    raise_error = True  # a broken recorder fails the test, not a warning

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def _add(self, event: str, /, **arguments: Any) -> None:
        self.calls.append((event, arguments))

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self._add("chain_start", serialized=serialized, inputs=inputs, **kwargs)

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self._add("chain_end", outputs=outputs, **kwargs)

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        self._add("chain_error", error=error, **kwargs)

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self._add("start", serialized=serialized, messages=messages, **kwargs)

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        self._add("token", token=token, **kwargs)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self._add("end", response=response, **kwargs)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self._add("error", error=error, **kwargs)

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self._add("custom", name=name, data=data, **kwargs)


class Tracer(BaseTracer):
    """A tracer that keeps its finished root runs."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        self.roots.append(run)


def _run_tree(run: Run) -> dict[str, Any]:
    """A run and its children as data, without timings (``dotted_order`` holds them too)
    and with an error's traceback cut to the error itself (its frames are each way's own)."""
    error = run.error.split("Traceback (most recent call last)")[0] if run.error else None
    events = [{k: v for k, v in event.items() if k != "time"} for event in run.events]
    tree: dict[str, Any] = dump(
        {
            "id": run.id,
            "trace_id": run.trace_id,
            "parent_run_id": run.parent_run_id,
            "name": run.name,
            "run_type": run.run_type,
            "tags": run.tags,
            "extra": run.extra,
            "serialized": run.serialized,
            "inputs": run.inputs,
            "outputs": run.outputs,
            "error": error,
            "events": events,
            "children": [_run_tree(child) for child in run.child_runs],
        }
    )
    return tree


# --- the three ways ---

#: One call of a model with a config: sync (its result) or async (an awaitable of it).
Drive = Callable[[BaseChatModel, RunnableConfig], Any]


def streamed(mode: str, prompt: Any = "echo: hello streaming world", **kwargs: Any) -> Drive:
    """``stream``/``astream`` of ``prompt``, every chunk as data."""

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        return [dump(message) for message in model.stream(prompt, config, **kwargs)]

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        return [dump(message) async for message in model.astream(prompt, config, **kwargs)]

    return drive if mode == "sync" else adrive


def invoked(mode: str, prompt: Any = "echo: hello streaming world", **kwargs: Any) -> Drive:
    """``invoke``/``ainvoke`` of ``prompt``, the message as data."""

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        return dump(model.invoke(prompt, config, **kwargs))

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        return dump(await model.ainvoke(prompt, config, **kwargs))

    return drive if mode == "sync" else adrive


def in_a_chain(mode: str, inner: Drive) -> Drive:
    """``inner`` called from a RunnableLambda parent run (its config passed down)."""

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        def step(_: Any, config: RunnableConfig) -> Any:
            return inner(model, config)

        return RunnableLambda(step, name="parent").invoke("go", config)

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        async def step(_: Any, config: RunnableConfig) -> Any:
            return await inner(model, config)

        return await RunnableLambda(step, name="parent").ainvoke("go", config)

    return drive if mode == "sync" else adrive


async def _outcome(drive: Drive, model: BaseChatModel, config: RunnableConfig) -> Any:
    try:
        result = drive(model, config)
        return await result if inspect.isawaitable(result) else result
    except Exception as exc:  # the error is part of what is compared
        return dump(exc)


class Way:
    """What one way showed: the output, the callbacks and the traced runs, ids normalised."""

    def __init__(self, output: Any, events: Events, tracer: Tracer) -> None:
        ids = Ids()  # one numbering for its output, callbacks and runs: their links compare too
        self.output = ids(output)
        self.calls = ids([(name, dump(arguments)) for name, arguments in events.calls])
        self.runs = ids([_run_tree(run) for run in tracer.roots])
        self.root_ids = [run.id for run in tracer.roots]
        self.raw = repr((output, events.calls, tracer.roots))

    def data(self) -> tuple[Any, Any, Any]:
        return self.output, self.calls, self.runs


def _config(events: Events, tracer: Tracer) -> RunnableConfig:
    return {"callbacks": [events, tracer], "tags": ["t"], "metadata": {"m": 1},
            "run_name": "answer"}  # fmt: skip


async def _way(model: BaseChatModel, drive: Drive) -> Way:
    events, tracer = Events(), Tracer()
    output = await _outcome(drive, model, _config(events, tracer))
    return Way(output, events, tracer)


async def three_ways(model: ChatSSE, drive: Drive, recording: Recording) -> dict[str, Way]:
    """``drive`` run fast, faithful and on the replay of ``recording``."""
    ways: dict[str, Way] = {}
    with _fast(True):
        ways["fast"] = await _way(model, drive)
    with _fast(False):
        ways["faithful"] = await _way(model, drive)
        ways["reference"] = await _way(ReplayModel.of(model, recording), drive)
    return ways


def _recorded(model: ChatSSE, prompt: Any, **kwargs: Any) -> Recording:
    with _fast(False):
        return record(model, prompt, **kwargs)


def as_chat_sse(data: Any, model: ChatSSE) -> Any:
    """The reference's data with its own class named as the recorded model's: its serialized
    form (``not_implemented``: module, class and repr) and its default run name are the
    replay's, which is a different class; the rest of what it shows is LangChain's doing."""
    if isinstance(data, dict):
        if data.get("id") == [*ReplayModel.__module__.split("."), ReplayModel.__name__]:
            return Ids()(model._serialized)
        return {key: as_chat_sse(value, model) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [as_chat_sse(item, model) for item in data]
    return "ChatSSE" if data == "ReplayModel" else data


def first_difference(mine: Any, theirs: Any, path: str = "") -> str | None:
    """Where two data trees first differ (for a readable assertion message)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in [*mine, *(k for k in theirs if k not in mine)]:
            if key not in mine or key not in theirs:
                return f"{path}.{key}: only in {'theirs' if key in theirs else 'mine'}"
            found = first_difference(mine[key], theirs[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(mine, list) and isinstance(theirs, list):
        for index, (left, right) in enumerate(zip(mine, theirs, strict=False)):
            if found := first_difference(left, right, f"{path}[{index}]"):
                return found
        return f"{path}: {len(mine)} vs {len(theirs)} items" if len(mine) != len(theirs) else None
    return None if mine == theirs else f"{path}: {mine!r} != {theirs!r}"


def assert_same(
    ways: dict[str, Way],
    model: ChatSSE,
    view: Callable[[Way], tuple[Any, Any, Any]] = Way.data,
) -> Way:
    """fast == faithful == reference (the reference's class named as ChatSSE); no key shown."""
    fast, faithful, reference = (ways[way] for way in WAYS)
    for part, mine, theirs in zip(("output", "calls", "runs"), fast.data(), faithful.data(),
                                  strict=True):  # fmt: skip
        assert mine == theirs, f"fast vs faithful: {part}{first_difference(mine, theirs)}"
    for part, mine, theirs in zip(("output", "calls", "runs"), view(faithful),
                                  as_chat_sse(view(reference), model), strict=True):  # fmt: skip
        assert mine == theirs, f"faithful vs reference: {part}{first_difference(mine, theirs)}"
    for way in WAYS:
        assert API_KEY not in ways[way].raw, way
    return faithful


# --- the features ---


@pytest.mark.parametrize("mode", MODES)
async def test_each_way_runs_what_it_claims(
    make_model: ModelFactory, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Else the comparisons could not fail: the fast way runs ChatSSE's own loop and builds
    chunks without validation; the faithful way runs BaseChatModel's loop over validated
    chunks; the reference is LangChain's loop over the replay."""
    name = "stream" if mode == "sync" else "astream"
    loops: list[str] = []
    original = getattr(BaseChatModel, name)

    def spy(model: BaseChatModel, *args: Any, **kwargs: Any) -> Any:
        loops.append(type(model).__name__)
        return original(model, *args, **kwargs)

    monkeypatch.setattr(BaseChatModel, name, spy)
    builders: list[bool] = []

    async def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        builders.append(_chunks.make_chunk is _chunks.make_validated)
        return await _outcome(streamed(mode, "echo: which loop"), model, config)

    model = make_model()
    ways = await three_ways(model, drive, _recorded(model, "echo: which loop"))
    assert loops == ["ChatSSE", "ReplayModel"]  # the faithful way's, then the reference's
    assert builders == [False, True, True]
    assert_same(ways, model)


STREAM_CASES = [
    pytest.param("openai", {}, "echo: hello streaming world", id="text"),
    pytest.param("openai", {"model": THINK}, "echo: why", id="reasoning"),
    pytest.param("openai", {}, "forbidden topic", id="refusal"),
    pytest.param("streamchat", {}, "count to 12", id="streamchat"),
    pytest.param("aivene", {"reasoning_effort": "low"}, "echo: why", id="aivene-reasoning"),
    pytest.param("openai", {"coalesce": True}, "count to 40", id="coalesce"),
    pytest.param(
        "openai",
        {"tags": ["model-tag"], "metadata": {"mm": 2}, "temperature": 0.2, "max_tokens": 60},
        "count to 12",
        id="model-tags-metadata-params",
    ),
]
#: Call options: stop and a request field given at the call (they reach the invocation
#: params, the options and the LangSmith params).
CALL_KWARGS = {"stop": ["zzz"], "temperature": 0.7, "seed": 3}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("dialect", "fields", "prompt"), STREAM_CASES)
async def test_callbacks_run_links_and_traces_of_a_stream_in_a_chain(
    make_model: ModelFactory, dialect: str, fields: dict[str, Any], prompt: str, mode: str
) -> None:
    model = make_model(dialect, **fields)
    ways = await three_ways(model, in_a_chain(mode, streamed(mode, prompt, **CALL_KWARGS)),
                            _recorded(model, prompt, **CALL_KWARGS))  # fmt: skip
    faithful = assert_same(ways, model)
    (start,) = [arguments for name, arguments in faithful.calls if name == "start"]
    assert start["options"] == {"stop": ["zzz"], "temperature": 0.7, "seed": 3}
    assert start["metadata"]["ls_temperature"] == 0.7 and start["metadata"]["ls_stop"] == ["zzz"]
    assert start["tags"] == ["t", *(model.tags or [])]
    names = [name for name, _ in faithful.calls]
    assert names[:2] == ["chain_start", "start"] and names[-2:] == ["end", "chain_end"]
    assert names.count("token") == len(faithful.output) >= 2
    (chain,) = faithful.runs
    (llm,) = chain["children"]
    assert llm["parent_run_id"] == chain["id"] and llm["run_type"] == "llm"
    assert llm["extra"]["metadata"]["ls_provider"] == "sse"
    assert llm["extra"]["invocation_params"]["model_name"] == model.model_name


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("streaming", [False, True], ids=["quiet", "streaming"])
@pytest.mark.parametrize(("dialect", "fields", "prompt"), STREAM_CASES[:3])
async def test_callbacks_and_traces_of_an_invoke_in_a_chain(
    make_model: ModelFactory,
    dialect: str,
    fields: dict[str, Any],
    prompt: str,
    streaming: bool,
    mode: str,
) -> None:
    """``streaming=True``: LangChain streams the invoke through ``_stream`` (its tokens, its
    stamping); ChatSSE's ``_generate`` sends the same tokens from the core's answer."""
    model = make_model(dialect, streaming=streaming, **fields)
    ways = await three_ways(
        model, in_a_chain(mode, invoked(mode, prompt)), _recorded(model, prompt)
    )
    if streaming:
        set_aside_llm_output(ways)
    faithful = assert_same(ways, model)
    tokens = sum(name == "token" for name, _ in faithful.calls)
    assert tokens >= 2 if streaming else tokens == 0
    assert faithful.output["id"].startswith("lc_run--")


def set_aside_llm_output(ways: dict[str, Way]) -> None:
    """The legacy ``llm_output`` of an invoke LangChain streams, checked and then set aside:
    LangChain merges the chunks of ``_stream`` (``generate_from_stream``), which gives none;
    ChatSSE's ``_generate`` (the fast path) streams the same tokens but builds the answer
    from the core's Completion and fills ``llm_output`` as in every invoke (``token_usage``,
    ``model_name``: what legacy callers read), the same values as the message's
    ``response_metadata``; the faithful path is LangChain's merge."""
    for way in ("fast", "faithful"):
        for name, arguments in ways[way].calls:
            if name == "end":
                (generation,) = arguments["response"]["generations"][0]
                output = arguments["response"]["llm_output"]
                metadata = generation["message"]["response_metadata"]
                if way == "faithful":
                    assert output is None
                    continue
                assert output["token_usage"] == metadata["token_usage"]
                assert output["model_name"] == metadata["model_name"]
                arguments["response"]["llm_output"] = None
        for run in _llm_runs(ways[way].runs):
            run["outputs"]["llm_output"] = None


FAULTS = [
    pytest.param("error-frame; after=3", "GatewayStreamError", id="error-frame"),
    pytest.param("truncate; after=4", "IncompleteStreamError", id="truncate"),
    pytest.param("unauthorized", "AuthenticationError", id="unauthorized"),
]


def set_aside_partial_metadata(ways: dict[str, Way]) -> None:
    """The fast loop's partial answer in ``on_llm_error`` (and its trace), checked against
    the faithful one and then made equal to it: LangChain's loop merges the chunks that
    arrived, so its partial answer holds the first chunk's ``model_provider`` only; ChatSSE's
    own loop builds it from what the core received, which also names the model, the
    response id, the headers and gateway events already known. Everything else is equal."""
    fast, faithful = ways["fast"], ways["faithful"]
    for (name, mine), (_, theirs) in zip(fast.calls, faithful.calls, strict=True):
        if name == "error" and theirs["response"]["generations"][0]:
            _set_aside(mine["response"]["generations"][0][0]["message"],
                       theirs["response"]["generations"][0][0]["message"])  # fmt: skip
    for mine, theirs in zip(_llm_runs(fast.runs), _llm_runs(faithful.runs), strict=True):
        if mine["error"] and theirs["outputs"] and theirs["outputs"]["generations"][0]:
            # the tracer keeps the message as dumpd gives it: its fields under "kwargs"
            _set_aside(mine["outputs"]["generations"][0][0]["message"]["kwargs"],
                       theirs["outputs"]["generations"][0][0]["message"]["kwargs"])  # fmt: skip


def _set_aside(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    extra = {"model_name", "id", "system_fingerprint", "headers", "gateway_events"}
    own, base = mine["response_metadata"], theirs["response_metadata"]
    assert base.items() <= own.items() and own.keys() - base.keys() <= extra
    mine["response_metadata"] = base


def _llm_runs(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for run in runs:
        found += [run] if run["run_type"] == "llm" else []
        found += _llm_runs(run["children"])
    return found


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["stream", "invoke"])
@pytest.mark.parametrize("version", ["v0", "v1"])
@pytest.mark.parametrize(("fault", "error"), FAULTS)
async def test_a_gateway_error_mid_stream_reports_what_langchain_reports(
    make_model: ModelFactory, fault: str, error: str, version: str, call: str, mode: str
) -> None:
    model = make_model(
        model=THINK, output_version=version, default_headers={"X-Emulator-Fault": fault}
    )
    prompt = "count to 12"
    inner = streamed(mode, prompt) if call == "stream" else invoked(mode, prompt)
    ways = await three_ways(model, in_a_chain(mode, inner), _recorded(model, prompt))
    set_aside_partial_metadata(ways)
    faithful = assert_same(ways, model)
    assert faithful.output["__error__"] == error
    names = [name for name, _ in faithful.calls]
    assert names[-2:] == ["error", "chain_error"]
    (chain,) = faithful.runs
    assert chain["children"][0]["error"].startswith(error)


def leaving_after(mode: str, prompt: Any, count: int) -> Drive:
    """``stream``/``astream`` of ``prompt``, left after ``count`` chunks (closed at once)."""

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        messages = cast("Generator[AIMessageChunk, None, None]", model.stream(prompt, config))
        with closing(messages) as stream:
            return [dump(message) for message in itertools.islice(stream, count)]

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        chunks: list[Any] = []
        amessages = cast("AsyncGenerator[AIMessageChunk, None]", model.astream(prompt, config))
        async with aclosing(amessages) as stream:
            async for message in stream:
                chunks.append(dump(message))
                if len(chunks) == count:
                    break
        return chunks

    return drive if mode == "sync" else adrive


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("version", ["v0", "v1"])
async def test_leaving_a_stream_early_reports_what_langchain_reports(
    make_model: ModelFactory, version: str, mode: str
) -> None:
    model = make_model(model=THINK, output_version=version)
    prompt = "count to 50"
    ways = await three_ways(model, in_a_chain(mode, leaving_after(mode, prompt, 14)),
                            _recorded(model, prompt))  # fmt: skip
    set_aside_partial_metadata(ways)
    faithful = assert_same(ways, model)
    assert len(faithful.output) == 14
    (error,) = [arguments for name, arguments in faithful.calls if name == "error"]
    assert error["error"]["__error__"] == "GeneratorExit"
    (partial,) = error["response"]["generations"][0]
    assert partial["message"]["additional_kwargs"]["reasoning_content"]


NAMED = {"SPASS-User-Id": "u", "X-Emulator-Fault": "named-event; name=spass.tool-cap; after=2"}


def without_custom_events(way: Way) -> tuple[Any, Any, Any]:
    """A way's data without its custom events: LangChain's own loop calls ``_stream`` with no
    run manager, so a model replaying chunks has no run to file a custom event under (its
    ``dispatch_custom_event`` fails outside a chain, and files the event under the parent
    chain inside one). ChatSSE's gateway events are compared fast vs faithful instead, and
    stay in-band in the last chunk's ``response_metadata["gateway_events"]``, replayed."""
    calls = [[name, arguments] for name, arguments in way.calls if name != "custom"]
    output = way.output
    if isinstance(output, list):
        output = [
            e for e in output if not (isinstance(e, dict) and e.get("event") == "on_custom_event")
        ]
    return output, calls, way.runs


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["stream", "invoke"])
async def test_gateway_events_reach_the_model_run_as_custom_events(
    make_model: ModelFactory, call: str, mode: str
) -> None:
    model = make_model("spass", default_headers=NAMED)
    prompt = "echo: with events"
    inner = streamed(mode, prompt) if call == "stream" else invoked(mode, prompt)
    ways = await three_ways(model, in_a_chain(mode, inner), _recorded(model, prompt))
    faithful = assert_same(ways, model, view=without_custom_events)
    (start,) = [arguments for name, arguments in faithful.calls if name == "start"]
    custom = [(a["name"], a["run_id"]) for name, a in faithful.calls if name == "custom"]
    assert custom and custom[0] == ("spass.tool-cap", start["run_id"])  # the model's own run
    assert not [name for name, _ in ways["reference"].calls if name == "custom"]


def events_v2(prompt: Any, *, chain: str | None = None, **kwargs: Any) -> Drive:
    """``astream_events(version="v2")`` of the model (``chain``: of a RunnableLambda parent
    that calls the model's ``astream`` or ``ainvoke``), every event as data."""

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        async def step(_: Any, config: RunnableConfig) -> Any:
            if chain == "stream":
                return [dump(m) async for m in model.astream(prompt, config, **kwargs)]
            return dump(await model.ainvoke(prompt, config, **kwargs))

        runnable: Any = model if chain is None else RunnableLambda(step, name="parent")
        source = prompt if chain is None else "go"
        return [dump(e) async for e in runnable.astream_events(source, config, version="v2")]

    return adrive


EVENT_CASES = [
    pytest.param("openai", {}, "echo: hello streaming world", None, id="text"),
    pytest.param("openai", {"model": THINK}, "echo: why", None, id="reasoning"),
    pytest.param("openai", {"output_version": "v1", "model": THINK}, "echo: v1", None, id="v1"),
    pytest.param("spass", {"default_headers": NAMED}, "echo: events", None, id="named-events"),
    pytest.param("openai", {"model": THINK}, "echo: why", "stream", id="chain-stream"),
    pytest.param("openai", {"model": THINK}, "echo: why", "invoke", id="chain-invoke"),
    pytest.param("spass", {"default_headers": NAMED}, "echo: x", "stream", id="chain-stream-named"),
    pytest.param("spass", {"default_headers": NAMED}, "echo: x", "invoke", id="chain-invoke-named"),
]


@pytest.mark.parametrize(("dialect", "fields", "prompt", "chain"), EVENT_CASES)
async def test_astream_events_v2(
    make_model: ModelFactory, dialect: str, fields: dict[str, Any], prompt: str, chain: str | None
) -> None:
    model = make_model(dialect, **fields)
    ways = await three_ways(model, events_v2(prompt, chain=chain), _recorded(model, prompt))
    if chain == "invoke":  # astream_events streams the invoke (its handler asks for it)
        set_aside_llm_output(ways)
    faithful = assert_same(ways, model, view=without_custom_events)
    kinds = [event["event"] for event in faithful.output]
    assert kinds.count("on_chat_model_start") == kinds.count("on_chat_model_end") == 1
    assert kinds.count("on_chat_model_stream") >= 2
    if "default_headers" in fields:
        assert "on_custom_event" in kinds


def twice(inner: Drive, count: Callable[[BaseChatModel], int]) -> Drive:
    """``inner`` twice under a fresh InMemoryCache (the global one restored after): both
    outputs and how many answers the model was asked for."""

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        before, asked = get_llm_cache(), count(model)
        set_llm_cache(InMemoryCache())
        try:
            return [inner(model, config), inner(model, config), count(model) - asked]
        finally:
            set_llm_cache(before)

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        before, asked = get_llm_cache(), count(model)
        set_llm_cache(InMemoryCache())
        try:
            return [await inner(model, config), await inner(model, config), count(model) - asked]
        finally:
            set_llm_cache(before)

    return adrive if inspect.iscoroutinefunction(inner) else drive


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["invoke", "stream"])
@pytest.mark.parametrize("version", ["v0", "v1"])
async def test_the_llm_cache(
    make_model: ModelFactory, emulator: Emulator, version: str, call: str, mode: str
) -> None:
    """``invoke`` answers the second time from the cache; ``stream`` never reads it
    (langchain-core 1.8's ``stream``/``astream`` go to the model every time)."""
    model = make_model(model=THINK, output_version=version)
    prompt = "echo: cached"
    recording = _recorded(model, prompt)

    def count(target: BaseChatModel) -> int:
        return len(target.asked) if isinstance(target, ReplayModel) else len(emulator.requests)

    inner = invoked(mode, prompt) if call == "invoke" else streamed(mode, prompt)
    ways = await three_ways(model, twice(inner, count), recording)
    faithful = assert_same(ways, model)
    first, second, asked = faithful.output
    assert asked == (1 if call == "invoke" else 2)
    assert get_llm_cache() is None
    if call == "invoke":
        assert second["content"] == first["content"]  # the cached answer
        assert "cached" in str(first["content"])


class CountingLimiter(InMemoryRateLimiter):
    """An InMemoryRateLimiter that counts how often it is asked."""

    def __init__(self) -> None:
        super().__init__(requests_per_second=1000, max_bucket_size=1)
        self.asked = 0

    def acquire(self, *, blocking: bool = True) -> bool:
        self.asked += 1
        return super().acquire(blocking=blocking)

    async def aacquire(self, *, blocking: bool = True) -> bool:
        self.asked += 1
        return await super().aacquire(blocking=blocking)


def counted(inner: Drive, limiter: CountingLimiter) -> Drive:
    """``inner``'s output and how often it asked the rate limiter."""

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        asked = limiter.asked
        return [inner(model, config), limiter.asked - asked]

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        asked = limiter.asked
        return [await inner(model, config), limiter.asked - asked]

    return adrive if inspect.iscoroutinefunction(inner) else drive


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["invoke", "stream"])
async def test_the_rate_limiter_is_asked_once_per_call(
    make_model: ModelFactory, call: str, mode: str
) -> None:
    limiter = CountingLimiter()
    model = make_model(rate_limiter=limiter)
    prompt = "echo: limited"
    inner = invoked(mode, prompt) if call == "invoke" else streamed(mode, prompt)
    ways = await three_ways(model, counted(inner, limiter), _recorded(model, prompt))
    faithful = assert_same(ways, model)
    assert faithful.output[1] == 1


def bound_tools(model: ChatSSE) -> dict[str, Any]:
    """The call kwargs of ``model`` with ``get_weather`` bound, its call required."""
    bound: Any = model.bind_tools([get_weather], tool_choice="any")
    kwargs: dict[str, Any] = bound.kwargs
    return kwargs


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("fields", "tools", "whole"),
    [
        pytest.param({"disable_streaming": True}, False, True, id="True"),
        pytest.param({"disable_streaming": "tool_calling"}, True, True, id="tool_calling-tools"),
        pytest.param({"disable_streaming": "tool_calling"}, False, False, id="tool_calling"),
        # LangChain reads a streaming=False set explicitly as streaming switched off too
        pytest.param({"streaming": False}, False, True, id="streaming=False"),
    ],
)
async def test_disable_streaming(
    make_model: ModelFactory, fields: dict[str, Any], tools: bool, whole: bool, mode: str
) -> None:
    model = make_model(**fields)
    prompt = "weather in Paris?" if tools else "echo: whole"
    kwargs = bound_tools(model) if tools else {}
    ways = await three_ways(model, in_a_chain(mode, streamed(mode, prompt, **kwargs)),
                            _recorded(model, prompt, **kwargs))  # fmt: skip
    faithful = assert_same(ways, model)
    assert (len(faithful.output) == 1) is whole  # one chunk: the invoked answer
    if tools:
        assert [call["name"] for call in faithful.output[0]["tool_calls"]] == ["get_weather"]


def with_blocks(mode: str, call: str, prompt: Any, **kwargs: Any) -> Drive:
    """``stream`` (the chunks, and their merge) or ``invoke`` (the message), each with its
    ``content_blocks``."""

    def whole(messages: list[Any]) -> dict[str, Any]:
        chunks = [dump(m) for m in messages]  # before merging, which may edit their blocks
        merged = functools.reduce(operator.add, messages)
        return {"chunks": chunks, "blocks": merged.content_blocks}

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        if call == "stream":
            return whole(list(model.stream(prompt, config, **kwargs)))
        message = model.invoke(prompt, config, **kwargs)
        return {"message": dump(message), "blocks": message.content_blocks}

    async def adrive(model: BaseChatModel, config: RunnableConfig) -> Any:
        if call == "stream":
            return whole([m async for m in model.astream(prompt, config, **kwargs)])
        message = await model.ainvoke(prompt, config, **kwargs)
        return {"message": dump(message), "blocks": message.content_blocks}

    return drive if mode == "sync" else adrive


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["stream", "invoke", "streaming invoke"])
@pytest.mark.parametrize("version", ["v0", "v1"])
@pytest.mark.parametrize(
    ("answer", "prompt", "after"),
    [
        pytest.param("text", "echo: why", ["text"], id="text"),
        pytest.param("tools", "weather in Paris and Tokyo?", ["tool_call"] * 2, id="tool-calls"),
        pytest.param("refusal", "forbidden topic", ["refusal"], id="refusal"),
    ],
)
async def test_output_version_and_content_blocks_with_reasoning(
    make_model: ModelFactory, answer: str, prompt: str, after: list[str], version: str,
    call: str, mode: str,
) -> None:  # fmt: skip
    streaming = {"streaming": True} if call == "streaming invoke" else {}
    model = make_model(model=THINK, output_version=version, **streaming)
    kwargs = bound_tools(model) if answer == "tools" else {}
    inner = with_blocks(mode, call.removeprefix("streaming "), prompt, **kwargs)
    ways = await three_ways(model, in_a_chain(mode, inner), _recorded(model, prompt, **kwargs))
    if call == "streaming invoke":
        set_aside_llm_output(ways)
    faithful = assert_same(ways, model)
    kinds = [block["type"] for block in faithful.output["blocks"]]
    assert kinds[0] == "reasoning"
    assert kinds[1:] == after
    tokens = [arguments["token"] for name, arguments in faithful.calls if name == "token"]
    if call != "invoke":  # streamed: v1 tokens are lists of indexed blocks
        assert len(tokens) > 3
        assert all(isinstance(token, list if version == "v1" else str) for token in tokens)
    if version == "v1" and call == "stream":
        reasoning = faithful.output["chunks"][0]["content"][0]
        assert reasoning["type"] == "reasoning" and reasoning["index"] == 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["stream", "invoke"])
@pytest.mark.parametrize(
    ("usage", "at_call"),
    [
        pytest.param(True, {}, id="usage"),
        pytest.param(False, {}, id="no-usage"),
        pytest.param(False, {"stream_usage": True}, id="usage-asked-at-the-call"),
        pytest.param(True, {"stream_usage": False}, id="usage-refused-at-the-call"),
    ],
)
async def test_stream_usage(
    make_model: ModelFactory, usage: bool, at_call: dict[str, Any], call: str, mode: str
) -> None:
    model = make_model(stream_usage=usage)
    usage = at_call.get("stream_usage", usage)
    prompt = "count to 5"
    how = streamed if call == "stream" else invoked
    inner = how(mode, prompt, **at_call)
    ways = await three_ways(model, in_a_chain(mode, inner), _recorded(model, prompt, **at_call))
    faithful = assert_same(ways, model)
    if call == "stream":
        found = [chunk["usage_metadata"] for chunk in faithful.output]
        assert found[:-1] == [None] * (len(found) - 1)  # on the last chunk only
        last = found[-1]
    else:
        last = faithful.output["usage_metadata"]
    assert (last is not None) is usage
    if usage:
        assert last["total_tokens"] == last["input_tokens"] + last["output_tokens"] > 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["stream", "invoke"])
async def test_the_structured_output_format_reaches_callbacks_and_traces(
    make_model: ModelFactory, call: str, mode: str
) -> None:
    """``ls_structured_output_format`` (what ``with_structured_output`` binds) goes to the
    run's options with its schema as JSON schema, and not to the request."""
    model = make_model()
    tools = bound_tools(model)
    fmt = {"schema": get_weather, "kwargs": {"method": "function_calling"}}
    prompt = "weather in Paris?"
    how = streamed if call == "stream" else invoked
    inner = how(mode, prompt, ls_structured_output_format=fmt, **tools)
    ways = await three_ways(model, in_a_chain(mode, inner), _recorded(model, prompt, **tools))
    faithful = assert_same(ways, model)
    (start,) = [arguments for name, arguments in faithful.calls if name == "start"]
    structured = start["options"]["ls_structured_output_format"]
    assert structured["schema"]["title"] == "get_weather"
    assert "ls_structured_output_format" not in start["invocation_params"]


RUN_ID = UUID("01234567-89ab-7def-8123-456789abcdef")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call", ["stream", "invoke", "streaming invoke"])
async def test_a_run_id_and_name_given_to_the_model_name_its_run(
    make_model: ModelFactory, call: str, mode: str
) -> None:
    streaming = {"streaming": True} if call == "streaming invoke" else {}
    model = make_model(model=THINK, **streaming)
    prompt = "echo: named run"
    inner = (streamed if call == "stream" else invoked)(mode, prompt)

    def drive(model: BaseChatModel, config: RunnableConfig) -> Any:
        return inner(model, {**config, "run_id": RUN_ID})

    ways = await three_ways(model, drive, _recorded(model, prompt))
    if call == "streaming invoke":
        set_aside_llm_output(ways)
    faithful = assert_same(ways, model)
    assert all(ways[way].root_ids == [RUN_ID] for way in WAYS)
    (root,) = faithful.runs
    assert root["name"] == "answer" and root["parent_run_id"] is None
    assert root["tags"] == ["t"] and root["extra"]["metadata"]["m"] == 1
