"""One model call of ChatSSE: its core stream, the mapping of its reads, the run it reports to.

A call is made before anything is sent, from a :class:`CallPlan` (what to send, how to map,
how to stamp: decided by pure code), and owns the :class:`sse_core.ChatStream` (or
:class:`~sse_core.AsyncChatStream`) and the :class:`~langchain_sse._inbound.ChunkMapper`.
``chunks()`` iterates the answer, telling the run each token and gateway event, and
``run()`` also ends the LangChain run: these are the I/O, sync and async twins that differ
by ``async``/``await`` only. :meth:`build_result`, :meth:`report_end` and
:meth:`report_failure` build the whole answer from what the core received
(``stream.received()``), never from kept chunks: the answer's state is the core's.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator, Iterable, Sequence
from contextlib import aclosing, closing
from dataclasses import dataclass

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, LLMResult

from langchain_sse._custom_events import AsyncEmit, RunLink, SyncEmit
from langchain_sse._errors import ToolArgumentsError, convert_error
from langchain_sse._inbound import ChunkMapper, Item, fill_llm_output
from langchain_sse._outbound import Outbound
from langchain_sse._run import Stamp, Unstamped
from sse_core import (
    AsyncChatStream,
    ChatStream,
    Completion,
    GatewayEvent,
    SSEConnectorError,
    StreamEvent,
)

__all__ = ["AsyncModelCall", "CallPlan", "Chunk", "ModelCall"]

#: What a call yields: a chunk told to the run, or a bare text message (the mapper's ``bare``).
Chunk = ChatGenerationChunk | AIMessageChunk


@dataclass(frozen=True, slots=True, kw_only=True)
class CallPlan:
    """Everything decided before a call is sent."""

    outbound: Outbound
    """The request body and the call's extra headers."""
    mapper: ChunkMapper
    """How reads become chunks (one per delta, one per read, or none)."""
    stamp: Stamp | Unstamped
    """How chunks and the whole answer are stamped for the run (id, v1 blocks)."""
    link: RunLink | None = None
    """The run of a base-class streaming path, for gateway events to reach."""
    streaming: bool = True
    """Ask for a stream (False: ``stream: false``, the answer as one JSON body)."""
    tokens: bool = True
    """Tell the run each chunk as a token (False: a quiet call, whose chunks nobody sees)."""
    merged: bool = False
    """The caller merges the chunks (a stream). LangChain re-parses merged tool-call
    fragments and would repair cut arguments, so a call the core flagged ends the stream
    with :class:`ToolArgumentsError` after the last chunk (the whole answer, built by this
    call instead, gives it as an ``invalid_tool_call``)."""


class _CallBase:
    """The pure part of both calls: map a read, and build the final chunk and whole answer."""

    __slots__ = ("_mapper", "_merged", "_stamp", "_tokens", "stream")

    stream: ChatStream | AsyncChatStream

    def __init__(self, stream: ChatStream | AsyncChatStream, plan: CallPlan) -> None:
        self.stream = stream
        self._mapper = plan.mapper
        self._stamp = plan.stamp
        self._tokens = plan.tokens
        self._merged = plan.merged

    def _map_read(self, events: Sequence[StreamEvent]) -> Iterable[Item]:
        return self._mapper.read(events, self.stream.answer)

    def _build_final(self) -> ChatGenerationChunk:
        completion = self.stream.completion
        assert completion is not None  # asked for only after the stream ended well
        return self._mapper.build_final(completion, self.stream.answer.followed)

    def _refuse_flagged(self) -> None:
        """Raise :class:`ToolArgumentsError` for a flagged call, if the caller merges."""
        completion = self.stream.completion
        if self._merged and completion is not None:
            refuse_flagged(completion, self.stream.answer.followed)

    def build_whole(self, *, last: bool = True) -> AIMessageChunk:
        """The answer as one chunk, from what the core received (all of it, once ended)."""
        received = self.stream.received()
        return self._mapper.build_whole(received, self.stream.answer.followed, last=last)

    def build_result(self) -> ChatResult:
        """The ``ChatResult`` of the finished call, with the legacy ``llm_output``."""
        message = message_chunk_to_message(self._stamp.whole(self.build_whole()).message)
        return fill_llm_output(ChatResult(generations=[ChatGeneration(message=message)]))

    def report_end(self) -> LLMResult:
        """The ``on_llm_end`` result: the whole answer, built from the Completion."""
        return LLMResult(generations=[[self._stamp.whole(self.build_whole())]])

    def report_failure(self) -> LLMResult:
        """The ``on_llm_error`` response: what had arrived, if anything.

        Shaped as the base class shapes it: the partial answer as the first prompt's
        generation, then the error's own generations (none: sse_core errors carry no
        ``response`` object; their status, body and partial answer are on the error).
        """
        partial = self.build_whole(last=False)
        if not (partial.content or partial.additional_kwargs or partial.tool_call_chunks):
            return LLMResult(generations=[[]])
        return LLMResult(generations=[[self._stamp.whole(partial)], []])


