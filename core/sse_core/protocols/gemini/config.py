"""A Gemini request's settings: ``generationConfig`` (with ``thinkingConfig`` and structured
output), ``tools`` and ``toolConfig`` from the common settings by their OpenAI names, and the
whole body from the core's turns (:func:`contents_body`).

The rules (the API reference's ``GenerationConfig``, ``ThinkingConfig``, ``Tool`` and
``FunctionCallingConfig``; the "Thinking" and "Structured output" guides):

- ``temperature``, ``top_p`` (``topP``), ``top_k`` (``topK``), ``max_tokens`` (also
  ``max_completion_tokens`` and ``max_output_tokens``: ``maxOutputTokens``), ``stop``
  (``stopSequences``, a string made a list), ``seed``, ``presence_penalty`` and
  ``frequency_penalty`` go in ``generationConfig``; ``n`` is ``candidateCount`` only when
  asked (none is sent otherwise: Gemini 3 refuses more than one candidate);
- ``reasoning_effort`` is ``thinkingConfig`` with ``includeThoughts: true`` (the thoughts are
  streamed as summaries only when asked for): on Gemini 1 and 2 models (``gemini-1*``,
  ``gemini-2*``) a ``thinkingBudget`` (``none`` 0, ``minimal`` 512, ``low`` 1024, ``medium``
  8192, ``high`` 24576, the budgets Google's OpenAI-compatible endpoint gives its efforts),
  on any other model (Gemini 3 and later) a ``thinkingLevel`` (``MINIMAL``, ``LOW``,
  ``MEDIUM``, ``HIGH``; ``none`` is ``MINIMAL``, the least a Gemini 3 model thinks: it cannot
  stop, and a Pro model refuses ``MINIMAL`` as the API does); ``none`` asks for no thoughts;
- ``response_format``: OpenAI's ``json_schema`` is ``responseMimeType: "application/json"``
  with ``responseJsonSchema`` (the schema as given: the API takes JSON Schema there), and
  ``json_object`` is ``responseMimeType`` alone (Gemini's JSON mode); ``text`` is nothing;
- ``tools``: OpenAI function tools are one tool of ``functionDeclarations`` (``name``,
  ``description``, ``parametersJsonSchema``: JSON Schema as given, where ``parameters`` would
  take only the OpenAPI subset); Gemini's own tool dicts (``{"googleSearch": {}}``,
  ``{"codeExecution": {}}``, a ``functionDeclarations`` tool) as given;
- ``tool_choice`` is ``toolConfig.functionCallingConfig``: ``auto`` ``AUTO``, ``none``
  ``NONE``, ``required`` (also ``any`` and True) ``ANY``, a named function (a name, or
  OpenAI's ``{"type": "function", "function": {"name"}}``) ``ANY`` with
  ``allowedFunctionNames``; without tools, no choice; ``parallel_tool_calls`` is not sent
  (Gemini has no such setting: it may call several functions in a step, and a framework that
  wants one keeps the first, as LlamaIndex does);
- Gemini's own request fields (``safetySettings``, ``cachedContent``, ``toolConfig``,
  ``generationConfig``, ``systemInstruction``, ``serviceTier``, in camelCase or snake_case)
  are sent as given; a ``generationConfig`` given is merged over the one the settings make
  (its ``thinkingConfig`` too); any other setting is refused by name
  (:data:`NOT_TAKEN` says what to do instead for OpenAI's that Gemini lacks): the API refuses
  a field it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sse_core.errors import ConfigurationError
from sse_core.protocols.gemini.request import contents, taken
from sse_core.protocols.history import settle, warn_left_out
from sse_core.protocols.turns import Turn

__all__ = [
    "BUDGETS",
    "LEVELS",
    "NOT_TAKEN",
    "contents_body",
    "generation_config",
    "thinking_config",
    "tool_config",
    "tools",
]

Block = dict[str, Any]

#: ``reasoning_effort`` as a Gemini 1 or 2 model's ``thinkingBudget``.
BUDGETS: Mapping[str, int] = {"none": 0, "minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
#: ``reasoning_effort`` as a Gemini 3 model's ``thinkingLevel``.
LEVELS: Mapping[str, str] = {
    "none": "MINIMAL",
    "minimal": "MINIMAL",
    "low": "LOW",
    "medium": "MEDIUM",
    "high": "HIGH",
}
#: OpenAI's request fields the Gemini API has no field for, each with what to do instead.
NOT_TAKEN: Mapping[str, str] = {
    "logit_bias": "the Gemini API takes no logit_bias",
    "logprobs": "send generationConfig={'responseLogprobs': True, 'logprobs': N} as Gemini's "
    "own field",
    "top_logprobs": "send generationConfig={'responseLogprobs': True, 'logprobs': N} as "
    "Gemini's own field",
    "user": "the Gemini API takes no end-user id",
    "metadata": "the Gemini API takes no metadata (Vertex AI's labels go in extra_body)",
    "store": "the Gemini API stores nothing of a generateContent request",
    "stream_options": "a Gemini stream reports usage unasked",
}
#: The common settings that go in ``generationConfig``, by their OpenAI names.
_GENERATION = {
    "temperature": "temperature",
    "top_p": "topP",
    "top_k": "topK",
    "max_tokens": "maxOutputTokens",
    "max_completion_tokens": "maxOutputTokens",
    "max_output_tokens": "maxOutputTokens",
    "stop": "stopSequences",
    "stop_sequences": "stopSequences",
    "seed": "seed",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
    "n": "candidateCount",
}
#: Gemini's own request fields, sent as given (snake_case as the API takes it too).
_OWN = {
    "safetySettings": "safetySettings",
    "safety_settings": "safetySettings",
    "cachedContent": "cachedContent",
    "cached_content": "cachedContent",
    "toolConfig": "toolConfig",
    "tool_config": "toolConfig",
    "serviceTier": "serviceTier",
    "systemInstruction": "systemInstruction",
    "system_instruction": "systemInstruction",
}
_CONFIGS = ("generationConfig", "generation_config")
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY", "any": "ANY"}
#: Settings read here that are not sent as a field of their own.
_READ = frozenset(
    {"reasoning_effort", "response_format", "tools", "tool_choice", "parallel_tool_calls"}
)


def thinking_config(model: str, effort: object) -> Block | None:
    """``thinkingConfig`` for ``reasoning_effort`` on ``model`` (None: none asked).

    Raises:
        ConfigurationError: An effort Gemini has no level or budget for.
    """
    if effort is None:
        return None
    if not isinstance(effort, str) or effort not in LEVELS:
        raise ConfigurationError(
            f"reasoning_effort must be one of {', '.join(LEVELS)} on the Gemini API, got "
            f"{effort!r} (or send generationConfig={{'thinkingConfig': ...}} as given)"
        )
    config: Block
    if model.removeprefix("models/").startswith(("gemini-1", "gemini-2")):
        config = {"thinkingBudget": BUDGETS[effort]}
    else:
        config = {"thinkingLevel": LEVELS[effort]}
    if effort != "none":
        config["includeThoughts"] = True
    return config


def _schema_format(response_format: object) -> Block:
    """``response_format`` as ``responseMimeType`` and ``responseJsonSchema``."""
    if not isinstance(response_format, Mapping):
        raise ConfigurationError(
            f"response_format must be an object (json_schema, json_object or text), got "
            f"{response_format!r}"
        )
    kind = response_format.get("type")
    spec = response_format.get("json_schema")
    if kind == "json_schema" and isinstance(spec, Mapping):
        schema = spec.get("schema") or {}
        return {"responseMimeType": "application/json", "responseJsonSchema": schema}
    if kind == "json_object":
        return {"responseMimeType": "application/json"}
    if kind == "text":
        return {}
    raise ConfigurationError(
        f"response_format must be json_schema (with its json_schema), json_object or text on "
        f"the Gemini API, got {dict(response_format)!r}"
    )


def generation_config(model: str, given: Mapping[str, Any]) -> Block:
    """``generationConfig`` of the common settings in ``given`` (None values left out),
    Gemini's own ``generationConfig`` merged over it."""
    config: Block = {}
    for name, field in _GENERATION.items():
        value = given.get(name)
        if value is not None:
            config[field] = value
    if isinstance(config.get("stopSequences"), str):
        config["stopSequences"] = [config["stopSequences"]]
    if given.get("response_format") is not None:
        config.update(_schema_format(given["response_format"]))
    thinking = thinking_config(model, given.get("reasoning_effort"))
    if thinking is not None:
        config["thinkingConfig"] = thinking
    for name in _CONFIGS:
        own = given.get(name)
        if isinstance(own, Mapping):
            made = {**config.get("thinkingConfig", {}), **own.get("thinkingConfig", {})}
            config.update(own)
            if made:
                config["thinkingConfig"] = made
    return config


