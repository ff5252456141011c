"""What every request of SSELLM starts from: the messages as LlamaIndex's ``ChatMessage``\\ s
and the call's headers. The conversation then becomes the core's turns
(:mod:`llamaindex_sse._turns`) and each protocol's body is the core's
(:attr:`sse_core.protocols.WireProtocol.turns_body`); tools: :mod:`._tools`.
"""

from __future__ import annotations

from collections.abc import Mapping

from llama_index.core.base.llms.types import ChatMessage
from pydantic import ValidationError

__all__ = ["Headers", "as_message"]

#: Per-call headers (``extra_headers=``), or None.
Headers = dict[str, str] | None


def as_message(message: object) -> ChatMessage:
    """A ChatMessage, or a mapping of its fields (``{"role": "user", "content": "hi"}``).

    Raises:
        TypeError: Neither (said without the value, which may hold a secret).
    """
    if isinstance(message, ChatMessage):
        return message
    if isinstance(message, Mapping):
        try:
            return ChatMessage.model_validate(message)
        except ValidationError as exc:  # said without the input
            detail = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)
            )
            raise TypeError(f"a message mapping that is no ChatMessage: {detail}") from None
    raise TypeError(f"messages must be ChatMessage objects, got {type(message).__name__}")
