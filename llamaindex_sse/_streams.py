"""The I/O twins: one request to ChatResponses (streaming) or to a Completion (whole).

Each opens the HTTP stream inside itself with ``with``/``async with``, so an unstarted
generator holds nothing and closing a started one closes the response. Named SSE events
are dispatched as :class:`~llamaindex_sse.SSEGatewayEvent` under the caller's span, in
stream order, before the response of the read that carried them.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from typing import Any

from llama_index.core.base.llms.types import ChatResponse

# re-exported by llama-index-core without __all__
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]

from llamaindex_sse._convert import ResponseStream
from llamaindex_sse.events import SSEGatewayEvent
from sse_core import AsyncChatClient, ChatClient, Completion, GatewayEvent

__all__ = ["aresponses", "awhole", "responses", "whole"]

dispatcher = get_dispatcher(__name__)

Body = dict[str, Any]
Headers = dict[str, str] | None


def _dispatch(events: list[GatewayEvent], span_id: str | None) -> None:
    for event in events:
        dispatcher.event(SSEGatewayEvent(name=event.name, data=event.data, span_id=span_id))
    events.clear()


def _completed(completion: Completion | None) -> Completion:
    assert completion is not None, "the transport sets the completion when the stream ends"
    return completion


def responses(
    client: ChatClient, body: Body, headers: Headers, span_id: str | None
) -> Generator[ChatResponse, None, None]:
    """The ChatResponses of one answer; the request is sent on the first ``next()``."""
    state = ResponseStream()
    with client.stream(body, headers=headers) as stream:
        for batch in stream.batches():
            response = state.add(batch)
            if state.gateway_events:
                _dispatch(state.gateway_events, span_id)
            if response is not None:
                yield response
    last = state.last()
    if last is not None:
        yield last


async def aresponses(
    client: AsyncChatClient, body: Body, headers: Headers, span_id: str | None
) -> AsyncGenerator[ChatResponse, None]:
    """Async twin of :func:`responses`."""
    state = ResponseStream()
    async with client.stream(body, headers=headers) as stream:
        async for batch in stream.batches():
            response = state.add(batch)
            if state.gateway_events:
                _dispatch(state.gateway_events, span_id)
            if response is not None:
                yield response
    last = state.last()
    if last is not None:
        yield last


def whole(client: ChatClient, body: Body, headers: Headers, span_id: str | None) -> Completion:
    """The whole answer (for ``chat``)."""
    with client.stream(body, headers=headers) as stream:
        for event in stream:
            if type(event) is GatewayEvent:
                _dispatch([event], span_id)
    return _completed(stream.completion)


async def awhole(
    client: AsyncChatClient, body: Body, headers: Headers, span_id: str | None
) -> Completion:
    """Async twin of :func:`whole`."""
    async with client.stream(body, headers=headers) as stream:
        async for event in stream:
            if type(event) is GatewayEvent:
                _dispatch([event], span_id)
    return _completed(stream.completion)
