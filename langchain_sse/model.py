"""``ChatSSE``: a LangChain ``BaseChatModel`` for OpenAI-compatible streaming gateways.

Everything about the wire is in :mod:`sse_core`. ChatSSE is one class: its fields, what
identifies it in traces and caches, LangChain's entry points, tools and structured output.
The methods are thin: the plan of each call and the I/O twins are :mod:`._loop`'s, the
settings' checks and secrets :mod:`._connection`'s. Errors are sse_core's, each also
LangChain's type (:mod:`._errors`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from contextlib import aclosing, closing
from typing import Any, Literal, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LangSmithParams, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import (
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)
from typing_extensions import Self, override

from langchain_sse import _blocks, _connection, _hooks, _loop, _protocols, _tokens
from langchain_sse._cache import model_cache_key
from langchain_sse._custom_events import (
    LINK_KEY,
    is_invoke,
    link_config,
    run_ls_params,
    take_run_options,
)
from langchain_sse._fields import ChatSSEFields
from langchain_sse._inbound import combine_llm_outputs
from langchain_sse._run import ls_params_of, plan_run
from langchain_sse._structured import build_structured_output
from langchain_sse._tools import ToolLike
from sse_core import ClientConfig, ConfigurationError
from sse_core.protocols import wire_protocol
from sse_core.transport.config import ConfigCache, public_url
from sse_core.transport.pool import ClientPool

__all__ = ["ChatSSE"]

_blocks.register()


class ChatSSE(ChatSSEFields):
    """Chat model for any gateway that streams Server-Sent Events, in the protocol it speaks.

    ``protocol=`` picks the wire, one of ``sse_core.protocol_names()`` (the first, OpenAI chat
    completions with its gateway dialects, the default); each protocol's request rules are
    the core's (:mod:`sse_core.protocols`), and a setting the protocol cannot carry is
    refused by name. Keeps what ``ChatOpenAI(base_url=...)`` loses on such gateways:
    reasoning text, usage that gateways repeat on every chunk, refusals, named SSE events
    and truncation.

    A pickled ChatSSE holds no secret: after unpickling, the key is read again from
    ``SSE_API_KEY`` (or set ``api_key``), and ``default_headers`` must be set again.

    Example:
        ``ChatSSE(model="qwen3", base_url="http://127.0.0.1:8000/v1").invoke("hi")``
    """

    _pool: ClientPool = PrivateAttr(default_factory=ClientPool)
    _configs: ConfigCache = PrivateAttr(default_factory=ConfigCache)
    # The max_tokens the protocol's rule filled in at construction (sent as the rule says
    # for the call's thinking while the field still holds it); None: the user's own.
    _default_max_tokens: int | None = PrivateAttr(default=None)

    def __init__(self, **data: Any) -> None:
        """Check the settings now: a bad one raises the core's ``ConfigurationError`` naming
        the field (raised here, after pydantic's own checks, so it is not wrapped in a
        ``ValidationError``)."""
        _connection.check_arguments(type(self), data)
        try:
            super().__init__(**data)
        except ValidationError as exc:  # a value of the wrong type: the same error, one kind
            summary = _connection.validation_summary(type(self).__name__, exc)
            raise ConfigurationError(summary) from None
        self._resolve_config()
        _protocols.check_foreign(self)
        if self.max_tokens is None:  # shown as sent, as ChatAnthropic shows it
            sent = wire_protocol(self.protocol).default_max_tokens(self.thinking)
            self.max_tokens = self._default_max_tokens = sent

    @property
    def model(self) -> str:
        """The model asked for: ``model_name`` (the name ChatAnthropic and the request use)."""
        return self.model_name

    @field_validator("api_key")
    @classmethod
    def _strip_key(cls, key: SecretStr | None) -> SecretStr | None:
        return _connection.stripped_key(key)  # the key as the core sends it

    @model_validator(mode="after")
    def _make_pool(self) -> Self:
        self._pool = ClientPool(
            self.http_client,
            self.http_async_client,
            fields=("http_client", "http_async_client"),
            telemetry=self.telemetry,
        )
        return self

    def _resolve_config(self) -> ClientConfig:
        """The checked configuration of the current settings (built again if they changed,
        e.g. on a ``model_copy(update=...)``, which runs no validator, or a header changed in
        place: dicts are compared by a copy of their items, as the config holds copies)."""
        configs: ConfigCache = _connection.private(self, "_configs")
        return configs.get(_connection.settings_of(self))

    @property
    def _clients(self) -> ClientPool:
        """The client pool, as read on every call (see :func:`_connection.private`)."""
        return cast("ClientPool", _connection.private(self, "_pool"))

    def close(self) -> None:
        """Close the pooled connections, sync and every event loop's (injected httpx clients
        are left open). The model stays usable. A stream still being read ends with
        ``IncompleteStreamError`` and the answer so far."""
        self._pool.close()

    async def aclose(self) -> None:
        """Close the running loop's pooled async connections (awaited) and those of loops
        that ended; another running loop's close when it ends or calls ``aclose`` itself (an
        injected ``http_async_client`` is left open). The model stays usable."""
        await self._pool.aclose()

    @field_serializer("base_url")
    def _dump_url(self, base_url: str | None) -> str | None:
        """Dumps show the URL without user info or query (they can hold credentials)."""
        return public_url(base_url) if base_url else base_url

    @override
    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            yield name, public_url(value) if name == "base_url" and value else value

    @override
    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """A deep copy that shares the injected httpx clients (sockets are not copied) and
        starts with its own empty pool."""
        return super().__deepcopy__(_connection.share_clients(self, memo))

    @override
    def __getstate__(self) -> dict[Any, Any]:
        """The pickled state, without secrets (see :func:`._connection.pickled_state`).

        After unpickling, the key is read again from ``SSE_API_KEY`` (or set ``api_key``),
        and ``default_headers``, ``default_query`` and the httpx clients must be given again.
        """
        return _connection.pickled_state(super().__getstate__())

    @override
    def __setstate__(self, state: dict[Any, Any]) -> None:
        super().__setstate__(state)
        _connection.restore_key(self)

    @property
    @override
    def _llm_type(self) -> str:
        return "chat-sse"

    @property
    @override
    def lc_secrets(self) -> dict[str, str]:
        """The secret fields and the environment variable each is read from again."""
        return {"api_key": "SSE_API_KEY"}

    @property
    @override
    def _identifying_params(self) -> dict[str, Any]:
        """What identifies the model in traces and caches: no key, headers or body extras."""
        return _connection.identity_of(self)

    @override
    def _combine_llm_outputs(self, llm_outputs: list[dict[str, Any] | None], /) -> dict[str, Any]:
        return combine_llm_outputs(llm_outputs, self.model_name)

    @override
    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        return ls_params_of(self, stop, kwargs)

    @override
    def _get_llm_string(self, stop: list[str] | None = None, **kwargs: Any) -> str:
        """The cache key of a call: everything that shapes its request, no secret (see
        :mod:`._cache`)."""
        return model_cache_key(self, stop, kwargs)

    # --- LangChain's entry points (the I/O is _loop's) ---

    @override
    def invoke(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AIMessage:
        """The whole answer to ``input`` (streamed under the hood unless
        ``invoke_streaming=False``: only a stream shows a cut answer); call keyword arguments
        go into the request body."""
        config, kwargs = take_run_options(config, kwargs)
        ls_params = run_ls_params(self, stop, kwargs)
        config, kwargs = link_config(config, kwargs, invoke=True, ls_params=ls_params)
        return super().invoke(input, config, stop=stop, **kwargs)

    @override
    async def ainvoke(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AIMessage:
        """:meth:`invoke`, async."""
        config, kwargs = take_run_options(config, kwargs)
        ls_params = run_ls_params(self, stop, kwargs)
        config, kwargs = link_config(config, kwargs, invoke=True, ls_params=ls_params)
        return await super().ainvoke(input, config, stop=stop, **kwargs)

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
        if _loop.owns_loop(self, kwargs, async_api=False):
            run = plan_run(self, input, config, stop, kwargs)
            messages = _loop.run_own(self, run, stop, kwargs)
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
        if _loop.owns_loop(self, kwargs, async_api=True):
            run = plan_run(self, input, config, stop, kwargs)
            amessages = _loop.arun_own(self, run, stop, kwargs)
        else:
            ls_params = run_ls_params(self, stop, kwargs)
            config, kwargs = link_config(config, kwargs, ls_params=ls_params)
            abase = super().astream(input, config, stop=stop, **kwargs)
            amessages = cast("AsyncGenerator[AIMessageChunk, None]", abase)
        async with aclosing(amessages) as chunks:
            async for message in chunks:
                yield message

    @override
    def _should_use_protocol_streaming(
        self,
        *,
        async_api: bool,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> bool:
        """With ``invoke_streaming=False``, only for an ``invoke``/``ainvoke``, whose
        ``_stream`` then asks for one JSON answer; a bare ``generate`` is answered by
        ``_generate`` instead. ``stream_events`` streams without asking."""
        if not (self.invoke_streaming or is_invoke(kwargs)):
            return False
        return super()._should_use_protocol_streaming(
            async_api=async_api, run_manager=run_manager, **kwargs
        )

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        return _loop.stream_chunks(self, messages, stop, run_manager, kwargs)

    @override
    def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        return _loop.astream_chunks(self, messages, stop, run_manager, kwargs)

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
        plan = _loop.plan_generate(self, messages, stop, kwargs, run_manager, async_api=False)
        return _loop.generate(self, plan, run_manager)

    @override
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Async twin of :meth:`_generate`."""
        plan = _loop.plan_generate(self, messages, stop, kwargs, run_manager, async_api=True)
        return await _loop.agenerate(self, plan, run_manager)

    @override
    def _get_invocation_params(
        self, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        kwargs.pop(LINK_KEY, None)  # plumbing, not a parameter: keep it out of traces
        if type(self).dict is not BaseChatModel.dict:  # a subclass's dict() is honoured
            return super()._get_invocation_params(stop=stop, **kwargs)
        # The same, without the deprecated dict()'s catch_warnings (resets warning caches).
        return {**self.asdict(), "stop": stop, **kwargs}

    # --- token counts, tools and structured output ---

    @override
    def get_token_ids(self, text: str) -> list[int]:
        """Token ids of ``text`` by tiktoken (extra ``tokens``); see :mod:`._tokens`."""
        if self.custom_get_token_ids is not None:
            return self.custom_get_token_ids(text)
        return _tokens.encode(text, self.model_name)

    @override
    def get_num_tokens_from_messages(
        self, messages: list[BaseMessage], tools: Sequence[Any] | None = None
    ) -> int:
        """An estimate of the prompt's tokens by tiktoken (extra ``tokens``); the gateway's
        own count is in each answer's ``usage_metadata``."""
        if self.custom_get_token_ids is not None:
            return super().get_num_tokens_from_messages(messages, tools)
        return _tokens.count_messages(messages, self.model_name, tools=tools)

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
        return _protocols.bind_tools(
            self, tools, tool_choice, strict, parallel_tool_calls, response_format, kwargs
        )

    @override
    def with_structured_output(
        self,
        schema: dict[str, Any] | type | None = None,
        *,
        method: Literal["function_calling", "json_schema", "json_mode"] | None = None,
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | Any]:
        """Answers parsed into ``schema`` (Pydantic class, TypedDict or JSON schema).

        Args:
            schema: The output schema (may be None only with ``json_mode``).
            method: ``function_calling`` (a forced tool call), ``json_schema``
                (``response_format``) or ``json_mode`` (any JSON object). None: the default
                of the protocol's LangChain class (ChatOpenAI's ``json_schema``,
                ChatAnthropic's ``function_calling``).
            include_raw: Return ``{"raw", "parsed", "parsing_error"}`` instead of raising.
            strict: Ask the gateway to follow the schema exactly. None: as the protocol's
                LangChain class asks (ChatOpenAI's ``json_schema`` is strict for a Pydantic
                class).
            **kwargs: Further request fields.

        Raises:
            ValueError: For an unknown method, or a missing schema.

        A refusal (or a ``content_filter`` finish) raises ``ModelRefusalError`` (returned
        as ``parsing_error`` with ``include_raw``).
        """
        return build_structured_output(
            self, schema, method=method, include_raw=include_raw, strict=strict, **kwargs
        )


_hooks.install(ChatSSE)  # the _should_stream of the fast path _hooks.UNMERGED, where it is on
