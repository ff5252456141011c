"""ChatSSE's I/O as functions: the plan of each call, and the sync/async twins that run it.

``ChatSSE`` (:mod:`langchain_sse.model`) keeps LangChain's entry points as thin methods and
hands each answer to one :class:`~langchain_sse._call.ModelCall` made here:

- ``stream``/``astream`` run LangChain's run themselves (:func:`run_own`: the same callbacks
  as the base class, see :mod:`langchain_sse._run`) and keep no chunk, where that fast path
  is on (:data:`~langchain_sse._run.OWN_LOOP`); otherwise they are the base class's loop,
  over ``_stream``/``_astream`` (:func:`stream_chunks`);
- ``_generate``/``_agenerate`` (``invoke``) stream too, but keep and merge no chunk
  (:func:`generate`): the answer is the core's Completion; with ``invoke_streaming=False``
  they send ``stream: false`` and the core decodes the one JSON answer into the same
  Completion.

Each twin differs from the other only by ``async``/``await``; every decision is in the pure
planning functions above them.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from contextlib import aclosing, closing
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from langchain_core.callbacks import (
    AsyncCallbackManager,
    AsyncCallbackManagerForLLMRun,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult

from langchain_sse._call import AsyncModelCall, CallPlan, Chunk, ModelCall
from langchain_sse._custom_events import LINK_KEY, is_invoke, make_async_emitter, make_emitter
from langchain_sse._hooks import streams_invoke
from langchain_sse._inbound import ChunkMapper, MapMode
from langchain_sse._outbound import Outbound
from langchain_sse._protocols import mapping_of, model_request
from langchain_sse._run import OWN_LOOP, BlockStamp, RunPlan, Stamp, Unstamped
from sse_core import ClientConfig, Timeouts
from sse_core.fast_paths import is_on

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = [
    "UNSTAMPED",
    "agenerate",
    "arun_own",
    "astream_chunks",
    "generate",
    "invoke_streams",
    "owns_loop",
    "plan_call",
    "plan_generate",
    "run_own",
    "stream_chunks",
    "stream_streams",
]

#: The stamp of chunks that LangChain's own loop stamps (``_stream``), or nobody sees.
UNSTAMPED = Unstamped()

Manager = CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun


# --- the plan: pure ---


def streaming_off(model: ChatSSE, kwargs: dict[str, Any]) -> bool:
    """Whether this call's streaming is switched off: ``disable_streaming`` (as
    ``BaseChatModel`` reads it) or a ``stream=False`` call. ``streaming=False`` given
    explicitly, which LangChain also reads as off, is ChatSSE's default: it keeps the
    streamed invoke (truncation detection, named gateway events)."""
    if model.disable_streaming is True:
        return True
    if model.disable_streaming == "tool_calling" and kwargs.get("tools"):
        return True
    return "stream" in kwargs and not kwargs["stream"]


def invoke_streams(model: ChatSSE, kwargs: dict[str, Any]) -> bool:
    """Whether an invoke asks for a stream (else for one JSON answer, ``stream: false``)."""
    return model.invoke_streaming and not streaming_off(model, kwargs)


def stream_streams(model: ChatSSE, kwargs: dict[str, Any]) -> bool:
    """Whether a ``_stream`` call asks for a stream: not for an invoke that
    ``invoke_streaming=False`` asks as one JSON answer (LangChain streams an invoke through
    ``_stream`` for v2 handlers)."""
    return model.invoke_streaming or not is_invoke(kwargs)


def plan_call(
    model: ChatSSE,
    messages: list[BaseMessage],
    stop: list[str] | None,
    kwargs: dict[str, Any],
    stamp: Stamp | Unstamped,
    *,
    quiet: bool = False,
    streaming: bool = True,
    merged: bool = False,
    bare: bool = False,
) -> CallPlan:
    """What one call sends, how it maps (``quiet``: no chunk and no token, only the gateway's
    named events) and stamps; ``streaming=False``: asked with ``stream: false``, its one JSON
    answer mapped to one chunk; ``merged``: for a caller that merges the chunks (see
    :attr:`CallPlan.merged`); ``bare``: text deltas as bare messages (the own loop's, with no
    handler and v0 output: nobody sees a generation). Pops the call's plumbing (the run
    link, LangChain's own keys) from ``kwargs``."""
    link = kwargs.pop(LINK_KEY, None)
    outbound = model_request(model, messages, stop, kwargs)
    coalesce = model.coalesce or not streaming
    mode = MapMode.QUIET if quiet else MapMode.COALESCE if coalesce else MapMode.EACH
    mapper = ChunkMapper(
        model=outbound.payload["model"],
        headers=model.response_headers,
        mode=mode,
        message_id=stamp.id,
        bare=bare,
        stop_metadata=mapping_of(model.protocol).stop_metadata,
    )
    return CallPlan(
        outbound=outbound,
        mapper=mapper,
        stamp=stamp,
        link=link,
        streaming=streaming,
        tokens=not quiet,
        merged=merged,
    )


