"""Deterministic tokenisation: how answers are cut into chunks and how usage is counted.

The emulator has no real tokenizer and needs none: a "token" here is a word with its
leading whitespace when streaming text, a run of word characters or one punctuation
mark when counting a prompt, and a JSON piece ending at ``:`` or ``,`` when streaming
tool arguments. What matters is that the counts are stable and add up.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TEXT_PIECE = re.compile(r"\s*\S+")
_COUNT_TOKEN = re.compile(r"\w+|[^\w\s]")
_ARGUMENT_PIECE = re.compile(r"[^:,]*[:,]|[^:,]+")

#: Fixed overhead per message (role markers), as chat templates add.
PER_MESSAGE_TOKENS = 4
#: Fixed overhead per prompt (the assistant priming).
PER_PROMPT_TOKENS = 3


def text_pieces(text: str) -> tuple[str, ...]:
    """Cut text into streamed pieces: each word with its leading whitespace.

    Args:
        text: The text to cut.

    Returns:
        Pieces whose concatenation is exactly ``text`` (``"Hello there"`` gives
        ``("Hello", " there")``); trailing whitespace joins the last piece.
    """
    pieces = _TEXT_PIECE.findall(text)
    if not pieces:
        return (text,) if text else ()
    rest = text[sum(len(piece) for piece in pieces) :]
    if rest:
        pieces[-1] += rest
    return tuple(pieces)


def argument_pieces(arguments: str) -> tuple[str, ...]:
    """Cut a JSON arguments string into pieces that end at ``:`` or ``,``.

    Args:
        arguments: The JSON text.

    Returns:
        Pieces whose concatenation is ``arguments``; ``{"city":"Tokyo"}`` gives
        ``('{"city":', '"Tokyo"}')`` as in the aivene seed.
    """
    return tuple(_ARGUMENT_PIECE.findall(arguments))


def count_tokens(text: str) -> int:
    """Count prompt tokens in text: runs of word characters and single punctuation marks."""
    return len(_COUNT_TOKEN.findall(text))


def message_text(message: Any) -> str:
    """Flatten one chat message into the text its tokens are counted from.

    Args:
        message: A chat message object (any shape; non-dicts count as empty).

    Returns:
        The role, name, text content (string or text parts) and tool-call arguments.
    """
    if not isinstance(message, dict):
        return ""
    parts = [str(message.get("role", "")), str(message.get("name") or "")]
    parts.append(content_text(message.get("content")))
    for call in message.get("tool_calls") or []:
        parts.append(json.dumps(call, sort_keys=True, ensure_ascii=False))
    return " ".join(part for part in parts if part)


def content_text(content: Any) -> str:
    """Return the text of a message ``content``: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        return "".join(text for text in texts if isinstance(text, str))
    return ""


def prompt_tokens(messages: list[Any], tools: list[Any]) -> tuple[int, int]:
    """Count the prompt and the cached part of it.

    Args:
        messages: The request's messages.
        tools: The request's tools (their JSON counts as prompt).

    Returns:
        ``(prompt_tokens, cached_tokens)``. The cached part is everything before the
        last message, which a gateway with prompt caching would have seen as the
        previous turn's prompt; a single-message prompt has nothing cached.
    """
    tool_tokens = count_tokens(json.dumps(tools, sort_keys=True)) if tools else 0
    per_message = [count_tokens(message_text(m)) + PER_MESSAGE_TOKENS for m in messages]
    total = PER_PROMPT_TOKENS + tool_tokens + sum(per_message)
    cached = total - per_message[-1] if len(per_message) > 1 else 0
    return total, cached