def tools(specs: Iterable[Mapping[str, Any]]) -> list[Block]:
    """``tools`` in the API's shape: the OpenAI function tools as one tool of
    ``functionDeclarations``, first; Gemini's own tool dicts as given."""
    declarations: list[Block] = []
    own: list[Block] = []
    for spec in specs:
        function = spec.get("function")
        if spec.get("type") != "function" or not isinstance(function, Mapping):
            own.append(dict(spec))
            continue
        declaration: Block = {"name": function["name"]}
        if function.get("description"):
            declaration["description"] = function["description"]
        if function.get("parameters"):
            declaration["parametersJsonSchema"] = function["parameters"]
        declarations.append(declaration)
    return ([{"functionDeclarations": declarations}] if declarations else []) + own


def tool_config(choice: object) -> Block | None:
    """``toolConfig`` for ``tool_choice`` (None: none is sent).

    Raises:
        ConfigurationError: A value that names no choice, or a forced function without its
            name.
    """
    if choice is None:
        return None
    config: Block
    if choice is True:
        config = {"mode": "ANY"}
    elif isinstance(choice, str) and choice:
        mode = _MODES.get(choice)
        config = {"mode": mode} if mode else {"mode": "ANY", "allowedFunctionNames": [choice]}
    elif isinstance(choice, Mapping) and "functionCallingConfig" in choice:
        return dict(choice)  # Gemini's own
    elif isinstance(choice, Mapping) and choice.get("type") == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else choice.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigurationError(
                f"tool_choice {dict(choice)!r} forces a function but names none; give its name"
            )
        config = {"mode": "ANY", "allowedFunctionNames": [name]}
    else:
        raise ConfigurationError(f"tool_choice must name a choice or a function, got {choice!r}")
    return {"functionCallingConfig": config}


