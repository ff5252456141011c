"""Anthropic Messages (``/v1/messages``): its stream, its request, and the API's request rules.

- Stream: ``message_start``, ``content_block_*``, ``message_delta``, ``message_stop``,
  ``ping``, ``error`` (:class:`~sse_core.MessagesDecoder`).
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
  ``response_format`` does not exist (structured output is a forced tool call).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sse_core.errors import ConfigurationError
from sse_core.pipeline.anthropic_events import MessagesDecoder
from sse_core.protocols.registry import (
    RequestShape,
    WireProtocol,
    plain_body,
    register_protocol,
)
from sse_core.protocols.turns import (
    DocumentPart,
    ImagePart,
    Part,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)

__all__ = [
    "ANTHROPIC",
    "ANTHROPIC_VERSION",
    "DEFAULT_MAX_TOKENS",
    "MAX_CACHE_BREAKPOINTS",
    "MIN_THINKING_BUDGET",
    "NO_RESPONSE_FORMAT",
    "check_request",
    "default_max_tokens",
    "forced_tools",
    "messages",
    "messages_body",
    "thinking_on",
    "tool",
    "tool_choice",
    "tools",
]

Block = dict[str, Any]
System = str | list[Block] | None

#: The ``anthropic-version`` sent by default (``default_headers`` may replace it).
ANTHROPIC_VERSION = "2023-06-01"
#: ``max_tokens`` when none is set (the protocol requires one; ChatAnthropic's default).
DEFAULT_MAX_TOKENS = 1024
#: Why a ``response_format`` is refused on this protocol.
NO_RESPONSE_FORMAT = (
    "response_format is not part of the Anthropic Messages API: ask for structured output "
    "with a schema (a forced tool call) instead"
)
#: The smallest ``thinking.budget_tokens`` the API takes (extended-thinking docs).
MIN_THINKING_BUDGET = 1024
#: The most blocks with ``cache_control`` in one request (prompt-caching docs).
MAX_CACHE_BREAKPOINTS = 4
#: The thinking types that turn thinking on.
_THINKING_ON = frozenset({"enabled", "adaptive"})
#: ``tool_choice`` strings and what the API calls them.
_CHOICES = {"auto": "auto", "none": "none", "any": "any", "required": "any"}
#: Settings the API names otherwise.
_NAMES = {"stop": "stop_sequences"}


def thinking_on(thinking: object) -> bool:
    """Whether ``thinking`` turns thinking on (``enabled`` or ``adaptive``)."""
    return isinstance(thinking, Mapping) and thinking.get("type") in _THINKING_ON


def forced_tools(thinking: Mapping[str, Any] | None) -> bool:
    """Whether a forced tool choice may be sent: not with thinking on (the API refuses it)."""
    return not thinking_on(thinking)


def default_max_tokens(thinking: Mapping[str, Any] | None) -> int:
    """:data:`DEFAULT_MAX_TOKENS`, after the thinking budget when thinking is on."""
    budget = thinking.get("budget_tokens") if isinstance(thinking, Mapping) else None
    if type(budget) is int and budget > 0:
        return budget + DEFAULT_MAX_TOKENS
    return DEFAULT_MAX_TOKENS


# --- tools ---


def tool(spec: Mapping[str, Any]) -> Block:
    """One tool in the API's shape: from an OpenAI function tool (``{"type": "function",
    "function": {...}}``, its ``strict`` and a top-level ``cache_control`` kept), else
    Anthropic's own tool dict (server tools included) as given."""
    function = spec.get("function")
    if not isinstance(function, Mapping):
        return dict(spec)
    entry: Block = {
        "name": function["name"],
        "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
    }
    if function.get("description"):
        entry["description"] = function["description"]
    if function.get("strict") is not None:
        entry["strict"] = function["strict"]
    if "cache_control" in spec:
        entry["cache_control"] = spec["cache_control"]
    return entry


def tools(specs: Iterable[Mapping[str, Any]]) -> list[Block]:
    """Each of ``specs`` in the API's shape (:func:`tool`)."""
    return [tool(spec) for spec in specs]


