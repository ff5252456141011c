"""SSELLM's request in Anthropic Messages: LlamaIndex's messages, tools and call arguments
mapped onto the core's rules of the protocol (:mod:`sse_core.protocols.anthropic`).

The messages go through the core's turns (:func:`._turns.to_turns`) and the protocol's own
body (:func:`~sse_core.protocols.anthropic.messages_body`: ``max_tokens``, the system prompt,
alternating roles, reasoning sent back as it came, tools and their choice, ``stop`` as
``stop_sequences``), which ChatSSE shares. What is LlamaIndex's stays here: SSELLM's fields
(``thinking_dict`` is the request's ``thinking``, as llama-index's Anthropic LLM names it),
the call's arguments (``extra_headers`` are this call's headers), and tools as LlamaIndex
tool objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage

from llamaindex_sse._outbound import Headers
from llamaindex_sse._turns import openai_tool, to_turns, turns_request
from sse_core.protocols import anthropic

__all__ = [
    "anthropic_tool_choice",
    "anthropic_tools",
    "build_anthropic_request",
    "to_anthropic_messages",
]

Block = dict[str, Any]
#: SSELLM's names of request settings the core names otherwise.
_NAMES = {"thinking_dict": "thinking"}


def to_anthropic_messages(
    messages: Sequence[ChatMessage],
) -> tuple[str | list[Block] | None, list[Block]]:
    """The ``system`` value and the ``messages`` list of a Messages request.

    Raises:
        ConfigurationError: A block the protocol cannot carry (audio, video), media in an
            assistant turn, or a tool message without its ``tool_call_id``.
        TypeError: A message is neither a ChatMessage nor a mapping of its fields.
    """
    return anthropic.messages(to_turns(messages))


def anthropic_tools(tools: Sequence[Any]) -> list[Block]:
    """Tools in Anthropic's shape, from OpenAI function tools (what ``chat_with_tools``
    makes), LlamaIndex tools, or Anthropic's own tool dicts (kept as given)."""
    return anthropic.tools(openai_tool(tool) for tool in tools)


def anthropic_tool_choice(choice: Any, parallel: bool | None) -> Block | None:
    """``tool_choice`` in Anthropic's shape (:func:`sse_core.protocols.anthropic.tool_choice`).

    Raises:
        ConfigurationError: A value that names no choice.
    """
    return anthropic.tool_choice(choice, parallel)


def build_anthropic_request(
    model: str,
    messages: Sequence[ChatMessage],
    *,
    settings: Mapping[str, Any],
    call_kwargs: Mapping[str, Any],
    reasoning_passback: bool = False,
) -> tuple[dict[str, Any], Headers]:
    """The Messages request body of one call, and its per-call headers.

    Args:
        model: The model name.
        messages: The conversation.
        settings: The model's own parameters (``max_tokens``, ``temperature``, ``stop``,
            ``thinking``, ``reasoning_effort``, then ``additional_kwargs``); None values are
            left out.
        call_kwargs: The call's keyword arguments: request parameters (None values left
            out, later ones win), except ``extra_headers``, the headers of this call.
        reasoning_passback: Not used: this protocol always sends reasoning back as it came.

    Raises:
        ConfigurationError: A message, tool or tool choice the protocol cannot carry.
    """
    return turns_request(anthropic.messages_body, model, messages, settings, call_kwargs, _NAMES)
