"""OpenAI's Responses API (``/v1/responses``): its stream, its request, and the API's request
rules.

- Stream: named ``response.*`` events keyed by ``output_index``, ending with
  ``response.completed`` / ``response.incomplete`` / ``response.failed`` or ``error``
  (:class:`~sse_core.pipeline.ResponsesDecoder`; the rules in
  :mod:`sse_core.pipeline.responses_events`).
- Request: ``POST {base_url}/responses`` with ``Authorization: Bearer``; ``base_url`` is what
  the gateways document, with its version prefix (``https://api.openai.com/v1``,
  ``https://openrouter.ai/api/v1``, ``http://localhost:8000/v1``). The body is the payload with
  ``stream``; of OpenAI's ``stream_options`` only what the Responses API takes is sent
  (``include_obfuscation``; chat's ``include_usage`` is not: usage always comes with the
  terminal event), and none in a whole-answer request (R5). The rules of :mod:`.rules` are
  applied to every body (what the caller put in ``extra_body`` is sent as given).
- A conversation: :func:`responses_body` makes a body of the core's turns and settings
  (:mod:`.request`): ``instructions`` and ``input`` items, tools in the flat shape, ``reasoning``,
  ``max_output_tokens``, ``text.format``, ``store`` (false by default) with
  ``include: ["reasoning.encrypted_content"]`` when the request reasons, ``previous_response_id``.
- An earlier answer's reasoning goes back whole: :attr:`sse_core.ReasoningBlock.item` (the
  reasoning item as the gateway closed it) as :attr:`~sse_core.protocols.turns.ReasoningPart.item`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.pipeline.responses_events import ResponsesDecoder
from sse_core.protocols.registry import RequestShape, WireProtocol, register_protocol
from sse_core.protocols.responses.answer import RESPONSE, how_it_ended, response_object
from sse_core.protocols.responses.prompt import read_prompt
from sse_core.protocols.responses.request import (
    ENCRYPTED_REASONING,
    input_items,
    responses_body,
    text_format,
    tool,
    tool_choice,
    tools,
)
from sse_core.protocols.responses.rules import (
    EFFORTS,
    FORMATS,
    INCLUDABLE,
    MIN_OUTPUT_TOKENS,
    NOT_TAKEN,
    SUMMARIES,
    TOOL_CHOICES,
    check_request,
    reasoning_model,
)

__all__ = [
    "EFFORTS",
    "ENCRYPTED_REASONING",
    "FORMATS",
    "INCLUDABLE",
    "MIN_OUTPUT_TOKENS",
    "NOT_TAKEN",
    "RESPONSE",
    "RESPONSES",
    "SUMMARIES",
    "TOOL_CHOICES",
    "check_request",
    "how_it_ended",
    "input_items",
    "reasoning_model",
    "request_body",
    "response_object",
    "responses_body",
    "text_format",
    "tool",
    "tool_choice",
    "tools",
]


def request_body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """The body as sent: the payload, ``extra_body`` merged over it, ``stream``; chat's
    ``stream_options.include_usage`` left out (``include_usage`` is not used: the terminal
    event always carries usage), ``stream_options`` only with ``stream: true``; checked by
    :func:`.rules.check_request`.

    Raises:
        ConfigurationError: A rule of :mod:`.rules` is broken.
    """
    body = {**payload, **(extra_body or {}), "stream": streaming}
    options = body.pop("stream_options", None)
    if isinstance(options, Mapping) and streaming:
        kept = {k: v for k, v in options.items() if k != "include_usage"}
        if kept:
            body["stream_options"] = kept
    check_request(body, extra_body)
    return body


RESPONSES = register_protocol(
    WireProtocol(
        name="responses",
        decoder=ResponsesDecoder,
        api="Responses API (/responses)",
        ends="a terminal event (response.completed, response.incomplete or response.failed)",
        request=RequestShape(path=lambda base_url: "/responses", body=request_body),
        not_taken=NOT_TAKEN,
        turns_body=responses_body,
        json_mode=True,
        sends_reasoning_back=True,
        how_it_ended=how_it_ended,
        answer=RESPONSE,
        provider="openai",
        prompt=read_prompt,
    )
)