def tool_choice(choice: object, parallel: bool | None = None) -> Block | None:
    """``tool_choice`` in the API's shape: ``"auto"``, ``"any"`` (also ``"required"`` and
    True), ``"none"``, a tool's name, OpenAI's function choice, or Anthropic's own dict;
    ``parallel=False`` adds ``disable_parallel_tool_use`` (a choice of ``auto`` when none was
    given). None: no choice is sent.

    Raises:
        ConfigurationError: A value that names no choice.
    """
    result: Block
    if choice is None:
        if parallel is not False:
            return None
        result = {"type": "auto"}
    elif isinstance(choice, Mapping):
        function = choice.get("function")
        if choice.get("type") == "function" and isinstance(function, Mapping):
            result = {"type": "tool", "name": function.get("name")}
        else:
            result = dict(choice)
    elif choice is True:
        result = {"type": "any"}
    elif isinstance(choice, str) and choice:
        kind = _CHOICES.get(choice)
        result = {"type": kind} if kind else {"type": "tool", "name": choice}
    else:
        raise ConfigurationError(f"tool_choice must name a choice or a tool, got {choice!r}")
    if parallel is False and result.get("type") != "none":
        result["disable_parallel_tool_use"] = True
    return result


# --- messages ---


def messages(turns: Sequence[Turn]) -> tuple[System, list[Block]]:
    """The ``system`` value and the ``messages`` list of a request.

    Raises:
        ConfigurationError: A system turn with other than text, or media in an assistant
            turn.
    """
    system: list[Block] = []
    out: list[Block] = []
    for turn in turns:
        if turn.role == "system":
            system.extend(_system_block(part) for part in turn.parts if _sent(part))
            continue
        role = "assistant" if turn.role == "assistant" else "user"
        blocks = _blocks(turn)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)  # the API wants the roles to alternate
        else:
            out.append({"role": role, "content": blocks})
    if not system:
        return None, out
    if len(system) == 1 and set(system[0]) == {"type", "text"}:
        return str(system[0]["text"]), out
    return system, out


def _sent(part: Part) -> bool:
    return not (isinstance(part, TextPart) and not part.text)


def _system_block(part: Part) -> Block:
    if isinstance(part, TextPart):
        return _text(part)
    if isinstance(part, RawPart) and part.block.get("type") == "text":
        return dict(part.block)
    raise ConfigurationError(
        f"a system message can carry text only in an Anthropic Messages request, got a "
        f"{type(part).__name__}; send images and documents in a user message"
    )


def _blocks(turn: Turn) -> list[Block]:
    """A turn's blocks; an assistant's reasoning first, as the model sent it."""
    assistant = turn.role == "assistant"
    blocks: list[Block] = []
    for part in turn.parts:
        if assistant and isinstance(part, (ImagePart, DocumentPart)):
            raise ConfigurationError(
                f"an assistant message cannot carry a {type(part).__name__} in an Anthropic "
                "Messages request; send images and documents in a user message"
            )
        block = _block(part)
        if block is not None:
            blocks.append(block)
    return blocks


def _block(part: Part) -> Block | None:
    """One part as a content block; None for what is not sent (an empty text, unsigned
    reasoning)."""
    block: Block | None
    if isinstance(part, TextPart):
        block = _text(part) if part.text else None
    elif isinstance(part, ReasoningPart):
        block = _reasoning(part)
    elif isinstance(part, ToolUsePart):
        block = {"type": "tool_use", "id": part.id, "name": part.name, "input": part.input}
        block = _cached(block, part.cache_control)
    elif isinstance(part, ToolResultPart):
        block = _tool_result(part)
    elif isinstance(part, ImagePart):
        block = _cached({"type": "image", "source": _image_source(part)}, part.cache_control)
    elif isinstance(part, DocumentPart):
        block = _cached({"type": "document", "source": _document_source(part)}, part.cache_control)
    else:
        block = dict(part.block)
    return block


