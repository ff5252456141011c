"""A LlamaIndex ``ThinkingBlock`` as the reasoning the model sent (the core's
:class:`~sse_core.protocols.turns.ReasoningPart`), for every protocol's request: what each
takes back of it is the core's rule (:mod:`sse_core.protocols.history`).
"""

from __future__ import annotations

from llama_index.core.base.llms.types import ThinkingBlock

from sse_core.protocols.turns import ReasoningPart

__all__ = ["reasoning_part"]


def reasoning_part(block: ThinkingBlock) -> ReasoningPart:
    """A ThinkingBlock as the core's reasoning part: a Responses reasoning item (sent back
    whole), Anthropic's redacted thinking (its data), another protocol's own item as the core
    gave it (a ``type``d dict: Gemini's signed part), or thinking with its signature. What
    goes back where is the core's rule (:mod:`sse_core.protocols.history`)."""
    info = block.additional_information
    if info.get("type") == "reasoning":  # the Responses API's reasoning item, sent back whole
        item = {"summary": [], **info} if "summary" not in info else dict(info)
        if not item["summary"] and block.content:  # llama-index's OpenAIResponses drops it
            item["summary"] = [{"type": "summary_text", "text": block.content}]
        encrypted = info.get("encrypted_content")
        return ReasoningPart(
            text=block.content or "",
            signature=encrypted if isinstance(encrypted, str) else "",
            item=item,
        )
    if info.get("type") == "redacted_thinking" and isinstance(info.get("data"), str):
        return ReasoningPart(redacted=info["data"])
    signature = info.get("signature")
    signature = signature if isinstance(signature, str) else ""
    kind = info.get("type")
    if isinstance(kind, str) and kind != "thinking":  # another protocol's own item, whole
        return ReasoningPart(text=block.content or "", signature=signature, item=dict(info))
    return ReasoningPart(text=block.content or "", signature=signature)
