"""A Responses request from the core's turns (:mod:`sse_core.protocols.turns`): the
instructions, the input items, what of an earlier answer goes back, tools and their choice,
structured output, and the body (:func:`responses_body`), checked by
:func:`.rules.check_request`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic_core import to_json

from sse_core.errors import ConfigurationError
from sse_core.protocols.history import settle, warn_left_out
from sse_core.protocols.responses.earlier import CONTENT_TYPES, followed, taken
from sse_core.protocols.responses.rules import check_request, reasoning_model, taken_effort
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
    "ENCRYPTED_REASONING",
    "input_items",
    "responses_body",
    "text_format",
    "tool",
    "tool_choice",
    "tools",
]

Item = dict[str, Any]

#: The ``include`` value that asks for reasoning items' ``encrypted_content``.
ENCRYPTED_REASONING = "reasoning.encrypted_content"
_CHOICES = {"auto": "auto", "none": "none", "required": "required", "any": "required"}


def tool(spec: Mapping[str, Any]) -> Item:
    """One tool in the API's flat shape: from an OpenAI chat function tool
    (``{"type": "function", "function": {...}}``) ``{"type": "function", "name",
    "description", "parameters", "strict"}``, ``strict`` false unless the tool says (the
    Responses API makes an omitted ``strict`` strict where it can, chat completions do not:
    OpenAI's "Function calling" guide); any other tool dict (flat function tools,
    ``web_search``, ``file_search``, MCP, ...) as given."""
    function = spec.get("function")
    if spec.get("type") != "function" or not isinstance(function, Mapping):
        return dict(spec)
    entry: Item = {
        "type": "function",
        "name": function["name"],
        "parameters": function.get("parameters") or {"type": "object", "properties": {}},
        "strict": bool(function.get("strict", False)),
    }
    if function.get("description"):
        entry["description"] = function["description"]
    return entry


def tools(specs: Iterable[Mapping[str, Any]]) -> list[Item]:
    """Each of ``specs`` in the API's shape (:func:`tool`)."""
    return [tool(spec) for spec in specs]


def tool_choice(choice: object) -> str | Item | None:
    """``tool_choice`` in the API's shape: ``"auto"``, ``"none"``, ``"required"`` (also
    ``"any"`` and True), a function's name or OpenAI's chat function choice (``{"type":
    "function", "name": ...}``), or the API's own dict as given. None: none is sent.

    Raises:
        ConfigurationError: A value that names no choice.
    """
    if choice is None:
        return None
    if choice is True:
        return "required"
    if isinstance(choice, str) and choice:
        return _CHOICES.get(choice) or {"type": "function", "name": choice}
    if isinstance(choice, Mapping):
        function = choice.get("function")
        if choice.get("type") == "function" and isinstance(function, Mapping):
            return {"type": "function", "name": function.get("name")}
        return dict(choice)
    raise ConfigurationError(f"tool_choice must name a choice or a tool, got {choice!r}")


def text_format(response_format: object) -> Item | None:
    """OpenAI's chat ``response_format`` as the Responses API's ``text.format``:
    ``json_schema`` -> ``{"type": "json_schema", "name", "schema", "strict",
    "description"}``; ``json_object`` and ``text`` as they are; a format already in the
    Responses shape as given. None: none."""
    if response_format is None:
        return None
    if not isinstance(response_format, Mapping):
        raise ConfigurationError(
            f"response_format must be an object (json_schema, json_object or text), got "
            f"{response_format!r}"
        )
    spec = response_format.get("json_schema")
    if response_format.get("type") != "json_schema" or not isinstance(spec, Mapping):
        return dict(response_format)
    made: Item = {"type": "json_schema", "name": spec.get("name") or "response"}
    made["schema"] = spec.get("schema") or {}
    for field in ("strict", "description"):
        if spec.get(field) is not None:
            made[field] = spec[field]
    return made