def _cached(block: Block, cache_control: Mapping[str, Any] | None) -> Block:
    if cache_control is not None:
        block["cache_control"] = dict(cache_control)
    return block


def _text(part: TextPart) -> Block:
    return _cached({"type": "text", "text": part.text}, part.cache_control)


def _reasoning(part: ReasoningPart) -> Block | None:
    if part.redacted:
        return {"type": "redacted_thinking", "data": part.redacted}
    if not part.signature:
        return None  # the API refuses reasoning it cannot verify
    return {"type": "thinking", "thinking": part.text, "signature": part.signature}


def _tool_result(part: ToolResultPart) -> Block:
    content: str | list[Block]
    if isinstance(part.content, str):
        content = part.content
    else:
        content = [block for inner in part.content if (block := _block(inner)) is not None]
    result: Block = {"type": "tool_result", "tool_use_id": part.call_id, "content": content}
    if part.is_error:
        result["is_error"] = True
    return _cached(result, part.cache_control)


def _image_source(part: ImagePart) -> Block:
    if part.url.startswith("data:") and ";base64," in part.url:
        media, _, data = part.url[5:].partition(";base64,")
        return {"type": "base64", "media_type": media, "data": data}
    if part.url:
        return {"type": "url", "url": part.url}  # the gateway fetches it
    return {"type": "base64", "media_type": part.media_type or "image/png", "data": part.data}


def _document_source(part: DocumentPart) -> Block:
    if part.text is not None:
        return {"type": "text", "media_type": "text/plain", "data": part.text}
    if part.url:
        return {"type": "url", "url": part.url}
    media = part.media_type or "application/pdf"
    return {"type": "base64", "media_type": media, "data": part.data}


# --- the body ---


def messages_body(model: str, turns: Sequence[Turn], params: Mapping[str, Any]) -> dict[str, Any]:
    """A whole request body (without ``stream``, which the transport sets).

    Args:
        model: The model's name.
        turns: The conversation.
        params: The request's settings and fields, merged in the adapter's order (None values
            are not sent): ``max_tokens``, ``temperature``, ``stop`` or ``stop_sequences``,
            ``thinking``, ``reasoning_effort``, ``tools`` and ``tool_choice`` (either shape),
            ``parallel_tool_calls``, and any field of the API (``top_k``, ``metadata``, ...),
            sent as given.

    Raises:
        ConfigurationError: A ``response_format``, a turn the protocol cannot carry, or a
            tool choice that names none.
    """
    system, turned = messages(turns)
    body: dict[str, Any] = {"model": model}
    body.update((_NAMES.get(k, k), v) for k, v in params.items() if v is not None)
    if "response_format" in body:
        raise ConfigurationError(NO_RESPONSE_FORMAT)
    if "max_tokens" not in body:
        body["max_tokens"] = default_max_tokens(body.get("thinking"))
    if system is not None:
        body["system"] = system
    body["messages"] = turned
    effort = body.pop("reasoning_effort", None)
    if effort is not None:
        body["output_config"] = {**body.get("output_config", {}), "effort": effort}
    if isinstance(body.get("stop_sequences"), str):
        body["stop_sequences"] = [body["stop_sequences"]]
    _tools_and_choice(body)
    check_request(body)
    return body


def check_request(body: dict[str, Any]) -> None:
    """Make ``body`` one the API accepts, or refuse it: with thinking on, a forced tool choice
    becomes ``auto`` and a ``temperature`` other than 1, a ``top_k`` or a ``top_p`` below
    0.95 are not sent (each with a warning: the API refuses them, and llama-index's Anthropic
    LLM and langchain-anthropic do the same); what cannot be mended is refused.

    Raises:
        ConfigurationError: A thinking budget below :data:`MIN_THINKING_BUDGET`
            or not below ``max_tokens``; a tool result that answers no tool call of the
            message before it; more than :data:`MAX_CACHE_BREAKPOINTS` ``cache_control``
            blocks.
    """
    thinking = body.get("thinking")
    if isinstance(thinking, Mapping) and thinking_on(thinking):
        _check_thinking(body, thinking)
    _check_tool_results(body["messages"])
    _check_cache_breakpoints(body)


