"""The Responses API's response object: its own answer object (what the openai SDK's
``get_final_response()`` and llama-index's ``OpenAIResponses`` give), from a Completion or,
while it streams, from a snapshot of its choice; and how an answer ended in its words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.completion import Choice, Completion, Usage
from sse_core.events import Metadata
from sse_core.protocols.answer import NO_CHOICE, AnswerShape, Raw, first_choice, metadata, raw_usage

__all__ = ["RESPONSE", "how_it_ended", "response_object"]


def how_it_ended(stop_reason: str) -> dict[str, Any]:
    """The API's ``status`` and ``incomplete_details`` of an answer that ended for
    ``stop_reason`` (the decoder's: ``completed``, or the raw reason it is incomplete for),
    as the API's response object and ChatOpenAI's ``response_metadata`` give them."""
    if stop_reason == "completed":
        return {"status": "completed", "incomplete_details": None}
    return {"status": "incomplete", "incomplete_details": {"reason": stop_reason}}


def _ended(stop_reason: str | None) -> dict[str, Any]:
    """``status`` and ``incomplete_details``; ``in_progress`` before the end."""
    if stop_reason is None:
        return {"status": "in_progress", "incomplete_details": None}
    return how_it_ended(stop_reason)


def _output(choice: Choice) -> list[Raw]:
    # A reasoning item is shown once the gateway closed it (its item, whole): before that
    # the stream has its text only, not the item.
    output: list[Raw] = [
        dict(block.item) for block in choice.reasoning_blocks if block.item is not None
    ]
    if choice.content or choice.refusal:
        parts: list[Raw] = []
        if choice.content:
            notes = [dict(citation) for citation in choice.citations]
            parts.append({"type": "output_text", "text": choice.content, "annotations": notes})
        if choice.refusal:
            parts.append({"type": "refusal", "refusal": choice.refusal})
        output.append({"type": "message", "role": "assistant", "content": parts})
    output.extend(
        {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.arguments,
        }
        for call in choice.tool_calls
    )
    return output


def _response(meta: Metadata, usage: Usage | None, stop_reason: str | None, choice: Choice) -> Raw:
    return {
        "id": meta.id,
        "object": "response",
        "created_at": meta.created,
        "model": meta.model,
        **_ended(stop_reason),
        "output": _output(choice),
        "usage": raw_usage(usage),
    }


def response_object(completion: Completion) -> Raw:
    """A whole answer as the Responses API's response object: ``output`` holds the reasoning
    items as the gateway closed them, the message with its text and annotations, and the
    function calls; ``status`` and ``incomplete_details`` say how it ended; ``usage`` is the
    API's own."""
    first = first_choice(completion)
    return _response(metadata(completion), completion.usage, first.stop_reason, first)


def _streamed(
    meta: Metadata, usage: Usage | None, stop: Mapping[str, Any], choice: Choice | None
) -> Raw:
    return _response(meta, usage, stop.get("stop_reason"), NO_CHOICE if choice is None else choice)


#: The Responses API's response object, whole and so far.
RESPONSE = AnswerShape(whole=response_object, streamed=_streamed)
