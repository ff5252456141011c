"""The shape of a Gemini ``GenerateContentRequest``, checked as the API's JSON parser checks it.

The API reads a request body into its protocol buffer messages (``google.ai.generativelanguage
.v1beta``, the API reference's "GenerateContentRequest", "Content", "Part", "Tool",
"GenerationConfig", ...), so a field the message does not have, or a value of the wrong kind,
is refused before any rule runs, with every such field named at once:

    Invalid JSON payload received. Unknown name "x" at 'generation_config': Cannot find field.
    Invalid value at 'generation_config.temperature' (TYPE_FLOAT), "hot"

Names may be camelCase or snake_case, as the proto JSON mapping takes both; paths are said in
snake_case with indexes (``contents[1].parts[0].function_call``), a map's entries by position
(``parameters.properties[2].value``). ``null`` is an unset field. JSON schemas
(``parametersJsonSchema``, ``responseJsonSchema``) and free ``Struct`` values (a call's
``args``, a response's ``response``) are not looked into; a ``Schema`` (``parameters``,
``responseSchema``) is, as the API refuses JSON-schema words it has no field for
(``additionalProperties``, ``$ref``, ``const``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_PREFIX = "type.googleapis.com/google.ai.generativelanguage.v1beta."
_B64 = re.compile(r"^[A-Za-z0-9+/_-]*={0,2}$")

#: Each message's fields: camelCase name -> type. ``X[]`` is repeated, ``map:X`` a map of X,
#: ``enum:E`` an enum, ``TYPE_*`` a scalar, ``Struct`` any object, ``Value`` any JSON.
MESSAGES: dict[str, dict[str, str]] = {
    "GenerateContentRequest": {
        "model": "TYPE_STRING",
        "contents": "Content[]",
        "tools": "Tool[]",
        "toolConfig": "ToolConfig",
        "safetySettings": "SafetySetting[]",
        "systemInstruction": "Content",
        "generationConfig": "GenerationConfig",
        "cachedContent": "TYPE_STRING",
        "serviceTier": "TYPE_STRING",
    },
    "Content": {"role": "TYPE_STRING", "parts": "Part[]"},
    "Part": {
        "text": "TYPE_STRING",
        "inlineData": "Blob",
        "functionCall": "FunctionCall",
        "functionResponse": "FunctionResponse",
        "fileData": "FileData",
        "executableCode": "ExecutableCode",
        "codeExecutionResult": "CodeExecutionResult",
        "thought": "TYPE_BOOL",
        "thoughtSignature": "TYPE_BYTES",
        "videoMetadata": "Struct",
        "partMetadata": "Struct",
        "mediaResolution": "Value",
    },
    "Blob": {"mimeType": "TYPE_STRING", "data": "TYPE_BYTES"},
    "FileData": {"mimeType": "TYPE_STRING", "fileUri": "TYPE_STRING", "displayName": "TYPE_STRING"},
    "FunctionCall": {"id": "TYPE_STRING", "name": "TYPE_STRING", "args": "Struct"},
    "FunctionResponse": {
        "id": "TYPE_STRING",
        "name": "TYPE_STRING",
        "response": "Struct",
        "parts": "Value",
        "willContinue": "TYPE_BOOL",
        "scheduling": "TYPE_STRING",
    },
    "ExecutableCode": {"language": "TYPE_STRING", "code": "TYPE_STRING"},
    "CodeExecutionResult": {"outcome": "TYPE_STRING", "output": "TYPE_STRING"},
    "Tool": {
        "functionDeclarations": "FunctionDeclaration[]",
        "googleSearchRetrieval": "Struct",
        "codeExecution": "Struct",
        "googleSearch": "Struct",
        "urlContext": "Struct",
        "computerUse": "Struct",
        "fileSearch": "Struct",
        "googleMaps": "Struct",
        "mcpServers": "Value",
    },
    "FunctionDeclaration": {
        "name": "TYPE_STRING",
        "description": "TYPE_STRING",
        "parameters": "Schema",
        "parametersJsonSchema": "Value",
        "response": "Schema",
        "responseJsonSchema": "Value",
        "behavior": "TYPE_STRING",
    },
    "Schema": {
        "type": "enum:Type",
        "format": "TYPE_STRING",
        "title": "TYPE_STRING",
        "description": "TYPE_STRING",
        "nullable": "TYPE_BOOL",
        "enum": "TYPE_STRING[]",
        "maxItems": "TYPE_INT64",
        "minItems": "TYPE_INT64",
        "properties": "map:Schema",
        "required": "TYPE_STRING[]",
        "minProperties": "TYPE_INT64",
        "maxProperties": "TYPE_INT64",
        "minLength": "TYPE_INT64",
        "maxLength": "TYPE_INT64",
        "pattern": "TYPE_STRING",
        "example": "Value",
        "anyOf": "Schema[]",
        "propertyOrdering": "TYPE_STRING[]",
        "default": "Value",
        "items": "Schema",
        "minimum": "TYPE_DOUBLE",
        "maximum": "TYPE_DOUBLE",
    },
    "ToolConfig": {"functionCallingConfig": "FunctionCallingConfig", "retrievalConfig": "Struct"},
    "FunctionCallingConfig": {
        "mode": "enum:FunctionCallingConfig.Mode",
        "allowedFunctionNames": "TYPE_STRING[]",
    },
    "SafetySetting": {"category": "TYPE_STRING", "threshold": "TYPE_STRING"},
    "GenerationConfig": {
        "stopSequences": "TYPE_STRING[]",
        "responseMimeType": "TYPE_STRING",
        "responseSchema": "Schema",
        "responseJsonSchema": "Value",
        "responseModalities": "Value",
        "candidateCount": "TYPE_INT32",
        "maxOutputTokens": "TYPE_INT32",
        "temperature": "TYPE_FLOAT",
        "topP": "TYPE_FLOAT",
        "topK": "TYPE_INT32",
        "seed": "TYPE_INT32",
        "presencePenalty": "TYPE_FLOAT",
        "frequencyPenalty": "TYPE_FLOAT",
        "responseLogprobs": "TYPE_BOOL",
        "logprobs": "TYPE_INT32",
        "enableEnhancedCivicAnswers": "TYPE_BOOL",
        "speechConfig": "Struct",
        "thinkingConfig": "ThinkingConfig",
        "imageConfig": "Struct",
        "mediaResolution": "TYPE_STRING",
    },
    "ThinkingConfig": {
        "includeThoughts": "TYPE_BOOL",
        "thinkingBudget": "TYPE_INT32",
        "thinkingLevel": "enum:ThinkingConfig.ThinkingLevel",
    },
}
#: Each enum's value names (the API takes them in any case, or by number).
ENUMS: dict[str, tuple[str, ...]] = {
    "Type": (
        "TYPE_UNSPECIFIED",
        "STRING",
        "NUMBER",
        "INTEGER",
        "BOOLEAN",
        "ARRAY",
        "OBJECT",
        "NULL",
    ),
    "FunctionCallingConfig.Mode": ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"),
    "ThinkingConfig.ThinkingLevel": (
        "THINKING_LEVEL_UNSPECIFIED",
        "MINIMAL",
        "LOW",
        "MEDIUM",
        "HIGH",
    ),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Violation:
    """One field the parser refuses.

    Attributes:
        field: Where it is (``contents[0].parts[1]``), or ``None`` at the top level.
        description: The API's sentence for it.
    """

    field: str | None
    description: str


def snake(name: str) -> str:
    """A camelCase field name in snake_case, as the API's paths say it."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def camel(name: str) -> str:
    """A snake_case field name in camelCase, as the proto JSON mapping also takes it."""
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def normalized(value: Any, message: str = "GenerateContentRequest") -> Any:
    """A request (or part of one) with every known field under its camelCase name."""
    fields = MESSAGES.get(message)
    if fields is None or not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        name = camel(key) if camel(key) in fields else key
        kind = fields.get(name)
        result[name] = _normalized_field(item, kind) if kind is not None else item
    return result


