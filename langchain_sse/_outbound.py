"""LangChain messages and call settings to the request: the pure outbound mapping.

One path for every protocol whose body the core makes of turns (any protocol registered in
the core; one whose LangChain class has fields of its own adds them in its module, such as
:mod:`._anthropic_outbound`, and finishes here): the messages become the core's neutral turns
(:func:`._turns.to_turns`, ChatSSE's one converter), the protocol's ``turns_body`` makes the
body of them with the API's rules (what of an earlier answer goes back, and how), and
:func:`turns_outbound` adds what is LangChain's: the call options (``strict``,
``stream_usage``, ``extra_body``, ``extra_headers``, ``extra_query``, ``timeout``) and
``disabled_params``. ``reasoning_passback`` goes to a protocol that takes it as a setting
(:attr:`sse_core.protocols.WireProtocol.settings`): chat completions sends reasoning back as
``reasoning_content`` on the assistant messages after the last user message, which DeepSeek's
and Qwen's thinking modes want inside a tool loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_sse._turns import to_turns
from sse_core.protocols import wire_protocol

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = [
    "RUN_OPTIONS",
    "Outbound",
    "check_query",
    "drop_disabled",
    "generic_outbound",
    "pop_call_options",
    "turns_outbound",
]

#: LangChain's run options: keys of the run's config, never request fields. ChatSSE's
#: entry points move them into the config; here they are dropped if any got this far.
RUN_OPTIONS = (
    "callbacks",
    "tags",
    "metadata",
    "run_name",
    "run_id",
    "configurable",
    "recursion_limit",
    "max_concurrency",
)
#: Call kwargs LangChain passes along that are not request fields.
_NOT_PAYLOAD = ("stream", "ls_structured_output_format", "structured_output_format", *RUN_OPTIONS)
#: ChatSSE's field that sends reasoning back, given to a protocol that takes it as a setting.
PASSBACK = "reasoning_passback"
#: The call options ChatSSE honours (never sent as body fields).
_CALL_OPTIONS = ("stream_usage", "extra_headers", "extra_body", "extra_query", "timeout", "strict")


@dataclass(frozen=True, slots=True, kw_only=True)
class Outbound:
    """What one call sends: the JSON body, and the call's own transport options."""

    payload: dict[str, Any]
    headers: dict[str, str] | None = None
    """The call's extra headers (``extra_headers``)."""
    include_usage: bool | None = None
    """Ask for usage or not (``stream_usage``, ``stream_options``); None: the model's."""
    whole_body: bool = False
    """The payload already holds the model's ``extra_body`` (merged under the call's)."""
    timeout: Any = None
    """This call's timeout (seconds, or ``sse_core.Timeouts``); None: the model's."""
    query: dict[str, str] | None = None
    """This call's query parameters (``extra_query``), over the model's ``default_query``."""


