"""SSELLM's one mapping from a protocol to LlamaIndex, made of the core's facts of it.

The core holds everything about a protocol (:mod:`sse_core.protocols`: its decoder, request
shape, request rules, how a conversation becomes its body, the settings only it takes, whether
it sends reasoning back itself). SSELLM maps any registered protocol from those facts
(:func:`generic_mapping`: which of SSELLM's fields it carries, how a call becomes its request);
:data:`OVERRIDES` holds only where a protocol's llama-index LLM has a convention of its own
(OpenAILike's content parts and order of settings, the usage and stop reason Anthropic's LLM
puts on the message, the ``raw`` each gives). Events come back the same way for every
protocol (the core's StreamEvents), so nothing else in SSELLM looks at the protocol's name,
and a protocol registered in the core is taken with no edit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from llama_index.core.base.llms.types import ChatMessage

from llamaindex_sse._outbound import Headers
from llamaindex_sse._turns import PASSBACK, turns_request
from sse_core import ConfigurationError
from sse_core._choices import refuse_choices
from sse_core.protocols import WireProtocol, wire_protocol
from sse_core.protocols.answer import AnswerShape
from sse_core.protocols.mappings import Mappings

__all__ = [
    "MAPPINGS",
    "OVERRIDES",
    "ProtocolMapping",
    "RequestBuilder",
    "check_foreign",
    "generic_mapping",
    "mapping_of",
]


class RequestBuilder(Protocol):
    """Makes one call's request body and its per-call headers."""

    def __call__(
        self,
        model: str,
        messages: Sequence[ChatMessage],
        *,
        settings: Mapping[str, Any],
        call_kwargs: Mapping[str, Any],
        reasoning_passback: bool = False,
    ) -> tuple[dict[str, Any], Headers]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ProtocolMapping:
    """What SSELLM does in one protocol.

    Attributes:
        build_request: Makes one call's request (:class:`RequestBuilder`).
        settings: SSELLM's request fields this protocol carries, in the order they are read
            (``additional_kwargs`` always comes last).
        message_usage: The response's message carries the usage and stop reason in its
            ``additional_kwargs``, as llama-index's own LLM of the protocol gives them.
        raw: ``ChatResponse.raw`` in the protocol's own shape, as its llama-index LLM gives it
            (None: chat completions' chunk and completion dicts, as OpenAILike's).
        foreign: SSELLM's request fields this protocol cannot carry, each with what to use
            instead: set to anything but its default, the field is refused by name at
            construction (never dropped in silence).
        structured_format: ``structured_predict`` (its async twin, and a structured LLM's
            ``chat``) asks for the schema as the answer's own format, strict (constrained
            decoding), with ``tool_choice`` "none", as the protocol's llama-index LLM does
            (``OpenAIResponses``); else by a required tool call, as ``FunctionCallingLLM``
            asks (``OpenAILike`` too). Streamed structured output is a required tool call
            either way, as those LLMs stream it.
    """

    build_request: RequestBuilder
    settings: tuple[str, ...]
    message_usage: bool = False
    raw: AnswerShape | None = None
    foreign: Mapping[str, str] = field(default_factory=dict)
    structured_format: bool = False


#: Why ``thinking_dict`` is refused on a protocol without Anthropic's field.
THINKING_ELSEWHERE = (
    "it is Anthropic Messages' thinking (protocol='anthropic'); ask for reasoning with "
    "reasoning_effort, or send a gateway's own field with additional_kwargs"
)
#: Why ``reasoning_passback`` is refused on a protocol that sends reasoning back itself.
PASSBACK_ELSEWHERE = (
    "this protocol always sends an earlier answer's reasoning back as the API requires it "
    "(signed, byte-exact); reasoning_passback is chat completions' reasoning_content"
)
#: SSELLM's names of the request settings the core names otherwise.
_NAMES = {"thinking_dict": "thinking"}
#: SSELLM's fields of the settings only some protocols take (by the core's names).
_OWN_FIELDS = {"thinking": "thinking_dict"}


