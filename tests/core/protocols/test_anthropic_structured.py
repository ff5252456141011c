"""Anthropic's native structured output (``output_config.format``): OpenAI's
``response_format`` mapped to it, and a schema rewritten into the subset the API takes
without losing what it said."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sse_core import ConfigurationError
from sse_core.protocols.anthropic import messages_body, output_format, strict_schema
from sse_core.protocols.turns import TextPart, Turn

ASK = [Turn(role="user", parts=(TextPart(text="a joke"),))]
SCHEMA = {
    "type": "object",
    "title": "Joke",
    "properties": {
        "setup": {"type": "string", "minLength": 3},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4},
        "when": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "format": "hostname-ish"},
        "detail": {"$ref": "#/$defs/Detail"},
        "kind": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
    },
    "required": ["setup"],
    "additionalProperties": True,
    "$defs": {"Detail": {"type": "object", "properties": {"n": {"type": "number"}}}},
}


def test_every_object_is_closed_and_unsupported_keywords_move_to_the_description() -> None:
    strict = strict_schema(SCHEMA)
    assert strict["additionalProperties"] is False
    assert strict["$defs"]["Detail"]["additionalProperties"] is False
    props = strict["properties"]
    assert props["setup"] == {"type": "string", "description": "{minLength: 3}"}
    assert props["tags"]["minItems"] == 1 and "maxItems: 4" in props["tags"]["description"]
    assert props["when"]["format"] == "date-time"
    assert "format" not in props["site"] and '"hostname-ish"' in props["site"]["description"]
    assert props["detail"] == {"$ref": "#/$defs/Detail"}
    assert props["kind"]["anyOf"][0] == {"type": "integer", "description": "{minimum: 1}"}
    assert strict["required"] == ["setup"] and strict["title"] == "Joke"


def test_a_description_keeps_its_text_before_the_moved_keywords() -> None:
    strict = strict_schema({"type": "integer", "description": "A number", "maximum": 9})
    assert strict["description"] == "A number\n\n{maximum: 9}"


_schemas = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean"])}),
    lambda inner: (
        st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(st.text(min_size=1), inner)}
        )
        | st.fixed_dictionaries({"type": st.just("array"), "items": inner})
    ),
    max_leaves=10,
)


def _objects(schema: Any) -> list[dict[str, Any]]:
    if not isinstance(schema, dict):
        return []
    found = [schema] if schema.get("type") == "object" else []
    for value in schema.values():
        if isinstance(value, dict):
            found += _objects(value)
            found += [o for sub in value.values() for o in _objects(sub)]
    return found


@given(_schemas)
def test_any_schema_comes_out_closed_and_json(schema: dict[str, Any]) -> None:
    strict = strict_schema(schema)
    assert all(obj["additionalProperties"] is False for obj in _objects(strict))
    assert json.loads(json.dumps(strict)) == strict


@pytest.mark.parametrize(
    "given_format",
    [
        {"type": "json_schema", "json_schema": {"name": "Joke", "schema": SCHEMA}},
        {"type": "json_schema", "schema": SCHEMA},
        SCHEMA,
    ],
    ids=["openai", "anthropic", "bare"],
)
def test_response_format_shapes_become_output_config_format(given_format: Any) -> None:
    assert output_format(given_format) == {"type": "json_schema", "schema": strict_schema(SCHEMA)}


def test_text_is_no_constraint_and_json_mode_is_refused() -> None:
    assert output_format({"type": "text"}) is None
    with pytest.raises(ConfigurationError, match="no JSON mode"):
        output_format({"type": "json_object"})
    with pytest.raises(ConfigurationError, match="needs a schema"):
        output_format({"type": "json_schema", "json_schema": {"name": "x"}})
    with pytest.raises(ConfigurationError, match="must be a mapping"):
        output_format("json")


def test_the_body_carries_the_format_beside_effort_and_works_with_thinking() -> None:
    params = {
        "response_format": {"type": "json_schema", "json_schema": {"schema": SCHEMA}},
        "reasoning_effort": "low",
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to mend: the format is fine with thinking
        body = messages_body("claude", ASK, params)
    assert body["output_config"] == {
        "effort": "low",
        "format": output_format(params["response_format"]),
    }
    assert "response_format" not in body


def test_the_earlier_output_format_name_is_sent_as_output_config_format() -> None:
    given_format = {
        "type": "json_schema",
        "schema": {"type": "object", "additionalProperties": False},
    }
    body = messages_body("claude", ASK, {"output_format": given_format})
    assert body["output_config"] == {"format": given_format} and "output_format" not in body


def test_the_callers_own_format_is_sent_in_the_subset_the_api_takes() -> None:
    own = {"type": "json_schema", "schema": {"type": "object", "properties": {}}}
    body = messages_body("claude", ASK, {"output_config": {"format": own, "effort": "low"}})
    assert body["output_config"] == {"format": output_format(own), "effort": "low"}
    assert body["output_config"]["format"]["schema"]["additionalProperties"] is False
