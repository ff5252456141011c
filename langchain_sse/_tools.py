"""Tools for ``bind_tools`` in the OpenAI chat-completions shape.

Tool schemas by ``convert_to_openai_tool``, ``tool_choice`` normalised the way ChatOpenAI
does it (``"any"``/``True`` -> ``"required"``, a name -> a function choice), and
``response_format`` as a ``json_schema`` object. Each protocol binds its own way
(:mod:`._protocols`); this is chat completions' (:func:`bind_chat_tools`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import (
    convert_to_openai_function,
    convert_to_openai_tool,
)

if TYPE_CHECKING:
    pass

__all__ = [
    "ToolLike",
    "bind_chat_tools",
    "build_response_format",
    "format_tools",
    "list_tool_names",
    "normalize_tool_choice",
]

ToolLike = Mapping[str, Any] | type | Callable[..., Any] | BaseTool
_CHOICE_WORDS = frozenset({"auto", "none", "required"})
_RESPONSE_FORMAT_TYPES = frozenset({"json_schema", "json_object", "text"})


def format_tools(tools: Sequence[ToolLike], *, strict: bool | None) -> list[dict[str, Any]]:
    """OpenAI tool definitions for anything ``convert_to_openai_tool`` accepts."""
    return [convert_to_openai_tool(tool, strict=strict) for tool in tools]


def list_tool_names(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    """The function names of formatted tools."""
    return [tool["function"]["name"] for tool in tools if "function" in tool]


def normalize_tool_choice(choice: object, names: Sequence[str]) -> str | dict[str, Any] | None:
    """The ``tool_choice`` to send.

    Args:
        choice: ``"auto"``, ``"none"``, ``"required"``, ``"any"``, ``True``, a tool name,
            a dict (sent as is), or None/False (not sent).
        names: The names of the bound tools.

    Raises:
        ValueError: For a name that is not a bound tool, or a value of another type.
    """
    if choice is None or choice is False:
        return None
    if choice is True or choice == "any":
        return "required"
    if isinstance(choice, str):
        if choice in _CHOICE_WORDS:
            return choice
        if choice in names:
            return {"type": "function", "function": {"name": choice}}
        raise ValueError(
            f"tool_choice {choice!r} is not one of the bound tools {list(names)} and not "
            "'auto', 'none', 'required' or 'any'"
        )
    if isinstance(choice, dict):
        return choice
    raise ValueError(f"tool_choice must be a str, bool or dict, got {type(choice).__name__}")


def build_response_format(
    schema: Mapping[str, Any] | type, *, strict: bool | None
) -> dict[str, Any]:
    """A ``response_format`` of type ``json_schema`` for a schema (Pydantic, TypedDict, dict).

    A dict already in the OpenAI ``response_format`` shape is returned as given.
    """
    if isinstance(schema, Mapping) and schema.get("type") in _RESPONSE_FORMAT_TYPES:
        return dict(schema)
    function = convert_to_openai_function(schema, strict=strict)
    spec: dict[str, Any] = {"name": function["name"], "schema": function["parameters"]}
    if function.get("description"):
        spec["description"] = function["description"]
    if strict is not None:
        spec["strict"] = strict
    return {"type": "json_schema", "json_schema": spec}


def bind_chat_tools(
    tools: Sequence[ToolLike],
    tool_choice: Any,
    strict: bool | None,
    parallel_tool_calls: bool | None,
    response_format: Any,
    kwargs: dict[str, Any],
) -> list[dict[str, Any]]:
    """``bind_tools`` on chat completions: OpenAI tools, the choice as ChatOpenAI sends it,
    ``response_format`` as a JSON schema, ``parallel_tool_calls`` as given (into
    ``kwargs``)."""
    formatted = format_tools(tools, strict=strict)
    choice = normalize_tool_choice(tool_choice, list_tool_names(formatted))
    if response_format is not None:
        kwargs["response_format"] = build_response_format(response_format, strict=strict)
    if choice is not None:
        kwargs["tool_choice"] = choice
    if parallel_tool_calls is not None:
        kwargs["parallel_tool_calls"] = parallel_tool_calls
    return formatted
