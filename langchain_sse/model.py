"""``ChatSSE``: a LangChain ``BaseChatModel`` for OpenAI-compatible streaming gateways.

Everything about the wire is in :mod:`sse_core`. This module holds what ChatSSE is: its
request fields, what identifies it in traces, the plan of each call (the request from
:mod:`._outbound`, the chunk mapping of :mod:`._inbound`), token counts, tools and
structured output. The connection fields come from
:class:`~langchain_sse._connection.ConnectionSettings`, and the I/O (``stream``,
``invoke`` and their async twins, one :class:`~langchain_sse._call.ModelCall` per answer)
from :class:`~langchain_sse._loop.StreamingChatModel`. Errors are sse_core's, each also
LangChain's type (:mod:`._errors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from langchain_core.language_models import LangSmithParams, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from pydantic import ConfigDict, Field
from typing_extensions import override

from langchain_sse import _blocks, _tokens
from langchain_sse._cache import build_cache_key
from langchain_sse._call import CallPlan
from langchain_sse._custom_events import LINK_KEY
from langchain_sse._inbound import (
    DEFAULT_RESPONSE_HEADERS,
    PROVIDER,
    ChunkMapper,
    MapMode,
    combine_llm_outputs,
)
from langchain_sse._loop import StreamingChatModel
from langchain_sse._outbound import Outbound, build_outbound
from langchain_sse._run import Stamp, Unstamped
from langchain_sse._structured import build_structured_output
from langchain_sse._tools import (
    ToolLike,
    build_response_format,
    format_tools,
    list_tool_names,
    normalize_tool_choice,
)
from sse_core.transport.config import public_url

__all__ = ["ChatSSE"]

_blocks.register()


class ChatSSE(StreamingChatModel):
    """Chat model for any OpenAI-compatible gateway that streams Server-Sent Events.

    Keeps what ``ChatOpenAI(base_url=...)`` loses on such gateways: reasoning text, usage
    that gateways repeat on every chunk, refusals, named SSE events and truncation.

    A pickled ChatSSE holds no secret: after unpickling, the key is read again from
    ``SSE_API_KEY`` (or set ``api_key``), and ``default_headers`` must be set again.

    Example:
        ``ChatSSE(model="qwen3", base_url="http://127.0.0.1:8000/v1").invoke("hi")``
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(
        populate_by_name=True, arbitrary_types_allowed=True, hide_input_in_errors=True
    )

    model_name: str = Field(alias="model")
    """The model to ask for (``model`` in the request body)."""
    temperature: float | None = None
    max_tokens: int | None = None
    stop: list[str] | None = Field(default=None, alias="stop_sequences")
    reasoning_effort: str | None = None
    """``reasoning_effort`` for gateways that take it (``low``, ``medium``, ``high``)."""
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

    @property
    @override
    def _llm_type(self) -> str:
        return "chat-sse"

    @property
    @override
    def lc_secrets(self) -> dict[str, str]:
        return {"api_key": "SSE_API_KEY"}

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

    @override
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
        """What one call sends, how it maps (``quiet``: no chunk, no token) and stamps;
        ``streaming=False``: asked with ``stream: false``, its one JSON answer mapped to one
        chunk."""
        link = kwargs.pop(LINK_KEY, None)
        outbound = self._build_outbound(messages, stop, kwargs)
        coalesce = self.coalesce or not streaming
        mode = MapMode.QUIET if quiet else MapMode.COALESCE if coalesce else MapMode.EACH
        model = outbound.payload["model"]
        mapper = ChunkMapper(
            model=model, headers=self.response_headers, mode=mode, message_id=stamp.id
        )
        return CallPlan(
            outbound=outbound,
            mapper=mapper,
            stamp=stamp,
            link=link,
            streaming=streaming,
            tokens=not quiet,
        )

    def _build_outbound(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Outbound:
        """The request of one call (pops what is not a request field from ``kwargs``)."""
        return build_outbound(
            messages,
            model=self.model_name,
            settings={
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
                "reasoning_effort": self.reasoning_effort,
                "stop": stop if stop is not None else self.stop,
            },
            model_kwargs=self.model_kwargs,
            call_kwargs=kwargs,
            disabled_params=self.disabled_params,
            reasoning_passback=self.reasoning_passback,
            extra_body=self.extra_body,
        )

    @override
    def _get_llm_string(self, stop: list[str] | None = None, **kwargs: Any) -> str:
        """The cache key of a call: everything that shapes its request, no secret (see
        :mod:`._cache`)."""
        kwargs.pop(LINK_KEY, None)  # differs per call: it would defeat the cache
        call_headers = kwargs.get("extra_headers") or {}
        call_body = kwargs.get("extra_body") or {}
        outbound = self._build_outbound([], stop, kwargs)
        include_usage = outbound.include_usage
        return build_cache_key(
            outbound,
            base_url=self.base_url or "",
            path=self.path,
            query={**(self.default_query or {}), **(outbound.query or {})},
            headers={**(self.default_headers or {}), **call_headers},
            hidden=[*self.model_kwargs, *(self.extra_body or {}), *call_body],
            extra_body=self.extra_body,
            shape={
                "_type": self._llm_type,
                "usage": self.stream_usage if include_usage is None else include_usage,
                "output_version": self.output_version,
                "reasoning_passback": self.reasoning_passback,
                "response_headers": sorted(self.response_headers),
            },
        )

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
        formatted = format_tools(tools, strict=strict)
        choice = normalize_tool_choice(tool_choice, list_tool_names(formatted))
        if choice is not None:
            kwargs["tool_choice"] = choice
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        if response_format is not None:
            kwargs["response_format"] = build_response_format(response_format, strict=strict)
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
        return build_structured_output(
            self, schema, method=method, include_raw=include_raw, strict=strict, **kwargs
        )
