"""SSELLM's connection settings: checked by the core, kept out of every dump, repr and pickle.

The settings are checked by :meth:`sse_core.ClientConfig.build` (the one place for URL, key,
header and timeout rules and the ``SSE_BASE_URL``/``SSE_API_KEY`` fallbacks) before pydantic
sees them, so a bad value raises the core's ``ConfigurationError`` naming the field, and so
does an unknown argument (pydantic would drop it; OpenAILike's ``api_base`` points to
``base_url``, request parameters to ``additional_kwargs``). The
credentials never leave the object: ``api_key``, ``default_headers`` and ``default_query``
(its values may be credentials, as Azure's ``key``) are excluded from
dumps and reprs (field settings on SSELLM) and dropped from pickles
(:func:`drop_secrets`); every default header value is masked in the core's messages; dumps,
reprs and pickles hold ``base_url`` without user info or query (:func:`public_url`), so
give those again after unpickling or ``from_dict`` (``api_key`` falls back to
``SSE_API_KEY``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from llamaindex_sse._protocols import mapping_of
from sse_core import ClientConfig
from sse_core._choices import refuse_choices
from sse_core._names import refuse_unknown
from sse_core.protocols import check_protocol
from sse_core.protocols.registry import with_not_taken
from sse_core.transport.config import DEFAULT_MAX_CONNECTIONS, ConfigCache, public_url

__all__ = [
    "CONNECTION_FIELDS",
    "ConfigCache",
    "build_config",
    "check_fields",
    "check_settings",
    "config_settings",
    "drop_secrets",
    "public_url",
]

#: The SSELLM fields that are connection settings (``ClientConfig.build`` keywords).
CONNECTION_FIELDS = (
    "base_url",
    "api_key",
    "path",
    "protocol",
    "auth",
    "default_query",
    "default_headers",
    "timeout",
    "max_retries",
    "include_usage",
    "extra_body",
    "max_event_bytes",
    "max_connections",
)
MAX_CONNECTIONS = DEFAULT_MAX_CONNECTIONS
MAX_CONNECTIONS_DOC = "The most streams at once per client (connections); httpx's default: 100."
#: The fields a pickle leaves out: they may hold credentials.
SECRET_FIELDS = frozenset({"api_key", "default_headers", "default_query"})


def config_settings(data: Mapping[str, Any]) -> dict[str, Any]:
    """The :meth:`ClientConfig.build` keywords for the given field values; every default
    header counts as secret (its value is masked in the core's messages)."""
    settings = {name: data[name] for name in CONNECTION_FIELDS if data.get(name) is not None}
    headers = settings.get("default_headers")
    if isinstance(headers, Mapping):
        settings["secret_headers"] = tuple(name for name in headers if isinstance(name, str))
    return settings


def build_config(data: Mapping[str, Any]) -> ClientConfig:
    """The checked configuration for the given field values (environment fallbacks too).

    Raises:
        ConfigurationError: A setting is missing or cannot work; the message names the field.
    """
    return ClientConfig.build(**config_settings(data))


#: OpenAILike's names for settings SSELLM names otherwise, or does not need.
_HINTS = {
    "api_base": "use base_url",
    "is_chat_model": "leave it out: SSELLM is always a chat model",
    "reuse_client": "leave it out: SSELLM pools its connections (close() ends them)",
    "http_async_client": "use async_http_client",
    "request_timeout": "use timeout",
    "api_version": "pass default_query={'api-version': ...}",
    # llama-index's Anthropic LLM
    "thinking": "use thinking_dict, as llama-index's Anthropic LLM names it",
    "cache_idx": "put a CachePoint block, or additional_kwargs={'cache_control': {...}}, "
    "on the message to cache up to",
    "anthropic_api_key": "use api_key (or set SSE_API_KEY, or ANTHROPIC_API_KEY with "
    "protocol='anthropic')",
    "mcp_servers": "send it as a request field: additional_kwargs={'mcp_servers': [...]}",
    # llama-index's OpenAIResponses
    "built_in_tools": "offer them per call: tools=[{'type': 'web_search'}, ...] (dicts are "
    "sent as given) with protocol='responses'",
    "call_metadata": "send it as a request field: additional_kwargs={'metadata': {...}}",
    "max_output_tokens": "use max_tokens (sent as max_output_tokens with protocol='responses', "
    "maxOutputTokens with protocol='gemini')",
    "reasoning_options": "use reasoning_effort, or additional_kwargs={'reasoning': {...}} with "
    "protocol='responses'",
    "track_previous_responses": "send additional_kwargs={'previous_response_id': ..., "
    "'store': True} with protocol='responses'",
    "strict": "pass strict= where tools are offered (chat_with_tools, FunctionTool)",
    "tools": "offer tools per call (chat_with_tools, or tools=... in the call's arguments)",
    **dict.fromkeys(
        ("region", "project_id", "aws_region", "aws_access_key_id", "aws_secret_access_key"),
        "SSELLM speaks HTTP to a gateway, not a cloud SDK: give the Messages endpoint of the "
        "Vertex or Bedrock gateway (or a proxy before it) as base_url, its key as api_key",
    ),
    # llama-index's GoogleGenAI
    "http_options": "give its parts as SSELLM's settings: base_url (the root, as "
    "http_options.base_url), default_headers, timeout",
    "generation_config": "use SSELLM's settings (temperature, max_tokens, reasoning_effort), "
    "or additional_kwargs={'generationConfig': {...}} with protocol='gemini'",
    "built_in_tool": "offer it per call: tools=[{'googleSearch': {}}] (a dict is sent as "
    "given) with protocol='gemini'",
    "file_mode": "leave it out: SSELLM sends a file's bytes inline (inlineData) and a URL as "
    "fileData with protocol='gemini'",
    "debug_config": "leave it out: to record the calls for replay, give "
    "http_client=sse_core.recording_client(DIR)",
    "vertexai_config": "SSELLM speaks HTTP to a gateway, not a cloud SDK: give the Gemini "
    "endpoint of the Vertex AI gateway (or a proxy before it) as base_url, its key as api_key",
}
_OTHERWISE = "request parameters (top_p, seed, ...) go in additional_kwargs"


def check_settings(data: Mapping[str, Any], known: Collection[str] = ()) -> dict[str, Any]:
    """``data`` with the connection settings checked and resolved (environment, key, headers).

    Args:
        data: The keyword arguments.
        known: The names SSELLM takes; any other is refused (pydantic would drop it).

    Raises:
        ConfigurationError: A setting is missing or cannot work, or an argument is unknown;
            the message names it.
    """
    if known:  # class_name: what LlamaIndex's to_dict adds (SSELLM(**llm.to_dict()) works)
        hints = with_not_taken(data.get("protocol"), _HINTS)
        refuse_unknown("SSELLM", data, {*known, "class_name"}, hints, _OTHERWISE)
    config = build_config(data)
    return {
        **data,
        "base_url": config.base_url,
        "api_key": config.api_key,
        "default_headers": dict(config.default_headers),
        "default_query": dict(config.default_query),
    }


def drop_secrets(state: dict[Any, Any]) -> dict[Any, Any]:
    """A pydantic pickle state without the credential fields, and ``base_url`` without user
    info or query (the instance itself is left alone); only fields, so no value a
    ``cached_property`` keeps in the instance dict (no field name starts with ``_``):
    LlamaIndex loads a pickle by passing the dict to ``__init__``, which refuses others."""
    fields = {
        k: v
        for k, v in state["__dict__"].items()
        if k not in SECRET_FIELDS and not k.startswith("_")
    }
    if isinstance(fields.get("base_url"), str):
        fields["base_url"] = public_url(fields["base_url"])
    return {**state, "__dict__": fields}


def check_fields(data: dict[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    """SSELLM's arguments checked: :func:`check_settings`, the protocol (one of the core's
    that SSELLM maps), and ``n`` refused where it is a request parameter set for every call.

    Raises:
        ConfigurationError: A bad setting, a protocol SSELLM does not speak, or ``n`` other
            than 1 in ``additional_kwargs`` or ``extra_body`` (SSELLM shows one answer per
            request).
    """
    data = check_settings(data, fields)
    if "protocol" in data:
        check_protocol(data["protocol"])
        mapping_of(data["protocol"])
    for name in ("additional_kwargs", "extra_body"):
        parameters = data.get(name)
        if isinstance(parameters, Mapping):
            refuse_choices(parameters, f"SSELLM's {name}")
    return data
