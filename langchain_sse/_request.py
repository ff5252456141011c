"""What ChatSSE sends, and the legacy ``llm_output`` it reports (pure helpers, no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

from langchain_sse._messages import to_openai_messages

__all__ = ["build_payload", "combine_llm_outputs", "llm_output", "public_url"]

#: Request keys that only make sense with tools, dropped when the tool list is empty.
_TOOL_KEYS = ("tools", "tool_choice", "parallel_tool_calls")
#: Call kwargs LangChain passes along that are not request fields.
_NOT_PAYLOAD = ("stream", "ls_structured_output_format", "structured_output_format")
#: ``llm_output`` keys taken from the final ``response_metadata``.
_LLM_OUTPUT_KEYS = ("token_usage", "model_name", "id", "system_fingerprint")


def build_payload(
    messages: Sequence[BaseMessage],
    *,
    model: str,
    settings: Mapping[str, Any],
    model_kwargs: Mapping[str, Any],
    call_kwargs: dict[str, Any],
    disabled_params: Mapping[str, Any] | None,
    reasoning_passback: bool,
) -> tuple[dict[str, Any], dict[str, str] | None]:
    """The request body, and the extra headers of this call (``extra_headers``).

    Precedence, lowest first: ``model`` and ``settings`` (None and ``[]`` are not sent),
    ``model_kwargs``, the call's kwargs (bound tools, ``response_format``, overrides).
    Tool fields are dropped with an empty tool list; ``disabled_params`` last.
    """
    for key in _NOT_PAYLOAD:
        call_kwargs.pop(key, None)
    headers: dict[str, str] | None = call_kwargs.pop("extra_headers", None)
    payload: dict[str, Any] = {
        "model": model,
        "messages": to_openai_messages(messages, reasoning_passback=reasoning_passback),
    }
    payload.update((key, value) for key, value in settings.items() if value not in (None, []))
    payload.update(model_kwargs)
    payload.update(call_kwargs)
    if not payload.get("tools"):
        for key in _TOOL_KEYS:
            payload.pop(key, None)
    for key, values in (disabled_params or {}).items():
        if key in payload and (values is None or payload[key] in values):
            del payload[key]
    return payload, headers


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment (they can hold credentials)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def llm_output(result: ChatResult) -> ChatResult:
    """Fill ``llm_output`` (legacy callers read ``token_usage`` and ``model_name`` there)."""
    meta = result.generations[0].message.response_metadata
    result.llm_output = {key: meta[key] for key in _LLM_OUTPUT_KEYS if key in meta}
    return result


def combine_llm_outputs(outputs: Sequence[dict[str, Any] | None], model: str) -> dict[str, Any]:
    """One ``llm_output`` for a ``generate`` batch: token counts summed."""
    usage: dict[str, int] = {}
    combined: dict[str, Any] = {"model_name": model}
    for output in filter(None, outputs):
        for key, value in (output.get("token_usage") or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                usage[key] = usage.get(key, 0) + value
        combined["model_name"] = output.get("model_name", combined["model_name"])
        if "system_fingerprint" in output:
            combined.setdefault("system_fingerprint", output["system_fingerprint"])
    combined["token_usage"] = usage
    return combined
