"""SSELLM's request in OpenAI's Responses API: LlamaIndex's messages, tools and call arguments
mapped onto the core's rules of the protocol (:mod:`sse_core.protocols.responses`).

The messages go through the core's turns (:func:`._turns.to_turns`) and the protocol's own
body (:func:`~sse_core.protocols.responses.responses_body`: ``instructions`` and ``input``
items, reasoning items sent back whole, flat tools, ``max_output_tokens``, ``reasoning``,
``text.format``, ``store`` false with the encrypted reasoning asked for), which ChatSSE
shares. What is LlamaIndex's stays here: SSELLM's fields, the call's arguments
(``extra_headers`` are this call's headers), and tools as LlamaIndex tool objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage

from llamaindex_sse._outbound import Headers
from llamaindex_sse._turns import turns_request
from sse_core.protocols import responses

__all__ = ["build_responses_request"]


def build_responses_request(
    model: str,
    messages: Sequence[ChatMessage],
    *,
    settings: Mapping[str, Any],
    call_kwargs: Mapping[str, Any],
    reasoning_passback: bool = False,
) -> tuple[dict[str, Any], Headers]:
    """The Responses request body of one call, and its per-call headers.

    Args:
        model: The model name.
        messages: The conversation.
        settings: The model's own parameters (``max_tokens``, ``temperature``,
            ``reasoning_effort``, then ``additional_kwargs``: ``store``,
            ``previous_response_id``, ``reasoning``, ...); None values are left out.
        call_kwargs: The call's keyword arguments: request parameters (None values left
            out, later ones win), except ``extra_headers``, the headers of this call.
        reasoning_passback: Not used: this protocol always sends reasoning back as it came.

    Raises:
        ConfigurationError: A message, tool, tool choice or setting the protocol cannot
            carry (``stop``, named), or a rule of the API broken.
    """
    return turns_request(responses.responses_body, model, messages, settings, call_kwargs)
