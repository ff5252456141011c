"""Gateway named SSE events as LlamaIndex instrumentation: the event class and its dispatch.

A gateway's ``event: spass.tool-cap`` (and the like) reaches the core as a
:class:`sse_core.GatewayEvent`; here it becomes an :class:`SSEGatewayEvent` sent through
this module's dispatcher (which propagates to the root one) under the span of the LLM call
that received it. The span id is captured when the call starts, because a streamed answer
is read after the call's span has exited.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from llama_index.core.bridge.pydantic import Field

# re-exported by llama-index-core without __all__
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.events import BaseEvent

from sse_core import GatewayEvent

__all__ = ["SSEGatewayEvent", "dispatch_gateway_events"]

dispatcher = get_dispatcher(__name__)


class SSEGatewayEvent(BaseEvent):
    """A named SSE event from the gateway (``event: spass.tool-cap`` and the like).

    Dispatched under the span of the LLM call that received it, in stream order.

    Attributes:
        name: The SSE event name.
        data: The decoded JSON payload, or the raw text when it is not JSON.
    """

    name: str = Field(description="The SSE event name (its event: line).")
    data: Any = Field(
        default=None, description="The decoded JSON payload, or the raw text when it is not JSON."
    )

    @classmethod
    def class_name(cls) -> str:
        """The event's class name, as instrumentation handlers report it."""
        return "SSEGatewayEvent"


def dispatch_gateway_events(events: Iterable[GatewayEvent], span_id: str | None) -> None:
    """Send each of ``events`` as an :class:`SSEGatewayEvent` under ``span_id``, in order."""
    for event in events:
        dispatcher.event(SSEGatewayEvent(name=event.name, data=event.data, span_id=span_id))
