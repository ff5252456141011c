"""ChatSSE's I/O: LangChain's streaming and generating entry points as thin sync/async twins.

:class:`StreamingChatModel` runs every answer as one :class:`~langchain_sse._call.ModelCall`
planned by its subclass (``_plan_call``: the request, the mapping, the stamping; pure code),
over the client pool of :class:`~langchain_sse._connection.ConnectionSettings`:

- ``stream``/``astream`` run LangChain's run themselves (the same callbacks as the base
  class, see :mod:`langchain_sse._run`) and keep no chunk, where that fast path is on
  (:data:`~langchain_sse._run.OWN_LOOP`); otherwise they are the base class's loop;
- ``_stream``/``_astream`` are what the base class's loops and the v3 protocol call;
- ``_generate``/``_agenerate`` (``invoke``) stream too, but keep and merge no chunk: the
  answer is the core's Completion; with ``invoke_streaming=False`` they send
  ``stream: false`` and the core decodes the one JSON answer into the same Completion.

Each twin differs from the other only by ``async``/``await``; every decision is in the
pure planning methods.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from contextlib import aclosing, closing
from dataclasses import replace
from typing import Any, cast

from langchain_core.callbacks import (
    AsyncCallbackManager,
    AsyncCallbackManagerForLLMRun,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from typing_extensions import override

from langchain_sse._call import AsyncModelCall, CallPlan, ModelCall
from langchain_sse._connection import ConnectionSettings
from langchain_sse._custom_events import (
    RunLinkedChatModel,
    is_invoke,
    link_config,
    make_async_emitter,
    make_emitter,
    run_ls_params,
    take_run_options,
)
from langchain_sse._outbound import Outbound
from langchain_sse._run import OWN_LOOP, BlockStamp, RunPlan, Stamp, Unstamped, plan_run
from sse_core import ClientConfig, Timeouts
from sse_core.fast_paths import is_on

__all__ = ["UNSTAMPED", "StreamingChatModel"]

#: The stamp of chunks that LangChain's own loop stamps (``_stream``), or nobody sees.
UNSTAMPED = Unstamped()


class StreamingChatModel(RunLinkedChatModel, ConnectionSettings):
    """A chat model answered by sse_core streams; the subclass plans each call."""

    invoke_streaming: bool = True
    """``invoke``/``ainvoke`` stream the answer (the default), which is what detects a cut
    answer. False sends ``stream: false`` and decodes the one JSON answer into the same
    message (content, reasoning, tool calls, usage, metadata, refusal; the same typed
    errors), for gateways whose streaming path is buggier than their JSON one (LiteLLM drops
    ``delta.refusal`` from streams). ``stream``/``astream`` always stream. Where LangChain
    would stream an invoke (``streaming=True``, a streaming callback handler) it still sends
    one JSON request: handlers get the answer as one token (v2 protocol handlers as one
    chunk's events), then the empty last chunk with the usage, as every answer ends.

    LangChain's own switch, ``disable_streaming``, goes further, as in ChatOpenAI:
    ``stream``/``astream`` then give the invoked answer as one chunk, and that invoke sends
    ``stream: false`` too (``"tool_calling"``: only for calls with tools bound). So does a
    ``stream=False`` call."""

    def _plan_call(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        stamp: Stamp | Unstamped,
        *,
        quiet: bool = False,
        streaming: bool = True,
    ) -> CallPlan:
        """What one call sends, how it maps (``quiet``: no chunk and no token, only the
        gateway's named events) and stamps; ``streaming=False``: asked with ``stream: false``,
        its one JSON answer mapped to one chunk.

        Pops the call's plumbing (the run link, LangChain's own keys) from ``kwargs``.
        """
        raise NotImplementedError

    def _streaming_off(self, kwargs: dict[str, Any]) -> bool:
        """Whether this call's streaming is switched off: ``disable_streaming`` (as
        ``BaseChatModel`` reads it) or a ``stream=False`` call. ``streaming=False`` given
        explicitly, which LangChain also reads as off, is ChatSSE's default: it keeps the
        streamed invoke (truncation detection, named gateway events)."""
        if self.disable_streaming is True:
            return True
        if self.disable_streaming == "tool_calling" and kwargs.get("tools"):
            return True
        return "stream" in kwargs and not kwargs["stream"]

    def _invoke_streams(self, kwargs: dict[str, Any]) -> bool:
        """Whether an invoke asks for a stream (else for one JSON answer, ``stream: false``)."""
        return self.invoke_streaming and not self._streaming_off(kwargs)

    def _plan_generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
        *,
        async_api: bool,
    ) -> CallPlan:
        """A ``_generate`` call. Its tokens go to the run only where LangChain would have
        streamed the invoke (``streaming=True``, a streaming handler such as
        ``astream_events``' or LangGraph's), stamped as LangChain stamps them; otherwise it
        is quiet (no chunk, no token), as a non-streaming model's invoke is."""
        streaming = self._invoke_streams(kwargs)
        streamed = run_manager is not None and super()._should_stream(
            async_api=async_api, run_manager=run_manager, **kwargs
        )
        if run_manager is None or not streamed:
            return self._plan_call(
                messages, stop, kwargs, UNSTAMPED, quiet=True, streaming=streaming
            )
        stamp = Stamp(run_manager.run_id, self.output_version)
        quiet = not run_manager.handlers
        return self._plan_call(messages, stop, kwargs, stamp, quiet=quiet, streaming=streaming)

    def _owns_loop(self, kwargs: dict[str, Any], *, async_api: bool) -> bool:
        """Whether ``stream``/``astream`` run their own loop (else the base class's)."""
        return is_on(OWN_LOOP.name) and self._should_stream(
            async_api=async_api, **{**kwargs, "stream": True}
        )

    @override
    def _should_stream(
        self,
        *,
        async_api: bool,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> bool:
        """False on the generate path (a run manager is given): ``_generate`` streams anyway.

        LangChain's ``invoke`` streams through ``_stream`` (keeping and merging every chunk)
        when ``streaming=True`` or a streaming handler (LangGraph's, ``astream_events``') is
        attached; ChatSSE's ``_generate`` sends the same tokens and keeps no chunk.
        """
        if run_manager is not None:
            return False
        return super()._should_stream(async_api=async_api, run_manager=run_manager, **kwargs)

    @override
    def _should_use_protocol_streaming(
        self,
        *,
        async_api: bool,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> bool:
        """With ``invoke_streaming=False``, only for an ``invoke``/``ainvoke``, whose
        ``_stream`` then asks for one JSON answer (:meth:`_stream_streams`); a bare ``generate``
        is answered by ``_generate`` instead. ``stream_events`` streams without asking."""
        if not (self.invoke_streaming or is_invoke(kwargs)):
            return False
        return super()._should_use_protocol_streaming(
            async_api=async_api, run_manager=run_manager, **kwargs
        )

    def _stream_streams(self, kwargs: dict[str, Any]) -> bool:
        """Whether a ``_stream`` call asks for a stream: not for an invoke that
        ``invoke_streaming=False`` asks as one JSON answer (LangChain streams an invoke
        through ``_stream`` for v2 handlers)."""
        return self.invoke_streaming or not is_invoke(kwargs)

    # --- the I/O: sync and async twins ---

    def _call_config(self, outbound: Outbound) -> ClientConfig:
        """The configuration of one call: the model's, or a copy with the call's options
        (usage asked or not, its timeout and query, ``extra_body`` already in the payload)."""
        config = self._resolve_config()
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

    def _open(self, plan: CallPlan, run_manager: CallbackManagerForLLMRun | None) -> ModelCall:
        outbound = plan.outbound
        stream = self._pool.sync(self._call_config(outbound)).stream(
            outbound.payload, headers=outbound.headers, streaming=plan.streaming
        )
        emit = make_emitter(self, run_manager, plan.link)
        return ModelCall(stream, plan, run_manager, emit)

    def _aopen(
        self, plan: CallPlan, run_manager: AsyncCallbackManagerForLLMRun | None
    ) -> AsyncModelCall:
        outbound = plan.outbound
        stream = self._pool.async_(self._call_config(outbound)).stream(
            outbound.payload, headers=outbound.headers, streaming=plan.streaming
        )
        emit = make_async_emitter(self, run_manager, plan.link)
        return AsyncModelCall(stream, plan, run_manager, emit)

    @override
    def stream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[AIMessageChunk]:
        """Stream the answer as ``AIMessageChunk`` objects, the usage on the last one.

        Runs the same callbacks as ``BaseChatModel.stream`` but keeps no chunk: the
        ``on_llm_end`` message is built from the answer the core assembled.
        """
        config, kwargs = take_run_options(config, kwargs)
        if self._owns_loop(kwargs, async_api=False):
            messages = self._run_own(plan_run(self, input, config, stop, kwargs), stop, kwargs)
        else:
            ls_params = run_ls_params(self, stop, kwargs)
            config, kwargs = link_config(config, kwargs, ls_params=ls_params)
            base = super().stream(input, config, stop=stop, **kwargs)
            messages = cast("Generator[AIMessageChunk, None, None]", base)
        with closing(messages) as chunks:
            yield from chunks

    @override
    async def astream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        """Stream the answer; wrap in ``contextlib.aclosing`` to close the connection on exit.

        Without it, leaving an ``async for`` early closes the connection only when the
        generator is collected (at once in CPython, by the event loop's finalizer).
        Runs the same callbacks as ``BaseChatModel.astream`` but keeps no chunk.
        """
        config, kwargs = take_run_options(config, kwargs)
        if self._owns_loop(kwargs, async_api=True):
            messages = self._arun_own(plan_run(self, input, config, stop, kwargs), stop, kwargs)
        else:
            ls_params = run_ls_params(self, stop, kwargs)
            config, kwargs = link_config(config, kwargs, ls_params=ls_params)
            abase = super().astream(input, config, stop=stop, **kwargs)
            messages = cast("AsyncGenerator[AIMessageChunk, None]", abase)
        async with aclosing(messages) as chunks:
            async for message in chunks:
                yield message

    def _run_own(
        self, run: RunPlan, stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Generator[AIMessageChunk, None, None]:
        """ChatSSE's own ``stream`` loop: the base class's run, no chunk kept."""
        (manager,) = CallbackManager.configure(**run.configure).on_chat_model_start(
            self._serialized, [run.traced], **run.start
        )
        if self.rate_limiter:
            self.rate_limiter.acquire(blocking=True)
        stamp = Stamp(manager.run_id, self.output_version)
        call = self._open(self._plan_call(run.messages, stop, kwargs, stamp), manager)
        with closing(call.run()) as chunks:
            for chunk in chunks:
                yield cast("AIMessageChunk", chunk.message)

    async def _arun_own(
        self, run: RunPlan, stop: list[str] | None, kwargs: dict[str, Any]
    ) -> AsyncGenerator[AIMessageChunk, None]:
        """Async twin of :meth:`_run_own`."""
        (manager,) = await AsyncCallbackManager.configure(**run.configure).on_chat_model_start(
            self._serialized, [run.traced], **run.start
        )
        if self.rate_limiter:
            await self.rate_limiter.aacquire(blocking=True)
        stamp = Stamp(manager.run_id, self.output_version)
        call = self._aopen(self._plan_call(run.messages, stop, kwargs, stamp), manager)
        async with aclosing(call.run()) as chunks:
            async for chunk in chunks:
                yield cast("AIMessageChunk", chunk.message)

    def _stream_stamp(self) -> BlockStamp | Unstamped:
        """How ``_stream``'s chunks are stamped: v1 blocks numbered as the own loop numbers
        them (:class:`BlockStamp`), the id left to LangChain's loop."""
        return BlockStamp() if self.output_version == "v1" else UNSTAMPED

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        streaming = self._stream_streams(kwargs)
        plan = self._plan_call(messages, stop, kwargs, self._stream_stamp(), streaming=streaming)
        call = self._open(plan, run_manager)
        with closing(call.chunks()) as chunks:
            yield from chunks

    @override
    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        streaming = self._stream_streams(kwargs)
        plan = self._plan_call(messages, stop, kwargs, self._stream_stamp(), streaming=streaming)
        call = self._aopen(plan, run_manager)
        async with aclosing(call.chunks()) as chunks:
            async for chunk in chunks:
                yield chunk

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """The whole answer, streamed (or, with ``invoke_streaming=False``, asked as one JSON
        body) and assembled by the core (no chunk kept or merged); with callback handlers,
        each chunk is sent as a token first."""
        plan = self._plan_generate(messages, stop, kwargs, run_manager, async_api=False)
        call = self._open(plan, run_manager)
        with closing(call.chunks()) as chunks:
            for _ in chunks:
                pass
        return call.build_result()

    @override
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Async twin of :meth:`_generate`."""
        plan = self._plan_generate(messages, stop, kwargs, run_manager, async_api=True)
        call = self._aopen(plan, run_manager)
        async with aclosing(call.chunks()) as chunks:
            async for _ in chunks:
                pass
        return call.build_result()
