"""Standard content blocks for ChatSSE messages: the translator of the ``sse`` provider tag.

LangChain derives ``message.content_blocks`` (and v1 output, and the v3 ``.reasoning``
projection) from the translator registered for ``response_metadata["model_provider"]``.
The "openai" translator would hide ``reasoning_content``, and the best-effort fallback drops
``refusal``; this one keeps both, in the order a reader meets them: reasoning, text, tool
calls, refusal. A ``content_filter`` finish counts as a refusal, so the structured-output
parsers of langchain-core raise ``ModelRefusalError`` instead of failing to parse.
"""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages import content as types
from langchain_core.messages.block_translators import register_translator

from langchain_sse._inbound import PROVIDER
from langchain_sse._turns import item_text

__all__ = ["register", "translate_content", "translate_content_chunk"]

#: Finish reasons that mean the gateway withheld the answer.
REFUSAL_FINISH_REASONS = frozenset({"content_filter"})


def _make_block(**fields: Any) -> types.ContentBlock:
    # The block TypedDicts mark optional keys with typing.NotRequired, which mypy cannot
    # see under python_version 3.10: it would call every optional key missing.
    return cast("types.ContentBlock", fields)


def _translate_leading(message: AIMessage, *, whole: bool = True) -> list[types.ContentBlock]:
    """The reasoning and text blocks; list content is left to LangChain's own parsing."""
    if not isinstance(message.content, str):
        # Not ChatSSE's shape (a hand-built message, or v1 content): best-effort parsing.
        raise NotImplementedError
    blocks = _translate_reasoning(message, whole=whole)
    if message.content:
        text: dict[str, Any] = {"type": "text", "text": message.content}
        if annotations := citations_of(message):
            text["annotations"] = annotations
        blocks.append(_make_block(**text))
    return blocks


def citations_of(message: AIMessage) -> list[types.Annotation]:
    """The citations an Anthropic answer's text carried (the core's Citation events, kept as
    sent in ``response_metadata["citations"]``), as langchain-core's anthropic translator
    gives them: ``citation`` annotations, or ``non_standard_annotation`` for unknown kinds."""
    cited = message.response_metadata.get("citations")
    if not isinstance(cited, list):
        return []
    return [_annotation(citation) for citation in cited if isinstance(citation, dict)]


#: Anthropic citation kinds located in a document, and the fields each shape names itself
#: (the others go to ``extras``).
_DOCUMENT_KINDS = frozenset(
    {"char_location", "content_block_location", "page_location", "search_result_location"}
)
_DOCUMENT_NAMED = frozenset({"type", "cited_text", "document_title", "title", "index", "extras"})
_WEB_NAMED = frozenset({"type", "cited_text", "url", "title", "index", "extras"})


def _annotation(citation: dict[str, Any]) -> types.Annotation:
    web = citation.get("type") == "web_search_result_location"
    located = "url" in citation if web else citation.get("type") in _DOCUMENT_KINDS
    if not (located and "cited_text" in citation):
        return cast("types.Annotation", {"type": "non_standard_annotation", "value": citation})
    annotation: dict[str, Any] = {"type": "citation", "cited_text": citation["cited_text"]}
    if web:
        annotation["url"] = citation["url"]
    if not web and "document_title" in citation:
        annotation["title"] = citation["document_title"]
    elif title := citation.get("title"):
        annotation["title"] = title
    named = _WEB_NAMED if web else _DOCUMENT_NAMED
    extras = {key: value for key, value in citation.items() if key not in named}
    if extras:
        annotation["extras"] = extras
    return cast("types.Annotation", annotation)