def _check_known(given: Mapping[str, Any]) -> None:
    """Refuse a setting this module neither maps nor sends as Gemini's own."""
    for name in given:
        if name in _GENERATION or name in _OWN or name in _CONFIGS or name in _READ:
            continue
        instead = NOT_TAKEN.get(name)
        raise ConfigurationError(
            f"{name} is no setting of a Gemini API request"
            + (f": {instead}" if instead else "")
            + " (its own fields: generationConfig, safetySettings, cachedContent, toolConfig, "
            "systemInstruction, serviceTier)"
        )


def contents_body(model: str, turns: Sequence[Turn], params: Mapping[str, Any]) -> dict[str, Any]:
    """A whole request body, with ``model`` for the transport to put in the URL
    (``models/{model}:streamGenerateContent``; the request's body builder takes it out, and
    sends no ``stream``).

    Args:
        model: The model's name (it decides between a thinking level and a budget).
        turns: The conversation.
        params: The request's settings by their OpenAI names, then Gemini's own fields (None
            values are not sent); see the module's docstring.

    Raises:
        ConfigurationError: A setting Gemini has no field for (named), a turn it cannot
            carry, a tool result that answers no call, or a choice that names none.
    """
    given = {k: v for k, v in params.items() if v is not None}
    _check_known(given)
    kept, lost = settle(turns)
    system, made = contents(taken(kept, lost), lost)
    body: dict[str, Any] = {"model": model, "contents": made}
    if system is not None:
        body["systemInstruction"] = system
    if given.get("tools"):
        body["tools"] = tools(given["tools"])
        choice = tool_config(given.get("tool_choice"))
        if choice is not None:
            body["toolConfig"] = choice
    config = generation_config(model, given)
    if config:
        body["generationConfig"] = config
    body.update((_OWN[name], value) for name, value in given.items() if name in _OWN)
    warn_left_out("Gemini API", lost)
    return body