def refuse_flagged(completion: Completion, followed: int | None) -> None:
    """Raise :class:`ToolArgumentsError` for the first call of the ``followed`` choice whose
    arguments the core flagged (not a JSON object: most often cut at the token limit)."""
    for choice in completion.choices:
        if choice.index != followed:
            continue
        for call in choice.tool_calls:
            if (error := call.arguments_error) is None:
                continue
            reason = choice.stop_reason or choice.finish_reason  # the protocol's own word
            stopped = f" (the answer stopped with {reason!r})" if reason else ""
            raise ToolArgumentsError(
                f"the tool call {call.name!r} ({call.id}){stopped}"
                f" has arguments that cannot be used: {error}. They are kept as written, never"
                " repaired: ToolArgumentsError.partial_message has the answer with the call in"
                " invalid_tool_calls (if the answer ran out of tokens, raise max_tokens)",
                partial=completion,
                call=call,
            )


class ModelCall(_CallBase):
    """A sync call: :meth:`chunks` sends the request and maps the answer as it arrives."""

    __slots__ = ("_emit", "_manager")

    stream: ChatStream

    def __init__(
        self,
        stream: ChatStream,
        plan: CallPlan,
        run_manager: CallbackManagerForLLMRun | None,
        emit: SyncEmit,
    ) -> None:
        super().__init__(stream, plan)
        self._manager = run_manager or CallbackManagerForLLMRun.get_noop_manager()
        self._emit = emit

    def chunks(self) -> Generator[Chunk, None, None]:
        """The answer's chunks as they arrive, the final one last, each told to the run (a
        bare text message of a plan with no handler to tell is given as it is)."""
        try:
            with self.stream as stream:
                for events in stream.batches():
                    for item in self._map_read(events):
                        if isinstance(item, AIMessageChunk):
                            yield item
                        elif isinstance(item, GatewayEvent):
                            self._emit(item)
                        else:
                            yield self._tell_token(item)
        except SSEConnectorError as exc:
            raise convert_error(exc) from exc.__cause__
        yield self._tell_token(self._build_final())
        self._refuse_flagged()

    def run(self) -> Generator[Chunk, None, None]:
        """:meth:`chunks`, then the end of the run: ``on_llm_end``, or ``on_llm_error``."""
        try:
            with closing(self.chunks()) as chunks:
                yield from chunks
        except BaseException as exc:
            self._manager.on_llm_error(exc, response=self.report_failure())
            raise
        self._manager.on_llm_end(self.report_end())

    def _tell_token(self, chunk: ChatGenerationChunk) -> ChatGenerationChunk:
        token = self._stamp.token(chunk)  # stamps the chunk: always
        if self._tokens and self._manager.handlers:  # LangChain's test: no handler, no call
            self._manager.on_llm_new_token(token, chunk=chunk)
        return chunk


class AsyncModelCall(_CallBase):
    """Async twin of :class:`ModelCall`."""

    __slots__ = ("_emit", "_manager")

    stream: AsyncChatStream

    def __init__(
        self,
        stream: AsyncChatStream,
        plan: CallPlan,
        run_manager: AsyncCallbackManagerForLLMRun | None,
        emit: AsyncEmit,
    ) -> None:
        super().__init__(stream, plan)
        self._manager = run_manager or AsyncCallbackManagerForLLMRun.get_noop_manager()
        self._emit = emit

    async def chunks(self) -> AsyncGenerator[Chunk, None]:
        """Async twin of :meth:`ModelCall.chunks`."""
        try:
            async with self.stream as stream:
                async for events in stream.batches():
                    for item in self._map_read(events):
                        if isinstance(item, AIMessageChunk):
                            yield item
                        elif isinstance(item, GatewayEvent):
                            await self._emit(item)
                        else:
                            yield await self._tell_token(item)
        except SSEConnectorError as exc:
            raise convert_error(exc) from exc.__cause__
        yield await self._tell_token(self._build_final())
        self._refuse_flagged()

    async def run(self) -> AsyncGenerator[Chunk, None]:
        """Async twin of :meth:`ModelCall.run`."""
        try:
            async with aclosing(self.chunks()) as chunks:
                async for chunk in chunks:
                    yield chunk
        except BaseException as exc:
            await self._manager.on_llm_error(exc, response=self.report_failure())
            raise
        await self._manager.on_llm_end(self.report_end())

    async def _tell_token(self, chunk: ChatGenerationChunk) -> ChatGenerationChunk:
        token = self._stamp.token(chunk)  # stamps the chunk: always
        if self._tokens and self._manager.handlers:  # LangChain's test: no handler, no call
            await self._manager.on_llm_new_token(token, chunk=chunk)
        return chunk
