"""``SSELLM``: a LlamaIndex ``FunctionCallingLLM`` over the sse_core streaming client.

The framework class and nothing else: its fields, the eight chat/completion endpoints wired
to LlamaIndex's callbacks and the closing layer (:mod:`._closing`), and the function-calling
hooks. Connection settings are checked and kept secret by :mod:`._connection` (with
:meth:`sse_core.ClientConfig.build`), made once per settings with the request parameters and
LlamaIndex's payload by :mod:`._settings`; clients come from one
:class:`sse_core.transport.pool.ClientPool`; requests are built in the protocol's way (its
entry in :mod:`._protocols`) and with :mod:`._tools`, answers mapped by :mod:`._inbound`, I/O
done by :mod:`._streams`, stream errors raised as :mod:`._errors`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

from llama_index.core.base.llms.generic_utils import (
    achat_to_completion_decorator,
    astream_chat_response_to_completion_response,
    chat_to_completion_decorator,
    prompt_to_messages,
    stream_chat_response_to_completion_response,
)
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.bridge.pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_serializer,
    model_validator,
)
from llama_index.core.instrumentation.span import active_span_id
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection

from llamaindex_sse import _hooks  # noqa: F401 - registers SSELLM's hooks
from llamaindex_sse._closing import aclose_after, close_after, collecting, track
from llamaindex_sse._connection import (
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_DOC,
    check_fields,
    drop_secrets,
    public_url,
)
from llamaindex_sse._outbound import Headers
from llamaindex_sse._protocols import check_foreign, mapping_of
from llamaindex_sse._settings import SettingsCache, pool_of
from llamaindex_sse._streams import aread_whole, astream_responses, read_whole, stream_responses
from llamaindex_sse._structured import (
    NativeProgram,
    apredict_natively,
    needs_native,
    predict_natively,
)
from llamaindex_sse._tools import (
    add_user_message,
    keep_first_tool_call,
    offer_tools,
    select_tool_calls,
    stop_reason_of,
    streaming_program,
)
from sse_core import ChatClient, ClientConfig, ConfigurationError, Timeouts
from sse_core._names import validation_summary
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES
from sse_core.protocols import wire_protocol
from sse_core.transport.packages import AsyncHttpClient, HttpClient
from sse_core.transport.pool import ClientPool

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Generator

    from llama_index.core.prompts import BasePromptTemplate, PromptTemplate
    from llama_index.core.tools.types import BaseTool
    from llama_index.core.types import BasePydanticProgram, Model

__all__ = ["SSELLM"]


#: The context window assumed when none is given: what current gateway models offer.
DEFAULT_CONTEXT_WINDOW = 128_000


class SSELLM(FunctionCallingLLM):
    """Chat with any OpenAI-compatible streaming gateway, as a LlamaIndex function-calling LLM;
    with ``protocol="anthropic"``, with an Anthropic Messages gateway (``/v1/messages``, the
    core's rules of it: :mod:`sse_core.protocols`), in place of llama-index's ``Anthropic``.

    Reasoning arrives as ``ThinkingBlock``s and ``thinking_delta``, tool calls as
    ``ToolCallBlock``s, usage in ``raw["usage"]`` and ``additional_kwargs``; named SSE
    events are dispatched as :class:`~llamaindex_sse.SSEGatewayEvent`; errors are the
    typed :mod:`sse_core` errors, the stream errors as :mod:`llamaindex_sse` subclasses that
    add ``partial_response``. Stopping early (``break``, ``close()``/``aclose()``, task
    cancellation, a workflow's ``cancel_run``) closes the HTTP response at once.

    Call keyword arguments go into the request body (``tools``, ``seed``, ...), except
    ``extra_headers``, sent as headers of that one request. LlamaIndex reports call arguments
    to instrumentation, so keep secrets in ``api_key`` or ``default_headers``, which are never
    serialized, shown or reported (their values are masked in error messages). A pickled
    SSELLM leaves them out too, and dumps, reprs and pickles show ``base_url`` without user
    info or query: after unpickling, give them again (``api_key`` falls back to SSE_API_KEY).

    Args:
        http_client: An ``httpx.Client`` or ``httpx2.Client`` for sync calls (proxies, mTLS),
            as openai 3 takes either; not closed here.
        async_http_client: An ``httpx.AsyncClient`` or ``httpx2.AsyncClient`` for async
            calls; not closed here.
        **data: The fields below.

    Raises:
        ConfigurationError: At construction, a connection setting is missing or cannot
            work (``base_url``, ``api_key``, ``timeout``, ...); the message names the field.
    """

    # A ValidationError would otherwise quote the whole input, default_headers included.
    model_config: ClassVar[ConfigDict] = ConfigDict(hide_input_in_errors=True)

    model: str = Field(description="The model name sent to the gateway.")
    base_url: str = Field(
        description="Gateway URL with its version prefix, e.g. http://host/v1 "
        "(default: the SSE_BASE_URL environment variable)."
    )
    api_key: SecretStr | None = Field(
        default=None,
        exclude=True,
        repr=False,
        description="Bearer key (default: SSE_API_KEY); never serialized, shown or pickled.",
    )
    path: str | None = Field(
        default=None,
        description="Joined onto base_url's path, before base_url's query (None: the "
        "protocol's, /chat/completions, or /v1/messages: /messages after a base_url in /v1).",
    )
    protocol: str = Field(
        default="chat_completions",
        description="The gateway's API, one of the core's protocols "
        "(sse_core.protocol_names(); the first, 'chat_completions', is the default); each "
        "protocol's page says the base_url it takes.",
    )
    auth: str | None = Field(
        default=None,
        description="How api_key is sent: 'bearer', or the name of the header that carries "
        "it ('x-api-key'); None: the protocol's way (its RequestShape.auth).",
    )
    default_query: dict[str, str] = Field(
        default_factory=dict,
        exclude=True,
        repr=False,
        description="Query parameters sent with every request (Azure-style gateways: "
        "{'api-version': ...}), besides any in base_url; may hold credentials: never "
        "serialized, shown or pickled.",
    )
    temperature: float | None = Field(default=None, description="Sampling temperature.")
    reasoning_effort: str | None = Field(
        default=None,
        description="reasoning_effort for gateways that take it (low, medium, high); "
        "not sent when None.",
    )
    max_tokens: int | None = Field(
        default=None,
        description="Most tokens to generate (None: not sent on chat completions; on "
        "protocol='anthropic', which requires it, 1024 after thinking's budget, as "
        "ChatSSE and ChatAnthropic send it).",
    )
    thinking_dict: dict[str, Any] | None = Field(
        default=None,
        description="protocol='anthropic': the request's thinking, e.g. {'type': 'enabled', "
        "'budget_tokens': 1024} (below max_tokens), as llama-index's Anthropic LLM names it.",
    )
    stop: list[str] | None = Field(default=None, description="Stop sequences.")
    timeout: float | Timeouts | None = Field(
        default_factory=Timeouts, description="Seconds for every phase, or sse_core.Timeouts."
    )
    max_retries: int = Field(default=2, ge=0, description="Retries before the first byte.")
    default_headers: dict[str, str] = Field(
        default_factory=dict,
        exclude=True,
        repr=False,
        description="Headers sent with every request (may hold credentials: never serialized "
        "or pickled; their values are masked in error messages). None means no headers.",
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="Merged into every request body by the transport."
    )
    additional_kwargs: dict[str, Any] = Field(
        default_factory=dict, description="Request parameters added to every call."
    )
    include_usage: bool = Field(default=True, description="Ask for stream usage.")
    invoke_streaming: bool = Field(
        default=True,
        description="chat/achat/complete/acomplete stream the answer, which is what detects a "
        "cut answer. False sends stream: false and decodes the one JSON answer into the same "
        "response, for gateways whose streaming path is buggier than their JSON one (LiteLLM "
        "drops delta.refusal from streams). stream_chat/astream_chat always stream.",
    )
    reasoning_passback: bool = Field(
        default=False,
        description="Send the ThinkingBlocks of the assistant turns after the last user message "
        "back as reasoning_content (chat completions: DeepSeek and Qwen thinking modes want it "
        "inside a tool loop).",
    )
    context_window: int = Field(
        default=DEFAULT_CONTEXT_WINDOW,
        gt=0,
        description="Tokens the model takes in (default 128000, what current gateway models "
        "offer; LlamaIndex's own default is 3900). Agents size their memory by it: set the "
        "model's real window.",
    )
    is_function_calling_model: bool = Field(
        default=True,
        description="LlamaIndex's metadata: structured output and agents ask by tool calls "
        "(False: by text prompts, LlamaIndex's own programs).",
    )
    max_event_bytes: int = Field(
        default=DEFAULT_MAX_EVENT_BYTES,
        gt=0,
        description="The largest SSE event accepted; a larger one raises StreamProtocolError.",
    )
    max_connections: int = Field(default=MAX_CONNECTIONS, ge=1, description=MAX_CONNECTIONS_DOC)
    telemetry: Any = Field(
        default=None,
        exclude=True,
        repr=False,
        description="OpenTelemetry for each call (sse_core.telemetry): None records when the "
        "application set a provider; False never; a sse_core.telemetry.Telemetry records to "
        "its providers. SSE_CONNECTORS_TELEMETRY=0 turns it off whatever this says.",
    )

    # --- the model's state (not fields) ---

    _pool: ClientPool = PrivateAttr(default_factory=ClientPool)
    # The max_tokens the protocol's rule filled in at construction (shown as sent; sent as the
    # rule says for the current thinking while the field still holds it); None: the user's.
    _filled_max_tokens: int | None = PrivateAttr(default=None)

    @functools.cached_property
    def _settings(self) -> SettingsCache:
        # In the instance dict: read at a field's cost; out of dumps, reprs and pickles.
        return SettingsCache()

    def __init__(
        self,
        *,
        http_client: HttpClient | None = None,
        async_http_client: AsyncHttpClient | None = None,
        **data: Any,
    ) -> None:
        # Checked before pydantic sees the data, so a bad setting raises the core's
        # ConfigurationError itself rather than a ValidationError wrapping it; a value of the
        # wrong type for any other field is pydantic's error, said as the same one kind.
        checked = check_fields(data, type(self).model_fields)
        try:
            super().__init__(**checked)
        except ValidationError as exc:
            raise ConfigurationError(validation_summary(type(self).__name__, exc)) from None
        check_foreign(self.__dict__)
        if self.max_tokens is None:  # shown as sent, as llama-index's Anthropic shows it
            filled = wire_protocol(self.protocol).default_max_tokens(self.thinking_dict)
            self.max_tokens = self._filled_max_tokens = filled
        self._pool = ClientPool(
            http_client,
            async_http_client,
            fields=("http_client", "async_http_client"),
            telemetry=self.telemetry,
        )

    @model_validator(mode="before")
    @classmethod
    def _check_connection(cls, data: Any) -> Any:
        # model_validate() does not go through __init__: check there too.
        return check_fields(data, cls.model_fields) if isinstance(data, dict) else data

    @field_serializer("base_url")
    def _serialize_base_url(self, base_url: str) -> str:
        return public_url(base_url)  # no user info or query (they may hold credentials)

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, public_url(value) if name == "base_url" else value

    def __getstate__(self) -> dict[Any, Any]:  # without api_key, default_headers, default_query
        return drop_secrets(super().__getstate__())

    @classmethod
    def class_name(cls) -> str:
        """The class name used in serialization."""
        return "SSELLM"

    @property
    def metadata(self) -> LLMMetadata:
        """What LlamaIndex needs to know about the model."""
        return LLMMetadata(
            context_window=self.context_window,
            num_output=self._sent_max_tokens() or -1,
            is_chat_model=True,
            is_function_calling_model=self.is_function_calling_model,
            model_name=self.model,
        )

    def _sent_max_tokens(self) -> int | None:
        """The max_tokens a request sends: the field's, or while it holds what the rule filled
        in at construction, what the rule gives for the thinking of the moment."""
        if self.max_tokens is not None and self.max_tokens != self._filled_max_tokens:
            return self.max_tokens
        return wire_protocol(self.protocol).default_max_tokens(self.thinking_dict)

    def _build_request(
        self, messages: Sequence[ChatMessage], kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any], Headers]:
        """The request body and per-call headers (``extra_headers=``)."""
        return self._prepare(messages, kwargs)[1:]

    def _prepare(
        self, messages: Sequence[ChatMessage], kwargs: dict[str, Any]
    ) -> tuple[ClientConfig, dict[str, Any], Headers]:
        """The configuration, body and headers of one call (the settings read once)."""
        derived = self._settings.get(self)
        body, headers = mapping_of(self.protocol).build_request(
            self.model,
            messages,
            settings=derived.settings,
            call_kwargs=kwargs,
            reasoning_passback=self.reasoning_passback,
        )
        return derived.config, body, headers

    def _make_config(self) -> ClientConfig:
        return self._settings.get(self).config

    def _get_sync_client(self) -> ChatClient:
        return pool_of(self).sync(self._make_config())

    if hasattr(FunctionCallingLLM, "to_payload"):  # llama-index-core 0.14.23 and later

        def to_payload(self) -> dict[str, Any]:
            """LlamaIndex's report of the model (class name, metadata), made once per settings."""
            try:
                derived = self._settings.get(self)
            except AttributeError:  # a field missing (an instance pydantic half-loaded)
                return super().to_payload()
            if type(self).metadata is not SSELLM.metadata:  # a subclass's own metadata
                return super().to_payload()
            if derived.payload is None:
                derived.payload = super().to_payload()
            return dict(derived.payload)

    def close(self) -> None:
        """Close the pooled connections, sync and every event loop's (not an injected
        client); calls still work."""
        pool_of(self).close()

    async def aclose(self) -> None:
        """Close the running loop's pooled async connections (awaited) and ended loops';
        another running loop's close when it ends or acloses (not an injected client)."""
        await pool_of(self).aclose()

    # -- chat ---------------------------------------------------------------------------

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        """Send ``messages`` and return the whole answer."""
        return self._chat(messages, **kwargs)

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        """Async :meth:`chat`."""
        return await self._achat(messages, **kwargs)

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        """Stream the answer: one ChatResponse per piece received that changed the message."""
        with collecting() as opened:
            wrapped = self._stream_chat_events(messages, **kwargs)
        return close_after(wrapped, opened)

    async def astream_chat(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseAsyncGen:
        """Async :meth:`stream_chat`; wrap it in ``contextlib.aclosing`` to close early."""
        with collecting() as opened:
            wrapped = await self._astream_chat_events(messages, **kwargs)
        return aclose_after(wrapped, opened)

    @llm_chat_callback()
    def _stream_chat_events(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseGen:
        config, body, headers = self._prepare(messages, kwargs)
        client = pool_of(self).sync(config)
        return track(stream_responses(client, body, headers, active_span_id.get()))

    @llm_chat_callback()
    async def _astream_chat_events(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseAsyncGen:
        config, body, headers = self._prepare(messages, kwargs)
        client = pool_of(self).async_(config)
        return track(astream_responses(client, body, headers, active_span_id.get()))

    def _chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        config, body, headers = self._prepare(messages, kwargs)
        client = pool_of(self).sync(config)
        return read_whole(client, body, headers, active_span_id.get(), self.invoke_streaming)

    async def _achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        config, body, headers = self._prepare(messages, kwargs)
        client = pool_of(self).async_(config)
        return await aread_whole(client, body, headers, active_span_id.get(), self.invoke_streaming)

    # -- completion ---------------------------------------------------------------------

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        """Complete ``prompt`` (sent as one user message)."""
        return chat_to_completion_decorator(self._chat)(prompt, **kwargs)

    @llm_completion_callback()
    async def acomplete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponse:
        """Async :meth:`complete`."""
        return await achat_to_completion_decorator(self._achat)(prompt, **kwargs)

    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        """Stream the completion of ``prompt``."""
        with collecting() as opened:
            wrapped = self._stream_complete_events(prompt, formatted, **kwargs)
        return close_after(wrapped, opened)

    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        """Async :meth:`stream_complete`."""
        with collecting() as opened:
            wrapped = await self._astream_complete_events(prompt, formatted, **kwargs)
        return aclose_after(wrapped, opened)

    @llm_completion_callback()
    def _stream_complete_events(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        config, body, headers = self._prepare(prompt_to_messages(prompt), kwargs)
        client = pool_of(self).sync(config)
        chats = track(stream_responses(client, body, headers, active_span_id.get()))
        return track(stream_chat_response_to_completion_response(chats))

    @llm_completion_callback()
    async def _astream_complete_events(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        config, body, headers = self._prepare(prompt_to_messages(prompt), kwargs)
        client = pool_of(self).async_(config)
        chats = track(astream_responses(client, body, headers, active_span_id.get()))
        return track(astream_chat_response_to_completion_response(chats))

    # -- tools --------------------------------------------------------------------------

    def _prepare_chat_with_tools(
        self,
        tools: Sequence[BaseTool],
        user_msg: str | ChatMessage | None = None,
        chat_history: list[ChatMessage] | None = None,
        verbose: bool = False,
        allow_parallel_tool_calls: bool = False,
        tool_required: bool = False,
        tool_choice: str | dict[str, Any] | None = None,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The ``chat`` arguments that offer ``tools`` to the model. A required tool goes as
        asked: where the protocol refuses a forced choice with this thinking, the core's rule
        sends ``auto`` instead, with a warning (llama-index's Anthropic LLM does it in
        silence), as for a tool named by ``tool_choice`` and as ChatSSE does."""
        request = offer_tools(
            tools,
            add_user_message(chat_history, user_msg),
            parallel=allow_parallel_tool_calls,
            required=tool_required,
            choice=tool_choice,
            strict=strict,
        )
        return {**request, **kwargs}

    def _validate_chat_with_tools_response(
        self,
        response: ChatResponse,
        tools: Sequence[BaseTool],
        allow_parallel_tool_calls: bool = False,
        **kwargs: Any,
    ) -> ChatResponse:
        """Keep only the first tool call unless parallel calls were allowed."""
        if not allow_parallel_tool_calls:
            keep_first_tool_call(response.message)
        return response

    # -- structured output, streamed -----------------------------------------------------

    def _structured_program(
        self, output_cls: type[Model], prompt: BasePromptTemplate
    ) -> BasePydanticProgram[Model]:
        if needs_native(self.protocol, self.thinking_dict):
            return NativeProgram(self, output_cls, prompt)
        return streaming_program(self, output_cls, prompt)

    def structured_predict(
        self,
        output_cls: type[Model],
        prompt: PromptTemplate,
        llm_kwargs: dict[str, Any] | None = None,
        **prompt_args: Any,
    ) -> Model:
        """LlamaIndex's ``structured_predict``; the answer's own format (:mod:`._structured`)
        where the protocol's llama-index LLM asks so (strict), or where the protocol refuses a
        forced tool call with this thinking."""
        strict = mapping_of(self.protocol).structured_format
        if not (strict or needs_native(self.protocol, self.thinking_dict)):
            found = super().structured_predict(output_cls, prompt, llm_kwargs, **prompt_args)
            return cast("Model", found)
        return predict_natively(self, output_cls, prompt, llm_kwargs, prompt_args, strict)

    async def astructured_predict(
        self,
        output_cls: type[Model],
        prompt: PromptTemplate,
        llm_kwargs: dict[str, Any] | None = None,
        **prompt_args: Any,
    ) -> Model:
        """:meth:`structured_predict`, async."""
        strict = mapping_of(self.protocol).structured_format
        if not (strict or needs_native(self.protocol, self.thinking_dict)):
            found = await super().astructured_predict(output_cls, prompt, llm_kwargs, **prompt_args)
            return cast("Model", found)
        return await apredict_natively(self, output_cls, prompt, llm_kwargs, prompt_args, strict)

    def _structured_stream_call(
        self,
        output_cls: type[Model],
        prompt: PromptTemplate,
        llm_kwargs: dict[str, Any] | None = None,
        **prompt_args: Any,
    ) -> Generator[Any, None, None]:
        """LlamaIndex's hook under ``stream_structured_predict``: the tool is required, as
        in ``structured_predict`` (see :func:`._tools.streaming_program`), or the answer's own
        format (as :meth:`structured_predict`)."""
        program = self._structured_program(output_cls, prompt)
        return program.stream_call(llm_kwargs=llm_kwargs, **prompt_args)

    async def _structured_astream_call(
        self,
        output_cls: type[Model],
        prompt: PromptTemplate,
        llm_kwargs: dict[str, Any] | None = None,
        **prompt_args: Any,
    ) -> AsyncGenerator[Any, None]:
        """:meth:`_structured_stream_call` for ``astream_structured_predict``."""
        program = self._structured_program(output_cls, prompt)
        return await program.astream_call(llm_kwargs=llm_kwargs, **prompt_args)

    def get_tool_calls_from_response(
        self, response: ChatResponse, error_on_no_tool_call: bool = True, **kwargs: Any
    ) -> list[ToolSelection]:
        """The tool calls of ``response``; safe on partial arguments mid-stream.

        Raises:
            ValueError: No tool call, and ``error_on_no_tool_call`` is true; ToolArgumentsError
                (a ValueError) for a call cut short, once the answer stopped.
        """
        selections = select_tool_calls(response.message, stop_reason_of(response))
        if not selections and error_on_no_tool_call:
            raise ValueError("expected at least one tool call in the response, got none")
        return selections
