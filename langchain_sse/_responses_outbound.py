"""ChatSSE's request in OpenAI's Responses API: LangChain's messages, tools and call options
mapped onto the core's rules of the protocol (:mod:`sse_core.protocols.responses`).

The messages go through the core's turns (:func:`._turns.to_turns`) and the protocol's own
body (:func:`~sse_core.protocols.responses.responses_body`: ``instructions`` and ``input``
items, reasoning items sent back whole, flat tools, ``max_output_tokens``, ``reasoning``,
``text.format``, ``store`` false with the encrypted reasoning asked for), which SSELLM
shares. What is LangChain's stays here: ChatSSE's fields and ``model_kwargs``, the call's
kwargs and options (``strict``, ``extra_body``, ``extra_headers``, ``extra_query``,
``timeout``) and ``disabled_params``. Tools are bound as for chat completions (OpenAI's
function tools and choices, which the core turns into the Responses shapes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_sse._outbound import Outbound, pop_call_options, turns_outbound
from langchain_sse._turns import to_turns
from sse_core.protocols import responses

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = ["responses_outbound"]


def _tool(tool: Any) -> Any:
    """A tool as the core takes it: a dict as given (an OpenAI function tool, a flat
    Responses one, a server tool such as ``web_search``), anything else as
    ``convert_to_openai_tool`` makes it."""
    return tool if isinstance(tool, dict) else convert_to_openai_tool(tool)


def responses_outbound(
    model: ChatSSE, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The Responses request of one call of ``model`` (pops what is not a request field from
    ``kwargs``, as :func:`~langchain_sse._outbound.build_outbound` does).

    Precedence, lowest first: ChatSSE's fields, ``model_kwargs`` (``top_p``, ``store``,
    ``previous_response_id``, ``reasoning``, ``metadata``, ...), the call's kwargs (bound
    tools and choice), then ``strict`` on each function tool, ``disabled_params``, the call's
    ``extra_body``.

    Raises:
        ConfigurationError: A message the protocol cannot carry, a setting the API does not
            take (``stop``, named), or a rule of the API broken.
        ValueError: An ``extra_query`` that is not a mapping of names to strings.
    """
    options = pop_call_options(kwargs)
    params: dict[str, Any] = {
        "max_tokens": model.max_tokens,
        "stop": (stop if stop is not None else model.stop) or None,  # not sent: a warning
        "temperature": model.temperature,
        "reasoning_effort": model.reasoning_effort,
        **model.model_kwargs,
        **kwargs,
    }
    if params.get("tools"):
        params["tools"] = [_tool(tool) for tool in params["tools"]]
    payload = responses.responses_body(model.model_name, to_turns(messages), params)
    return turns_outbound(model, payload, options)
