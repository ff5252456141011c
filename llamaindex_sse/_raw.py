"""``ChatResponse.raw`` in the protocol's own shape, as that protocol's llama-index LLM gives it.

Chat completions keep the chunk / completion dict OpenAILike gives (made in
:mod:`llamaindex_sse._inbound`). Another protocol's table entry names a :class:`RawShape`:
the whole answer as the protocol's own object (e.g. the Messages API's message), and a
streamed response's raw as that object so far, with the same keys (its content so far, its
id, model, status or stop reason, and the usage in the protocol's own names: never chat
completions' keys mixed in).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sse_core import Choice, Completion, Metadata, ReasoningBlock, Usage
from sse_core.protocols import responses

__all__ = ["ANTHROPIC_RAW", "RESPONSES_RAW", "RawShape"]

Raw = dict[str, Any]
_NO_CHOICE = Choice()


@dataclass(frozen=True, slots=True)
class RawShape:
    """How one protocol's ``raw`` looks.

    Attributes:
        whole: A whole answer's raw (``chat``), from its Completion.
        streamed: A streamed response's raw, from the answer's metadata, its usage so far,
            its stop fields (``stop_reason``, ``stop_sequence``; empty until it stopped) and
            the choice as it stood at the response's chunk (a snapshot; None before any).
    """

    whole: Callable[[Completion], Raw]
    streamed: Callable[[Metadata, Usage | None, Mapping[str, Any], Choice | None], Raw]


def _usage(usage: Usage | None) -> Raw | None:
    return None if usage is None else dict(usage.raw)


def _arguments(arguments: str) -> Any:
    try:
        return json.loads(arguments) if arguments else {}
    except ValueError:  # cut input: kept as sent, never repaired
        return arguments


def _reasoning_blocks(choice: Choice) -> tuple[ReasoningBlock, ...]:
    """The choice's reasoning blocks, and its text no block holds as one unsigned block (a
    block still open mid-stream, or a gateway that signed none), as the anthropic SDK's
    accumulated message shows an open thinking block: its text so far, ``signature`` ""."""
    blocks = choice.reasoning_blocks
    held = sum(len(block.text) for block in blocks)
    if held < len(choice.reasoning):
        return (*blocks, ReasoningBlock(text=choice.reasoning[held:]))
    return blocks


def _anthropic_content(choice: Choice) -> list[Raw]:
    content: list[Raw] = []
    for block in _reasoning_blocks(choice):
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
        {"type": "tool_use", "id": call.id, "name": call.name, "input": _arguments(call.arguments)}
        for call in choice.tool_calls
    )
    return content


def _message(meta: Metadata, usage: Usage | None, stop: Mapping[str, Any], choice: Choice) -> Raw:
    return {
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "model": meta.model,
        "content": _anthropic_content(choice),
        "stop_reason": stop.get("stop_reason"),
        "stop_sequence": stop.get("stop_sequence"),
        "usage": _usage(usage),
    }


def _metadata(completion: Completion) -> Metadata:
    return Metadata(id=completion.id, model=completion.model, created=completion.created)


def _stop(choice: Choice) -> dict[str, Any]:
    return {"stop_reason": choice.stop_reason, "stop_sequence": choice.stop_sequence}


def anthropic_message(completion: Completion) -> Raw:
    """A whole answer as the Messages API's message (what llama-index's ``Anthropic`` LLM
    gives as ``ChatResponse.raw``): its content blocks (thinking with its signature, redacted
    thinking, the text with its citations, tool uses with their input), stop reason and
    sequence, and the usage as the gateway counted it (``input_tokens``, ``output_tokens``,
    ``cache_read_input_tokens``, ...)."""
    first = completion.choices[0] if completion.choices else _NO_CHOICE
    return _message(_metadata(completion), completion.usage, _stop(first), first)


def _anthropic_streamed(
    meta: Metadata, usage: Usage | None, stop: Mapping[str, Any], choice: Choice | None
) -> Raw:
    return _message(meta, usage, stop, _NO_CHOICE if choice is None else choice)


def _ended(stop_reason: str | None) -> dict[str, Any]:
    """``status`` and ``incomplete_details`` (the core's), ``in_progress`` before the end."""
    if stop_reason is None:
        return {"status": "in_progress", "incomplete_details": None}
    return responses.how_it_ended(stop_reason)


def _responses_output(choice: Choice) -> list[Raw]:
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
        "output": _responses_output(choice),
        "usage": _usage(usage),
    }


def responses_object(completion: Completion) -> Raw:
    """A whole answer as the Responses API's response object (what llama-index's
    ``OpenAIResponses`` gives as ``raw``): ``output`` holds the reasoning items as the gateway
    closed them, the message with its text and annotations, and the function calls; ``status``
    and ``incomplete_details`` say how it ended; ``usage`` is the API's own."""
    first = completion.choices[0] if completion.choices else _NO_CHOICE
    return _response(_metadata(completion), completion.usage, first.stop_reason, first)


def _responses_streamed(
    meta: Metadata, usage: Usage | None, stop: Mapping[str, Any], choice: Choice | None
) -> Raw:
    return _response(meta, usage, stop.get("stop_reason"), _NO_CHOICE if choice is None else choice)


#: Anthropic Messages: the Messages API's message.
ANTHROPIC_RAW = RawShape(whole=anthropic_message, streamed=_anthropic_streamed)
#: The Responses API: its response object.
RESPONSES_RAW = RawShape(whole=responses_object, streamed=_responses_streamed)
