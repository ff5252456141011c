"""The instrumentation event for gateway named SSE events."""

from __future__ import annotations

from typing import Any

from llama_index.core.instrumentation.events import BaseEvent

__all__ = ["SSEGatewayEvent"]


class SSEGatewayEvent(BaseEvent):
    """A named SSE event from the gateway (``event: spass.tool-cap`` and the like).

    Dispatched under the span of the LLM call that received it, in stream order.

    Attributes:
        name: The SSE event name.
        data: The decoded JSON payload, or the raw text when it is not JSON.
    """

    name: str
    data: Any = None

    @classmethod
    def class_name(cls) -> str:
        """The event's class name, as instrumentation handlers report it."""
        return "SSEGatewayEvent"
