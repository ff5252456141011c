"""LlamaIndex messages and call arguments to an Anthropic Messages request body: pure, no I/O.

What a user of llama-index's ``Anthropic`` LLM sends must reach an Anthropic-compatible
gateway the same way (issue #22), so the rules are the Messages API's own:

- system (and developer) messages go to the top-level ``system``: a string for one plain
  text block, else the text blocks (``cache_control`` kept);
- every other message alternates ``user`` / ``assistant``, consecutive messages of one role
  merged into one message of blocks (a text block left empty is not sent: the API refuses
  it);
- user content: text, images (base64 from bytes, a path or a data URL; an http URL as a URL
  source), documents (PDF as base64, plain text as a text source);
- assistant content: ``ThinkingBlock``s passed back byte-exact (a signed one as ``thinking``
  with its ``additional_information["signature"]``, a redacted one as ``redacted_thinking``
  with its ``data``; an unsigned one, which the API would refuse, is left out), text, and
  tool calls (``ToolCallBlock``s, else legacy ``additional_kwargs["tool_calls"]``) as
  ``tool_use`` blocks with the input the tool was called with;
- a tool message (its ``additional_kwargs["tool_call_id"]``) is a ``tool_result`` block in a
  user message, ``is_error`` when ``additional_kwargs["is_error"]`` is true; consecutive
  results share one user message, as parallel calls need;
- a ``CachePoint`` puts ``cache_control`` on the block before it, and a message's
  ``additional_kwargs["cache_control"]`` on its last block (a breakpoint caches everything
  before it).

Tools become ``{"name", "description", "input_schema"}`` (Anthropic-shaped tool dicts, server
tools included, pass as given), ``tool_choice`` Anthropic's ``auto`` / ``any`` / ``none`` /
``{"type": "tool", "name": ...}``, and ``parallel_tool_calls=False``
``disable_parallel_tool_use``. ``stop`` becomes ``stop_sequences``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    CachePoint,
    ChatMessage,
    CitationBlock,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from llamaindex_sse._outbound import Headers, as_message
from llamaindex_sse._tools import parse_arguments, to_call_dict
from sse_core import ConfigurationError

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "anthropic_tool_choice",
    "anthropic_tools",
    "build_anthropic_request",
    "default_max_tokens",
    "to_anthropic_messages",
]

#: ``max_tokens`` when none is set: the protocol requires one; llama-index's Anthropic LLM
#: sends this too.
DEFAULT_MAX_TOKENS = 512

Block = dict[str, Any]
System = str | list[Block] | None

_SYSTEM_ROLES = frozenset({MessageRole.SYSTEM, MessageRole.DEVELOPER})
_TOOL_ROLES = frozenset({MessageRole.TOOL, MessageRole.FUNCTION})
_ASSISTANT_ROLES = frozenset({MessageRole.ASSISTANT, MessageRole.CHATBOT, MessageRole.MODEL})
_CHOICES = {"auto": "auto", "none": "none", "any": "any", "required": "any"}


def to_anthropic_messages(messages: Sequence[ChatMessage]) -> tuple[System, list[Block]]:
    """The ``system`` value and the ``messages`` list of a Messages request.

    Raises:
        ConfigurationError: A block the protocol cannot carry (audio, video), media in an
            assistant turn, or a tool message without its ``tool_call_id``.
        TypeError: A message is neither a ChatMessage nor a mapping of its fields.
    """
    system: list[Block] = []
    turns: list[Block] = []
    for given in messages:
        message = as_message(given)
        if message.role in _SYSTEM_ROLES:
            system.extend(_system_blocks(message))
            continue
        role, blocks = _role_and_blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)  # the API wants the roles to alternate
        else:
            turns.append({"role": role, "content": blocks})
    return _system(system), turns


def _system_blocks(message: ChatMessage) -> list[Block]:
    blocks = _content(message, assistant=False)
    kinds = sorted({str(block["type"]) for block in blocks if block["type"] != "text"})
    if kinds:
        raise ConfigurationError(
            f"a {message.role.value} message can carry text only in an Anthropic Messages "
            f"request, got {', '.join(kinds)}; send images and documents in a user message"
        )
    return blocks


def _system(blocks: list[Block]) -> System:
    if not blocks:
        return None
    if len(blocks) == 1 and set(blocks[0]) == {"type", "text"}:
        return str(blocks[0]["text"])
    return blocks


def _role_and_blocks(message: ChatMessage) -> tuple[str, list[Block]]:
    if message.role in _TOOL_ROLES:
        return "user", [_tool_result(message)]
    if message.role in _ASSISTANT_ROLES:
        return "assistant", _content(message, assistant=True)
    return "user", _content(message, assistant=False)


def _content(message: ChatMessage, *, assistant: bool) -> list[Block]:
    """The blocks of one message, ``cache_control`` placed."""
    blocks: list[Block] = []
    calls: list[Block] = []
    for block in message.blocks:
        if isinstance(block, CachePoint):
            _cache_last(blocks, block.cache_control.model_dump(exclude_none=True))
        elif isinstance(block, ToolCallBlock):
            if assistant:
                calls.append(_tool_use(block, len(calls)))
        else:
            part = _part(block, assistant)
            if part is not None:
                blocks.append(part)
    if assistant:
        blocks.extend(calls or _legacy_calls(message.additional_kwargs))
    cache = message.additional_kwargs.get("cache_control")
    if isinstance(cache, Mapping):
        _cache_last(blocks, dict(cache))
    return blocks


def _cache_last(blocks: list[Block], cache_control: Block) -> None:
    if not blocks:
        raise ConfigurationError("a CachePoint must follow the block it caches, got none")
    blocks[-1]["cache_control"] = cache_control


def _thinking(block: ThinkingBlock) -> Block | None:
    """A thinking block as the model sent it; None for one without a signature (the API
    refuses reasoning it cannot verify)."""
    info = block.additional_information
    if info.get("type") == "redacted_thinking" and isinstance(info.get("data"), str):
        return {"type": "redacted_thinking", "data": info["data"]}
    signature = info.get("signature")
    if not isinstance(signature, str) or not signature:
        return None
    return {"type": "thinking", "thinking": block.content or "", "signature": signature}


def _tool_use(block: ToolCallBlock, position: int) -> Block:
    return {
        "type": "tool_use",
        "id": block.tool_call_id or f"call_{position}",
        "name": block.tool_name,
        "input": parse_arguments(block.tool_kwargs),  # what the tool was called with
    }


def _legacy_calls(kwargs: Mapping[str, Any]) -> list[Block]:
    """Tool calls kept in ``additional_kwargs["tool_calls"]``: OpenAI's or Anthropic's shape."""
    blocks = []
    for at, call in enumerate(kwargs.get("tool_calls") or ()):
        data = to_call_dict(call)
        function = data.get("function")
        if isinstance(function, Mapping):
            name, given = function.get("name"), function.get("arguments")
        else:
            name, given = data.get("name"), data.get("input")
        call_id = data.get("id") or f"call_{at}"
        arguments = parse_arguments(given)
        blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
    return blocks


def _tool_result(message: ChatMessage) -> Block:
    kwargs = message.additional_kwargs
    call_id = kwargs.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ConfigurationError(
            f"a {message.role.value} message needs additional_kwargs['tool_call_id'] "
            "(the id of the tool_use it answers) for an Anthropic Messages request"
        )
    parts = _content(message, assistant=False)
    plain = all(set(part) == {"type", "text"} for part in parts)
    result: Block = {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": "".join(part["text"] for part in parts) if plain else parts,
    }
    if kwargs.get("is_error") is True:
        result["is_error"] = True
    return result


def _part(block: ContentBlock, assistant: bool) -> Block | None:
    """A text, image, document or thinking block; None for what is not sent (empty text,
    citations, thinking outside an assistant turn or without a signature)."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ThinkingBlock):
        return _thinking(block) if assistant else None
    if isinstance(block, CitationBlock):
        return None
    if assistant and isinstance(block, (ImageBlock, DocumentBlock)):
        raise ConfigurationError(
            f"an assistant message cannot carry a {type(block).__name__} in an Anthropic "
            "Messages request; send images and documents in a user message"
        )
    if isinstance(block, ImageBlock):
        return {"type": "image", "source": _image_source(block)}
    if isinstance(block, DocumentBlock):
        return {"type": "document", "source": _document_source(block)}
    raise ConfigurationError(
        f"a {type(block).__name__} cannot be sent in an Anthropic Messages request; "
        "expected text, image, document, tool-call or thinking blocks"
    )


