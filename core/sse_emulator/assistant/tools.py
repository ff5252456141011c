"""Which tools the assistant calls, and with what arguments.

A tool is called when tools are offered, ``tool_choice`` is not ``"none"``, the last
message is the user's, and either ``tool_choice`` forces it or the user names it: a
tool is named when its full name, or a keyword of its name (``get_weather`` ->
``weather``), appears in the message. Several calls are made when the user names
several tools, or names one tool and several values ("weather in Paris and Tokyo"),
unless ``parallel_tool_calls`` is false.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sse_emulator.assistant.extract import Values, extract, keywords
from sse_emulator.assistant.reply import PlannedCall
from sse_emulator.assistant.schema_fill import TEXT_HINTS, SchemaFiller
from sse_emulator.assistant.tokens import argument_pieces


def plan_tool_calls(body: dict[str, Any], text: str, digest: str) -> tuple[PlannedCall, ...]:
    """Decide the tool calls for a request whose last message is the user's.

    Args:
        body: The request body (``tools``, ``tool_choice``, ``parallel_tool_calls``).
        text: The last user message's text.
        digest: The request digest, from which call ids are derived.

    Returns:
        The calls in index order; empty when no tool is called.
    """
    tools = _functions(body.get("tools"))
    choice = body.get("tool_choice", "auto")
    if not tools or choice == "none":
        return ()
    every_keyword = {word for name in tools for word in keywords(name)}
    values = extract(text, exclude=every_keyword)
    forced = _forced_name(choice)
    if forced is not None:
        chosen = [forced] if forced in tools else []
        return _build(tools, [(name, values) for name in chosen], text, digest)
    named = _named_tools(tools, text)
    if not named and choice == "required":
        named = [next(iter(tools))]
    plan = _spread(tools, named, values)
    if body.get("parallel_tool_calls") is False:
        plan = plan[:1]
    return _build(tools, plan, text, digest)


def _functions(tools: Any) -> dict[str, dict[str, Any]]:
    """Map each offered function's name to its parameters schema."""
    found: dict[str, dict[str, Any]] = {}
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            found[function["name"]] = parameters if isinstance(parameters, dict) else {}
    return found


def _forced_name(choice: Any) -> str | None:
    """The function name a ``tool_choice`` object forces, if it forces one."""
    if not isinstance(choice, dict):
        return None
    function = choice.get("function")
    name = function.get("name") if isinstance(function, dict) else choice.get("name")
    return name if isinstance(name, str) else None


def _named_tools(tools: dict[str, dict[str, Any]], text: str) -> list[str]:
    """The tools the message names, in the order the message names them."""
    lowered = text.lower()
    words = [w.rstrip("s") for w in extract(lowered).words]
    positions: dict[str, int] = {}
    for name in tools:
        if name.lower() in lowered:
            positions[name] = lowered.index(name.lower())
            continue
        hits = [lowered.find(word) for word in words if word in _stems(keywords(name))]
        if hits:
            positions[name] = min(hits)
    return sorted(positions, key=positions.__getitem__)


def _stems(words: frozenset[str]) -> set[str]:
    """Words without a plural ``s``, so "flight" names ``search_flights``."""
    return {word.rstrip("s") for word in words}


def _spread(
    tools: dict[str, dict[str, Any]], named: list[str], values: Values
) -> list[tuple[str, Values]]:
    """Pair each call with the values it is filled from.

    Several named tools take one name each, in order; one named tool with a name-like
    parameter and several names gets one call per name.
    """
    if len(named) > 1:
        return [(tool, _one_name(values, i)) for i, tool in enumerate(named)]
    if len(named) == 1 and len(values.names) > 1 and _takes_a_name(tools[named[0]]):
        return [(named[0], _one_name(values, i)) for i in range(len(values.names))]
    return [(tool, values) for tool in named]


def _one_name(values: Values, i: int) -> Values:
    """A copy of ``values`` holding only its ``i``-th name."""
    names = values.names[i : i + 1]
    return Values(text=values.text, names=names, numbers=values.numbers, words=values.words)


def _takes_a_name(parameters: dict[str, Any]) -> bool:
    """Whether a schema has a plain string property that is not free text."""
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return False
    return any(
        isinstance(sub, dict)
        and sub.get("type") == "string"
        and "enum" not in sub
        and key.lower() not in TEXT_HINTS
        for key, sub in properties.items()
    )


def _build(
    tools: dict[str, dict[str, Any]], plan: list[tuple[str, Values]], text: str, digest: str
) -> tuple[PlannedCall, ...]:
    """Fill each planned call's arguments and give it a stable id."""
    calls = []
    for index, (name, values) in enumerate(plan):
        schema = tools[name]
        arguments = SchemaFiller(values, schema, text=text).fill(schema) if schema else {}
        encoded = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
        call_hash = hashlib.sha256(f"{digest}:{index}".encode()).hexdigest()
        calls.append(
            PlannedCall(
                id=f"call_{call_hash[:24]}",
                name=name,
                arguments=encoded,
                pieces=argument_pieces(encoded),
            )
        )
    return tuple(calls)
