"""The request of one ChatSSE call, in the model's protocol.

Chat completions by :mod:`._outbound`, Anthropic Messages by :mod:`._anthropic_outbound`:
both give an :class:`~langchain_sse._outbound.Outbound`, so everything after (the cache key,
the call's configuration, the stream) is the same for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage

from langchain_sse._anthropic_outbound import anthropic_outbound
from langchain_sse._outbound import Outbound, model_outbound

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = ["model_request"]


def model_request(
    model: ChatSSE, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The request of one call of ``model`` (pops what is not a request field from ``kwargs``)."""
    if model.protocol == "anthropic":
        return anthropic_outbound(model, messages, stop, kwargs)
    return model_outbound(model, messages, stop, kwargs)