def generic_request(protocol: WireProtocol, *, openai_parts: bool = False) -> RequestBuilder:
    """The request builder of a protocol: its body the core's, made of SSELLM's turns
    (:attr:`WireProtocol.turns_body`); ``reasoning_passback`` goes to a protocol that takes
    it as a setting; ``openai_parts``: media as OpenAI's content parts
    (:func:`~llamaindex_sse._turns.to_turns`)."""
    body = protocol.turns_body
    assert body is not None
    takes_passback = PASSBACK in protocol.settings

    def build(
        model: str,
        messages: Sequence[ChatMessage],
        *,
        settings: Mapping[str, Any],
        call_kwargs: Mapping[str, Any],
        reasoning_passback: bool = False,
    ) -> tuple[dict[str, Any], Headers]:
        return turns_request(
            body,
            model,
            messages,
            settings,
            call_kwargs,
            _NAMES,
            passback=reasoning_passback and takes_passback,
            openai_parts=openai_parts,
        )

    return build


#: Chat completions' generic builder with OpenAI's content parts, made once.
_OPENAI_LIKE = generic_request(wire_protocol("chat_completions"), openai_parts=True)


def _openai_like_request(
    model: str,
    messages: Sequence[ChatMessage],
    *,
    settings: Mapping[str, Any],
    call_kwargs: Mapping[str, Any],
    reasoning_passback: bool = False,
) -> tuple[dict[str, Any], Headers]:
    """OpenAILike's request in chat completions: the generic one, with media as OpenAI's
    content parts (audio, a document's title), and ``n`` other than 1
    refused naming where SSELLM found it (the call's keyword arguments, else
    ``additional_kwargs``), before the core refuses it in the body."""
    if "n" in call_kwargs:
        refuse_choices(call_kwargs, "the call's keyword arguments")
    else:
        refuse_choices(settings, "SSELLM's additional_kwargs")
    return _OPENAI_LIKE(
        model,
        messages,
        settings=settings,
        call_kwargs=call_kwargs,
        reasoning_passback=reasoning_passback,
    )


def generic_mapping(protocol: WireProtocol) -> ProtocolMapping:
    """What SSELLM does in a protocol, from the core's facts of it alone: the request from the
    core's turns (:attr:`WireProtocol.turns_body`), SSELLM's common settings and the fields of
    the settings only the protocol takes, its fields refused elsewhere."""
    foreign: dict[str, str] = {}
    if "thinking" not in protocol.settings:
        foreign["thinking_dict"] = THINKING_ELSEWHERE
    if protocol.sends_reasoning_back:
        foreign["reasoning_passback"] = PASSBACK_ELSEWHERE
    own = tuple(_OWN_FIELDS[name] for name in protocol.settings if name in _OWN_FIELDS)
    return ProtocolMapping(
        build_request=generic_request(protocol),
        settings=("max_tokens", "temperature", "stop", *own, "reasoning_effort"),
        raw=protocol.answer,
        foreign=foreign,
    )


#: Where a protocol's LlamaIndex convention is not the generic one (by the core's name of it):
#: the fields replaced. A protocol without an entry is mapped from the core's facts alone.
OVERRIDES: dict[str, Mapping[str, Any]] = {
    "chat_completions": {
        # OpenAILike's content parts and its order of settings (the request: the core's turns).
        "build_request": _openai_like_request,
        "settings": ("temperature", "reasoning_effort", "max_tokens", "stop"),
    },
    "anthropic": {
        # As llama-index's Anthropic LLM gives them.
        "message_usage": True,
    },
    "responses": {
        # As OpenAIResponses asks structured_predict for its format.
        "structured_format": True,
    },
}

#: Every protocol's mapping, made once (:class:`~sse_core.protocols.mappings.Mappings`).
MAPPINGS: Mappings[ProtocolMapping] = Mappings(
    "SSELLM", generic_mapping, OVERRIDES, request_field="build_request"
)


def mapping_of(protocol: object) -> ProtocolMapping:
    """The mapping of ``protocol``: the generic one, with its overrides.

    Raises:
        ConfigurationError: Not a registered protocol (it names those there are), or one
            SSELLM cannot make a request of.
    """
    return MAPPINGS.of(protocol)


def check_foreign(fields: Mapping[str, Any]) -> None:
    """Refuse a field set in ``fields`` (SSELLM's values by name) that its protocol cannot
    carry.

    Raises:
        ConfigurationError: Naming the field, the protocol and what to use instead.
    """
    protocol = fields["protocol"]
    for name, instead in mapping_of(protocol).foreign.items():
        if fields.get(name) not in (None, False):
            raise ConfigurationError(f"{name} does not apply to protocol={protocol!r}: {instead}")
