"""ChatSSE's fields: what each setting is, its default, and which protocols it applies to.

:class:`ChatSSEFields` is the pydantic half of :class:`~langchain_sse.ChatSSE`: its fields,
each documented by the docstring under it (pydantic's ``use_attribute_docstrings`` makes it
the field's description, so ``help()``, IDE hovers and the API reference say the same). The
validators, LangChain's entry points and the request mapping are in
:mod:`langchain_sse.model`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.utils import from_env, secret_from_env
from pydantic import ConfigDict, Field, SecretStr

from langchain_sse._inbound import DEFAULT_RESPONSE_HEADERS
from sse_core import Timeouts
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES
from sse_core.transport.config import DEFAULT_MAX_CONNECTIONS
from sse_core.transport.packages import AsyncHttpClient, HttpClient

__all__ = ["ChatSSEFields"]


class ChatSSEFields(BaseChatModel):
    """The fields of :class:`~langchain_sse.ChatSSE` (see there)."""

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
