"""A Messages request from the core's turns (:mod:`sse_core.protocols.turns`): the system
prompt, alternating roles, content blocks, what of an earlier answer goes back, tools and their
choice, and the body (:func:`messages_body`), checked by :func:`.rules.check_request`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sse_core.errors import ConfigurationError
from sse_core.protocols.anthropic.rules import check_request, default_max_tokens
from sse_core.protocols.anthropic.structured import NO_JSON_MODE, output_format
from sse_core.protocols.history import reasoning_name, settle, signed, warn_left_out
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

__all__ = ["NO_RESPONSE_FORMAT", "messages", "messages_body", "tool", "tool_choice", "tools"]

Block = dict[str, Any]
System = str | list[Block] | None

#: Why OpenAI's JSON mode is refused on this protocol (a schema is sent natively).
NO_RESPONSE_FORMAT = NO_JSON_MODE
#: ``tool_choice`` strings and what the API calls them.
_CHOICES = {"auto": "auto", "none": "none", "any": "any", "required": "any"}
#: What the API does when no ``tool_choice`` is sent.
_DEFAULT_CHOICE = {"type": "auto"}
#: Settings the API names otherwise.
_NAMES = {"stop": "stop_sequences"}
#: The content block types the API takes (anthropic-python's ``ContentBlockParam``): a block
#: of another type an earlier answer holds (another protocol's output item) is left out.
BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
    }
)


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
        ConfigurationError: A value that names no choice, or a forced ``tool`` without its
            name.
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
    if result.get("type") == "tool" and not isinstance(result.get("name"), str):
        raise ConfigurationError(
            f"tool_choice {result!r} forces a tool but names none (the API refuses it: "
            "'tool_choice.tool.name: Field required'); give the tool's name"
        )
    if parallel is False and result.get("type") != "none":
        result["disable_parallel_tool_use"] = True
    return result


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
        # The API takes an object only ("Input should be a valid dictionary"): arguments a
        # model gave that were no JSON object go back as none (the call's result says so).
        given = part.input if isinstance(part.input, Mapping) else {}
        block = {"type": "tool_use", "id": part.id, "name": part.name, "input": given}
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
        ConfigurationError: JSON mode (``response_format`` ``json_object``: the API has
            none; a ``json_schema`` one is sent as ``output_config.format``, see
            :mod:`.structured`), a turn the protocol cannot carry, or a
            tool choice that names none.
    """
    kept, lost = settle(turns)
    system, turned = messages(_taken(kept, lost))
    body: dict[str, Any] = {"model": model}
    body.update((_NAMES.get(k, k), v) for k, v in params.items() if v is not None)
    _structured(body)
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
    warn_left_out("Anthropic Messages", lost)
    return body


def _taken(turns: Sequence[Turn], lost: list[str]) -> list[Turn]:
    """An earlier answer as Messages takes it back: another protocol's reasoning (a Responses
    reasoning item) and output items (a type Messages has no block for) are left out, and
    named in ``lost`` (:mod:`sse_core.protocols.history`)."""
    taken: list[Turn] = []
    for turn in turns:
        if turn.role != "assistant":
            taken.append(turn)
            continue
        parts: list[Part] = []
        for part in turn.parts:
            if isinstance(part, ReasoningPart) and part.item is not None:
                lost += [reasoning_name(part)] if signed(part) else []
            elif isinstance(part, RawPart) and part.block.get("type") not in BLOCK_TYPES:
                lost.append(f"a {part.block.get('type')!r} block, which Messages has no type for")
            else:
                parts.append(part)
        taken.append(Turn(role=turn.role, parts=tuple(parts)))
    return taken


def _structured(body: dict[str, Any]) -> None:
    """OpenAI's ``response_format``, the API's earlier ``output_format`` and the caller's own
    ``output_config.format`` as ``output_config.format``, its schema in the subset the API
    takes (every object closed: the API refuses an open one)."""
    config = body.get("output_config")
    given = body.pop("output_format", None)
    if isinstance(config, Mapping) and config.get("format") is not None:
        given = config["format"]
    response_format = body.pop("response_format", None)
    made = output_format(response_format) if response_format is not None else None
    if made is None and given is not None:
        made = output_format(given) if isinstance(given, Mapping) else given
    if made is not None:
        body["output_config"] = {**(config or {}), "format": made}


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
    if made is not None and made != _DEFAULT_CHOICE:  # the API's default is not sent
        body["tool_choice"] = made