def _normalized_field(value: Any, kind: str) -> Any:
    base = kind.removesuffix("[]").removeprefix("map:")
    if kind.endswith("[]") and isinstance(value, list):
        return [normalized(item, base) for item in value if item is not None]
    if kind.startswith("map:") and isinstance(value, dict):
        return {key: normalized(item, base) for key, item in value.items()}
    return normalized(value, base)


def violations(body: dict[str, Any]) -> list[Violation]:
    """Every unknown field and wrongly kinded value of a request body, in document order."""
    found: list[Violation] = []
    _message(body, "GenerateContentRequest", "", found)
    return found


def _message(value: dict[str, Any], message: str, path: str, found: list[Violation]) -> None:
    fields = MESSAGES[message]
    for key, item in value.items():
        name = key if key in fields else camel(key)
        kind = fields.get(name)
        if kind is None:
            where = f" at '{path}'" if path else ""
            text = f'Invalid JSON payload received. Unknown name "{key}"{where}: Cannot find field.'
            found.append(Violation(field=path or None, description=text))
        elif item is not None:
            _field(item, kind, _join(path, snake(name)), found)


def _field(value: Any, kind: str, path: str, found: list[Violation]) -> None:
    if kind.endswith("[]"):
        if not isinstance(value, list):
            found.append(_invalid(path, kind.removesuffix("[]"), value))
            return
        for index, item in enumerate(value):
            if item is not None:
                _single(item, kind.removesuffix("[]"), f"{path}[{index}]", found)
    elif kind.startswith("map:"):
        if not isinstance(value, dict):
            found.append(_invalid(path, kind.removeprefix("map:"), value))
            return
        for index, item in enumerate(value.values()):
            if item is not None:
                _single(item, kind.removeprefix("map:"), f"{path}[{index}].value", found)
    elif isinstance(value, list) and kind != "Value":
        text = "Invalid JSON payload received. Proto field is not repeating, cannot start list."
        found.append(Violation(field=path, description=text))
    else:
        _single(value, kind, path, found)


