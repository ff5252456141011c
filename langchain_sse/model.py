"""``ChatSSE``: a LangChain ``BaseChatModel`` for OpenAI-compatible streaming gateways.

Everything about the wire is in :mod:`sse_core`. ChatSSE is one class: its fields (each
documented by the docstring under it: pydantic's ``use_attribute_docstrings`` makes it the
field's description, so ``help()``, IDE hovers and the API reference say the same), what
identifies it in traces and caches, LangChain's entry points, tools and structured output.
The methods are thin: the plan of each call and the I/O twins are :mod:`._loop`'s, the
settings' checks and secrets :mod:`._connection`'s. Errors are sse_core's, each also
LangChain's type (:mod:`._errors`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from contextlib import aclosing, closing
from typing import Any, ClassVar, Literal, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LangSmithParams, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils import from_env, secret_from_env
from pydantic import (
    ConfigDict,
    Field,
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
from langchain_sse._inbound import DEFAULT_RESPONSE_HEADERS, combine_llm_outputs
from langchain_sse._run import ls_params_of, plan_run
from langchain_sse._structured import build_structured_output
from langchain_sse._tools import ToolLike
from sse_core import ClientConfig, ConfigurationError, Timeouts
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES
from sse_core.protocols import wire_protocol
from sse_core.transport.config import DEFAULT_MAX_CONNECTIONS, ConfigCache, public_url
from sse_core.transport.packages import AsyncHttpClient, HttpClient
from sse_core.transport.pool import ClientPool

__all__ = ["ChatSSE"]

_blocks.register()


class ChatSSE(BaseChatModel):
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

    # hide_input_in_errors: a ValidationError would otherwise quote the arguments, key included.
    model_config: ClassVar[ConfigDict] = ConfigDict(
        populate_by_name=True,
        arbitrary_types_allowed=True,
        hide_input_in_errors=True,
        use_attribute_docstrings=True,
    )

    # --- the connection (checked by the core; see _connection) ---

    base_url: str | None = Field(default_factory=from_env("SSE_BASE_URL", default=None))
    """The gateway URL with its version prefix, e.g. ``http://host/v1`` (env ``SSE_BASE_URL``)."""
    api_key: SecretStr | None = Field(
        default_factory=secret_from_env("SSE_API_KEY", default=None), validate_default=True
    )
    """Sent as ``Authorization: Bearer`` (env ``SSE_API_KEY``); held and sent without its
    surrounding whitespace; never shown, traced or pickled."""
    protocol: str = "chat_completions"
    """The wire: one of ``sse_core.protocol_names()`` (the first, the default); each protocol's
    page says the ``base_url`` it takes."""
    auth: str | None = None
    """How the key is sent: ``"bearer"``, or the name of the header that carries it
    (``"x-api-key"``); None: the protocol's way (its ``RequestShape.auth``)."""
    path: str | None = None
    """Joined onto ``base_url``'s path, before its query (SPASS: ``base_url="https://host"``,
    ``path="/c1/chat"``); None: the protocol's (``/chat/completions``, ``/v1/messages``)."""
    default_query: dict[str, str] | None = Field(default=None, repr=False, exclude=True)
    """Query parameters sent with every request (Azure-style gateways: ``{"api-version":
    "2024-10-21"}``), besides any in ``base_url``: may hold credentials, so never dumped,
    shown, traced or pickled."""
    timeout: float | Timeouts | None = None
    """Seconds for every phase, or :class:`sse_core.Timeouts`; None: the sse_core defaults."""
    max_retries: int = 2
    """Retries before the first byte of the answer (never after output began)."""
    default_headers: dict[str, str] | None = Field(default=None, repr=False, exclude=True)
    """Headers sent with every request (e.g. ``SPASS-User-Id``, or an ``api-key``
    credential): treated as secrets, so never dumped, shown, traced or pickled."""
    extra_body: dict[str, Any] | None = Field(default=None, repr=False)
    """Merged into every request body last (e.g. ``chat_template_kwargs``)."""
    stream_usage: bool = True
    """Ask for usage (``stream_options.include_usage``); dropped if the gateway objects."""
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    """The largest SSE event accepted; a larger one raises ``StreamProtocolError``."""
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    """The most streams at once per client (its connections; more wait, within
    ``Timeouts.connect``). httpx's own default is 100."""
    telemetry: Any = Field(default=None, exclude=True, repr=False)
    """OpenTelemetry for each call (:mod:`sse_core.telemetry`): None records when the
    application set a provider; False never; a ``sse_core.telemetry.Telemetry`` records to its
    providers. ``SSE_CONNECTORS_TELEMETRY=0`` turns it off whatever this says."""
    http_client: HttpClient | None = Field(default=None, exclude=True, repr=False)
    """An ``httpx.Client`` or ``httpx2.Client`` to send with (proxies, mTLS, transports), as
    openai 3 takes either; not closed here. Anything else is a ``ConfigurationError``."""
    http_async_client: AsyncHttpClient | None = Field(default=None, exclude=True, repr=False)
    """An ``httpx.AsyncClient`` or ``httpx2.AsyncClient`` to send with; not closed here."""

    # --- the request ---

    model_name: str = Field(alias="model")
    """The model to ask for (``model`` in the request body)."""
    temperature: float | None = None
    """Sampling temperature; None: not sent (the gateway's default)."""
    max_tokens: int | None = None
    """The most tokens to generate; None: what the protocol's rule gives (not sent, where it
    needs none; where it requires one, a default after thinking's budget, shown as sent)."""
    stop: list[str] | None = Field(default=None, alias="stop_sequences")
    """Stop sequences (``stop``; Anthropic's ``stop_sequences``)."""
    reasoning_effort: str | None = None
    """``reasoning_effort`` for gateways that take it (``low``, ``medium``, ``high``)."""
    thinking: dict[str, Any] | None = None
    """Anthropic's ``thinking`` (``{"type": "enabled", "budget_tokens": 2048}``)."""
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Further request fields (``top_p``, ``seed``, ...), overridden by call kwargs."""
    streaming: bool = False
    """Stream under ``invoke`` too, so callbacks see every token."""
    reasoning_passback: bool = False
    """Send ``reasoning_content`` back on assistant messages after the last user message
    (DeepSeek and Qwen thinking modes want it inside a tool loop)."""
    coalesce: bool = False
    """Merge the frames that arrived in one network read into one chunk (less CPU, no
    added latency); callbacks then see one token per read."""
    response_headers: tuple[str, ...] = DEFAULT_RESPONSE_HEADERS
    """Response headers copied into ``response_metadata["headers"]`` when present."""
    disabled_params: dict[str, Any] | None = None
    """Request fields a gateway rejects: ``{"parallel_tool_calls": None}`` never sends the
    field; ``{"tool_choice": ["required"]}`` drops only those values."""
    invoke_streaming: bool = True
    """``invoke``/``ainvoke`` stream the answer (the default: only a stream shows a cut
    answer). False sends ``stream: false`` and decodes the one JSON answer into the same
    message and typed errors, for gateways whose streaming path is buggier than their JSON
    one; ``stream``/``astream`` still stream, and streaming handlers get the answer as one
    token. LangChain's ``disable_streaming`` goes further, as in ChatOpenAI: ``stream`` then
    gives the invoked answer as one chunk (``"tool_calling"``: for calls with tools)."""

    # --- the model's state (not fields) ---

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