def _adjusted(what: str) -> None:
    warnings.warn(
        f"{what}: the Anthropic Messages API refuses it with thinking on (set thinking to "
        "None to send it)",
        UserWarning,
        stacklevel=4,
    )


def _check_thinking(body: dict[str, Any], thinking: Mapping[str, Any]) -> None:
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") in ("any", "tool"):
        _adjusted(f"tool_choice {dict(choice)!r} is sent as 'auto' (a tool call is not sure)")
        body["tool_choice"] = {**{k: v for k, v in choice.items() if k != "name"}, "type": "auto"}
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        _adjusted(f"temperature {temperature!r} is not sent")
        del body["temperature"]
    if "top_k" in body:
        _adjusted(f"top_k {body.pop('top_k')!r} is not sent")
    top_p = body.get("top_p")
    if top_p is not None and not (isinstance(top_p, (int, float)) and 0.95 <= top_p <= 1):
        _adjusted(f"top_p {body.pop('top_p')!r} is not sent (it may be 0.95 to 1)")
    budget = thinking.get("budget_tokens")
    if thinking.get("type") != "enabled" or budget is None:
        return
    if type(budget) is not int or budget < MIN_THINKING_BUDGET:
        raise ConfigurationError(
            f"thinking.budget_tokens must be an integer of at least {MIN_THINKING_BUDGET}, "
            f"got {budget!r}"
        )
    max_tokens = body.get("max_tokens")
    if type(max_tokens) is int and max_tokens <= budget:
        raise ConfigurationError(
            f"max_tokens ({max_tokens}) must be above thinking.budget_tokens ({budget}): "
            "raise max_tokens, or leave it unset to send the budget plus "
            f"{DEFAULT_MAX_TOKENS}"
        )


def _check_tool_results(turns: Sequence[Mapping[str, Any]]) -> None:
    """Each tool result answers a tool call of the message right before it."""
    for at, turn in enumerate(turns):
        content = turn.get("content")
        if turn.get("role") != "user" or not isinstance(content, list):
            continue
        answered = [
            block.get("tool_use_id")
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "tool_result"
        ]
        if not answered:
            continue
        before = turns[at - 1].get("content") if at else None
        called = {
            block.get("id")
            for block in (before if isinstance(before, list) else ())
            if isinstance(block, Mapping) and block.get("type") in ("tool_use", "server_tool_use")
        }
        missing = [call_id for call_id in answered if call_id not in called]
        if missing:
            raise ConfigurationError(
                f"a tool result answers tool call {missing[0]!r}, which the assistant "
                "message before it does not make: send the AI message with its tool calls "
                "before their results"
            )


def _cache_count(blocks: object) -> int:
    """The blocks of ``blocks`` (a list) with ``cache_control``, a tool result's too."""
    if not isinstance(blocks, list):
        return 0
    return sum(
        (block.get("cache_control") is not None) + _cache_count(block.get("content"))
        for block in blocks
        if isinstance(block, Mapping)
    )


def _check_cache_breakpoints(body: Mapping[str, Any]) -> None:
    found = _cache_count(body.get("system")) + _cache_count(body.get("tools"))
    found += _cache_count(body.get("messages"))
    if found > MAX_CACHE_BREAKPOINTS:
        raise ConfigurationError(
            f"at most {MAX_CACHE_BREAKPOINTS} blocks may carry cache_control in an Anthropic "
            f"Messages request, got {found}"
        )


def _tools_and_choice(body: dict[str, Any]) -> None:
    """Tools and the choice in the API's shape; without tools, neither (the API refuses a
    choice without tools)."""
    parallel = body.pop("parallel_tool_calls", None)
    given = body.pop("tools", None)
    choice = body.pop("tool_choice", None)
    if not given:
        return
    body["tools"] = tools(given)
    made = tool_choice(choice, parallel)
    if made is not None:
        body["tool_choice"] = made


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
    )
)
