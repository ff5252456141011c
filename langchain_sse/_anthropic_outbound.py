"""LangChain messages to an Anthropic Messages request body: the pure outbound mapping.

What a user of ``ChatAnthropic`` sends must reach an Anthropic-compatible gateway the same
way (issue #22), so the rules here are the Messages API's own:

- system messages go to the top-level ``system`` (a string, or text blocks where one carries
  ``cache_control``); every other message alternates ``user`` / ``assistant``, consecutive
  messages of one role merged into one message of blocks;
- user content: text, images (LangChain's standard blocks, v0 and v1 shapes, and OpenAI's
  ``image_url`` with a data or http URL) as base64 or URL image sources; Anthropic-shaped
  blocks (``image``, ``document`` with a ``source``) pass through;
- assistant content: text, and thinking with its signature and redacted thinking passed back
  byte-exact (the API checks them on the next turn); tool calls as ``tool_use`` blocks with
  their parsed input; a ``tool_use`` block already in the content is not sent twice;
- a ``ToolMessage`` is a ``tool_result`` block in a user message (``is_error`` from its
  ``status``), consecutive results in one message, as parallel calls need;
- ``cache_control`` on any block is kept as given.

Tools become ``{"name", "description", "input_schema"}`` and ``tool_choice`` Anthropic's
``auto`` / ``any`` / ``none`` / ``{"type": "tool", "name": ...}``, with
``disable_parallel_tool_use`` for ``parallel_tool_calls=False``.

Reasoning goes back as the model sent it: ChatSSE keeps a signed answer's blocks in
``additional_kwargs["reasoning_blocks"]`` (Anthropic's own ``thinking`` /
``redacted_thinking`` dicts); ChatAnthropic's messages hold them in ``content`` (with a
stream's ``index``, which is dropped); v1 content holds ``reasoning`` blocks with the
signature in ``extras`` and redacted ones as ``non_standard``. Unsigned reasoning is not
sent: the API would refuse it.

:func:`anthropic_outbound` builds a call's whole request from these: ``max_tokens`` (a
default: the protocol requires it), ``system``, ``messages``, ``stop_sequences``,
``temperature``, ``thinking``, then ``model_kwargs`` (``top_k``, ``top_p``, ``metadata``),
the call's kwargs, tools and choice in either shape, ``disabled_params``, ``extra_body``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_sse._outbound import Outbound, check_query, drop_disabled, pop_call_options

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "NO_RESPONSE_FORMAT",
    "anthropic_outbound",
    "anthropic_tool_choice",
    "convert_anthropic_messages",
    "format_anthropic_tools",
]

Block = dict[str, Any]
#: Why a ``response_format`` is refused on this protocol.
NO_RESPONSE_FORMAT = (
    "response_format is not part of the Anthropic Messages API: use "
    "with_structured_output(schema) (a forced tool call) instead"
)
#: ``max_tokens`` when the model sets none (the protocol requires one; ChatAnthropic's).
DEFAULT_MAX_TOKENS = 1024
#: Blocks a model produced that never go back as content (tool calls go as ``tool_use``).
_NOT_SENT = frozenset(
    {"tool_call", "tool_call_chunk", "invalid_tool_call", "server_tool_call_chunk", "refusal"}
)
#: Reasoning blocks (in any of their shapes), sent back only from where they are kept whole.
_REASONING = frozenset({"reasoning", "thinking", "redacted_thinking"})


def _image(block: Mapping[str, Any]) -> Block | None:
    """An image block in Anthropic's shape, from LangChain's (v0 or v1) or OpenAI's; None if
    ``block`` is no image."""
    kind = block.get("type")
    if kind == "image_url":
        found = block.get("image_url")
        url = found.get("url") if isinstance(found, Mapping) else found
        return _image_from_url(str(url or ""))
    if kind != "image" or "source" in block:
        return None
    if block.get("source_type") == "base64" or "base64" in block:
        data = block.get("base64") or block.get("data")
        media = block.get("mime_type") or "image/png"
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    if block.get("source_type") == "url" or "url" in block:
        return _image_from_url(str(block.get("url") or ""))
    return None


def _image_from_url(url: str) -> Block:
    if url.startswith("data:") and ";base64," in url:
        media, _, data = url[5:].partition(";base64,")
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _document(block: Mapping[str, Any]) -> Block | None:
    """A ``document`` block (PDF or text) from LangChain's file blocks (v0, v1) or OpenAI's
    ``file`` part; None if ``block`` is none of those."""
    kind = block.get("type")
    if kind == "text-plain" and "text" in block:
        source: Block = {"type": "text", "media_type": "text/plain", "data": block["text"]}
        return {"type": "document", "source": source}
    if kind != "file":
        return None
    found = block.get("file")
    if isinstance(found, Mapping):  # OpenAI's part: a data URL
        url = str(found.get("file_data") or "")
        media, _, data = url[5:].partition(";base64,") if url.startswith("data:") else ("", "", "")
        if not data:
            return None
        source = {"type": "base64", "media_type": media, "data": data}
    elif block.get("source_type") == "base64" or "base64" in block:
        media = block.get("mime_type") or "application/pdf"
        source = {
            "type": "base64",
            "media_type": media,
            "data": block.get("base64") or block.get("data"),
        }
    elif block.get("source_type") == "url" or "url" in block:
        source = {"type": "url", "url": block.get("url")}
    else:
        return None
    return {"type": "document", "source": source}


def _user_blocks(content: str | list[Any]) -> list[Block]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[Block] = []
    for part in content:
        if isinstance(part, str):
            blocks.append({"type": "text", "text": part})
            continue
        if not isinstance(part, Mapping):
            raise ValueError(f"a message content part must be a str or a dict, not {part!r}")
        made = _image(part) or _document(part)
        if made is not None:
            if "cache_control" in part:
                made["cache_control"] = part["cache_control"]
            blocks.append(made)
        elif part.get("type") not in _NOT_SENT:
            blocks.append(dict(part))
    return blocks


def _reasoning_block(part: Mapping[str, Any]) -> Block | None:
    """A reasoning block of the content as the API takes it back; None if it cannot be
    (unsigned)."""
    kind = part.get("type")
    if kind == "reasoning":  # v1: the signature in extras
        extras = part.get("extras")
        signature = extras.get("signature") if isinstance(extras, Mapping) else None
        if not signature:
            return None
        return {"type": "thinking", "thinking": part.get("reasoning", ""), "signature": signature}
    if kind == "thinking" and not part.get("signature"):
        return None
    return {k: v for k, v in part.items() if k != "index"}


def _assistant_block(part: str | Mapping[str, Any]) -> Block | None:
    """One assistant content part as it goes back; None for what is not sent."""
    if isinstance(part, str):
        return {"type": "text", "text": part} if part else None
    kind = part.get("type")
    if kind == "text":  # without the stream's bookkeeping (index, id)
        text = {k: v for k, v in part.items() if k not in ("index", "id")}
        return text if part.get("text") else None
    if kind in _REASONING:
        return _reasoning_block(part)
    if kind == "non_standard":  # v1: a block LangChain has no type for (redacted thinking)
        value = part.get("value")
        return dict(value) if isinstance(value, Mapping) else None
    if kind in _NOT_SENT:
        return None
    return {k: v for k, v in part.items() if k != "index"}  # tool_use; others as given


def _kept_reasoning(message: AIMessage) -> list[Block]:
    """The reasoning blocks ChatSSE kept whole, byte-exact."""
    kept = message.additional_kwargs.get("reasoning_blocks")
    if not isinstance(kept, list):
        return []
    return [dict(block) for block in kept if isinstance(block, Mapping)]


def _assistant_blocks(message: AIMessage) -> list[Block]:
    content = message.content
    parts = [content] if isinstance(content, str) else content
    blocks = [block for part in parts if (block := _assistant_block(part)) is not None]
    kept = _kept_reasoning(message)
    if kept:  # first, as the model sent them; not twice
        blocks = kept + [b for b in blocks if b.get("type") not in _REASONING]
    used = {str(block.get("id")) for block in blocks if block.get("type") == "tool_use"}
    blocks.extend(
        {"type": "tool_use", "id": call.get("id"), "name": call["name"], "input": call["args"]}
        for call in message.tool_calls
        if str(call.get("id")) not in used
    )
    return blocks


def _tool_result(message: ToolMessage) -> Block:
    content = message.content
    result: Block = {
        "type": "tool_result",
        "tool_use_id": message.tool_call_id,
        "content": content if isinstance(content, str) else _user_blocks(content),
    }
    if message.status == "error":
        result["is_error"] = True
    return result


def _system_blocks(messages: Sequence[SystemMessage]) -> str | list[Block] | None:
    """The top-level ``system``: one string, or text blocks where any block asks for more
    (``cache_control``)."""
    blocks = [block for message in messages for block in _user_blocks(message.content)]
    if not blocks:
        return None
    if all(set(block) == {"type", "text"} and block["type"] == "text" for block in blocks):
        return "\n\n".join(block["text"] for block in blocks)
    return blocks


def _role_and_blocks(message: BaseMessage) -> tuple[str, list[Block]]:
    if isinstance(message, AIMessage):
        return "assistant", _assistant_blocks(message)
    if isinstance(message, ToolMessage):
        return "user", [_tool_result(message)]
    if isinstance(message, HumanMessage):
        return "user", _user_blocks(message.content)
    if isinstance(message, ChatMessage) and message.role in ("user", "assistant"):
        return message.role, _user_blocks(message.content)
    raise ValueError(
        f"{type(message).__name__} cannot be sent in an Anthropic Messages request "
        "(system, human, AI and tool messages can)"
    )


def convert_anthropic_messages(
    messages: Sequence[BaseMessage],
) -> tuple[str | list[Block] | None, list[dict[str, Any]]]:
    """The ``system`` value and the ``messages`` list of a Messages request.

    Raises:
        ValueError: For a message type or content part the protocol cannot carry.
    """
    system = [m for m in messages if isinstance(m, SystemMessage)]
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            continue
        role, blocks = _role_and_blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)  # the API wants the roles to alternate
        else:
            out.append({"role": role, "content": blocks})
    return _system_blocks(system), out


def format_anthropic_tools(tools: Sequence[Any]) -> list[Block]:
    """Tools in Anthropic's shape, from anything ``convert_to_openai_tool`` takes or from
    Anthropic's own tool dicts (kept as given, ``cache_control`` included)."""
    formatted: list[Block] = []
    for tool in tools:
        if isinstance(tool, Mapping) and "input_schema" in tool:
            formatted.append(dict(tool))
            continue
        function = convert_to_openai_tool(tool)["function"]
        entry: Block = {
            "name": function["name"],
            "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
        }
        if function.get("description"):
            entry["description"] = function["description"]
        if isinstance(tool, Mapping) and "cache_control" in tool:
            entry["cache_control"] = tool["cache_control"]
        formatted.append(entry)
    return formatted


