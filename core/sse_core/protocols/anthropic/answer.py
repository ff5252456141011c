"""The Messages API's message: Anthropic's own answer object (what the anthropic SDK's
``get_final_message()`` and llama-index's ``Anthropic`` LLM give), from a Completion or, while
it streams, from a snapshot of its choice."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.completion import Choice, Completion, Usage
from sse_core.events import Metadata
from sse_core.protocols.answer import (
    NO_CHOICE,
    AnswerShape,
    Raw,
    arguments,
    first_choice,
    metadata,
    raw_usage,
    reasoning_blocks,
)

__all__ = ["MESSAGE", "message"]


def _content(choice: Choice) -> list[Raw]:
    content: list[Raw] = []
    for block in reasoning_blocks(choice):
        if block.redacted is not None:
            content.append({"type": "redacted_thinking", "data": block.redacted})
        else:
            content.append(
                {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}
            )
    if choice.content:
        text: Raw = {"type": "text", "text": choice.content}
        if choice.citations:
            text["citations"] = [dict(citation) for citation in choice.citations]
        content.append(text)
    content.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments(call.arguments)}
        for call in choice.tool_calls
    )
    return content


def _message(meta: Metadata, usage: Usage | None, stop: Mapping[str, Any], choice: Choice) -> Raw:
    return {
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "model": meta.model,
        "content": _content(choice),
        "stop_reason": stop.get("stop_reason"),
        "stop_sequence": stop.get("stop_sequence"),
        "usage": raw_usage(usage),
    }


def message(completion: Completion) -> Raw:
    """A whole answer as the Messages API's message: its content blocks (thinking with its
    signature, redacted thinking, the text with its citations, tool uses with their input),
    stop reason and sequence, and the usage as the gateway counted it (``input_tokens``,
    ``output_tokens``, ``cache_read_input_tokens``, ...)."""
    first = first_choice(completion)
    stop = {"stop_reason": first.stop_reason, "stop_sequence": first.stop_sequence}
    return _message(metadata(completion), completion.usage, stop, first)


def _streamed(
    meta: Metadata, usage: Usage | None, stop: Mapping[str, Any], choice: Choice | None
) -> Raw:
    return _message(meta, usage, stop, NO_CHOICE if choice is None else choice)


#: The Messages API's message, whole and so far.
MESSAGE = AnswerShape(whole=message, streamed=_streamed)