def _translate_reasoning(message: AIMessage, *, whole: bool) -> list[types.ContentBlock]:
    """The reasoning: one block of ``reasoning_content``, or, for a whole message that kept
    its signed blocks (Anthropic), one per block as langchain-core's anthropic translator
    gives them (the signature in ``extras``, a redacted block as ``non_standard``), with any
    unsigned rest after them. A stream's last chunk alone holds the blocks but not their
    text, which its deltas carried: of a chunk without ``reasoning_content``, only the
    redacted blocks are given (a merged stream has both, and gives what a message does)."""
    reasoning = message.additional_kwargs.get("reasoning_content")
    text = reasoning if isinstance(reasoning, str) else ""
    kept = message.additional_kwargs.get("reasoning_blocks")
    if not isinstance(kept, list) or not kept:
        return [_make_block(type="reasoning", reasoning=text)] if text else []
    blocks: list[types.ContentBlock] = []
    signed = 0
    for block in kept:
        if block.get("type") == "redacted_thinking":
            blocks.append(_make_block(type="non_standard", value=dict(block)))
            continue
        if block.get("type") == "reasoning":  # a Responses reasoning item, whole in extras
            thought = item_text(block) if whole or text else ""
            signed += len(thought)
            extras = {"item": dict(block)}
            blocks.append(
                _make_block(type="reasoning", reasoning=thought, id=block.get("id"), extras=extras)
            )
            continue
        kind = block.get("type")
        if isinstance(kind, str) and kind != "thinking":  # another protocol's own item, whole
            extras = {"item": dict(block)}  # its text, if any, is in reasoning_content
            blocks.append(_make_block(type="reasoning", reasoning="", extras=extras))
            continue
        if not (whole or text):
            continue
        thought = block.get("thinking") or ""
        signed += len(thought)
        extras = {"signature": block.get("signature")}
        blocks.append(_make_block(type="reasoning", reasoning=thought, extras=extras))
    if text[signed:]:
        blocks.append(_make_block(type="reasoning", reasoning=text[signed:]))
    return blocks


def _translate_calls(message: AIMessage) -> list[types.ContentBlock]:
    blocks = [
        _make_block(type="tool_call", name=call["name"], args=call["args"], id=call.get("id"))
        for call in message.tool_calls
    ]
    blocks.extend(
        _make_block(
            type="invalid_tool_call",
            name=bad.get("name"),
            args=bad.get("args"),
            id=bad.get("id"),
            error=bad.get("error"),
        )
        for bad in message.invalid_tool_calls
    )
    return blocks


def _translate_call_chunks(chunk: AIMessageChunk) -> list[types.ContentBlock]:
    blocks: list[types.ContentBlock] = []
    for piece in chunk.tool_call_chunks:
        fields: dict[str, Any] = {
            "id": piece.get("id"),
            "name": piece.get("name"),
            "args": piece.get("args"),
        }
        if (index := piece.get("index")) is not None:
            fields["index"] = index
        blocks.append(_make_block(type="tool_call_chunk", **fields))
    return blocks


def _translate_refusal(message: AIMessage) -> list[types.ContentBlock]:
    refusal = message.additional_kwargs.get("refusal")
    if isinstance(refusal, str) and refusal:
        return [_make_block(type="refusal", refusal=refusal)]
    finish = message.response_metadata.get("finish_reason")
    if finish in REFUSAL_FINISH_REASONS:
        return [_make_block(type="refusal", refusal="", extras={"finish_reason": finish})]
    return []


def translate_content(message: AIMessage) -> list[types.ContentBlock]:
    """Standard blocks of a whole ChatSSE message.

    Raises:
        NotImplementedError: For list content, so LangChain parses it best-effort.
    """
    return [*_translate_leading(message), *_translate_calls(message), *_translate_refusal(message)]


def translate_content_chunk(chunk: AIMessageChunk) -> list[types.ContentBlock]:
    """Standard blocks of a ChatSSE chunk: tool-call fragments until the last chunk.

    Raises:
        NotImplementedError: For list content, so LangChain parses it best-effort.
    """
    last = chunk.chunk_position == "last"
    calls = _translate_calls(chunk) if last else _translate_call_chunks(chunk)
    return [*_translate_leading(chunk, whole=False), *calls, *_translate_refusal(chunk)]


def register() -> None:
    """Register the translator for ``model_provider == "sse"`` (idempotent)."""
    register_translator(PROVIDER, translate_content, translate_content_chunk)
