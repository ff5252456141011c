"""The LangChain cache key of a ChatSSE call: everything that shapes the request, no secret.

LangChain caches an answer under the prompt and a string naming the model and the call
(``_get_llm_string``). For a model it cannot serialize (ChatSSE keeps its secrets out of
dumps) that string is built from the invocation params, which name neither ``model_kwargs``
nor ``extra_body``: two models that differ only there (one with thinking switched on) got
each other's answers, and a persistent cache (SQLite, Redis) serves them across processes.

The key here is built from the request itself, as :mod:`._outbound` builds it for the call:

- the URL without user info or query, then each query parameter by name with its values
  digested (a query may hold a key, and may select a deployment);
- every body field but the messages (the prompt is the cache's other half): the model's
  settings, bound tools, ``tool_choice``, ``response_format`` and other call kwargs as
  they are; ``model_kwargs`` and ``extra_body`` values as SHA-256 digests, since ChatSSE
  keeps those out of traces too (a gateway may take a credential in the body);
- every header sent (the model's and the call's) by name; a header that routes or selects a
  tenant (``X-Tenant``, ``X-Route``) with its value digested, so two tenants never share an
  answer; a credential header (``api-key``, ``Authorization``, a name with key, token,
  secret, auth, password, signature or cookie in it) by name alone;
- whether usage is asked for, and what shapes the stored message: ``output_version``,
  ``reasoning_passback``, the response headers kept.

No key, credential, header value, user info or query value is ever in it as such; equal
configurations give equal keys, so cache hits still happen.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from langchain_sse._custom_events import LINK_KEY
from langchain_sse._outbound import Outbound
from langchain_sse._protocols import model_request
from sse_core.transport.config import public_url

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = ["build_cache_key", "digest", "model_cache_key"]


def digest(value: Any) -> str:
    """A stable digest of a JSON-like value (the same in every process)."""
    text = json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _query(url: str, query: Mapping[str, Any] | None) -> dict[str, str]:
    """Each query parameter (the URL's, then the model's) by name, its values digested."""
    found: dict[str, list[Any]] = {}
    for name, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        found.setdefault(name, []).append(value)
    for name, value in (query or {}).items():
        found.setdefault(name, []).append(value)
    return {name: digest(values) for name, values in found.items()}


#: Header names that carry a credential: in the key by name alone (different keys for one
#: deployment give the same answers, and a digest of a weak secret could be guessed).
_CREDENTIAL = re.compile(r"(?i)key|token|secret|auth|passw|signature|cookie|credential")


def _headers(headers: Mapping[str, Any]) -> dict[str, str]:
    """Each header by lower-cased name: a credential's name alone, any other's value digested."""
    found: dict[str, str] = {}
    for name, value in headers.items():
        lower = str(name).lower()
        found[lower] = "" if _CREDENTIAL.search(lower) else digest(str(value))
    return found


def build_cache_key(
    outbound: Outbound,
    *,
    base_url: str,
    path: str,
    query: Mapping[str, Any] | None,
    headers: Mapping[str, Any],
    hidden: Iterable[str],
    extra_body: Mapping[str, Any] | None,
    shape: Mapping[str, Any],
) -> str:
    """The cache key of one call.

    Args:
        outbound: The call's request, as it would be sent.
        base_url: The model's ``base_url``, user info and query included (user info is
            left out here, the query digested).
        path: The model's ``path``.
        query: Query parameters the model adds besides the URL's, if any.
        headers: Every header the model and the call add (the call's win).
        hidden: Body fields whose values are digested (``model_kwargs``' and
            ``extra_body``'s keys).
        extra_body: The model's ``extra_body``, merged into the body as the transport does.
        shape: The settings that shape the stored answer, as plain values.
    """
    body = {key: value for key, value in outbound.payload.items() if key != "messages"}
    if not outbound.whole_body:
        body.update(extra_body or {})
    hidden = set(hidden)
    fields = {key: digest(value) if key in hidden else value for key, value in body.items()}
    key = {
        "url": public_url(base_url) + path,
        "query": _query(base_url, query),
        "headers": _headers(headers),
        "body": fields,
        **shape,
    }
    return json.dumps(key, sort_keys=True, default=repr, ensure_ascii=False)


def model_cache_key(model: ChatSSE, stop: list[str] | None, kwargs: dict[str, Any]) -> str:
    """The cache key of a call of ``model`` (its ``_get_llm_string``)."""
    kwargs.pop(LINK_KEY, None)  # differs per call: it would defeat the cache
    call_headers = kwargs.get("extra_headers") or {}
    call_body = kwargs.get("extra_body") or {}
    outbound = model_request(model, [], stop, kwargs)
    include_usage = outbound.include_usage
    return build_cache_key(
        outbound,
        base_url=model.base_url or "",
        path=model._resolve_config().path,
        query={**(model.default_query or {}), **(outbound.query or {})},
        headers={**(model.default_headers or {}), **call_headers},
        hidden=[*model.model_kwargs, *(model.extra_body or {}), *call_body],
        extra_body=model.extra_body,
        shape={
            "_type": model._llm_type,
            "usage": model.stream_usage if include_usage is None else include_usage,
            "output_version": model.output_version,
            "reasoning_passback": model.reasoning_passback,
            "response_headers": sorted(model.response_headers),
        },
    )