def _image_source(block: ImageBlock) -> Block:
    url = str(block.url) if block.url else ""
    if url.startswith("data:") and ";base64," in url:
        media, _, data = url[5:].partition(";base64,")
        return {"type": "base64", "media_type": media, "data": data}
    if url and block.image is None and block.path is None:
        return {"type": "url", "url": url}  # the gateway fetches it
    data = block.resolve_image(as_base64=True).read().decode("ascii")
    return {"type": "base64", "media_type": block.image_mimetype or "image/png", "data": data}


def _document_source(block: DocumentBlock) -> Block:
    mimetype = block.document_mimetype or block._guess_mimetype() or "application/pdf"
    if mimetype.startswith("text/"):
        text = block.resolve_document().read().decode("utf-8", "replace")
        return {"type": "text", "media_type": "text/plain", "data": text}
    data = block._get_b64_string(block.resolve_document())
    return {"type": "base64", "media_type": mimetype, "data": data}


def anthropic_tools(tools: Sequence[Any]) -> list[Block]:
    """Tools in Anthropic's shape, from OpenAI function tools (what ``chat_with_tools``
    makes), LlamaIndex tools, or Anthropic's own tool dicts (kept as given)."""
    formatted: list[Block] = []
    for tool in tools:
        spec = tool
        metadata = getattr(tool, "metadata", None)
        if callable(getattr(metadata, "to_openai_tool", None)):
            spec = metadata.to_openai_tool(skip_length_check=True)  # type: ignore[union-attr]
        function = spec.get("function") if isinstance(spec, Mapping) else None
        if not isinstance(function, Mapping):
            formatted.append(dict(spec))  # Anthropic's shape, server tools included
            continue
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
        formatted.append(entry)
    return formatted


