"""The assistant's answer for one request, before any dialect shapes it into bytes.

A :class:`Reply` is what the rule-based assistant decided to say: reasoning pieces,
content pieces, a refusal, tool calls, the finish reason and the usage counts. Every
dialect renders the same Reply in its own wire shape, so two dialects never disagree
about *what* was said, only about *how* it travels.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

#: The fixed ``created`` timestamp of every answer (no wall clock in a body).
CREATED = 1715000000


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedCall:
    """One function call the assistant makes.

    Attributes:
        id: The call id (``call_`` + a hash of the request).
        name: The function name, one of the offered tools.
        arguments: The whole JSON arguments string.
        pieces: ``arguments`` cut into the pieces a streaming dialect sends.
    """

    id: str
    name: str
    arguments: str
    pieces: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenCounts:
    """Token counts, consistent by construction.

    Attributes:
        prompt_tokens: Tokens of the whole prompt (messages and tools).
        completion_tokens: Reasoning, content, refusal and tool-argument tokens.
        cached_tokens: The prompt tokens before the last message (a cached prefix).
        reasoning_tokens: The subset of ``completion_tokens`` spent reasoning.
    """

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    reasoning_tokens: int

    @property
    def total_tokens(self) -> int:
        """``prompt_tokens + completion_tokens``."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def cache_write_tokens(self) -> int:
        """The prompt tokens written into the cache by this request (the uncached suffix)."""
        return self.prompt_tokens - self.cached_tokens


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """Everything one answer says, in the order a stream delivers it.

    Attributes:
        model: The model name the request asked for.
        digest: A hex digest of the request body; ids are derived from it.
        reasoning: Reasoning pieces (empty unless thinking was requested).
        content: Content pieces (one streamed chunk each).
        refusal: Refusal pieces (non-empty only when the assistant refuses).
        tool_calls: The tool calls, in index order.
        finish_reason: ``stop``, ``length``, ``tool_calls`` or ``content_filter``.
        usage: The token counts.
    """

    model: str
    digest: str
    reasoning: tuple[str, ...]
    content: tuple[str, ...]
    refusal: tuple[str, ...]
    tool_calls: tuple[PlannedCall, ...]
    finish_reason: str
    usage: TokenCounts

    @property
    def text(self) -> str:
        """The whole content as one string."""
        return "".join(self.content)

    @property
    def reasoning_text(self) -> str:
        """The whole reasoning as one string."""
        return "".join(self.reasoning)

    @property
    def refusal_text(self) -> str:
        """The whole refusal as one string."""
        return "".join(self.refusal)


def request_digest(body: Any) -> str:
    """Hash a request body into a stable hex digest.

    Args:
        body: The decoded JSON request body.

    Returns:
        The SHA-256 hex digest of the body's canonical JSON (sorted keys), so the
        same request always gets the same ids whatever its key order.
    """
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