def anthropic_tool_choice(
    choice: str | bool | Mapping[str, Any] | None, parallel_tool_calls: bool | None = None
) -> Block | None:
    """``tool_choice`` in Anthropic's shape: ``"auto"``, ``"any"`` (also ``"required"`` and
    True), ``"none"``, a tool's name, or a dict (Anthropic's, or OpenAI's function choice).

    Raises:
        ValueError: For a value that names no choice.
    """
    result: Block
    if choice is None:
        if parallel_tool_calls is not False:
            return None
        result = {"type": "auto"}
    elif isinstance(choice, Mapping):
        if choice.get("type") == "function":
            result = {"type": "tool", "name": choice["function"]["name"]}
        else:
            result = dict(choice)
    elif choice is True or choice in ("any", "required"):
        result = {"type": "any"}
    elif choice in ("auto", "none"):
        result = {"type": choice}
    elif isinstance(choice, str) and choice:
        result = {"type": "tool", "name": choice}
    else:
        raise ValueError(f"tool_choice {choice!r} names no choice")
    if parallel_tool_calls is False and result["type"] != "none":
        result["disable_parallel_tool_use"] = True
    return result


def _tools_and_choice(payload: dict[str, Any]) -> None:
    """Bound tools and ``tool_choice`` in Anthropic's shape, whichever shape they came in
    (``bind_tools`` gives Anthropic's; an agent may pass OpenAI's); ``parallel_tool_calls``
    folded into the choice. Without tools, no choice is sent."""
    parallel = payload.pop("parallel_tool_calls", None)
    tools = payload.get("tools")
    if not tools:
        payload.pop("tools", None)
        payload.pop("tool_choice", None)
        return
    payload["tools"] = format_anthropic_tools(tools)
    choice = payload.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") in ("auto", "any", "none", "tool"):
        if parallel is False and choice["type"] != "none":
            payload["tool_choice"] = {**choice, "disable_parallel_tool_use": True}
        return
    made = anthropic_tool_choice(choice, parallel)
    if made is None:
        payload.pop("tool_choice", None)
    else:
        payload["tool_choice"] = made


