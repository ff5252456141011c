"""ChatSSE's one table from a protocol to its LangChain mapping.

The core holds everything about a protocol that no framework needs (:mod:`sse_core.protocols`:
its decoder, request shape and request rules); what ChatSSE needs on top is here, one entry
per protocol: how a call's LangChain messages, fields and kwargs become the request, how
``bind_tools`` binds tools and their choice, whether the protocol has OpenAI's
a JSON mode, and which fields say more
about the model in traces. Events come back the same way for every protocol (the core's
StreamEvents), so nothing else in ChatSSE looks at the protocol's name: a protocol without an
entry here is refused at construction, naming the ones there are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import AIMessage, BaseMessage

from langchain_sse._anthropic_outbound import anthropic_outbound, bind_anthropic_tools
from langchain_sse._inbound import StopMetadata
from langchain_sse._outbound import Outbound, model_outbound
from langchain_sse._responses_outbound import responses_outbound
from langchain_sse._tools import ToolLike, bind_chat_tools
from sse_core import ConfigurationError
from sse_core.protocols import responses

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import Runnable

    from langchain_sse.model import ChatSSE

__all__ = [
    "MAPPINGS",
    "Method",
    "ProtocolMapping",
    "bind_tools",
    "check_foreign",
    "mapping_of",
    "model_request",
]

#: The ways ``with_structured_output`` asks for a structured answer.
Method = Literal["function_calling", "json_schema", "json_mode"]
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
        json_mode: The protocol has a JSON mode (OpenAI's ``response_format``
            ``json_object``); else ``with_structured_output(method="json_mode")`` asks for
            its schema as ``json_schema`` does (a schema is needed).
        identity: ChatSSE's fields that identify a model in traces on this protocol, besides
            the common ones.
        foreign: ChatSSE's request fields this protocol cannot carry, each with what to use
            instead: set to anything but its default, the field is refused by name at
            construction (never dropped in silence).
        stop_metadata: The protocol's own ``response_metadata`` for how an answer ended, from
            its stop reason (the Responses API's ``status`` and ``incomplete_details``, as
            ChatOpenAI gives them); None: ``stop_reason`` says it.
        structured_method: The method of ``with_structured_output`` when none is asked for,
            as the protocol's LangChain class defaults (ChatOpenAI's ``json_schema``,
            ChatAnthropic's ``function_calling``).
        strict_schema: ``json_schema`` with ``strict=None`` is strict for a Pydantic class
            (``strict: false`` for a TypedDict or a JSON schema), as ChatOpenAI sends it;
            else ``strict`` goes only when asked.
    """

    outbound: OutboundBuilder
    bind_tools: ToolBinder
    json_mode: bool
    identity: tuple[str, ...] = ()
    foreign: Mapping[str, str] = field(default_factory=dict)
    stop_metadata: StopMetadata | None = None
    structured_method: Method = "function_calling"
    strict_schema: bool = False


#: Why ``thinking`` is refused on a protocol without Anthropic's field.
THINKING_ELSEWHERE = (
    "it is Anthropic Messages' field (protocol='anthropic'); ask for reasoning with "
    "reasoning_effort, or send a gateway's own field with model_kwargs"
)
#: Why ``reasoning_passback`` is refused on a protocol that sends reasoning back itself.
PASSBACK_ELSEWHERE = (
    "this protocol always sends an earlier answer's reasoning back as the API requires it "
    "(signed, byte-exact); reasoning_passback is chat completions' reasoning_content"
)

#: Every protocol ChatSSE speaks, by the core's name of it.
MAPPINGS: dict[str, ProtocolMapping] = {
    "chat_completions": ProtocolMapping(
        outbound=model_outbound,
        bind_tools=bind_chat_tools,
        json_mode=True,
        foreign={"thinking": THINKING_ELSEWHERE},
        structured_method="json_schema",  # as ChatOpenAI
        strict_schema=True,
    ),
    "anthropic": ProtocolMapping(
        outbound=anthropic_outbound,
        bind_tools=bind_anthropic_tools,
        json_mode=False,
        structured_method="function_calling",  # as ChatAnthropic
        identity=("protocol", "thinking"),
        foreign={"reasoning_passback": PASSBACK_ELSEWHERE},
    ),
    "responses": ProtocolMapping(
        outbound=responses_outbound,
        bind_tools=bind_chat_tools,  # OpenAI's shapes: the core makes them flat
        json_mode=True,
        identity=("protocol",),
        foreign={
            "thinking": THINKING_ELSEWHERE,
            "reasoning_passback": PASSBACK_ELSEWHERE,
        },
        stop_metadata=responses.how_it_ended,
        structured_method="json_schema",  # as ChatOpenAI(use_responses_api=True)
        strict_schema=True,
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


def check_foreign(model: ChatSSE) -> None:
    """Refuse a field set on ``model`` that its protocol cannot carry.

    Raises:
        ConfigurationError: Naming the field, the protocol and what to use instead.
    """
    for name, instead in mapping_of(model.protocol).foreign.items():
        if getattr(model, name) not in (None, False):
            raise ConfigurationError(
                f"{name} does not apply to protocol={model.protocol!r}: {instead}"
            )


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
