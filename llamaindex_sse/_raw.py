"""``ChatResponse.raw`` in the protocol's own shape, as that protocol's llama-index LLM gives it.

Chat completions keep the chunk / completion dict OpenAILike gives (made in
:mod:`llamaindex_sse._inbound`). Another protocol's table entry names a :class:`RawShape`:
the whole answer as the protocol's own object (e.g. the Messages API's message), and a
streamed response's raw as that object so far (its id, model, status or stop
reason, and the usage in the protocol's own names: never chat completions' keys mixed in).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sse_core import Completion, Metadata, Usage
from sse_core.protocols import responses

__all__ = ["ANTHROPIC_RAW", "RESPONSES_RAW", "RawShape"]

Raw = dict[str, Any]


@dataclass(frozen=True, slots=True)
class RawShape:
    """How one protocol's ``raw`` looks.

    Attributes:
        whole: A whole answer's raw (``chat``), from its Completion.
        streamed: A streamed response's raw, from the answer's metadata, its usage so far
            and its stop fields (``stop_reason``, ``stop_sequence``; empty until it stopped).
    """

    whole: Callable[[Completion], Raw]
    streamed: Callable[[Metadata, Usage | None, Mapping[str, Any]], Raw]


def _usage(usage: Usage | None) -> Raw | None:
    return None if usage is None else dict(usage.raw)


def _arguments(arguments: str) -> Any:
    try:
        return json.loads(arguments) if arguments else {}
    except ValueError:  # cut input: kept as sent, never repaired
        return arguments


def anthropic_message(completion: Completion) -> Raw:
    """A whole answer as the Messages API's message (what llama-index's ``Anthropic`` LLM
    gives as ``ChatResponse.raw``): its content blocks (thinking with its signature, redacted
    thinking, the text with its citations, tool uses with their input), stop reason and
    sequence, and the usage as the gateway counted it (``input_tokens``, ``output_tokens``,
    ``cache_read_input_tokens``, ...)."""
    first = completion.choices[0] if completion.choices else None
    content: list[Raw] = []
    for block in completion.reasoning_blocks:
        if block.redacted is not None:
            content.append({"type": "redacted_thinking", "data": block.redacted})
        else:
            content.append(
                {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}
            )
    if completion.content:
        text: Raw = {"type": "text", "text": completion.content}
        if completion.citations:
            text["citations"] = [dict(citation) for citation in completion.citations]
        content.append(text)
    content.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": _arguments(call.arguments)}
        for call in completion.tool_calls
    )
    return {
        "id": completion.id,
        "type": "message",
        "role": "assistant",
        "model": completion.model,
        "content": content,
        "stop_reason": None if first is None else first.stop_reason,
        "stop_sequence": None if first is None else first.stop_sequence,
        "usage": _usage(completion.usage),
    }


def _anthropic_streamed(meta: Metadata, usage: Usage | None, stop: Mapping[str, Any]) -> Raw:
    return {
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "model": meta.model,
        "usage": _usage(usage),
        "stop_reason": stop.get("stop_reason"),
        "stop_sequence": stop.get("stop_sequence"),
    }


def _ended(stop_reason: str | None) -> dict[str, Any]:
    """``status`` and ``incomplete_details`` (the core's), ``in_progress`` before the end."""
    if stop_reason is None:
        return {"status": "in_progress", "incomplete_details": None}
    return responses.how_it_ended(stop_reason)


def responses_object(completion: Completion) -> Raw:
    """A whole answer as the Responses API's response object (what llama-index's
    ``OpenAIResponses`` gives as ``raw``): ``output`` holds the reasoning items as the gateway
    closed them, the message with its text and annotations, and the function calls; ``status``
    and ``incomplete_details`` say how it ended; ``usage`` is the API's own."""
    first = completion.choices[0] if completion.choices else None
    stop_reason = None if first is None else first.stop_reason
    output: list[Raw] = [
        dict(block.item) for block in completion.reasoning_blocks if block.item is not None
    ]
    if completion.content or completion.refusal:
        parts: list[Raw] = []
        if completion.content:
            notes = [dict(citation) for citation in completion.citations]
            parts.append({"type": "output_text", "text": completion.content, "annotations": notes})
        if completion.refusal:
            parts.append({"type": "refusal", "refusal": completion.refusal})
        output.append({"type": "message", "role": "assistant", "content": parts})
    output.extend(
        {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.arguments,
        }
        for call in completion.tool_calls
    )
    return {
        "id": completion.id,
        "object": "response",
        "created_at": completion.created,
        "model": completion.model,
        **_ended(stop_reason),
        "output": output,
        "usage": _usage(completion.usage),
    }


def _responses_streamed(meta: Metadata, usage: Usage | None, stop: Mapping[str, Any]) -> Raw:
    return {
        "id": meta.id,
        "object": "response",
        "model": meta.model,
        "status": _ended(stop.get("stop_reason"))["status"],
        "usage": _usage(usage),
    }


#: Anthropic Messages: the Messages API's message.
ANTHROPIC_RAW = RawShape(whole=anthropic_message, streamed=_anthropic_streamed)
#: The Responses API: its response object.
RESPONSES_RAW = RawShape(whole=responses_object, streamed=_responses_streamed)