def _default_max_tokens(thinking: Mapping[str, Any] | None) -> int:
    """:data:`DEFAULT_MAX_TOKENS`, past a thinking budget (the API wants ``max_tokens``
    above ``budget_tokens``, the answer's room beside the reasoning)."""
    budget = thinking.get("budget_tokens") if thinking else None
    if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0:
        return budget + DEFAULT_MAX_TOKENS
    return DEFAULT_MAX_TOKENS


def anthropic_outbound(
    model: ChatSSE, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The Messages request of one call of ``model`` (pops what is not a request field from
    ``kwargs``, as :func:`~langchain_sse._outbound.build_outbound` does).

    Raises:
        ValueError: For a message the protocol cannot carry, an ``extra_query`` that is not
            a mapping of names to strings, or a ``response_format`` (no such field).
    """
    options = pop_call_options(kwargs)
    system, converted = convert_anthropic_messages(messages)
    payload: dict[str, Any] = {
        "model": model.model_name,
        "max_tokens": model.max_tokens or _default_max_tokens(model.thinking),
        "messages": converted,
    }
    settings = {
        "system": system,
        "stop_sequences": stop if stop is not None else model.stop,
        "temperature": model.temperature,
        "thinking": model.thinking,
    }
    payload.update((key, value) for key, value in settings.items() if value not in (None, []))
    payload.update(model.model_kwargs)
    payload.update(kwargs)
    if "response_format" in payload:
        raise ValueError(NO_RESPONSE_FORMAT)
    _tools_and_choice(payload)
    if options["strict"] is not None and payload.get("tools"):
        payload["tools"] = [{"strict": options["strict"], **tool} for tool in payload["tools"]]
    drop_disabled(payload, model.disabled_params)
    call_body = options["extra_body"]
    if call_body:
        payload.update({**(model.extra_body or {}), **call_body})
    return Outbound(
        payload=payload,
        headers=options["extra_headers"],
        whole_body=bool(call_body),
        timeout=options["timeout"],
        query=check_query(options["extra_query"]),
    )