def pop_call_options(call_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop what is not a request field; the call options ChatSSE honours, by name."""
    if not call_kwargs:
        return dict.fromkeys(_CALL_OPTIONS)
    for key in _NOT_PAYLOAD:
        call_kwargs.pop(key, None)
    return {name: call_kwargs.pop(name, None) for name in _CALL_OPTIONS}


def drop_disabled(payload: dict[str, Any], disabled_params: Mapping[str, Any] | None) -> None:
    """Drop the fields (or only the values) ``disabled_params`` names."""
    for key, values in (disabled_params or {}).items():
        if key in payload and (values is None or payload[key] in values):
            del payload[key]


def turns_outbound(model: ChatSSE, payload: dict[str, Any], options: Mapping[str, Any]) -> Outbound:
    """The call of a protocol whose module built ``payload`` from the core's turns, finished
    as every ChatSSE call is: ``strict`` on each tool that does not say it (a function or
    custom tool; a server tool takes none) and on a JSON-schema ``response_format``,
    ``disabled_params``, the call's ``extra_body`` over the model's, the call's options;
    usage asked for as ChatOpenAI does (a ``stream_usage`` call option, then
    ``include_usage`` in the ``stream_options`` sent).

    Raises:
        ValueError: An ``extra_query`` that is not a mapping of names to strings.
    """
    strict = options["strict"]
    if strict is not None:
        _apply_strict(payload, strict)
    drop_disabled(payload, model.disabled_params)
    call_body = options["extra_body"]
    if call_body:
        payload.update({**(model.extra_body or {}), **call_body})
    return Outbound(
        payload=payload,
        headers=options["extra_headers"],
        include_usage=_resolve_usage(options["stream_usage"], payload.get("stream_options")),
        whole_body=bool(call_body),
        timeout=options["timeout"],
        query=check_query(options["extra_query"]),
    )


#: Tool types that take ``strict``: Anthropic's custom tools (no type, or ``custom``) and
#: OpenAI's function tools.
_STRICT_TAKERS = frozenset({None, "custom", "function"})


def _tool(tool: Any) -> Any:
    """A tool as the core takes it: a dict as given (an OpenAI function tool, a protocol's
    own tool such as a server tool), anything else as ``convert_to_openai_tool`` makes it."""
    return tool if isinstance(tool, dict) else convert_to_openai_tool(tool)


def generic_outbound(
    model: ChatSSE, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The request of one call of ``model`` in a protocol whose body the core makes of turns
    (:attr:`sse_core.protocols.WireProtocol.turns_body`: any protocol registered in the core
    with one); pops what is not a request field from ``kwargs``: LangChain's own (run
    options, ``stream``) and the call options (:func:`pop_call_options`).

    Precedence, lowest first: ChatSSE's fields (None is not sent), ``model_kwargs`` (the
    protocol's own fields), the call's kwargs (bound tools and choice, ``response_format``,
    overrides); tool fields go only with tools; then ``strict`` on each tool and JSON schema,
    ``disabled_params``, the call's ``extra_body`` over the model's. ``reasoning_passback``
    goes to a protocol that takes it as a setting.

    Raises:
        ConfigurationError: A message the protocol cannot carry, a setting it does not take,
            or a rule of the API broken.
        ValueError: An ``extra_query`` that is not a mapping of names to strings.
    """
    options = pop_call_options(kwargs)
    params: dict[str, Any] = {
        "max_tokens": model.max_tokens,
        "stop": (stop if stop is not None else model.stop) or None,
        "temperature": model.temperature,
        "reasoning_effort": model.reasoning_effort,
        **model.model_kwargs,
        **kwargs,
    }
    if params.get("tools"):
        params["tools"] = [_tool(tool) for tool in params["tools"]]
    # Dropped by their common names before the protocol places them (Gemini's temperature
    # goes in generationConfig), and again from the body's top level after.
    drop_disabled(params, model.disabled_params)
    protocol = wire_protocol(model.protocol)
    if model.reasoning_passback and PASSBACK in protocol.settings:
        params[PASSBACK] = True
    body = protocol.turns_body
    assert body is not None  # mapping_of refused a protocol without one at construction
    payload = body(model.model_name, to_turns(messages), params)
    return turns_outbound(model, payload, options)


def check_query(query: object) -> dict[str, str] | None:
    """An ``extra_query`` call option: names to string values (as ``default_query``)."""
    if not query:
        return None
    if not isinstance(query, Mapping) or not all(
        isinstance(name, str) and isinstance(value, str) for name, value in query.items()
    ):
        raise ValueError("extra_query must be a mapping of parameter names to string values")
    return dict(query)


def _resolve_usage(stream_usage: object, stream_options: object) -> bool | None:
    """ChatOpenAI's order: a ``stream_usage`` call option, then ``include_usage`` in the
    ``stream_options`` sent (the call's, else ``model_kwargs``'); None: the model's."""
    if isinstance(stream_usage, bool):
        return stream_usage
    if isinstance(stream_options, Mapping):
        found = stream_options.get("include_usage")
        if isinstance(found, bool):
            return found
    return None


def _apply_strict(payload: dict[str, Any], strict: bool) -> None:
    """A ``strict`` call option on each tool that takes one and on a JSON-schema response
    format (it is a field of those, not of the request), where they do not say otherwise.
    Copies: the bound dicts are shared by every call."""
    if tools := payload.get("tools"):
        payload["tools"] = [_strict_tool(tool, strict) for tool in tools]
    response_format = payload.get("response_format")
    if isinstance(response_format, dict) and isinstance(response_format.get("json_schema"), dict):
        schema = {"strict": strict, **response_format["json_schema"]}
        payload["response_format"] = {**response_format, "json_schema": schema}


def _strict_tool(tool: Any, strict: bool) -> Any:
    """``strict`` where the tool's shape holds it: in a ``function`` the tool holds (OpenAI's
    chat shape), else at the top of a function or custom tool (the flat shapes)."""
    if not isinstance(tool, dict):
        return tool
    function = tool.get("function")
    if isinstance(function, dict):
        return {**tool, "function": {"strict": strict, **function}}
    if tool.get("type") in _STRICT_TAKERS and not isinstance(tool.get("custom"), dict):
        return {"strict": strict, **tool}
    return tool
