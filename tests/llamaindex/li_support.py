"""Helpers for the SSELLM tests: MockTransport streams, event capture, a pure stream feed,
shared settings."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from llama_index.core.base.llms.types import ChatResponse
from llama_index.core.callbacks import CallbackManager, LlamaDebugHandler
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from pydantic import Field

from llamaindex_sse._inbound import ResponseMapper
from llamaindex_sse._lazy import Build
from llamaindex_sse.model import SSELLM
from sse_core import GatewayEvent, StreamEvent, Timeouts
from sse_core.pipeline import Accumulator
from sse_emulator import RequestRecord

#: ``make_llm(dialect="openai", fault=None, **fields)``: an SSELLM on the emulator.
LLMFactory = Callable[..., SSELLM]

#: Bounds every request of a test: nothing here may hang.
TIMEOUT = Timeouts(connect=2.0, first_byte=10.0, idle=10.0, total=60.0)
#: SPASS rejects requests without it; the other dialects ignore it.
SPASS_HEADERS = {"SPASS-User-Id": "user-1"}
#: The five gateways of the seeds, and plain OpenAI.
SEED_DIALECTS = ("shroud", "streamchat", "spass", "gateway", "aivene")
ALL_DIALECTS = ("openai", *SEED_DIALECTS)
#: Dialects whose wire carries reasoning (the others hide it).
REASONING_DIALECTS = frozenset({"openai", "shroud", "aivene"})
API_KEY = "sk-llamaindex-test-secret-0123456789"
#: A stream far longer than any bound in the tests (count to 200: about 10 s).
SLOW = "slow; delay=0.05"
#: Seconds from our close to the emulator seeing the client leave. The slow stream runs
#: about 10 s, so this still tells a close from a stream left to run out, with room for a
#: loaded CI machine (four test parts on two cores).
PROMPTLY = 1.0


def slow_llm(make_llm: LLMFactory, debug: bool) -> SSELLM:
    """A slow-streaming SSELLM, with a LlamaDebugHandler (which keeps exceptions) if asked."""
    handlers = [LlamaDebugHandler()] if debug else []
    return make_llm(fault=SLOW, callback_manager=CallbackManager(handlers))


def closed_promptly(record: RequestRecord, since: float) -> None:
    """The request was cut by the client within :data:`PROMPTLY` of ``since``."""
    assert record.disconnected and not record.completed
    assert record.disconnected_at is not None
    assert record.disconnected_at - since < PROMPTLY


def frame(payload: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One SSE event."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data}\n\n".encode()


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """A chat.completion.chunk with one choice."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


class Pieces(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body delivered as separate reads, for sync and async clients."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    def __iter__(self) -> Iterator[bytes]:
        yield from self.pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def sse_transport(
    pieces: list[bytes], seen: list[httpx.Request] | None = None
) -> httpx.MockTransport:
    """A MockTransport answering every request with ``pieces`` as an event stream."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Pieces(pieces)
        )

    return httpx.MockTransport(handler)


class EventCollector(BaseEventHandler):
    """Keeps every instrumentation event it is sent."""

    events: list[BaseEvent] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "EventCollector"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        self.events.append(event)

    def named(self, *names: str) -> list[BaseEvent]:
        """The events whose class_name() is one of ``names``, in order."""
        return [event for event in self.events if event.class_name() in names]


@contextmanager
def collect_events() -> Iterator[EventCollector]:
    """Attach an :class:`EventCollector` to the root dispatcher for the block."""
    root = get_dispatcher()
    collector = EventCollector(events=[])
    root.add_event_handler(collector)
    try:
        yield collector
    finally:
        root.event_handlers.remove(collector)


class Feed:
    """A :class:`ResponseMapper` over its own accumulator, fed one read at a time the way the
    transport feeds it: the events go into the accumulator first, then the read is mapped."""

    def __init__(self, build: Build | None = None) -> None:
        self.answer = Accumulator()
        self.stream = ResponseMapper(self.answer, build)
        self.events: tuple[GatewayEvent, ...] = ()

    def add(self, batch: list[StreamEvent]) -> ChatResponse | None:
        """Feed one read; its ChatResponse, or None (its named events in ``events``)."""
        self.answer.extend(batch)
        read = self.answer.read()
        self.events = read.events
        return self.stream.respond(read)

    def last(self) -> ChatResponse | None:
        """The end of the stream."""
        return self.stream.last()
