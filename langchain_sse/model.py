"""``ChatSSE``: a LangChain ``BaseChatModel`` for OpenAI-compatible streaming gateways.

Everything about the wire is in :mod:`sse_core`; this class builds the request, maps the
StreamEvents (:mod:`langchain_sse._convert`) and raises errors that LangChain code can
catch by its own types (:mod:`langchain_sse._errors`). ``_stream`` and ``_astream`` are the
only I/O, twins a few lines long; ``invoke`` aggregates the stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from contextlib import aclosing, closing
from typing import Any, Literal, cast

import httpx
from langchain_core.callbacks import (
    AsyncCallbackManager,
    AsyncCallbackManagerForLLMRun,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import LangSmithParams, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils import from_env, secret_from_env
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr, model_validator
from typing_extensions import Self, override

from langchain_sse import _blocks
from langchain_sse._callbacks import (
    LINK_KEY,
    AsyncEmit,
    RunLinkedChatModel,
    SyncEmit,
    async_emitter,
    link_config,
    sync_emitter,
)
from langchain_sse._clients import ClientCache
from langchain_sse._convert import DEFAULT_RESPONSE_HEADERS, PROVIDER, ChunkMapper
from langchain_sse._errors import to_langchain_error
from langchain_sse._request import build_payload, combine_llm_outputs, llm_output, public_url
from langchain_sse._run import OWN_LOOP, Stamp, Turn, ended, failed, plan_run
from langchain_sse._structured import structured_output
from langchain_sse._tools import ToolLike, format_tools, normalize_tool_choice, tool_names
from sse_core import (
    AsyncChatClient,
    ChatClient,
    ConfigurationError,
    GatewayEvent,
    SSEConnectorError,
    Timeouts,
)
from sse_core.sse import DEFAULT_MAX_EVENT_BYTES

__all__ = ["ChatSSE"]

_blocks.register()


class ChatSSE(RunLinkedChatModel):
    """Chat model for any OpenAI-compatible gateway that streams Server-Sent Events.

    Keeps what ``ChatOpenAI(base_url=...)`` loses on such gateways: reasoning text, usage
    that gateways repeat on every chunk, refusals, named SSE events and truncation.

    Example:
        ``ChatSSE(model="qwen3", base_url="http://127.0.0.1:8000/v1").invoke("hi")``
    """

    model_config = ConfigDict(populate_by_name=True, arbitrary_types_allowed=True)

    model_name: str = Field(alias="model")
    """The model to ask for (``model`` in the request body)."""
    base_url: str | None = Field(default_factory=from_env("SSE_BASE_URL", default=None))
    """The gateway URL with its version prefix, e.g. ``http://host/v1`` (env ``SSE_BASE_URL``)."""
    api_key: SecretStr | None = Field(default_factory=secret_from_env("SSE_API_KEY", default=None))
    """Sent as ``Authorization: Bearer`` (env ``SSE_API_KEY``); never shown or traced."""
    path: str = "/chat/completions"
    """Appended to ``base_url`` (SPASS: ``base_url="https://host"``, ``path="/c1/chat"``)."""
    temperature: float | None = None
    max_tokens: int | None = None
    stop: list[str] | None = Field(default=None, alias="stop_sequences")
    reasoning_effort: str | None = None
    """``reasoning_effort`` for gateways that take it (``low``, ``medium``, ``high``)."""
    timeout: float | Timeouts | None = None
    """Seconds for every phase, or :class:`sse_core.Timeouts`; None: the sse_core defaults."""
    max_retries: int = 2
    """Retries before the first byte of the answer (never after output began)."""
    default_headers: dict[str, str] | None = Field(default=None, repr=False)
    """Headers sent with every request (e.g. ``SPASS-User-Id``); kept out of reprs."""
    extra_body: dict[str, Any] | None = Field(default=None, repr=False)
    """Merged into every request body last (e.g. ``chat_template_kwargs``)."""
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Further request fields (``top_p``, ``seed``, ...), overridden by call kwargs."""
    stream_usage: bool = True
    """Ask for usage (``stream_options.include_usage``); dropped if the gateway objects."""
    streaming: bool = False
    """Stream under ``invoke`` too, so callbacks see every token."""
    reasoning_passback: bool = False
    """Send ``reasoning_content`` back on assistant messages after the last user message
    (DeepSeek and Qwen thinking modes want it inside a tool loop)."""
    coalesce: bool = False
    """Merge the frames that arrived in one network read into one chunk (less CPU, no
    added latency); callbacks then see one token per read."""
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    """The largest SSE event accepted; a larger one raises ``StreamProtocolError``."""
    response_headers: tuple[str, ...] = DEFAULT_RESPONSE_HEADERS
    """Response headers copied into ``response_metadata["headers"]`` when present."""
    disabled_params: dict[str, Any] | None = None
    """Request fields a gateway rejects: ``{"parallel_tool_calls": None}`` never sends the
    field; ``{"tool_choice": ["required"]}`` drops only those values."""
    http_client: httpx.Client | None = Field(default=None, exclude=True, repr=False)
    """An ``httpx.Client`` to send with (proxies, mTLS, transports); not closed here."""
    http_async_client: httpx.AsyncClient | None = Field(default=None, exclude=True, repr=False)
    """An ``httpx.AsyncClient`` to send with; not closed here."""

    _clients: ClientCache = PrivateAttr(default_factory=ClientCache)

    @model_validator(mode="after")
    def _check_endpoint(self) -> Self:
        if not self.base_url:
            raise ConfigurationError(
                "ChatSSE needs the gateway URL: pass base_url='http://host/v1' or set SSE_BASE_URL"
            )
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigurationError(f"base_url must be an http(s) URL, got {self.base_url!r}")
        if not self.path.startswith("/"):
            raise ConfigurationError(f"path must start with '/', got {self.path!r}")
        return self

    @property
    @override
    def _llm_type(self) -> str:
        return "chat-sse"

    @property
    @override
    def _identifying_params(self) -> dict[str, Any]:
        """What identifies the model in traces and caches: no key, headers or body extras."""
        return {
            "model_name": self.model_name,
            "base_url": public_url(self.base_url or ""),
            "path": self.path,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stop": self.stop,
            "reasoning_effort": self.reasoning_effort,
            "stream_usage": self.stream_usage,
            "coalesce": self.coalesce,
        }

    @override
    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, public_url(value) if name == "base_url" and value else value

    @override
    def _combine_llm_outputs(self, llm_outputs: list[dict[str, Any] | None], /) -> dict[str, Any]:
        return combine_llm_outputs(llm_outputs, self.model_name)

    @override
    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = LangSmithParams(
            ls_provider=PROVIDER,
            ls_model_name=kwargs.get("model", self.model_name),
            ls_model_type="chat",
        )
        temperature = kwargs.get("temperature", self.temperature)
        if temperature is not None:
            params["ls_temperature"] = temperature
        max_tokens = kwargs.get("max_tokens", self.max_tokens)
        if max_tokens is not None:
            params["ls_max_tokens"] = max_tokens
        if stop := stop or kwargs.get("stop") or self.stop:
            params["ls_stop"] = stop
        return params

    # --- requests ---

    def _client_config(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "api_key": self.api_key,
            "path": self.path,
            "default_headers": self.default_headers,
            "timeout": self.timeout if self.timeout is not None else Timeouts(),
            "max_retries": self.max_retries,
            "include_usage": self.stream_usage,
            "extra_body": self.extra_body,
            "max_event_bytes": self.max_event_bytes,
        }

    def _sync_client(self) -> ChatClient:
        return self._clients.sync(self._client_config(), self.http_client)

    def _async_client(self) -> AsyncChatClient:
        return self._clients.async_(self._client_config(), self.http_async_client)

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, str] | None]:
        settings = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "reasoning_effort": self.reasoning_effort,
            "stop": stop if stop is not None else self.stop,
        }
        return build_payload(
            messages,
            model=self.model_name,
            settings=settings,
            model_kwargs=self.model_kwargs,
            call_kwargs=kwargs,
            disabled_params=self.disabled_params,
            reasoning_passback=self.reasoning_passback,
        )

    # --- streaming: the only I/O, sync and async twins ---

    def _chunks(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        emit: SyncEmit | None,
        turn: Turn,
        *,
        quiet: bool = False,
    ) -> Generator[ChatGenerationChunk, None, None]:
        """The chunks of one answer, the final chunk last; gateway events go to ``emit``.

        ``quiet``: only the final chunk (for a caller that needs the Completion alone).
        """
        payload, headers = self._request(messages, stop, kwargs)
        mapper = turn.mapper = ChunkMapper(model=payload["model"], headers=self.response_headers)
        feed = mapper.follow if quiet else mapper.coalesce if self.coalesce else mapper.feed
        try:
            with self._sync_client().stream(payload, headers=headers) as stream:
                turn.received = stream.received
                for events in stream.batches():
                    for item in feed(events):
                        if isinstance(item, GatewayEvent):
                            if emit is not None:
                                emit(item)
                            continue
                        yield item
        except SSEConnectorError as exc:
            raise to_langchain_error(exc) from exc.__cause__
        assert stream.completion is not None
        yield mapper.final(stream.completion)

    async def _achunks(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        emit: AsyncEmit | None,
        turn: Turn,
        *,
        quiet: bool = False,
    ) -> AsyncGenerator[ChatGenerationChunk, None]:
        """Async twin of :meth:`_chunks`."""
        payload, headers = self._request(messages, stop, kwargs)
        mapper = turn.mapper = ChunkMapper(model=payload["model"], headers=self.response_headers)
        feed = mapper.follow if quiet else mapper.coalesce if self.coalesce else mapper.feed
        try:
            async with self._async_client().stream(payload, headers=headers) as stream:
                turn.received = stream.received
                async for events in stream.batches():
                    for item in feed(events):
                        if isinstance(item, GatewayEvent):
                            if emit is not None:
                                await emit(item)
                            continue
                        yield item
        except SSEConnectorError as exc:
            raise to_langchain_error(exc) from exc.__cause__
        assert stream.completion is not None
        yield mapper.final(stream.completion)

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
        if not OWN_LOOP or not self._should_stream(async_api=False, **{**kwargs, "stream": True}):
            config, kwargs = link_config(config, kwargs)
            yield from super().stream(input, config, stop=stop, **kwargs)
            return
        run = plan_run(self, input, config, stop, kwargs)
        (run_manager,) = CallbackManager.configure(**run.configure).on_chat_model_start(
            self._serialized, [run.traced], **run.start
        )
        if self.rate_limiter:
            self.rate_limiter.acquire(blocking=True)
        stamp = Stamp(run_manager.run_id, self.output_version)
        turn = Turn()
        emit = sync_emitter(self, run_manager, None)
        try:
            with closing(self._chunks(run.messages, stop, kwargs, emit, turn)) as chunks:
                for chunk in chunks:
                    message = stamp(chunk)
                    run_manager.on_llm_new_token(message.content, chunk=chunk)
                    yield message
        except BaseException as exc:
            run_manager.on_llm_error(exc, response=failed(turn, stamp))
            raise
        run_manager.on_llm_end(ended(turn, stamp))

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
        if not OWN_LOOP or not self._should_stream(async_api=True, **{**kwargs, "stream": True}):
            config, kwargs = link_config(config, kwargs)
            base_stream = super().astream(input, config, stop=stop, **kwargs)
            async with aclosing(cast("AsyncGenerator[AIMessageChunk, None]", base_stream)) as base:
                async for message in base:
                    yield message
            return
        run = plan_run(self, input, config, stop, kwargs)
        (run_manager,) = await AsyncCallbackManager.configure(**run.configure).on_chat_model_start(
            self._serialized, [run.traced], **run.start
        )
        if self.rate_limiter:
            await self.rate_limiter.aacquire(blocking=True)
        stamp = Stamp(run_manager.run_id, self.output_version)
        turn = Turn()
        emit = async_emitter(self, run_manager, None)
        try:
            async with aclosing(self._achunks(run.messages, stop, kwargs, emit, turn)) as chunks:
                async for chunk in chunks:
                    message = stamp(chunk)
                    await run_manager.on_llm_new_token(message.content, chunk=chunk)
                    yield message
        except BaseException as exc:
            await run_manager.on_llm_error(exc, response=failed(turn, stamp))
            raise
        await run_manager.on_llm_end(ended(turn, stamp))

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        emit = sync_emitter(self, run_manager, kwargs.pop(LINK_KEY, None))
        with closing(self._chunks(messages, stop, kwargs, emit, Turn())) as chunks:
            for chunk in chunks:
                if run_manager is not None:
                    run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk

    @override
    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        emit = async_emitter(self, run_manager, kwargs.pop(LINK_KEY, None))
        async with aclosing(self._achunks(messages, stop, kwargs, emit, Turn())) as chunks:
            async for chunk in chunks:
                if run_manager is not None:
                    await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk

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

    def _token_plan(
        self,
        async_api: bool,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
        kwargs: dict[str, Any],
    ) -> tuple[bool, Stamp | None]:
        """Whether the run is quiet (no handler: no token, no chunk), and how to stamp tokens.

        A quiet run makes no chunk at all, only the Completion. A run LangChain would have
        streamed gets its chunks stamped as LangChain stamps streamed tokens (the message
        id of the run, v1 blocks), and its message the same id.
        """
        if run_manager is None:
            return True, None
        streamed = super()._should_stream(async_api=async_api, run_manager=run_manager, **kwargs)
        stamp = Stamp(run_manager.run_id, self.output_version) if streamed else None
        return not run_manager.handlers, stamp

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """The whole answer, streamed and assembled by the core (no chunk kept or merged).

        With callback handlers, each chunk is sent as a token first.
        """
        link = kwargs.pop(LINK_KEY, None)
        quiet, stamp = self._token_plan(False, run_manager, kwargs)
        emit = None if quiet else sync_emitter(self, run_manager, link)
        turn = Turn()
        with closing(self._chunks(messages, stop, kwargs, emit, turn, quiet=quiet)) as chunks:
            for chunk in chunks:
                if quiet or run_manager is None:
                    continue
                if stamp is None:
                    run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                else:
                    run_manager.on_llm_new_token(stamp(chunk).content, chunk=chunk)
        return _result(turn, stamp)

    @override
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Async twin of :meth:`_generate`."""
        link = kwargs.pop(LINK_KEY, None)
        quiet, stamp = self._token_plan(True, run_manager, kwargs)
        emit = None if quiet else async_emitter(self, run_manager, link)
        turn = Turn()
        chunks = self._achunks(messages, stop, kwargs, emit, turn, quiet=quiet)
        async with aclosing(chunks):
            async for chunk in chunks:
                if quiet or run_manager is None:
                    continue
                if stamp is None:
                    await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                else:
                    await run_manager.on_llm_new_token(stamp(chunk).content, chunk=chunk)
        return _result(turn, stamp)

    # --- tools and structured output ---

    @override
    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: dict[str, Any] | str | bool | None = None,
        strict: bool | None = None,
        parallel_tool_calls: bool | None = None,
        response_format: dict[str, Any] | type | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools in the OpenAI format (anything ``convert_to_openai_tool`` takes).

        Args:
            tools: Tools, functions, Pydantic models, TypedDicts or OpenAI tool dicts. An
                empty list sends no ``tools`` field at all.
            tool_choice: ``"auto"``, ``"none"``, ``"required"``/``"any"``/``True``, a tool
                name, or an OpenAI ``tool_choice`` dict.
            strict: Ask the gateway to follow each tool's schema exactly.
            parallel_tool_calls: False asks for at most one call per turn.
            response_format: A schema (or an OpenAI ``response_format`` dict) for the
                answer when the model does not call a tool.
            **kwargs: Further request fields bound with the tools.
        """
        from langchain_sse._tools import response_format as to_response_format

        formatted = format_tools(tools, strict=strict)
        choice = normalize_tool_choice(tool_choice, tool_names(formatted))
        if choice is not None:
            kwargs["tool_choice"] = choice
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        if response_format is not None:
            kwargs["response_format"] = to_response_format(response_format, strict=strict)
        return self.bind(tools=formatted, **kwargs)

    @override
    def with_structured_output(
        self,
        schema: dict[str, Any] | type | None = None,
        *,
        method: Literal["function_calling", "json_schema", "json_mode"] = "function_calling",
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | Any]:
        """Answers parsed into ``schema`` (Pydantic class, TypedDict or JSON schema).

        Args:
            schema: The output schema (may be None only with ``json_mode``).
            method: ``function_calling`` (a forced tool call), ``json_schema``
                (``response_format``) or ``json_mode`` (any JSON object).
            include_raw: Return ``{"raw", "parsed", "parsing_error"}`` instead of raising.
            strict: Ask the gateway to follow the schema exactly.
            **kwargs: Further request fields.

        Raises:
            ValueError: For an unknown method, or a missing schema.

        A refusal (or a ``content_filter`` finish) raises ``ModelRefusalError`` (returned
        as ``parsing_error`` with ``include_raw``).
        """
        return structured_output(
            self, schema, method=method, include_raw=include_raw, strict=strict, **kwargs
        )


def _result(turn: Turn, stamp: Stamp | None) -> ChatResult:
    """The ChatResult of a finished turn, with the legacy ``llm_output``."""
    whole = turn.whole()
    assert whole is not None  # the turn finished, so its stream was opened
    generated = stamp.whole(whole).message if stamp is not None else whole
    message = message_chunk_to_message(generated)
    return llm_output(ChatResult(generations=[ChatGeneration(message=message)]))
