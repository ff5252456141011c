"""The Responses API's rules for a request, each with its source; :func:`check_request` mends
what the API's own clients mend (with a warning, as they warn) and refuses, before anything is
sent, what cannot be mended. The emulator refuses the same requests as the API does
(docs/emulator.md, R1-R16: the numbers below are that table's).

Sources: OpenAI's "Responses API reference" (platform.openai.com/docs/api-reference/responses/
create; openai-python's ``ResponseCreateParams``, generated from it), its guides, and the API's
answers quoted in the issues named.

- R2: ``stop``, ``stop_sequences``, ``n``, ``seed``, ``logit_bias``, ``logprobs``,
  ``frequency_penalty`` and ``presence_penalty`` are chat completions' and no parameter of
  the Responses API, which answers ``Unknown parameter: 'stop'. Did you mean 'store'?``
  (openJiuwen-ai/agent-core#768): refused by name, saying what to do instead
  (:data:`NOT_TAKEN`);
- R17: ``previous_response_id`` and ``conversation`` are not both sent (API reference,
  ``previous_response_id``: "Cannot be used in conjunction with ``conversation``"): refused;
- R6: ``max_output_tokens`` is an integer of at least :data:`MIN_OUTPUT_TOKENS` (the API's
  ``integer_below_min_value``, quoted in vectorize-io/hindsight#58): refused;
- R7: ``temperature`` between 0 and 2, ``top_p`` between 0 and 1 (API reference): refused;
- R8: ``reasoning.effort`` one of :data:`EFFORTS`, ``reasoning.summary`` one of
  :data:`SUMMARIES` (API reference, ``reasoning``): refused;
- R9: each ``include`` value one of :data:`INCLUDABLE` (API reference, ``include``): refused;
- R10: ``text.format.type`` is ``text``, ``json_schema`` or ``json_object``, and a
  ``json_schema`` format has a ``name`` and a ``schema`` (API reference, ``text.format``; the
  API's ``Missing required parameter: 'text.format.name'``, openai/openai-node#1404): refused;
- R11: ``tool_choice`` is ``none``, ``auto``, ``required`` or an object with a ``type``, and
  a forced ``function`` names one of the function ``tools`` (API reference, ``tool_choice``):
  refused;
- R13: each ``function_call_output`` of the input answers a ``function_call`` of the input,
  unless ``previous_response_id`` continues a conversation that holds it ("Function calling"
  guide; the API's ``No tool call found for function call output with call_id ...``,
  continuedev/continue#10092): refused;
- R14: each ``function_call`` of the input has its ``function_call_output`` after it
  (Azure/azure-sdk-for-python#46092: ``No tool output found for function call ...``):
  refused;
- models that do not reason (gpt-4o, gpt-4.1, gpt-5-chat-latest: :func:`does_not_reason`)
  refuse ``reasoning.effort`` ("Unsupported parameter: 'reasoning.effort' is not supported
  with this model.", as chat completions answers ``reasoning_effort`` with "Unrecognized
  request argument supplied", coroot/coroot#698): not sent, with a warning
  (:func:`taken_effort`);
- reasoning models (o1, o3, o4 and gpt-5 families, not ``gpt-5-chat``) take only the default
  ``temperature`` and ``top_p`` (the API's ``Unsupported value: 'temperature' does not
  support 0 with this model. Only the default (1) value is supported.``,
  langchain-ai/langchainjs#8642; langchain-openai does not send them to those models,
  langchain-ai/langchain#32624), unless ``reasoning.effort`` is ``none`` (GPT-5.1's guide:
  sampling only without reasoning): not sent, with a warning.

What goes back of an earlier answer (:func:`~sse_core.protocols.responses.request.input_items`):
a reasoning item is sent byte-exact when it carries ``encrypted_content`` or when ``store`` is
true (an item kept by id: the API answers 404 ``Items are not persisted when store is set to
false`` for one sent by id alone, vercel/ai#7543); never with ``previous_response_id``, whose
conversation holds it already (the API's ``Duplicate item found with id rs_...``,
vercel/ai#15503; OpenAI's cookbook "reasoning items": "If you use previous_response_id ...
the model will automatically have access to all previously produced reasoning items").
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from sse_core.errors import ConfigurationError
from sse_core.protocols.chat_completions import does_not_reason
from sse_core.protocols.chat_completions import reasoning_model as openai_reasoning_model

__all__ = [
    "EFFORTS",
    "FORMATS",
    "INCLUDABLE",
    "MIN_OUTPUT_TOKENS",
    "NOT_TAKEN",
    "SUMMARIES",
    "TOOL_CHOICES",
    "check_request",
    "does_not_reason",
    "reasoning_model",
    "taken_effort",
]

#: The smallest ``max_output_tokens`` the API takes (R6).
MIN_OUTPUT_TOKENS = 16
#: ``reasoning.effort`` values (R8; openai-python's ``ReasoningEffort``).
EFFORTS: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
#: ``reasoning.summary`` values (R8).
SUMMARIES: tuple[str, ...] = ("auto", "concise", "detailed")
#: ``include`` values (R9; openai-python's ``ResponseIncludable``).
INCLUDABLE: tuple[str, ...] = (
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
)
#: ``text.format.type`` values (R10).
FORMATS: tuple[str, ...] = ("text", "json_schema", "json_object")
#: ``tool_choice`` strings (R11).
TOOL_CHOICES: tuple[str, ...] = ("none", "auto", "required")
#: Chat completions' settings the Responses API does not take, and what to do instead (R2).
NOT_TAKEN: Mapping[str, str] = {
    "stop": "the Responses API has no stop sequences; stop on the text yourself",
    "stop_sequences": "the Responses API has no stop sequences; stop on the text yourself",
    "n": "the Responses API gives one answer per request; send several requests",
    "seed": "the Responses API takes no seed",
    "logit_bias": "the Responses API takes no logit_bias",
    "logprobs": "ask for include=['message.output_text.logprobs'] and top_logprobs instead",
    "frequency_penalty": "the Responses API takes no frequency_penalty",
    "presence_penalty": "the Responses API takes no presence_penalty",
}
_RANGES = {"temperature": (0.0, 2.0), "top_p": (0.0, 1.0)}


def reasoning_model(model: object) -> bool:
    """Whether ``model`` names an OpenAI reasoning model (the o1, o3, o4 and gpt-5 families,
    also behind a gateway's ``provider/`` prefix; not the ``gpt-5-chat`` models)."""
    return openai_reasoning_model(model) and "-chat" not in str(model).lower()


def taken_effort(model: str, given: dict[str, Any]) -> None:
    """``reasoning_effort`` (or ``reasoning.effort``) for a model that does not reason is not
    sent, with a warning: the API refuses it, and a framework or agent that sets an effort for
    every model keeps working (as with ``stop``)."""
    if not does_not_reason(model):
        return
    reasoning = given.get("reasoning")
    if given.get("reasoning_effort") not in (None, *EFFORTS):
        return  # a value no model takes: refused by name (R8)
    effort = given.pop("reasoning_effort", None)
    if isinstance(reasoning, Mapping) and reasoning.get("effort") in EFFORTS:
        effort = reasoning["effort"]
        rest = {k: v for k, v in reasoning.items() if k != "effort"}
        given.pop("reasoning")
        if rest:
            given["reasoning"] = rest
    if effort is not None:
        warnings.warn(
            f"reasoning_effort {effort!r} is not sent: {model} does not reason and the "
            "Responses API refuses reasoning.effort for it (choose a reasoning model, such as "
            "gpt-5 or o4-mini, to reason)",
            UserWarning,
            stacklevel=4,
        )


def check_request(body: dict[str, Any], given: Mapping[str, Any] | None = None) -> None:
    """Make ``body`` one the API accepts, or refuse it (see the module's docstring); what the
    caller put in ``given`` (``extra_body``) is sent as given.

    Raises:
        ConfigurationError: A rule that cannot be mended is broken (named in the message).
    """
    given = given or {}
    for name, instead in NOT_TAKEN.items():
        value = body.get(name)
        if value is not None and name not in given and not (name == "n" and value == 1):
            raise ConfigurationError(
                f"{name} is not a parameter of the Responses API: {instead} (or use "
                "protocol='chat_completions')"
            )
    if "n" not in given:
        body.pop("n", None)  # n=1: what the API does anyway
    if body.get("previous_response_id") and body.get("conversation"):
        raise ConfigurationError(
            "previous_response_id and conversation cannot both be sent (the API reference: "
            "previous_response_id 'cannot be used in conjunction with conversation'): "
            "continue one of them"
        )
    _check_numbers(body, given)
    _check_reasoning(body.get("reasoning"))
    _check_include(body.get("include"))
    _check_format(body.get("text"))
    _check_tool_choice(body.get("tool_choice"), body.get("tools"))
    items = body.get("input")
    if isinstance(items, list):
        _check_calls(items, continued=bool(body.get("previous_response_id")))
    _sampling(body, given)


def _check_numbers(body: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    limit = body.get("max_output_tokens")
    if (
        limit is not None
        and "max_output_tokens" not in given
        and (type(limit) is not int or limit < MIN_OUTPUT_TOKENS)
    ):
        raise ConfigurationError(
            f"max_output_tokens must be an integer of at least {MIN_OUTPUT_TOKENS} on the "
            f"Responses API, got {limit!r}"
        )
    for name, (low, high) in _RANGES.items():
        value = body.get(name)
        if value is None or name in given:
            continue
        if type(value) not in (int, float) or not low <= value <= high:
            raise ConfigurationError(f"{name} must be between {low:g} and {high:g}, got {value!r}")


def _check_reasoning(reasoning: object) -> None:
    if reasoning is None:
        return
    if not isinstance(reasoning, Mapping):
        raise ConfigurationError(
            f"reasoning must be an object (effort, summary), got {reasoning!r}"
        )
    for field, values in (("effort", EFFORTS), ("summary", SUMMARIES)):
        value = reasoning.get(field)
        if value is not None and value not in values:
            raise ConfigurationError(
                f"reasoning.{field} must be one of {', '.join(map(repr, values))}, got {value!r}"
            )


def _check_include(include: object) -> None:
    if include is None:
        return
    listed = include if isinstance(include, list) else [include]
    for value in listed:
        if value not in INCLUDABLE:
            raise ConfigurationError(
                f"include must list values of {', '.join(map(repr, INCLUDABLE))}, got {value!r}"
            )


def _check_format(text: object) -> None:
    shape = text.get("format") if isinstance(text, Mapping) else None
    if shape is None:
        return
    kind = shape.get("type") if isinstance(shape, Mapping) else None
    if kind not in FORMATS or not isinstance(shape, Mapping):
        raise ConfigurationError(
            f"text.format.type must be one of {', '.join(map(repr, FORMATS))}, got {kind!r}"
        )
    if kind == "json_schema":
        for field in ("name", "schema"):
            if not shape.get(field):
                raise ConfigurationError(f"a json_schema text.format needs its {field}")


def _check_tool_choice(choice: object, tools: object) -> None:
    if choice is None:
        return
    if isinstance(choice, str):
        if choice not in TOOL_CHOICES:
            raise ConfigurationError(
                f"tool_choice must be one of {', '.join(map(repr, TOOL_CHOICES))} or an "
                f"object, got {choice!r}"
            )
        return
    if not isinstance(choice, Mapping) or not isinstance(choice.get("type"), str):
        raise ConfigurationError(f"tool_choice must name a choice or a tool, got {choice!r}")
    if choice["type"] != "function":
        return
    names = {
        tool.get("name")
        for tool in (tools if isinstance(tools, list) else [])
        if isinstance(tool, Mapping) and tool.get("type") == "function"
    }
    if choice.get("name") not in names:
        raise ConfigurationError(
            f"tool_choice forces function {choice.get('name')!r}, which is not one of the "
            f"function tools ({', '.join(map(repr, sorted(map(str, names)))) or 'none'})"
        )


def _check_calls(items: Sequence[Any], *, continued: bool) -> None:
    """R13 and R14: each output answers a call before it; each call is answered after it."""
    calls: dict[Any, int] = {}
    answered: set[Any] = set()
    for at, item in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        kind, call_id = item.get("type"), item.get("call_id")
        if kind == "function_call":
            calls[call_id] = at
        elif kind == "function_call_output":
            if call_id not in calls and not continued:
                raise ConfigurationError(
                    f"input[{at}] is the output of call {call_id!r}, which no function_call "
                    "before it makes: send the assistant's tool calls before their results "
                    "(or previous_response_id to continue a stored conversation)"
                )
            answered.add(call_id)
    for call_id, at in calls.items():
        if call_id not in answered:
            raise ConfigurationError(
                f"input[{at}] is function call {call_id!r}, which no function_call_output "
                "answers: send each tool result after its call"
            )


def _sampling(body: dict[str, Any], given: Mapping[str, Any]) -> None:
    if not reasoning_model(body.get("model")):
        return
    reasoning = body.get("reasoning")
    if isinstance(reasoning, Mapping) and reasoning.get("effort") == "none":
        return  # no reasoning: sampling is taken
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if value is not None and value != 1 and name not in given:
            warnings.warn(
                f"{name} {value!r} is not sent: {body.get('model')} is a reasoning model, "
                "which takes only the default (set reasoning={'effort': 'none'} where the "
                "model allows it, or send it in extra_body)",
                UserWarning,
                stacklevel=4,
            )
            del body[name]