def anthropic_tool_choice(choice: Any, parallel: bool | None) -> Block | None:
    """``tool_choice`` in Anthropic's shape: ``"auto"``, ``"any"`` (also ``"required"``),
    ``"none"``, a tool's name, OpenAI's function choice, or Anthropic's own dict.

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
    elif isinstance(choice, str) and choice:
        kind = _CHOICES.get(choice)
        result = {"type": kind} if kind else {"type": "tool", "name": choice}
    else:
        raise ConfigurationError(f"tool_choice must name a choice or a tool, got {choice!r}")
    if parallel is False and result.get("type") != "none":
        result["disable_parallel_tool_use"] = True
    return result


def default_max_tokens(thinking: object) -> int:
    """``max_tokens`` when none is set: :data:`DEFAULT_MAX_TOKENS` for the answer, after the
    thinking budget when thinking is on (the API wants ``max_tokens`` above the budget)."""
    budget = thinking.get("budget_tokens") if isinstance(thinking, Mapping) else None
    if type(budget) is int and budget > 0:
        return budget + DEFAULT_MAX_TOKENS
    return DEFAULT_MAX_TOKENS


def build_anthropic_request(
    model: str,
    messages: Sequence[ChatMessage],
    *,
    settings: Mapping[str, Any],
    call_kwargs: Mapping[str, Any],
) -> tuple[dict[str, Any], Headers]:
    """The Messages request body of one call, and its per-call headers.

    Args:
        model: The model name.
        messages: The conversation.
        settings: The model's own parameters (``max_tokens``, ``temperature``, ``stop``,
            ``thinking``, then ``additional_kwargs``), in order; None values are left out.
        call_kwargs: The call's keyword arguments: request parameters (None values left
            out, later ones win), except ``extra_headers``, the headers of this call.

    Raises:
        ConfigurationError: A message, tool or tool choice the protocol cannot carry.
    """
    system, turns = to_anthropic_messages(messages)
    body: dict[str, Any] = {"model": model}
    for source in (settings, call_kwargs):
        for key, value in source.items():
            if value is not None and key != "extra_headers":
                body[_NAMES.get(key, key)] = value
    if "max_tokens" not in body:
        body["max_tokens"] = default_max_tokens(body.get("thinking"))
    if system is not None:
        body["system"] = system
    body["messages"] = turns
    if body.get("tools"):
        body["tools"] = anthropic_tools(body["tools"])
    parallel = body.pop("parallel_tool_calls", None)
    choice = anthropic_tool_choice(body.pop("tool_choice", None), parallel)
    if choice is not None:
        body["tool_choice"] = choice
    if isinstance(body.get("stop_sequences"), str):
        body["stop_sequences"] = [body["stop_sequences"]]
    return body, call_kwargs.get("extra_headers")


#: Chat-completions names of parameters the Messages API names otherwise.
_NAMES = {"stop": "stop_sequences", "thinking_dict": "thinking"}
