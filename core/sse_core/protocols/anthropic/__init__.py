"""Anthropic Messages (``/v1/messages``): its stream, its request, and the API's request rules.

- Stream: ``message_start``, ``content_block_*``, ``message_delta``, ``message_stop``,
  ``ping``, ``error`` (:class:`~sse_core.pipeline.MessagesDecoder`).
- Request: ``POST {base_url}/v1/messages`` (``/messages`` when ``base_url`` already ends in
  ``/v1``, so the roots that Anthropic-compatible gateways document, ``https://api.anthropic.com``
  or ``http://localhost:4000``, and their ``/v1`` forms both work), with ``x-api-key`` and
  ``anthropic-version``; the body is the payload with ``stream`` (the API refuses fields it
  does not know, so OpenAI's ``stream_options`` is never added).

The rules a request follows, for both adapters (:func:`messages_body`):

- ``max_tokens`` is required: :data:`DEFAULT_MAX_TOKENS` when none is set, after the
  thinking budget when thinking is on (the API wants ``max_tokens`` above ``budget_tokens``);
- the system prompt is the top-level ``system``: a string for one plain text, else text
  blocks (``cache_control`` kept); it carries text only;
- the other turns alternate ``user`` / ``assistant``: consecutive turns of one role merge
  into one message of blocks; tool results are ``tool_result`` blocks of a user turn; an
  empty text is not sent (the API refuses it), nor a turn left with no block;
- an earlier answer goes back as it came: reasoning with its signature (``thinking``) or its
  data (``redacted_thinking``) byte-exact, before its text and tool calls; unsigned
  reasoning is not sent (the API refuses reasoning it cannot verify);
- tools are ``{"name", "description", "input_schema"}`` (from OpenAI function tools;
  Anthropic's own tool dicts, server tools included, as given); ``tool_choice`` is
  ``auto`` / ``any`` / ``none`` / ``{"type": "tool", "name": ...}``, with
  ``disable_parallel_tool_use`` for ``parallel_tool_calls=False``; without tools, no choice;
- ``stop`` is ``stop_sequences`` (a list); ``reasoning_effort`` is ``output_config.effort``;
  OpenAI's ``response_format`` with a JSON schema is ``output_config.format``, the API's
  native structured output, its schema rewritten into the subset the API takes
  (:mod:`.structured`; works with thinking on); JSON mode (``json_object``) is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.errors import ConfigurationError
from sse_core.pipeline.anthropic_events import MessagesDecoder
from sse_core.protocols.anthropic.answer import MESSAGE, message
from sse_core.protocols.anthropic.prompt import read_prompt
from sse_core.protocols.anthropic.request import (
    NO_RESPONSE_FORMAT,
    messages,
    messages_body,
    tool,
    tool_choice,
    tools,
)
from sse_core.protocols.anthropic.rules import (
    DEFAULT_MAX_TOKENS,
    MAX_CACHE_BREAKPOINTS,
    MIN_THINKING_BUDGET,
    check_request,
    default_max_tokens,
    forced_tools,
    thinking_on,
)
from sse_core.protocols.anthropic.structured import (
    NO_JSON_MODE,
    STRING_FORMATS,
    output_format,
    strict_schema,
)
from sse_core.protocols.registry import (
    RequestShape,
    WireProtocol,
    plain_body,
    register_protocol,
)

__all__ = [
    "ANTHROPIC",
    "ANTHROPIC_VERSION",
    "DEFAULT_MAX_TOKENS",
    "MAX_CACHE_BREAKPOINTS",
    "MESSAGE",
    "MIN_THINKING_BUDGET",
    "NO_JSON_MODE",
    "NO_RESPONSE_FORMAT",
    "STRING_FORMATS",
    "check_request",
    "default_max_tokens",
    "forced_tools",
    "message",
    "messages",
    "messages_body",
    "output_format",
    "strict_schema",
    "thinking_on",
    "tool",
    "tool_choice",
    "tools",
]

#: The ``anthropic-version`` sent by default (``default_headers`` may replace it).
ANTHROPIC_VERSION = "2023-06-01"


def _request_body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """The body as sent (:func:`~sse_core.protocols.registry.plain_body`); a request with no
    message is refused before it is sent, as the API refuses it.

    Raises:
        ConfigurationError: ``messages`` is missing or empty.
    """
    body = plain_body(payload, extra_body, streaming=streaming, include_usage=include_usage)
    if not body.get("messages"):
        raise ConfigurationError(
            "an Anthropic Messages request needs at least one message, got none"
        )
    return body


def _messages_path(base_url: str) -> str:
    """``/messages`` after a base URL whose path ends in ``/v1``, else ``/v1/messages``."""
    rest = base_url.partition("://")[2] or base_url
    path = rest[rest.find("/") :] if "/" in rest else ""
    return "/messages" if path.split("?")[0].split("#")[0].endswith("/v1") else "/v1/messages"


ANTHROPIC = register_protocol(
    WireProtocol(
        name="anthropic",
        decoder=MessagesDecoder,
        api="Messages API (/v1/messages)",
        ends="a stop_reason and without message_stop",
        request=RequestShape(
            path=_messages_path,
            auth="x-api-key",
            headers={"anthropic-version": ANTHROPIC_VERSION},
            body=_request_body,
        ),
        default_max_tokens=default_max_tokens,
        forced_tools=forced_tools,
        key_env=("ANTHROPIC_API_KEY",),
        turns_body=messages_body,
        settings=("thinking",),
        sends_reasoning_back=True,
        answer=MESSAGE,
        provider="anthropic",
        prompt=read_prompt,
    )
)
