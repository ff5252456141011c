"""What is wrong with a request (an :class:`~sse_emulator.schemas.walker.Issue`), said as each
API says it.

- Anthropic's API validates with pydantic and answers with pydantic's messages after the
  dotted path, the tag of a tagged union included: ``messages.1.content.0.thinking.signature:
  Field required``, ``messages.0.content.0.text.id: Extra inputs are not permitted``,
  ``tool_choice.tool.name: Field required``, ``messages.0.content.1: Input tag 'file' found
  using 'type' does not match any of the expected tags: ...``.
- OpenAI's APIs name the parameter in ``param`` (``input[0].content[0].id``, indexes in
  brackets, no tags) with a ``code``: ``Missing required parameter: 'x'.``
  (``missing_required_parameter``, openai/openai-node#1404), ``Unknown parameter: 'x'.``
  (``unknown_parameter``, 1jehuang/jcode#1028), ``Invalid value: 'v'. Supported values are:
  ...`` (``invalid_value``), ``Invalid type for 'x': expected ..., but got ... instead.``
  (``invalid_type``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sse_emulator.schemas.walker import Issue, Path, Tag, json_kind

__all__ = ["anthropic_message", "openai_path", "openai_refusal"]

#: pydantic's words for a value that is not of a JSON kind.
_PYDANTIC_KINDS = {
    "string": "a valid string",
    "integer": "a valid integer",
    "number": "a valid number",
    "boolean": "a valid boolean",
    "array": "a valid list",
    "object": "a valid dictionary",
    "null": "None",
}
#: OpenAI's words for a JSON kind, expected or found.
_OPENAI_KINDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a decimal",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _pydantic_or(values: Sequence[str]) -> str:
    """pydantic's list of choices: ``'a', 'b' or 'c'``."""
    quoted = [f"'{value}'" for value in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def anthropic_message(issue: Issue) -> str:
    """The Messages API's error message for ``issue``."""
    where = ".".join(str(step.value if isinstance(step, Tag) else step) for step in issue.path)
    where = where or "body"
    if issue.kind == "missing":
        said = "Field required"
    elif issue.kind == "extra":
        said = "Extra inputs are not permitted"
    elif issue.kind == "value":
        said = f"Input should be {_pydantic_or(issue.expected)}"
    elif issue.kind == "tag" and issue.got is None:
        said = f"Unable to extract tag using discriminator '{issue.key}'"
    elif issue.kind == "tag":
        tags = ", ".join(f"'{tag}'" for tag in issue.expected)
        said = (
            f"Input tag '{issue.got}' found using '{issue.key}' does not match any of the "
            f"expected tags: {tags}"
        )
    else:
        said = "Input should be " + " or ".join(_PYDANTIC_KINDS[k] for k in _kinds(issue))
    return f"{where}: {said}"


def openai_path(path: Path) -> str:
    """A path as OpenAI names a parameter: ``input[0].content[1].text``."""
    named = ""
    for step in path:
        if isinstance(step, Tag):
            continue
        named += f"[{step}]" if isinstance(step, int) else (f".{step}" if named else step)
    return named


def _openai_list(values: Sequence[str]) -> str:
    """OpenAI's list of supported values: ``'a', 'b', and 'c'``."""
    quoted = [f"'{value}'" for value in values]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return f"{', '.join(quoted[:-1])}, and {quoted[-1]}"


def openai_refusal(issue: Issue) -> tuple[str, str | None, str]:
    """OpenAI's ``(message, param, code)`` for ``issue``."""
    param = openai_path(issue.path)
    if issue.kind == "tag":
        param = f"{param}.{issue.key}" if param else issue.key
        if issue.got is None:
            return f"Missing required parameter: '{param}'.", param, "missing_required_parameter"
    if issue.kind == "missing":
        return f"Missing required parameter: '{param}'.", param, "missing_required_parameter"
    if issue.kind == "extra":
        return f"Unknown parameter: '{param}'.", param, "unknown_parameter"
    if issue.kind in ("value", "tag"):
        message = f"Invalid value: '{issue.got}'. Supported values are: "
        return message + f"{_openai_list(issue.expected)}.", param, "invalid_value"
    kinds = [_OPENAI_KINDS[kind] for kind in _kinds(issue)]
    expected = kinds[0] if len(kinds) == 1 else f"one of {', '.join(kinds[:-1])} or {kinds[-1]}"
    got = _OPENAI_KINDS[json_kind(issue.got)]
    message = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
    return message, param or None, "invalid_type"


def _kinds(issue: Issue) -> list[str]:
    """The kinds expected, as the APIs say them: an integer left unsaid where any number is
    taken, null where something else is."""
    kinds = [k for k in issue.expected if k != "integer" or "number" not in issue.expected]
    return [k for k in kinds if k != "null"] or kinds
