"""SSELLM's one table from a protocol to its LlamaIndex mapping.

The core holds everything about a protocol that no framework needs (:mod:`sse_core.protocols`:
its decoder, request shape and request rules); what SSELLM needs on top is here, one entry per
protocol: which of SSELLM's fields the protocol carries, how a call's messages, settings and
arguments become the request, and whether the response's message carries the usage and stop
reason (as llama-index's ``Anthropic`` LLM gives them). Events come back the same way for every
protocol (the core's StreamEvents), so nothing else in SSELLM looks at the protocol's name: a
protocol without an entry here is refused at construction, naming the ones there are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from llama_index.core.base.llms.types import ChatMessage

from llamaindex_sse._anthropic import build_anthropic_request
from llamaindex_sse._outbound import Headers, build_request
from llamaindex_sse._raw import ANTHROPIC_RAW, RESPONSES_RAW, RawShape
from llamaindex_sse._responses import build_responses_request
from sse_core import ConfigurationError

__all__ = ["MAPPINGS", "ProtocolMapping", "RequestBuilder", "check_foreign", "mapping_of"]


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
    raw: RawShape | None = None
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

#: Every protocol SSELLM speaks, by the core's name of it.
MAPPINGS: dict[str, ProtocolMapping] = {
    "chat_completions": ProtocolMapping(
        build_request=build_request,
        settings=("temperature", "reasoning_effort", "max_tokens", "stop"),
        foreign={"thinking_dict": THINKING_ELSEWHERE},
    ),
    "anthropic": ProtocolMapping(
        build_request=build_anthropic_request,
        settings=("max_tokens", "temperature", "stop", "thinking_dict", "reasoning_effort"),
        message_usage=True,
        raw=ANTHROPIC_RAW,
        foreign={"reasoning_passback": PASSBACK_ELSEWHERE},
    ),
    "responses": ProtocolMapping(
        build_request=build_responses_request,
        settings=("max_tokens", "temperature", "reasoning_effort", "stop"),
        raw=RESPONSES_RAW,
        structured_format=True,  # as OpenAIResponses.structured_predict
        foreign={
            "thinking_dict": THINKING_ELSEWHERE,
            "reasoning_passback": PASSBACK_ELSEWHERE,
        },
    ),
}


def mapping_of(protocol: object) -> ProtocolMapping:
    """The mapping of ``protocol``.

    Raises:
        ConfigurationError: SSELLM has no mapping of it (it names the protocols it has).
    """
    found = MAPPINGS.get(protocol) if isinstance(protocol, str) else None
    if found is None:
        choices = ", ".join(repr(name) for name in MAPPINGS)
        raise ConfigurationError(f"protocol must be one of {choices}, got {protocol!r}")
    return found


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
