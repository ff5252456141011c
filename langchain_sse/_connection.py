"""ChatSSE's connection settings: checked by the core, the client pool, no secret out.

The settings are checked once, at construction, by :meth:`sse_core.ClientConfig.build` (the
one place for URL, key, header and timeout rules and the ``SSE_BASE_URL``/``SSE_API_KEY``
fallbacks), so a bad value raises the core's ``ConfigurationError`` naming the field (a
value of the wrong type too: pydantic's error becomes one, without the input), and an unknown
argument is refused by name (pydantic would drop it), with ChatOpenAI's names pointed to
ChatSSE's (``openai_api_base`` to ``base_url``) and request parameters to ``model_kwargs``.
The clients come from one :class:`sse_core.transport.pool.ClientPool` per model (copies share
it; it keys clients by a fingerprint of the configuration, so a copy with another URL gets its
own client).

Secrets stay in: the key is a ``SecretStr``; ``default_headers`` (where ``api-key``-header
gateways put the credential) are left out of ``model_dump``, reprs and traces, and every
value of them is masked in the errors the core builds; ``default_query`` is kept out the same
way; dumps and reprs show ``base_url`` without user info or query; a ``ValidationError`` does
not quote the arguments; a pickled model holds none of them (see
:func:`pickled_state`).

ChatSSE declares the fields; the functions here are what its methods for them do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.utils import secret_from_env
from pydantic import BaseModel, SecretStr

from langchain_sse._protocols import mapping_of
from sse_core._names import refuse_unknown, validation_summary
from sse_core._slots import read_private
from sse_core.errors import ConfigurationError
from sse_core.protocols import check_protocol
from sse_core.protocols.registry import with_not_taken
from sse_core.transport.config import public_url
from sse_core.transport.timeouts import Timeouts

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = [
    "check_arguments",
    "identity_of",
    "key_from_env",
    "pickled_state",
    "private",
    "restore_key",
    "settings_of",
    "share_clients",
    "validation_summary",
]


#: ChatOpenAI's names for settings ChatSSE names otherwise.
_HINTS = {
    "openai_api_base": "use base_url",
    "api_base": "use base_url",
    "openai_api_key": "use api_key",
    "request_timeout": "use timeout",
    "max_completion_tokens": "use max_tokens",
    "openai_proxy": "set HTTPS_PROXY, or pass http_client=httpx.Client(proxy=...)",
    "openai_api_version": "pass default_query={'api-version': ...}",
    "api_version": "pass default_query={'api-version': ...}",
    "use_responses_api": "use protocol='responses' (base_url with its /v1; /responses is appended)",
    "use_previous_response_id": "send model_kwargs={'previous_response_id': ..., "
    "'store': True} with protocol='responses'",
    "verbosity": "send it as a request field: model_kwargs={'verbosity': ...} on chat "
    "completions, model_kwargs={'text': {'verbosity': ...}} with protocol='responses'",
    **dict.fromkeys(
        ("client", "root_client", "async_client", "root_async_client"),
        "ChatSSE sends with httpx itself: give http_client / http_async_client",
    ),
    **dict.fromkeys(
        ("openai_organization", "organization"),
        "send the header: default_headers={'OpenAI-Organization': ...}",
    ),
    "stream_chunk_timeout": "use timeout=sse_core.Timeouts(idle=...), the longest silence "
    "between two reads of the body",
    "include_response_headers": "use response_headers=('x-request-id', ...): the names of the "
    "headers copied into response_metadata['headers'] (the request ids by default; "
    "ChatOpenAI's True copies every header, which may hold cookies)",
    "http_socket_options": "give http_client=httpx.Client(transport=httpx.HTTPTransport("
    "socket_options=...))",
    "tiktoken_model_name": "leave it out: token counts use the model name's tiktoken "
    "encoding (custom_get_token_ids counts otherwise)",
    # ChatAnthropic's names
    "anthropic_api_key": "use api_key (or set SSE_API_KEY, or ANTHROPIC_API_KEY with "
    "protocol='anthropic')",
    "anthropic_api_url": "use base_url, the gateway's root (https://api.anthropic.com), with "
    "protocol='anthropic'",
    "max_tokens_to_sample": "use max_tokens",
    "default_request_timeout": "use timeout",
    "anthropic_proxy": "give http_client=httpx.Client(proxy=...) (and http_async_client)",
    "betas": "send the header: default_headers={'anthropic-beta': 'name-1,name-2'}",
    "effort": "use reasoning_effort (sent as output_config.effort on protocol='anthropic')",
    "reuse_last_container": "send the earlier answer's container id: "
    "model_kwargs={'container': ...}",
    # ChatGoogleGenerativeAI's names
    "google_api_key": "use api_key (or set SSE_API_KEY, or GOOGLE_API_KEY or GEMINI_API_KEY "
    "with protocol='gemini')",
    "max_output_tokens": "use max_tokens (sent as maxOutputTokens with protocol='gemini', "
    "max_output_tokens with protocol='responses')",
    **dict.fromkeys(("additional_headers", "default_metadata"), "use default_headers"),
    "client_args": "give http_client=httpx.Client(...) (and http_async_client)",
    "thinking_level": "use reasoning_effort (sent as thinkingLevel on Gemini 3 and later, as "
    "a thinkingBudget on Gemini 1 and 2, with protocol='gemini')",
    **dict.fromkeys(
        ("thinking_budget", "include_thoughts", "thinking_config"),
        "use reasoning_effort (a thinking level or budget, with includeThoughts, on "
        "protocol='gemini'), or send model_kwargs={'generationConfig': {'thinkingConfig': "
        "{...}}}",
    ),
    **dict.fromkeys(
        (
            "response_mime_type",
            "response_schema",
            "response_modalities",
            "media_resolution",
            "image_config",
        ),
        "send it in Gemini's generationConfig: model_kwargs={'generationConfig': "
        "{'responseMimeType': ..., ...}} with protocol='gemini'",
    ),
    "convert_system_message_to_human": "leave it out: a system message is sent as the "
    "request's systemInstruction with protocol='gemini'",
    **dict.fromkeys(
        ("vertexai", "project", "location", "credentials"),
        "ChatSSE speaks HTTP to a gateway, not a cloud SDK: give the Gemini endpoint of the "
        "Vertex AI gateway (or a proxy before it) as base_url, its key as api_key",
    ),
}
_OTHERWISE = "request parameters (top_p, seed, ...) go in model_kwargs"


def _known_names(cls: type[BaseModel]) -> set[str]:
    """The keyword names a model takes: its fields and their aliases."""
    names = set(cls.model_fields)
    names.update(field.alias for field in cls.model_fields.values() if field.alias)
    return names


def check_arguments(cls: type[BaseModel], data: dict[str, Any]) -> None:
    """Refuse an unknown keyword by name (pydantic would drop it), pointing ChatOpenAI's names
    to ChatSSE's and request parameters to ``model_kwargs``; and a protocol that the core
    does not register or ChatSSE does not map (:mod:`._protocols`)."""
    hints = with_not_taken(data.get("protocol"), _HINTS)
    refuse_unknown(cls.__name__, data, _known_names(cls), hints, _OTHERWISE)
    if isinstance(data.get("timeout"), Mapping):  # pydantic would drop a phase it does not know
        data["timeout"] = Timeouts.of(data["timeout"])
    _check_output_version(data.get("output_version", "v0"))
    if "protocol" in data:
        check_protocol(data["protocol"])
        mapping_of(data["protocol"])


#: What ``output_version`` takes: LangChain's content as the gateway sent it, or its standard
#: content blocks.
OUTPUT_VERSIONS = ("v0", "v1")


def _check_output_version(version: object) -> None:
    """langchain-core takes any string and reads an unknown one as v0: refuse it by name."""
    if version is None or version in OUTPUT_VERSIONS:
        return
    also = (
        " (ChatOpenAI's 'responses/v1' is its own shape of the Responses API's output: 'v1' "
        "gives LangChain's standard content blocks, reasoning items included)"
        if version == "responses/v1"
        else ""
    )
    raise ConfigurationError(
        f"output_version must be one of {', '.join(map(repr, OUTPUT_VERSIONS))}, got "
        f"{version!r}{also}"
    )


#: Fields a pickle never holds: the key, the headers and query (they may hold credentials),
#: the injected clients (not picklable).
_NOT_PICKLED = ("api_key", "default_headers", "default_query", "http_client", "http_async_client")


def settings_of(model: ChatSSE) -> dict[str, Any]:
    """The keywords of :meth:`sse_core.ClientConfig.build` for a model's current fields."""
    return {
        "base_url": model.base_url,
        "api_key": model.api_key,
        "path": model.path,
        "protocol": model.protocol,
        "auth": model.auth,
        "default_query": model.default_query,
        "default_headers": model.default_headers,
        "secret_headers": tuple(model.default_headers or ()),
        "timeout": model.timeout,
        "max_retries": model.max_retries,
        "include_usage": model.stream_usage,
        "extra_body": model.extra_body,
        "max_event_bytes": model.max_event_bytes,
        "max_connections": model.max_connections,
    }


