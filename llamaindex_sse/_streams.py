"""The I/O twins: one request to ChatResponses (streaming) or to one ChatResponse (whole).

Each opens the HTTP stream inside itself with ``with``/``async with``, so an unstarted
generator holds nothing and closing a started one closes the response. Every decision is
pure code shared by the twins: the core tells what each read added
(:meth:`sse_core.pipeline.Accumulator.read`, from the pieces it holds: no event is walked here),
:class:`~llamaindex_sse._inbound.ResponseMapper` maps it. A whole answer is streamed too,
or asked as one JSON body (``streaming=False``: ``stream: false``), which the core decodes
into the same events and Completion. Named SSE events are dispatched as
:class:`~llamaindex_sse.SSEGatewayEvent` under the caller's span, in stream order, before
the response of the read that carried them. Stream errors leave as the classes of
:mod:`._errors` (sse_core's, with ``partial_response``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from typing import Any

from llama_index.core.base.llms.types import ChatResponse

from llamaindex_sse._errors import translate_errors
from llamaindex_sse._events import dispatch_gateway_events
from llamaindex_sse._inbound import ResponseMapper, to_chat_response
from llamaindex_sse._outbound import Headers
from llamaindex_sse._protocols import mapping_of
from sse_core import AsyncChatClient, ChatClient, Completion, GatewayEvent, StreamEvent

__all__ = ["aread_whole", "astream_responses", "read_whole", "stream_responses"]

Body = dict[str, Any]


def _respond(mapper: ResponseMapper, span_id: str | None) -> ChatResponse | None:
    """Dispatch the named events of the read just added; its ChatResponse, or None."""
    read = mapper.answer.read()
    if read.events:
        dispatch_gateway_events(read.events, span_id)
    return mapper.respond(read)


def _dispatch_named(event: StreamEvent, span_id: str | None) -> None:
    if type(event) is GatewayEvent:
        dispatch_gateway_events((event,), span_id)


def _shape(client: ChatClient | AsyncChatClient) -> dict[str, Any]:
    """How the protocol's table entry shapes responses: whether the message carries usage and
    stop reason, and ``raw``'s shape."""
    mapping = mapping_of(client.config.protocol)
    return {"message_usage": mapping.message_usage, "raw": mapping.raw}


def _require_completion(completion: Completion | None) -> Completion:
    assert completion is not None, "the transport sets the completion when the stream ends"
    return completion


def stream_responses(
    client: ChatClient, body: Body, headers: Headers, span_id: str | None
) -> Generator[ChatResponse, None, None]:
    """The ChatResponses of one answer; the request is sent on the first ``next()``."""
    with translate_errors(), client.stream(body, headers=headers) as stream:
        mapper = ResponseMapper(stream.answer, **_shape(client))
        for _ in stream.batches():  # each read is added to stream.answer, which tells it
            if (response := _respond(mapper, span_id)) is not None:
                yield response
        if (last := mapper.last()) is not None:
            yield last


async def astream_responses(
    client: AsyncChatClient, body: Body, headers: Headers, span_id: str | None
) -> AsyncGenerator[ChatResponse, None]:
    """Async twin of :func:`stream_responses`."""
    with translate_errors():
        async with client.stream(body, headers=headers) as stream:
            mapper = ResponseMapper(stream.answer, **_shape(client))
            async for _ in stream.batches():  # as in stream_responses
                if (response := _respond(mapper, span_id)) is not None:
                    yield response
            if (last := mapper.last()) is not None:
                yield last


def read_whole(
    client: ChatClient, body: Body, headers: Headers, span_id: str | None, streaming: bool
) -> ChatResponse:
    """The whole answer (for ``chat``), streamed unless ``streaming`` is False."""
    with translate_errors(), client.stream(body, headers=headers, streaming=streaming) as stream:
        for event in stream:
            _dispatch_named(event, span_id)
    shape = _shape(client)
    return to_chat_response(
        _require_completion(stream.completion),
        message_usage=shape["message_usage"],
        raw_shape=shape["raw"],
    )


async def aread_whole(
    client: AsyncChatClient, body: Body, headers: Headers, span_id: str | None, streaming: bool
) -> ChatResponse:
    """Async twin of :func:`read_whole`."""
    with translate_errors():
        async with client.stream(body, headers=headers, streaming=streaming) as stream:
            async for event in stream:
                _dispatch_named(event, span_id)
    shape = _shape(client)
    return to_chat_response(
        _require_completion(stream.completion),
        message_usage=shape["message_usage"],
        raw_shape=shape["raw"],
    )