def input_items(
    turns: Sequence[Turn], *, store: bool = False, continued: bool = False
) -> tuple[str | None, list[Item]]:
    """The ``instructions`` and the ``input`` items of a request.

    A leading system turn of text is ``instructions``; a later one (or one that is not text
    alone) is a ``developer`` message where it stands. User turns are ``input_text`` /
    ``input_image`` / ``input_file`` messages; an assistant turn is, in its order, its
    reasoning items (sent byte-exact when they carry ``encrypted_content``, or by id with
    ``store``; never when ``continued`` by ``previous_response_id``), an ``output_text``
    message, and ``function_call`` items; tool results are ``function_call_output`` items.

    Raises:
        ConfigurationError: A part the protocol cannot carry where it stands.
    """
    instructions: str | None = None
    items: list[Item] = []
    for at, turn in enumerate(turns):
        if turn.role == "system" and at == 0 and turn.parts:
            text = _plain_text(turn.parts)
            if text is not None:
                instructions = text
                continue
        role = "developer" if turn.role == "system" else turn.role
        _turn_items(role, turn.parts, items, store=store, continued=continued)
    return instructions, items


def _plain_text(parts: Sequence[Part]) -> str | None:
    if all(isinstance(part, TextPart) for part in parts):
        return "\n\n".join(part.text for part in parts if isinstance(part, TextPart))
    return None


def _turn_items(
    role: str, parts: Sequence[Part], items: list[Item], *, store: bool, continued: bool
) -> None:
    content: list[Item] = []  # the message being filled

    def flush() -> None:
        if content:
            items.append({"type": "message", "role": _message_role(role), "content": list(content)})
            content.clear()

    for part in parts:
        if isinstance(part, ToolUsePart):
            flush()
            items.append(_call(part))
        elif isinstance(part, ToolResultPart):
            flush()
            items.append(_output(part))
        elif isinstance(part, ReasoningPart):
            flush()
            if part.item is not None and _sent_back(part.item, store=store, continued=continued):
                items.append(dict(part.item))
        elif isinstance(part, RawPart) and part.block.get("type") not in CONTENT_TYPES:
            flush()
            items.append(dict(part.block))
        else:
            piece = _content(part, role)
            if piece is not None:
                content.append(piece)
    flush()


def _message_role(role: str) -> str:
    return "user" if role == "tool" else role


def _sent_back(item: Mapping[str, Any], *, store: bool, continued: bool) -> bool:
    """Whether a reasoning item goes back (the rules: :mod:`.rules`)."""
    if continued:
        return False  # the stored conversation holds it
    return bool(item.get("encrypted_content")) or store


def _call(part: ToolUsePart) -> Item:
    arguments = part.input if isinstance(part.input, str) else to_json(part.input).decode()
    return {"type": "function_call", "call_id": part.id, "name": part.name, "arguments": arguments}


def _output(part: ToolResultPart) -> Item:
    output: str | list[Item]
    if isinstance(part.content, str):
        output = part.content
    else:
        output = [piece for inner in part.content if (piece := _content(inner, "user")) is not None]
    return {"type": "function_call_output", "call_id": part.call_id, "output": output}


def _content(part: Part, role: str) -> Item | None:
    """One part as a content part of a ``role`` message; None for an empty text."""
    if isinstance(part, TextPart):
        if not part.text:
            return None
        if role == "assistant":
            return {"type": "output_text", "text": part.text, "annotations": []}
        return {"type": "input_text", "text": part.text}
    if isinstance(part, RawPart):
        return dict(part.block)
    if role == "assistant":
        raise ConfigurationError(
            f"an assistant message cannot carry a {type(part).__name__} in a Responses "
            "request; send images and files in a user message"
        )
    if isinstance(part, ImagePart):
        url = part.url or f"data:{part.media_type or 'image/png'};base64,{part.data}"
        return {"type": "input_image", "image_url": url, "detail": part.detail or "auto"}
    if isinstance(part, DocumentPart):
        return _file(part)
    raise ConfigurationError(f"a {type(part).__name__} cannot be sent in a {role} message")


def _file(part: DocumentPart) -> Item:
    if part.text is not None:
        return {"type": "input_text", "text": part.text}
    if part.url:
        return {"type": "input_file", "file_url": part.url}
    media = part.media_type or "application/pdf"
    name = part.filename or ("document.pdf" if media == "application/pdf" else "document")
    return {"type": "input_file", "filename": name, "file_data": f"data:{media};base64,{part.data}"}


