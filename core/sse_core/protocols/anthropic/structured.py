"""Anthropic's native structured output: ``output_config.format``.

The Messages API constrains the answer's text to a JSON schema given as
``output_config: {"format": {"type": "json_schema", "schema": {...}}}`` (Anthropic's
"Structured outputs" page; ``output_format`` was its earlier, beta name). It works with
thinking on, where a forced tool call does not. The API takes a subset of JSON Schema
("JSON Schema limitations" on that page):

- every object must say ``"additionalProperties": false``;
- numeric bounds (``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``,
  ``multipleOf``), string lengths (``minLength``, ``maxLength``), array bounds other than
  ``minItems`` of 0 or 1 (``maxItems``, ``uniqueItems``, ...) and string formats outside
  :data:`STRING_FORMATS` are not supported;
- ``oneOf`` is not supported (``anyOf`` is).

:func:`strict_schema` rewrites a schema into that subset without losing what it said: an
unsupported keyword moves into the description (``{minimum: 1, maximum: 10}``), where the
model still reads it, as Anthropic's own SDK rewrites it (``transform_schema``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sse_core.errors import ConfigurationError

__all__ = ["NO_JSON_MODE", "STRING_FORMATS", "output_format", "strict_schema"]

#: The string formats the API takes.
STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
#: Keywords kept as they are (each schema-valued one is rewritten in turn).
_KEPT = frozenset(
    {"type", "enum", "const", "description", "title", "default", "required", "$ref", "pattern"}
)
_UNDER = ("properties", "$defs", "definitions")  # keyword -> mapping of name -> schema
_LISTS = ("anyOf", "allOf", "oneOf")  # oneOf is sent as anyOf

#: Why OpenAI's JSON mode is refused on this protocol.
NO_JSON_MODE = (
    "the Anthropic Messages API has no JSON mode (response_format json_object): give a "
    "schema (response_format json_schema, sent as output_config.format)"
)


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` in the subset of JSON Schema the API takes (see the module's docstring).

    Raises:
        ConfigurationError: ``schema`` (or a schema inside it) is not a JSON object.
    """
    if not isinstance(schema, Mapping):
        raise ConfigurationError(f"a JSON schema must be an object, got {schema!r}")
    strict: dict[str, Any] = {}
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "additionalProperties":
            continue  # false on every object, below
        kept = _keyword(key, value)
        if kept is _MOVED:
            moved[key] = value
        else:
            strict["anyOf" if key == "oneOf" else key] = kept
    if strict.get("type") == "object" or "properties" in strict:
        strict["additionalProperties"] = False
    if moved:
        said = ", ".join(f"{key}: {json.dumps(value)}" for key, value in moved.items())
        described = strict.get("description")
        strict["description"] = f"{described}\n\n{{{said}}}" if described else f"{{{said}}}"
    return strict


_MOVED: Any = object()  # a keyword the API does not take: said in the description


def _keyword(key: str, value: Any) -> Any:
    """What ``key: value`` of a schema becomes, or :data:`_MOVED`."""
    if key in _KEPT:
        return value
    if key in _UNDER and isinstance(value, Mapping):
        return {name: strict_schema(sub) for name, sub in value.items()}
    if key in _LISTS and isinstance(value, list):
        return [strict_schema(sub) for sub in value]
    if key == "items" and isinstance(value, Mapping):
        return strict_schema(value)
    supported = (key == "format" and value in STRING_FORMATS) or (
        key == "minItems" and value in (0, 1)
    )
    return value if supported else _MOVED


def output_format(response_format: object) -> dict[str, Any] | None:
    """``output_config.format`` for OpenAI's ``response_format``; None for ``text`` (no
    constraint).

    Takes ``{"type": "json_schema", "json_schema": {"schema": ..., "name": ...}}``, a
    ``{"type": "json_schema", "schema": ...}`` already in Anthropic's shape, or a bare JSON
    schema.

    Raises:
        ConfigurationError: JSON mode (``json_object``, which the API does not have), or a
            ``response_format`` with no schema.
    """
    if not isinstance(response_format, Mapping):
        raise ConfigurationError(
            f"response_format must be a mapping with a JSON schema, got {response_format!r}"
        )
    kind = response_format.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        raise ConfigurationError(NO_JSON_MODE)
    if kind == "json_schema":
        spec = response_format.get("json_schema", response_format)
        schema = spec.get("schema") if isinstance(spec, Mapping) else None
        if not isinstance(schema, Mapping):
            raise ConfigurationError(
                "response_format json_schema needs a schema (json_schema.schema), got "
                f"{response_format!r}"
            )
        return {"type": "json_schema", "schema": strict_schema(schema)}
    if "properties" in response_format or kind == "object":  # a bare JSON schema
        return {"type": "json_schema", "schema": strict_schema(response_format)}
    raise ConfigurationError(
        f"response_format type must be 'json_schema' or 'text' on Anthropic Messages, got {kind!r}"
    )
