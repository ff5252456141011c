"""ChatSSE's request in Anthropic Messages: LangChain's messages, tools and call options mapped
onto the core's rules of the protocol (:mod:`sse_core.protocols.anthropic`).

The messages go through the core's turns (:func:`._turns.to_turns`) and the protocol's own
body (:func:`~sse_core.protocols.anthropic.messages_body`: ``max_tokens``, the system prompt,
alternating roles, reasoning sent back as it came, tools and their choice), which SSELLM
shares. What is LangChain's stays here: ChatSSE's fields and ``model_kwargs``, the call's
kwargs and options (``strict``, ``extra_body``, ``extra_headers``, ``extra_query``,
``timeout``), ``disabled_params``, and tools in any shape ``convert_to_openai_tool`` takes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_sse._outbound import Outbound, pop_call_options, turns_outbound
from langchain_sse._tools import build_response_format
from langchain_sse._turns import to_turns
from sse_core.protocols import anthropic

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = [
    "anthropic_outbound",
    "anthropic_tool_choice",
    "bind_anthropic_tools",
    "convert_anthropic_messages",
    "format_anthropic_tools",
]

Block = dict[str, Any]


def convert_anthropic_messages(
    messages: Sequence[BaseMessage],
) -> tuple[str | list[Block] | None, list[dict[str, Any]]]:
    """The ``system`` value and the ``messages`` list of a Messages request.

    Raises:
        ValueError: For a message type or content part the protocol cannot carry.
    """
    return anthropic.messages(to_turns(messages))


def _openai_tool(tool: Any) -> Mapping[str, Any]:
    """A tool as the core's protocol module takes it: Anthropic's own dict as given, anything
    else as ``convert_to_openai_tool`` makes it (a ``cache_control`` of the dict kept)."""
    if isinstance(tool, Mapping) and "input_schema" in tool:
        return tool
    converted = convert_to_openai_tool(tool)
    if isinstance(tool, Mapping) and "cache_control" in tool:
        return {**converted, "cache_control": tool["cache_control"]}
    return converted


def format_anthropic_tools(tools: Sequence[Any]) -> list[Block]:
    """Tools in Anthropic's shape, from anything ``convert_to_openai_tool`` takes or from
    Anthropic's own tool dicts (kept as given, ``cache_control`` included)."""
    return anthropic.tools(_openai_tool(tool) for tool in tools)


def anthropic_tool_choice(
    choice: str | bool | Mapping[str, Any] | None, parallel_tool_calls: bool | None = None
) -> Block | None:
    """``tool_choice`` in Anthropic's shape (:func:`sse_core.protocols.anthropic.tool_choice`).

    Raises:
        ValueError: For a value that names no choice.
    """
    return anthropic.tool_choice(choice, parallel_tool_calls)


def bind_anthropic_tools(
    tools: Sequence[Any],
    tool_choice: Any,
    strict: bool | None,
    parallel_tool_calls: bool | None,
    response_format: Any,
    kwargs: dict[str, Any],
) -> list[Block]:
    """``bind_tools`` on this protocol: the tools and choice in the Messages API's shape,
    ``strict`` on each tool, ``parallel_tool_calls`` folded into the choice, as ChatAnthropic
    binds them; a ``response_format`` schema is bound too, sent as the API's native
    ``output_config.format`` (the core's :func:`~sse_core.protocols.anthropic.output_format`).

    Raises:
        ValueError: A choice that names none.
    """
    if response_format is not None:
        kwargs["response_format"] = build_response_format(response_format, strict=strict)
    formatted = format_anthropic_tools(tools)
    if strict is not None:
        formatted = [{**tool, "strict": strict} for tool in formatted]
    choice = anthropic_tool_choice(tool_choice, parallel_tool_calls)
    if choice is not None:
        kwargs["tool_choice"] = choice
    return formatted


def sent_max_tokens(model: ChatSSE) -> int | None:
    """The ``max_tokens`` to send: None while the field holds what the protocol's rule filled
    in at construction (the rule then fills it for the call's own thinking)."""
    filled = model._default_max_tokens
    return None if filled is not None and model.max_tokens == filled else model.max_tokens


def anthropic_outbound(
    model: ChatSSE, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The Messages request of one call of ``model`` (pops what is not a request field from
    ``kwargs``, as :func:`~langchain_sse._outbound.generic_outbound` does).

    Precedence, lowest first: ChatSSE's fields, ``model_kwargs`` (``top_k``, ``top_p``,
    ``metadata``), the call's kwargs (bound tools and choice in either shape), then
    ``strict`` on each tool, ``disabled_params``, the call's ``extra_body``.

    Raises:
        ValueError: For a message the protocol cannot carry, an ``extra_query`` that is not
            a mapping of names to strings, or a ``response_format`` (no such field).
    """
    options = pop_call_options(kwargs)
    params: dict[str, Any] = {
        "max_tokens": sent_max_tokens(model),
        "stop": (stop if stop is not None else model.stop) or None,
        "temperature": model.temperature,
        "thinking": model.thinking,
        "reasoning_effort": model.reasoning_effort,
        **model.model_kwargs,
        **kwargs,
    }
    if params.get("tools"):
        params["tools"] = [_openai_tool(tool) for tool in params["tools"]]
    payload = anthropic.messages_body(model.model_name, to_turns(messages), params)
    return turns_outbound(model, payload, options)
