"""ChatSSE's one table from a protocol to its LangChain mapping.

The core holds everything about a protocol that no framework needs (:mod:`sse_core.protocols`:
its decoder, request shape and request rules); what ChatSSE needs on top is here, one entry
per protocol: how a call's LangChain messages, fields and kwargs become the request, how
``bind_tools`` binds tools and their choice, whether the protocol has OpenAI's
``response_format`` (else structured output is a forced tool call), and which fields say more
about the model in traces. Events come back the same way for every protocol (the core's
StreamEvents), so nothing else in ChatSSE looks at the protocol's name: a protocol without an
entry here is refused at construction, naming the ones there are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage

from langchain_sse._anthropic_outbound import anthropic_outbound, bind_anthropic_tools
from langchain_sse._outbound import Outbound, model_outbound
from langchain_sse._tools import ToolLike, bind_chat_tools
from sse_core import ConfigurationError

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import Runnable

    from langchain_sse.model import ChatSSE

__all__ = ["MAPPINGS", "ProtocolMapping", "bind_tools", "mapping_of", "model_request"]

#: Makes one call's request: (model, messages, stop, call kwargs) to what is sent.
OutboundBuilder = Callable[
    ["ChatSSE", Sequence[BaseMessage], "list[str] | None", dict[str, Any]], Outbound
]
#: Binds tools: (tools, tool_choice, strict, parallel_tool_calls, response_format, the
#: kwargs to bind, filled in place) to the tools in the protocol's shape.
ToolBinder = Callable[
    [Sequence[ToolLike], Any, "bool | None", "bool | None", Any, dict[str, Any]],
    list[dict[str, Any]],
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProtocolMapping:
    """What ChatSSE does in one protocol.

    Attributes:
        outbound: Makes one call's request (:data:`OutboundBuilder`).
        bind_tools: Binds tools and their choice (:data:`ToolBinder`).
        response_format: The protocol has OpenAI's ``response_format``; else
            ``with_structured_output`` is a forced tool call whatever the method.
        identity: ChatSSE's fields that identify a model in traces on this protocol, besides
            the common ones.
    """

    outbound: OutboundBuilder
    bind_tools: ToolBinder
    response_format: bool
    identity: tuple[str, ...] = ()


#: Every protocol ChatSSE speaks, by the core's name of it.
MAPPINGS: dict[str, ProtocolMapping] = {
    "chat_completions": ProtocolMapping(
        outbound=model_outbound, bind_tools=bind_chat_tools, response_format=True
    ),
    "anthropic": ProtocolMapping(
        outbound=anthropic_outbound,
        bind_tools=bind_anthropic_tools,
        response_format=False,
        identity=("protocol", "thinking"),
    ),
}


def mapping_of(protocol: object) -> ProtocolMapping:
    """The mapping of ``protocol``.

    Raises:
        ConfigurationError: ChatSSE has no mapping of it (it names the protocols it has).
    """
    found = MAPPINGS.get(protocol) if isinstance(protocol, str) else None
    if found is None:
        choices = ", ".join(repr(name) for name in MAPPINGS)
        raise ConfigurationError(f"protocol must be one of {choices}, got {protocol!r}")
    return found


def model_request(
    model: ChatSSE, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The request of one call of ``model`` in its protocol (pops what is not a request field
    from ``kwargs``)."""
    return mapping_of(model.protocol).outbound(model, messages, stop, kwargs)


def bind_tools(
    model: ChatSSE,
    tools: Sequence[ToolLike],
    tool_choice: dict[str, Any] | str | bool | None,
    strict: bool | None,
    parallel_tool_calls: bool | None,
    response_format: dict[str, Any] | type | None,
    kwargs: dict[str, Any],
) -> Runnable[LanguageModelInput, AIMessage]:
    """What ``ChatSSE.bind_tools`` returns (see there): the tools and choice bound in the
    shape of the model's protocol."""
    bind = mapping_of(model.protocol).bind_tools
    formatted = bind(tools, tool_choice, strict, parallel_tool_calls, response_format, kwargs)
    return model.bind(tools=formatted, **kwargs)