def responses_body(model: str, turns: Sequence[Turn], params: Mapping[str, Any]) -> dict[str, Any]:
    """A whole request body (without ``stream``, which the transport sets).

    Args:
        model: The model's name.
        turns: The conversation (only the new turns when ``previous_response_id`` continues a
            stored one).
        params: The request's settings (None values are not sent): ``max_output_tokens``
            (or chat's ``max_tokens`` / ``max_completion_tokens``), ``temperature``,
            ``top_p``, ``reasoning`` and chat's ``reasoning_effort``, ``tools`` (either
            shape) and ``tool_choice``, ``parallel_tool_calls``, ``response_format``
            (becomes ``text.format``) or ``text``, ``store`` (default False),
            ``previous_response_id``, ``include``, ``metadata``, ``user``,
            ``service_tier``, and any other field of the API, sent as given.

    With ``store`` false (the default: stateless, nothing kept by OpenAI), a request that
    reasons (``reasoning`` set, or a reasoning model) asks for
    ``include: ["reasoning.encrypted_content"]`` so its reasoning can go back on the next
    turn (not for other models: the API refuses it with "Encrypted content is not supported
    with this model", pydantic/pydantic-ai#2865).

    Raises:
        ConfigurationError: A setting the API does not take (``stop`` is not sent, with a
            UserWarning, as agents pass it; ``seed`` and the other
            :data:`~.rules.NOT_TAKEN`, named), a rule of :mod:`.rules` broken, a turn the
            protocol cannot carry, or a tool choice that names none.
    """
    given = {k: v for k, v in params.items() if v is not None}
    _no_stop(given)
    taken_effort(model, given)
    body: dict[str, Any] = {"model": model}
    store = bool(given.pop("store", False))
    continued = bool(given.get("previous_response_id"))
    kept, lost = settle(turns)
    instructions, items = input_items(taken(kept, lost), store=store, continued=continued)
    items = followed(items, lost)
    if instructions is not None and "instructions" in given:
        # The caller's own instructions win the field; the conversation's stay, as the
        # developer message they would be anywhere else (never dropped).
        items = [_developer(instructions), *items]
    elif instructions is not None:
        body["instructions"] = instructions
    body["input"] = items
    _limits(given)
    _reasoning(given)
    _text(given)
    _tools_and_choice(given)
    body.update(given)
    body["store"] = store
    _include(body, store)
    check_request(body)
    warn_left_out("Responses API", lost)
    return body


def _no_stop(given: dict[str, Any]) -> None:
    """Stop sequences, which the API does not take (it refuses the field), are not sent, with
    a warning: a framework or agent that passes them keeps working, as it does with
    langchain-openai's Responses client (which drops them unsaid)."""
    for name in ("stop", "stop_sequences"):
        if given.pop(name, None):
            warnings.warn(
                f"{name} is not sent: the Responses API has no stop sequences (stop on the "
                "text yourself, or use protocol='chat_completions')",
                UserWarning,
                stacklevel=4,
            )


def _developer(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": text}],
    }


def _limits(given: dict[str, Any]) -> None:
    """Chat's ``max_tokens`` / ``max_completion_tokens`` as ``max_output_tokens``."""
    for name in ("max_completion_tokens", "max_tokens"):
        value = given.pop(name, None)
        if value is not None and "max_output_tokens" not in given:
            given["max_output_tokens"] = value


def _reasoning(given: dict[str, Any]) -> None:
    """Chat's ``reasoning_effort`` as ``reasoning.effort`` (a ``reasoning`` given wins)."""
    effort = given.pop("reasoning_effort", None)
    if effort is None:
        return
    reasoning = given.get("reasoning")
    merged = dict(reasoning) if isinstance(reasoning, Mapping) else {}
    merged.setdefault("effort", effort)
    given["reasoning"] = merged


def _text(given: dict[str, Any]) -> None:
    made = text_format(given.pop("response_format", None))
    if made is not None:
        text = given.get("text")
        given["text"] = {**(dict(text) if isinstance(text, Mapping) else {}), "format": made}


def _tools_and_choice(given: dict[str, Any]) -> None:
    """Tools and the choice in the API's shape; without tools, no choice."""
    listed = given.pop("tools", None)
    choice = given.pop("tool_choice", None)
    if not listed:
        given.pop("parallel_tool_calls", None)
        return
    given["tools"] = tools(listed)
    made = tool_choice(choice)
    if made is not None:
        given["tool_choice"] = made


def _include(body: dict[str, Any], store: bool) -> None:
    include = body.get("include")
    listed = list(include) if isinstance(include, (list, tuple)) else []
    reasons = body.get("reasoning") is not None or reasoning_model(body.get("model"))
    if not store and reasons and ENCRYPTED_REASONING not in listed:
        body["include"] = [*listed, ENCRYPTED_REASONING]
    elif isinstance(include, tuple):
        body["include"] = listed