def _single(value: Any, kind: str, path: str, found: list[Violation]) -> None:
    if kind in MESSAGES:
        if isinstance(value, dict):
            _message(value, kind, path, found)
        else:
            found.append(_invalid(path, kind, value))
    elif kind.startswith("enum:"):
        if not _enum_ok(value, ENUMS[kind.removeprefix("enum:")]):
            found.append(_invalid(path, kind, value))
    elif not _scalar_ok(value, kind):
        found.append(_invalid(path, kind, value))


def _enum_ok(value: Any, names: tuple[str, ...]) -> bool:
    if isinstance(value, str):
        return value.upper() in names
    return type(value) is int and 0 <= value < len(names)


def _scalar_ok(value: Any, kind: str) -> bool:
    """Whether a JSON value reads as a scalar of ``kind`` (numbers may be quoted)."""
    if kind in ("Value", "Struct"):
        return kind == "Value" or isinstance(value, dict)
    if kind == "TYPE_BOOL":
        return isinstance(value, bool)
    if kind in ("TYPE_STRING", "TYPE_BYTES"):
        return isinstance(value, str) and (kind == "TYPE_STRING" or _base64_ok(value))
    number = value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return False
    if isinstance(number, bool) or not isinstance(number, int | float):
        return False
    return kind in ("TYPE_FLOAT", "TYPE_DOUBLE") or float(number).is_integer()


def _base64_ok(text: str) -> bool:
    return bool(_B64.match(text)) and len(text.rstrip("=")) % 4 != 1


def _invalid(path: str, kind: str, value: Any) -> Violation:
    """``Invalid value at '<path>' (<type>), <value>``, as the parser words it."""
    shown = json.dumps(value, ensure_ascii=False)
    if kind == "TYPE_BYTES" and isinstance(value, str):
        text = f"Invalid value at '{path}' (TYPE_BYTES), Base64 decoding failed for {shown}"
        return Violation(field=path, description=text)
    if kind.startswith("TYPE_"):
        name = kind
    elif kind == "Struct":
        name = "type.googleapis.com/google.protobuf.Struct"
    else:
        name = _PREFIX + kind.removeprefix("enum:")
    return Violation(field=path, description=f"Invalid value at '{path}' ({name}), {shown}")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
