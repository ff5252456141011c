"""StreamEvents to LangChain chunks: the pure inbound mapping, no I/O.

One delta event gives one ``AIMessageChunk`` (or, when coalescing, one network read gives
one chunk); the bookkeeping events (usage, finish, metadata, ``[DONE]``) give none, because
the core's accumulator already keeps them: the one final chunk is built from the
:class:`~sse_core.Completion` when the stream ends. That chunk alone carries
``usage_metadata`` and the string metadata, since LangChain sums usage and concatenates
strings when it merges chunks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.ai import InputTokenDetails, OutputTokenDetails, UsageMetadata
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGenerationChunk

from sse_core import (
    Completion,
    GatewayEvent,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)

__all__ = [
    "DEFAULT_RESPONSE_HEADERS",
    "PROVIDER",
    "ChunkMapper",
    "completion_to_message",
    "usage_metadata",
    "whole_chunk",
]

#: The ``model_provider`` tag of every message ChatSSE makes (its content-block translator).
PROVIDER = "sse"

#: Response headers copied into ``response_metadata["headers"]`` when the gateway sends them.
DEFAULT_RESPONSE_HEADERS: tuple[str, ...] = (
    "x-request-id",
    "request-id",
    "x-conversation-id",
    "openai-processing-ms",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-remaining-tokens",
)

Item = ChatGenerationChunk | GatewayEvent
_DELTAS = (TextDelta, ReasoningDelta, ToolCallDelta, RefusalDelta)


def _chunk(message: AIMessageChunk) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=message)


# Only the first chunk, refusal chunks and the last chunk carry ``model_provider``: it tells
# the v3 protocol who answered and keeps refusals in per-chunk content blocks; on text,
# reasoning and tool-call chunks LangChain's best-effort blocks are the same as ours, and a
# dict less per chunk is a tenth of the adapter's CPU and memory on long streams.


def text_chunk(text: str) -> ChatGenerationChunk:
    """A chunk of answer text."""
    return _chunk(AIMessageChunk(content=text))


def reasoning_chunk(text: str) -> ChatGenerationChunk:
    """A chunk of reasoning: ``additional_kwargs["reasoning_content"]``."""
    return _chunk(AIMessageChunk(content="", additional_kwargs={"reasoning_content": text}))


def refusal_chunk(text: str) -> ChatGenerationChunk:
    """A chunk of a refusal: ``additional_kwargs["refusal"]``."""
    return _chunk(
        AIMessageChunk(
            content="",
            additional_kwargs={"refusal": text},
            response_metadata={"model_provider": PROVIDER},
        )
    )


def tool_chunk(calls: list[ToolCallChunk]) -> ChatGenerationChunk:
    """A chunk of tool-call fragments (``id``/``name`` only on a call's first fragment)."""
    return _chunk(AIMessageChunk(content="", tool_call_chunks=calls))


def _fragment(event: ToolCallDelta) -> ToolCallChunk:
    return tool_call_chunk(name=event.name, args=event.arguments, id=event.id, index=event.index)


class ChunkMapper:
    """Maps the events of one response to chunks; keeps only which choice is followed.

    LangChain messages hold one choice: the first choice seen (index 0 unless the gateway
    numbers otherwise) is followed, the others are left in the Completion.
    """

    __slots__ = ("_choice", "_headers", "_model", "_tagged")

    def __init__(
        self, *, model: str | None = None, headers: Sequence[str] = DEFAULT_RESPONSE_HEADERS
    ) -> None:
        """Start a response.

        Args:
            model: The model asked for, named when the gateway sends no model name.
            headers: The response headers to copy into ``response_metadata``.
        """
        self._choice: int | None = None
        self._model = model
        self._headers = headers
        self._tagged = False

    def _ours(self, choice: int) -> bool:
        if self._choice is None:
            self._choice = choice
        return choice == self._choice

    def feed(self, events: Iterable[StreamEvent]) -> list[Item]:
        """One chunk per delta event, and the named gateway events, in arrival order."""
        items: list[Item] = []
        for event in events:
            if isinstance(event, TextDelta):
                if event.choice == self._choice or self._ours(event.choice):
                    items.append(text_chunk(event.text))
            elif isinstance(event, ReasoningDelta):
                if self._ours(event.choice):
                    items.append(reasoning_chunk(event.text))
            elif isinstance(event, ToolCallDelta):
                if self._ours(event.choice):
                    items.append(tool_chunk([_fragment(event)]))
            elif isinstance(event, RefusalDelta):
                if self._ours(event.choice):
                    items.append(refusal_chunk(event.text))
            elif isinstance(event, GatewayEvent):
                items.append(event)
        if not self._tagged:
            self._tag_first(items)
        return items

    def follow(self, events: Iterable[StreamEvent]) -> list[Item]:
        """Only note which choice is followed; no chunk (for a caller that wants none)."""
        if self._choice is None:
            for event in events:
                if isinstance(event, _DELTAS):
                    self._choice = event.choice
                    break
        return []

    def _tag_first(self, items: list[Item]) -> None:
        """Put ``model_provider`` on the stream's first chunk."""
        for item in items:
            if isinstance(item, ChatGenerationChunk):
                item.message.response_metadata = {"model_provider": PROVIDER}
                self._tagged = True
                return

    def coalesce(self, events: Sequence[StreamEvent]) -> list[Item]:
        """At most one chunk for everything that arrived in one network read."""
        if len(events) <= 1:  # a slow stream: nothing to merge, no cost to pay
            return self.feed(events)
        texts: list[str] = []
        reasoning: list[str] = []
        refusal: list[str] = []
        calls: dict[int, ToolCallChunk] = {}
        named: list[Item] = []
        for event in events:
            match event:
                case TextDelta(text=piece, choice=choice) if self._ours(choice):
                    texts.append(piece)
                case ReasoningDelta(text=piece, choice=choice) if self._ours(choice):
                    reasoning.append(piece)
                case RefusalDelta(text=piece, choice=choice) if self._ours(choice):
                    refusal.append(piece)
                case ToolCallDelta(choice=choice) if self._ours(choice):
                    _merge_fragment(calls, event)
                case GatewayEvent():
                    named.append(event)
                case _:
                    pass
        if not (texts or reasoning or refusal or calls):
            return named
        tag = bool(refusal) or not self._tagged
        self._tagged = True
        return [_merged(texts, reasoning, refusal, calls, tag=tag), *named]

    def final(self, completion: Completion) -> ChatGenerationChunk:
        """The one last chunk: usage (mapped once) and the response metadata.

        Args:
            completion: What the stream delivered, as the core assembled it.
        """
        return _chunk(
            AIMessageChunk(
                content="",
                chunk_position="last",
                usage_metadata=usage_metadata(completion.usage) if completion.usage else None,
                response_metadata=response_metadata(
                    completion, choice=self._choice, model=self._model, headers=self._headers
                ),
            )
        )

    def whole(self, completion: Completion, *, last: bool = True) -> AIMessageChunk:
        """The whole answer as one chunk, as merging every chunk of :meth:`feed` would give.

        Built from the Completion (the followed choice), so a caller need not keep the
        chunks of a long stream to report the answer at its end.

        Args:
            completion: What the stream delivered (or the partial answer of a failed one).
            last: Mark the chunk ``chunk_position="last"`` (False for an unfinished answer,
                whose tool-call arguments may be cut).
        """
        return whole_chunk(
            completion, choice=self._choice, model=self._model, headers=self._headers, last=last
        )


def whole_chunk(
    completion: Completion,
    *,
    choice: int | None,
    model: str | None = None,
    headers: Sequence[str] = DEFAULT_RESPONSE_HEADERS,
    last: bool = True,
) -> AIMessageChunk:
    """One ``choice`` of a Completion as one chunk (``chunk_position="last"`` if ``last``)."""
    followed = next((c for c in completion.choices if c.index == choice), None)
    extra: dict[str, Any] = {}
    fields: dict[str, Any] = {"content": "", "additional_kwargs": extra}
    if followed is not None:
        fields["content"] = followed.content
        if followed.reasoning:
            extra["reasoning_content"] = followed.reasoning
        if followed.refusal:
            extra["refusal"] = followed.refusal
        fields["tool_call_chunks"] = [
            tool_call_chunk(name=c.name, args=c.arguments, id=c.id, index=c.index)
            for c in followed.tool_calls
        ]
    return AIMessageChunk(
        **fields,
        usage_metadata=usage_metadata(completion.usage) if completion.usage else None,
        response_metadata=response_metadata(
            completion, choice=choice, model=model, headers=headers
        ),
        chunk_position="last" if last else None,
    )


def _merged(
    texts: list[str],
    reasoning: list[str],
    refusal: list[str],
    calls: dict[int, ToolCallChunk],
    *,
    tag: bool,
) -> ChatGenerationChunk:
    """One chunk of a read's pieces, naming only the fields that have something."""
    fields: dict[str, Any] = {"content": "".join(texts)}
    extra = {}
    if reasoning:
        extra["reasoning_content"] = "".join(reasoning)
    if refusal:
        extra["refusal"] = "".join(refusal)
    if extra:
        fields["additional_kwargs"] = extra
    if calls:
        fields["tool_call_chunks"] = list(calls.values())
    if tag:
        fields["response_metadata"] = {"model_provider": PROVIDER}
    return _chunk(AIMessageChunk(**fields))


def _merge_fragment(calls: dict[int, ToolCallChunk], event: ToolCallDelta) -> None:
    known = calls.get(event.index)
    if known is None:
        calls[event.index] = _fragment(event)
        return
    known["args"] = (known["args"] or "") + event.arguments
    if known["id"] is None:
        known["id"] = event.id
    if known["name"] is None:
        known["name"] = event.name


def usage_metadata(usage: Usage) -> UsageMetadata | None:
    """LangChain's ``UsageMetadata`` from the core's Usage, or None when it has no counts.

    ``cached_tokens`` becomes ``input_token_details.cache_read``, ``cache_write_tokens``
    ``cache_creation`` and ``reasoning_tokens`` ``output_token_details.reasoning``.
    """
    if usage.prompt_tokens is None and usage.completion_tokens is None:
        return None
    prompt = usage.prompt_tokens or 0
    output = usage.completion_tokens or 0
    total = usage.total_tokens if usage.total_tokens is not None else prompt + output
    # cast: the TypedDict's NotRequired keys are invisible to mypy at python_version 3.10.
    result = cast(
        "UsageMetadata",
        {"input_tokens": prompt, "output_tokens": output, "total_tokens": total},
    )
    inputs: InputTokenDetails = {}
    if usage.cached_tokens is not None:
        inputs["cache_read"] = usage.cached_tokens
    if usage.cache_write_tokens is not None:
        inputs["cache_creation"] = usage.cache_write_tokens
    if inputs:
        result["input_token_details"] = inputs
    if usage.reasoning_tokens is not None:
        outputs: OutputTokenDetails = {"reasoning": usage.reasoning_tokens}
        result["output_token_details"] = outputs
    return result


def response_metadata(
    completion: Completion,
    *,
    choice: int | None = None,
    model: str | None = None,
    headers: Sequence[str] = DEFAULT_RESPONSE_HEADERS,
) -> dict[str, Any]:
    """The ``response_metadata`` of the final chunk (and of a whole message)."""
    meta: dict[str, Any] = {"model_provider": PROVIDER}
    followed = next((c for c in completion.choices if c.index == choice), None)
    finish = followed.finish_reason if followed is not None else completion.finish_reason
    if finish is not None:
        meta["finish_reason"] = finish
    name = completion.model or model
    if name:
        meta["model_name"] = name
    if completion.id:
        meta["id"] = completion.id
    if completion.system_fingerprint:
        meta["system_fingerprint"] = completion.system_fingerprint
    if completion.usage is not None and completion.usage.raw:
        meta["token_usage"] = dict(completion.usage.raw)
    if completion.events:
        meta["gateway_events"] = [{"name": e.name, "data": e.data} for e in completion.events]
    picked = _headers(completion.headers, headers)
    if picked:
        meta["headers"] = picked
    return meta


def _headers(received: Mapping[str, str], wanted: Sequence[str]) -> dict[str, str]:
    lowered = {key.lower(): value for key, value in received.items()}
    return {name: lowered[name] for name in wanted if name in lowered}


def completion_to_message(completion: Completion, *, model: str | None = None) -> AIMessage:
    """A whole ``AIMessage`` from a Completion (e.g. the partial answer of a failed stream).

    It has the shape the aggregated stream has: text ``content``, ``reasoning_content`` and
    ``refusal`` in ``additional_kwargs``, parsed ``tool_calls`` (or ``invalid_tool_calls``),
    ``usage_metadata`` and ``response_metadata``.
    """
    first = completion.choices[0].index if completion.choices else None
    chunk = whole_chunk(completion, choice=first, model=model)
    message = message_chunk_to_message(chunk)
    assert isinstance(message, AIMessage)
    return message