def plan_generate(
    model: ChatSSE,
    messages: list[BaseMessage],
    stop: list[str] | None,
    kwargs: dict[str, Any],
    run_manager: Manager | None,
    *,
    async_api: bool,
) -> CallPlan:
    """A ``_generate`` call. Its tokens go to the run only where LangChain would have
    streamed the invoke (``streaming=True``, a streaming handler such as ``astream_events``'
    or LangGraph's), stamped as LangChain stamps them; otherwise it is quiet (no chunk, no
    token), as a non-streaming model's invoke is."""
    streaming = invoke_streams(model, kwargs)
    streamed = streams_invoke(model, run_manager, kwargs, async_api=async_api)
    if run_manager is None or not streamed:
        return plan_call(model, messages, stop, kwargs, UNSTAMPED, quiet=True, streaming=streaming)
    stamp = Stamp(run_manager.run_id, model.output_version)
    quiet = not run_manager.handlers
    return plan_call(model, messages, stop, kwargs, stamp, quiet=quiet, streaming=streaming)


def owns_loop(model: ChatSSE, kwargs: dict[str, Any], *, async_api: bool) -> bool:
    """Whether ``stream``/``astream`` run their own loop (else the base class's)."""
    return is_on(OWN_LOOP.name) and model._should_stream(
        async_api=async_api, **{**kwargs, "stream": True}
    )


def stream_stamp(model: ChatSSE) -> BlockStamp | Unstamped:
    """How ``_stream``'s chunks are stamped: v1 blocks numbered as the own loop numbers them
    (:class:`BlockStamp`), the id left to LangChain's loop."""
    return BlockStamp() if model.output_version == "v1" else UNSTAMPED


def call_config(model: ChatSSE, outbound: Outbound) -> ClientConfig:
    """The configuration of one call: the model's, or a copy with the call's options (usage
    asked or not, its timeout and query, ``extra_body`` already in the payload)."""
    config = model._resolve_config()
    changes: dict[str, Any] = {}
    usage = outbound.include_usage
    if usage is not None and usage != config.include_usage:
        changes["include_usage"] = usage
    if outbound.timeout is not None:
        changes["timeouts"] = Timeouts.of(outbound.timeout)
    if outbound.whole_body and config.extra_body:
        changes["extra_body"] = {}
    if outbound.query:
        changes["default_query"] = {**config.default_query, **outbound.query}
    return replace(config, **changes) if changes else config


# --- the I/O: sync and async twins ---


def open_call(
    model: ChatSSE, plan: CallPlan, run_manager: CallbackManagerForLLMRun | None
) -> ModelCall:
    outbound = plan.outbound
    stream = model._clients.sync(call_config(model, outbound)).stream(
        outbound.payload, headers=outbound.headers, streaming=plan.streaming
    )
    emit = make_emitter(model, run_manager, plan.link)
    return ModelCall(stream, plan, run_manager, emit)


def aopen_call(
    model: ChatSSE, plan: CallPlan, run_manager: AsyncCallbackManagerForLLMRun | None
) -> AsyncModelCall:
    outbound = plan.outbound
    stream = model._clients.async_(call_config(model, outbound)).stream(
        outbound.payload, headers=outbound.headers, streaming=plan.streaming
    )
    emit = make_async_emitter(model, run_manager, plan.link)
    return AsyncModelCall(stream, plan, run_manager, emit)