def identity_of(model: ChatSSE) -> dict[str, Any]:
    """What identifies a model in traces (``_identifying_params``): no key, headers or body
    extras."""
    identity: dict[str, Any] = {
        "model_name": model.model_name,
        "base_url": public_url(model.base_url or ""),
        "path": model._resolve_config().path,
        "temperature": model.temperature,
        "max_tokens": model.max_tokens,
        "stop": model.stop,
        "reasoning_effort": model.reasoning_effort,
        "stream_usage": model.stream_usage,
        "coalesce": model.coalesce,
    }
    extra = mapping_of(model.protocol).identity
    identity.update((name, getattr(model, name)) for name in extra)
    return identity


def share_clients(model: ChatSSE, memo: dict[int, Any] | None) -> dict[int, Any]:
    """A deep copy's memo that shares the injected httpx clients (sockets are not copied)."""
    memo = {} if memo is None else memo
    for client in (model.http_client, model.http_async_client):
        if client is not None:
            memo[id(client)] = client
    return memo


def pickled_state(state: dict[Any, Any]) -> dict[Any, Any]:
    """A model's pickled state without secrets: no key, no ``default_headers`` or
    ``default_query``, no user info or query in ``base_url``, no injected httpx client (the
    pool and the config cache pickle as new empty ones, their clients left out)."""
    fields = {**state["__dict__"], **dict.fromkeys(_NOT_PICKLED)}
    if fields.get("base_url"):
        fields["base_url"] = public_url(fields["base_url"])
    return {**state, "__dict__": fields}


def private(model: BaseModel, name: str) -> Any:
    """A private attribute's value (the pool, the config cache), read on every call: see
    :func:`sse_core._slots.read_private`."""
    return read_private(model, name)


def restore_key(model: ChatSSE) -> None:
    """Give an unpickled ``model`` its key again (:func:`key_from_env`)."""
    model.api_key = key_from_env()


def key_from_env() -> SecretStr | None:
    """The key an unpickled model reads again: ``SSE_API_KEY``, or None."""
    return stripped_key(secret_from_env("SSE_API_KEY", default=None)())


def stripped_key(key: SecretStr | None) -> SecretStr | None:
    """``key`` as the core sends it: without surrounding whitespace (a key read from a file
    or a variable often ends with a newline), None when nothing is left."""
    if key is None:
        return None
    value = key.get_secret_value().strip()
    return SecretStr(value) if value else None
