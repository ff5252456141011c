"""SSELLM's fields: what each setting is, its default, and which protocols it applies to.

:class:`SSELLMFields` is the pydantic half of :class:`~llamaindex_sse.SSELLM` (its fields and
their descriptions, nothing else), so that ``help()``, IDE hovers and the API reference read
them from one place; the endpoints and hooks are in :mod:`llamaindex_sse.model`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from llama_index.core.bridge.pydantic import ConfigDict, Field, SecretStr
from llama_index.core.llms.function_calling import FunctionCallingLLM

from llamaindex_sse._connection import MAX_CONNECTIONS, MAX_CONNECTIONS_DOC
from sse_core import Timeouts
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES

__all__ = ["DEFAULT_CONTEXT_WINDOW", "SSELLMFields"]

#: The context window assumed when none is given: what current gateway models offer.
DEFAULT_CONTEXT_WINDOW = 128_000


class SSELLMFields(FunctionCallingLLM):
    """The fields of :class:`~llamaindex_sse.SSELLM` (see there)."""

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
