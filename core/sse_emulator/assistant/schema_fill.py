"""Build a JSON value that validates against a JSON schema, from a message's values.

Used for tool arguments and for ``response_format`` answers. Every object gets all of
its properties (so ``strict`` schemas with ``additionalProperties: false`` pass),
``$ref`` into ``$defs``/``definitions`` is followed (pydantic emits those), ``anyOf``
and ``oneOf`` take their first non-null branch, and scalar values come from the
message: names for strings, numbers for numbers, matching words for enums.
"""

from __future__ import annotations

from typing import Any

from sse_emulator.assistant.extract import Values

#: Property names whose value is free text: they get the whole message (or answer).
TEXT_HINTS = frozenset(
    [
        "query",
        "q",
        "text",
        "question",
        "prompt",
        "message",
        "content",
        "answer",
        "summary",
        "description",
        "reason",
        "input",
        "body",
        "note",
        "comment",
        "explanation",
        "response",
        "reply",
    ]
)
_FORMATS = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T00:00:00Z",
    "time": "00:00:00",
    "email": "user@example.com",
    "uri": "https://example.com",
    "url": "https://example.com",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
_MAX_DEPTH = 8


class SchemaFiller:
    """Fills schemas from one message's :class:`Values`, consuming them in order."""

    def __init__(self, values: Values, root: dict[str, Any], *, text: str) -> None:
        """Prepare a filler.

        Args:
            values: The message's values; this filler consumes its own copy of the
                names and numbers, front to back.
            root: The root schema, against which ``$ref`` pointers resolve.
            text: The free text for text-like string fields.
        """
        self._names = list(values.names)
        self._numbers = list(values.numbers)
        self._words = values.words
        self._root = root
        self._text = text

    def fill(self, schema: Any, name: str = "", depth: int = 0) -> Any:
        """Return a value valid for ``schema``.

        Args:
            schema: A JSON schema (a dict; anything else means "any value").
            name: The property name the value is for (a hint for strings).
            depth: The nesting depth; past a bound the value is ``None``.

        Returns:
            A JSON-serialisable value.
        """
        schema = self._resolve(schema)
        if depth > _MAX_DEPTH or not isinstance(schema, dict):
            return None
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._enum(schema["enum"])
        for key in ("anyOf", "oneOf", "allOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                return self.fill(_first_branch(schema[key]), name, depth + 1)
        return self._typed(schema, name, depth)

    def _typed(self, schema: dict[str, Any], name: str, depth: int) -> Any:
        """A value of the schema's type: an object, an array or a scalar."""
        kind = _kind(schema)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, name, depth)
        return self._scalar(kind, schema, name)

    def _resolve(self, schema: Any) -> Any:
        """Follow ``$ref`` pointers of the form ``#/a/b`` within the root schema."""
        for _ in range(_MAX_DEPTH):
            if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
                return schema
            target: Any = self._root
            for part in schema["$ref"].lstrip("#/").split("/"):
                target = target.get(part) if isinstance(target, dict) else None
            schema = target
        return schema

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return {}
        return {key: self.fill(sub, key, depth + 1) for key, sub in properties.items()}

    def _array(self, schema: dict[str, Any], name: str, depth: int) -> list[Any]:
        items = self._resolve(schema.get("items", {}))
        low = max(1, int(schema.get("minItems", 1)))
        high = int(schema.get("maxItems", max(low, len(self._names))))
        if isinstance(items, dict) and _kind(items) == "string" and "enum" not in items:
            names = self._names[:high]
            if len(names) >= low:
                del self._names[: len(names)]
                return list(names)
        return [self.fill(items, name, depth + 1) for _ in range(low)]

    def _scalar(self, kind: str, schema: dict[str, Any], name: str) -> Any:
        if kind == "null":
            return None
        if kind == "boolean":
            return bool(schema.get("default", True))
        if kind in ("integer", "number"):
            return self._number(kind, schema)
        return self._string(schema, name)

    def _string(self, schema: dict[str, Any], name: str) -> str:
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            value = _FORMATS[fmt]
        elif name.lower() in TEXT_HINTS:
            value = self._text
        else:
            found = self._names.pop(0) if self._names else None
            default = schema.get("default")
            value = found or (default if isinstance(default, str) else self._text)
        value = value[: int(schema.get("maxLength", len(value)))]
        return value.ljust(int(schema.get("minLength", 0)), "x")

    def _number(self, kind: str, schema: dict[str, Any]) -> int | float:
        literal = self._numbers.pop(0) if self._numbers else None
        if literal is not None:
            value = float(literal)
        else:
            fallback = schema.get("default", schema.get("minimum", 1))
            value = float(fallback) if isinstance(fallback, (int, float)) else 1.0
        if isinstance(schema.get("minimum"), (int, float)):
            value = max(value, float(schema["minimum"]))
        if isinstance(schema.get("maximum"), (int, float)):
            value = min(value, float(schema["maximum"]))
        return int(value) if kind == "integer" else value

    def _enum(self, options: list[Any]) -> Any:
        for option in options:
            if isinstance(option, str) and option.lower() in self._words:
                return option
        return options[0]


def _kind(schema: dict[str, Any]) -> str:
    """The schema's type: the first non-null one listed, else inferred from its keys."""
    kind = schema.get("type")
    if isinstance(kind, list):
        named = [k for k in kind if k != "null"]
        kind = named[0] if named else "null"
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    return "array" if "items" in schema else "string"


def _first_branch(branches: list[Any]) -> Any:
    """The first branch of an ``anyOf``/``oneOf`` that is not ``{"type": "null"}``."""
    for branch in branches:
        if not (isinstance(branch, dict) and branch.get("type") == "null"):
            return branch
    return branches[0]
