"""The Gemini API's ``GenerateContentResponse``: its own answer object (what google-genai's
``generate_content`` gives, and llama-index's ``GoogleGenAI`` builds its ``raw`` from), from a
Completion or, while it streams, from a snapshot of its choice.

One candidate (the answer's first choice), its content the parts in Gemini's order: the
thought summary (``thought: true``), the text, one ``functionCall`` per call with its
arguments parsed; each signed part of the answer (a reasoning block whose item is a
:data:`~sse_core.protocols.gemini.SIGNED_PART`) puts its ``thoughtSignature`` back on the part
of its kind (a call by its index, the text, the thought), as sent. ``finishReason`` is
Gemini's own word (the Finish's ``stop_reason``), absent while it streams; ``usageMetadata``
the usage as the gateway counted it; ``modelVersion`` and ``responseId`` the answer's.
"""

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
)
from sse_core.protocols.gemini.candidates import GENERATED_ID_PREFIX, SIGNED_PART

__all__ = ["RESPONSE", "response_object"]


def _signatures(choice: Choice) -> dict[tuple[str, int | None], str]:
    """``(kind, call index)`` -> the signature of the answer's signed part of that kind (the
    last one of a kind wins for text and thought: Gemini signs one of each)."""
    found: dict[tuple[str, int | None], str] = {}
    for block in choice.reasoning_blocks:
        item = block.item
        if not isinstance(item, Mapping) or item.get("type") != SIGNED_PART:
            continue
        part = item.get("part")
        signature = part.get("thoughtSignature") if isinstance(part, Mapping) else None
        kind, call = item.get("kind"), item.get("call")
        if isinstance(signature, str) and isinstance(kind, str):
            found[(kind, call if isinstance(call, int) else None)] = signature
    return found


def _signed(part: Raw, signature: str | None) -> Raw:
    return part if signature is None else {**part, "thoughtSignature": signature}


def _parts(choice: Choice) -> list[Raw]:
    signatures = _signatures(choice)
    parts: list[Raw] = []
    if choice.reasoning:
        thought = {"text": choice.reasoning, "thought": True}
        parts.append(_signed(thought, signatures.get(("thought", None))))
    if choice.content:
        parts.append(_signed({"text": choice.content}, signatures.get(("text", None))))
    for index, call in enumerate(choice.tool_calls):
        spec: Raw = {"name": call.name, "args": arguments(call.arguments)}
        if call.id and not call.id.startswith(GENERATED_ID_PREFIX):
            spec["id"] = call.id  # Gemini's own id; a made-up one was never sent
        parts.append(_signed({"functionCall": spec}, signatures.get(("function_call", index))))
    return parts


def _response(meta: Metadata, usage: Usage | None, stop_reason: str | None, choice: Choice) -> Raw:
    candidate: Raw = {"content": {"role": "model", "parts": _parts(choice)}, "index": 0}
    if stop_reason is not None:
        candidate["finishReason"] = stop_reason
    if choice.citations:
        candidate["citationMetadata"] = {"citations": [dict(c) for c in choice.citations]}
    found: Raw = {"candidates": [candidate]}
    usage_metadata = raw_usage(usage)
    if usage_metadata is not None:
        found["usageMetadata"] = usage_metadata
    found["modelVersion"] = meta.model
    found["responseId"] = meta.id
    return found


def response_object(completion: Completion) -> Raw:
    """A whole answer as the Gemini API's ``GenerateContentResponse`` (see the module)."""
    first = first_choice(completion)
    return _response(metadata(completion), completion.usage, first.stop_reason, first)


def _streamed(
    meta: Metadata, usage: Usage | None, stop: Mapping[str, Any], choice: Choice | None
) -> Raw:
    stop_reason = stop.get("stop_reason")
    return _response(
        meta,
        usage,
        stop_reason if isinstance(stop_reason, str) else None,
        NO_CHOICE if choice is None else choice,
    )


#: The Gemini API's GenerateContentResponse, whole and so far.
RESPONSE = AnswerShape(whole=response_object, streamed=_streamed)