def run_own(
    model: ChatSSE, run: RunPlan, stop: list[str] | None, kwargs: dict[str, Any]
) -> Generator[AIMessageChunk, None, None]:
    """ChatSSE's own ``stream`` loop: the base class's run, no chunk kept."""
    (manager,) = CallbackManager.configure(**run.configure).on_chat_model_start(
        model._serialized, [run.traced], **run.start
    )
    if model.rate_limiter:
        model.rate_limiter.acquire(blocking=True)
    call = open_call(model, own_plan(model, run, stop, kwargs, manager), manager)
    with closing(call.run()) as chunks:
        for chunk in chunks:
            yield _message_of(chunk)


async def arun_own(
    model: ChatSSE, run: RunPlan, stop: list[str] | None, kwargs: dict[str, Any]
) -> AsyncGenerator[AIMessageChunk, None]:
    """Async twin of :func:`run_own`."""
    (manager,) = await AsyncCallbackManager.configure(**run.configure).on_chat_model_start(
        model._serialized, [run.traced], **run.start
    )
    if model.rate_limiter:
        await model.rate_limiter.aacquire(blocking=True)
    call = aopen_call(model, own_plan(model, run, stop, kwargs, manager), manager)
    async with aclosing(call.run()) as chunks:
        async for chunk in chunks:
            yield _message_of(chunk)


def own_plan(
    model: ChatSSE,
    run: RunPlan,
    stop: list[str] | None,
    kwargs: dict[str, Any],
    manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun,
) -> CallPlan:
    """The own loop's call: stamped by its run, bare text messages if nobody sees more."""
    stamp = Stamp(manager.run_id, model.output_version)
    bare = not (manager.handlers or stamp.v1)
    return plan_call(model, run.messages, stop, kwargs, stamp, merged=True, bare=bare)


def _message_of(chunk: Chunk) -> AIMessageChunk:
    return chunk if isinstance(chunk, AIMessageChunk) else cast("AIMessageChunk", chunk.message)


def stream_chunks(
    model: ChatSSE,
    messages: list[BaseMessage],
    stop: list[str] | None,
    run_manager: CallbackManagerForLLMRun | None,
    kwargs: dict[str, Any],
) -> Generator[ChatGenerationChunk, None, None]:
    """``_stream``: the answer's chunks, for the base class's loop (or the v3 protocol)."""
    streaming = stream_streams(model, kwargs)
    stamp = stream_stamp(model)
    plan = plan_call(model, messages, stop, kwargs, stamp, streaming=streaming, merged=True)
    call = open_call(model, plan, run_manager)
    with closing(call.chunks()) as chunks:  # a plan that is not bare: generations only
        yield from cast("Generator[ChatGenerationChunk, None, None]", chunks)


async def astream_chunks(
    model: ChatSSE,
    messages: list[BaseMessage],
    stop: list[str] | None,
    run_manager: AsyncCallbackManagerForLLMRun | None,
    kwargs: dict[str, Any],
) -> AsyncGenerator[ChatGenerationChunk, None]:
    """Async twin of :func:`stream_chunks`."""
    streaming = stream_streams(model, kwargs)
    stamp = stream_stamp(model)
    plan = plan_call(model, messages, stop, kwargs, stamp, streaming=streaming, merged=True)
    call = aopen_call(model, plan, run_manager)
    async with aclosing(call.chunks()) as chunks:
        async for chunk in chunks:
            yield cast("ChatGenerationChunk", chunk)  # a plan that is not bare


def generate(
    model: ChatSSE, plan: CallPlan, run_manager: CallbackManagerForLLMRun | None
) -> ChatResult:
    """``_generate``: the whole answer, assembled by the core (no chunk kept or merged);
    with a streamed run, each chunk is sent as a token first."""
    call = open_call(model, plan, run_manager)
    with closing(call.chunks()) as chunks:
        for _ in chunks:
            pass
    return call.build_result()


async def agenerate(
    model: ChatSSE, plan: CallPlan, run_manager: AsyncCallbackManagerForLLMRun | None
) -> ChatResult:
    """Async twin of :func:`generate`."""
    call = aopen_call(model, plan, run_manager)
    async with aclosing(call.chunks()) as chunks:
        async for _ in chunks:
            pass
    return call.build_result()
