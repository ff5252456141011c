"""StreamEvents and core snapshots to LangChain chunks and messages: the pure inbound mapping.

One delta event gives one ``AIMessageChunk`` (or, when coalescing, one network read gives
one chunk, from the core's read of it, :meth:`sse_core.pipeline.Accumulator.read`); the bookkeeping
events (usage, finish, metadata, ``[DONE]``) give none, because the core's accumulator keeps
them: the one final
chunk is built from the :class:`~sse_core.Completion` when the stream ends, and the whole
answer (``invoke``, ``on_llm_end``, ``on_llm_error``) from what the core received. That
final chunk alone carries ``usage_metadata`` and the string metadata, since LangChain sums
usage and concatenates strings when it merges chunks.

The choice to follow is the core's (:attr:`sse_core.pipeline.Accumulator.followed`); the
mapper keeps only whether the stream's first chunk was tagged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from enum import Enum
from typing import Any, cast

from langchain_core.messages import AIMessage, AIMessageChunk, InvalidToolCall
from langchain_core.messages.ai import InputTokenDetails, OutputTokenDetails, UsageMetadata
from langchain_core.messages.tool import ToolCall as LCToolCall
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.messages.tool import invalid_tool_call as create_invalid_tool_call
from langchain_core.messages.tool import tool_call as create_tool_call
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic_core import from_json

from langchain_sse import _chunks
from sse_core import (
    Choice,
    Completion,
    GatewayEvent,
    ReasoningBlock,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
)
from sse_core.pipeline import Accumulator, ReadDelta

__all__ = [
    "DEFAULT_RESPONSE_HEADERS",
    "PROVIDER",
    "ChunkMapper",
    "Item",
    "MapMode",
    "build_whole_chunk",
    "combine_llm_outputs",
    "convert_completion",
    "fill_llm_output",
    "map_usage",
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

#: A protocol's own words for how an answer ended, from its stop reason (its table entry).
StopMetadata = Callable[[str], Mapping[str, Any]]
#: ``llm_output`` keys taken from the final ``response_metadata``.
_LLM_OUTPUT_KEYS = ("token_usage", "model_name", "id", "system_fingerprint")

#: What mapping one read gives: chunks, and the named gateway events between them.
Item = ChatGenerationChunk | GatewayEvent | AIMessageChunk


class MapMode(Enum):
    """How a :class:`ChunkMapper` maps a read."""

    EACH = "each"
    """One chunk per delta event."""
    COALESCE = "coalesce"
    """At most one chunk per network read."""
    QUIET = "quiet"
    """No chunk at all, only the named gateway events: the caller wants the whole answer
    (and its run hears the gateway's events)."""


# Only the first chunk, refusal chunks and the last chunk carry ``model_provider``: it tells
# the v3 protocol who answered and keeps refusals in per-chunk content blocks; on text,
# reasoning and tool-call chunks LangChain's best-effort blocks are the same as ours, and a
# dict less per chunk is a tenth of the adapter's CPU and memory on long streams.


def _wrap(message: AIMessageChunk) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=message)


# The chunks of the stream are built by ``_chunks.make_chunk``: what validation would build, without
# its cost (a tool-call fragment's partial-JSON parse above all; see langchain_sse._chunks).


def _make_text(event: TextDelta, message_id: str | None) -> ChatGenerationChunk:
    return _chunks.make_text_chunk(event.text, message_id)


def _make_reasoning(event: ReasoningDelta, message_id: str | None) -> ChatGenerationChunk:
    extra = {"reasoning_content": event.text}
    return _chunks.make_chunk("", additional_kwargs=extra, message_id=message_id)


def _make_refusal(event: RefusalDelta, message_id: str | None) -> ChatGenerationChunk:
    return _chunks.make_chunk(
        "",
        additional_kwargs={"refusal": event.text},
        response_metadata={"model_provider": PROVIDER},
        message_id=message_id,
    )


def _make_tool_piece(event: ToolCallDelta, message_id: str | None) -> ChatGenerationChunk:
    """A tool-call fragment (``id``/``name`` only on a call's first fragment)."""
    return _chunks.make_fragment_chunk(
        event.name, event.arguments, event.id, event.index, message_id
    )


def _pass_on(event: GatewayEvent, message_id: str | None) -> GatewayEvent:
    return event


def _make_fragment(event: ToolCallDelta) -> ToolCallChunk:
    return tool_call_chunk(name=event.name, args=event.arguments, id=event.id, index=event.index)


#: The item each event type gives, by exact type (a dict lookup per event, no match chain).
_PER_EVENT: dict[type[StreamEvent], Callable[[Any, str | None], Item]] = {
    TextDelta: _make_text,
    ReasoningDelta: _make_reasoning,
    ToolCallDelta: _make_tool_piece,
    RefusalDelta: _make_refusal,
    GatewayEvent: _pass_on,
}


class ChunkMapper:
    """Maps the reads of one response to chunks; keeps only whether the first was tagged.

    LangChain messages hold one choice: the core's followed choice (the first one seen);
    the others stay in the Completion.
    """

    __slots__ = ("_bare", "_headers", "_message_id", "_model", "_stop_metadata", "_tagged", "read")

    def __init__(
        self,
        *,
        model: str | None = None,
        headers: Sequence[str] = DEFAULT_RESPONSE_HEADERS,
        mode: MapMode = MapMode.EACH,
        message_id: str | None = None,
        bare: bool = False,
        stop_metadata: StopMetadata | None = None,
    ) -> None:
        """Start a response.

        Args:
            model: The model asked for, named when the gateway sends no model name.
            headers: The response headers to copy into ``response_metadata``.
            mode: One chunk per delta, one per read, or none.
            message_id: The id the run stamps on every chunk (``lc_run--<run id>``), given
                to them as they are made (None: chunks without id, stamped later if at all).
            bare: Text deltas as bare ``AIMessageChunk`` messages, no generation around
                them: for the own loop with no handler (nobody sees a generation) and v0.
            stop_metadata: The protocol's own words for how the answer ended, from its stop
                reason, added to the last chunk's ``response_metadata`` (its table entry).
        """
        self._model = model
        self._stop_metadata = stop_metadata
        self._message_id = message_id
        self._headers = headers
        self._tagged = False
        self._bare = bare
        #: ``read(events, answer)``: the items of one read (``events``, already added to
        #: ``answer``, the stream's accumulator; see :class:`MapMode`), made as they are taken.
        self.read: Callable[[Sequence[StreamEvent], Accumulator], Iterable[Item]] = {
            MapMode.EACH: self.map_each,
            MapMode.COALESCE: self.map_coalesced,
            MapMode.QUIET: _map_nothing,
        }[mode]

    def map_each(self, events: Sequence[StreamEvent], answer: Accumulator) -> Iterator[Item]:
        """One chunk per delta event of the choice ``answer`` follows, and the named
        gateway events, in arrival order; ``model_provider`` on the stream's first chunk.

        Made one at a time, as the caller takes them: a fast gateway's read brings hundreds
        of events, and chunks made all at once would outlive the collector's youngest
        generation together (full collections, pauses, with thousands of streams at once).
        """
        message_id = self._message_id
        followed = answer.followed
        make_text = _chunks.make_text_message if self._bare else _chunks.make_text_chunk
        for event in events:
            if type(event) is TextDelta and self._tagged:  # most events: the short way
                if event.choice == followed:
                    yield make_text(event.text, message_id)
                continue
            make = _PER_EVENT.get(type(event))
            if make is not None and getattr(event, "choice", followed) == followed:
                item = make(event, message_id)
                if not self._tagged and type(item) is ChatGenerationChunk:
                    item.message.response_metadata = {"model_provider": PROVIDER}
                    self._tagged = True
                yield item

    def map_coalesced(self, events: Sequence[StreamEvent], answer: Accumulator) -> Iterable[Item]:
        """At most one chunk for what one network read added (the core's read of it: the
        events are not walked here), then its gateway events."""
        if len(events) <= 1:  # a slow stream: nothing to merge, no read to build
            answer.skip_read()
            return self.map_each(events, answer)
        delta = answer.read()
        if not delta.has_delta:
            return delta.events
        tag = bool(delta.refusal) or not self._tagged
        self._tagged = True
        chunk = _merge_delta(delta, tag=tag, message_id=self._message_id)
        return (chunk, *delta.events) if delta.events else (chunk,)

    def build_final(self, completion: Completion, followed: int | None) -> ChatGenerationChunk:
        """The one last chunk: usage (mapped once), the response metadata, and the signed
        reasoning blocks whole (the deltas carried their text; a signature closes a block).

        Args:
            completion: What the stream delivered, as the core assembled it.
            followed: The choice the chunks followed.
        """
        fields: dict[str, Any] = {}
        choice = next((c for c in completion.choices if c.index == followed), None)
        if choice is not None and choice.reasoning_blocks:
            blocks = _reasoning_blocks(choice.reasoning_blocks)
            fields["additional_kwargs"] = {"reasoning_blocks": blocks}
        return _wrap(
            AIMessageChunk(
                content="",
                **fields,
                chunk_position="last",
                usage_metadata=map_usage(completion.usage) if completion.usage else None,
                response_metadata=_build_response_metadata(
                    completion,
                    choice=followed,
                    model=self._model,
                    headers=self._headers,
                    stop_metadata=self._stop_metadata,
                ),
            )
        )

    def build_whole(
        self, completion: Completion, followed: int | None, *, last: bool = True
    ) -> AIMessageChunk:
        """The whole answer as one chunk, as merging every chunk of :meth:`map_each` would give.

        Built from the Completion, so nobody keeps the chunks of a long stream to report the
        answer at its end.

        Args:
            completion: What the stream delivered (or the partial answer of a failed one).
            followed: The choice the chunks followed.
            last: Mark the chunk ``chunk_position="last"`` (False for an unfinished answer,
                whose tool-call arguments may be cut).
        """
        return build_whole_chunk(
            completion,
            choice=followed,
            model=self._model,
            headers=self._headers,
            last=last,
            stop_metadata=self._stop_metadata,
        )


def _map_nothing(events: Sequence[StreamEvent], answer: Accumulator) -> list[Item]:
    return [event for event in events if type(event) is GatewayEvent]


def _merge_delta(delta: ReadDelta, *, tag: bool, message_id: str | None) -> ChatGenerationChunk:
    """One chunk of a read's merged pieces, naming only the fields that have something."""
    fields: dict[str, Any] = {}
    extra = {}
    if delta.reasoning:
        extra["reasoning_content"] = delta.reasoning
    if delta.refusal:
        extra["refusal"] = delta.refusal
    if extra:
        fields["additional_kwargs"] = extra
    if delta.tool_calls:
        fields["tool_call_chunks"] = [_make_fragment(call) for call in delta.tool_calls]
    if tag:
        fields["response_metadata"] = {"model_provider": PROVIDER}
    return _chunks.make_chunk(delta.text, message_id=message_id, **fields)


def build_whole_chunk(
    completion: Completion,
    *,
    choice: int | None,
    model: str | None = None,
    headers: Sequence[str] = DEFAULT_RESPONSE_HEADERS,
    last: bool = True,
    stop_metadata: StopMetadata | None = None,
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
        if followed.reasoning_blocks:
            extra["reasoning_blocks"] = _reasoning_blocks(followed.reasoning_blocks)
        fields["tool_call_chunks"] = [
            tool_call_chunk(name=c.name, args=c.arguments, id=c.id, index=c.index)
            for c in followed.tool_calls
        ]
    chunk = AIMessageChunk(
        **fields,
        usage_metadata=map_usage(completion.usage) if completion.usage else None,
        response_metadata=_build_response_metadata(
            completion, choice=choice, model=model, headers=headers, stop_metadata=stop_metadata
        ),
        chunk_position="last" if last else None,
    )
    if followed is not None and followed.tool_calls:
        errors = [call.arguments_error for call in followed.tool_calls]
        if any(errors):
            _flag_calls(chunk, followed.tool_calls, errors)
    return chunk


def _flag_calls(
    chunk: AIMessageChunk, calls: Sequence[ToolCall], errors: Sequence[str | None]
) -> None:
    """Sort the calls as the core judged them: LangChain parses the fragments with
    ``parse_partial_json``, which repairs cut arguments (``{"city": "Par``) into a call that
    looks usable; the core's flag makes such a call an ``invalid_tool_call`` with its reason,
    its arguments kept as the model wrote them."""
    valid: list[LCToolCall] = []
    invalid: list[InvalidToolCall] = []
    for call, error in zip(calls, errors, strict=True):
        if error is None:
            args = from_json(call.arguments) if call.arguments else {}
            valid.append(create_tool_call(name=call.name or "", args=args, id=call.id))
        else:
            bad = create_invalid_tool_call(name=call.name, args=call.arguments, id=call.id)
            invalid.append({**bad, "error": error})
    chunk.tool_calls = valid
    chunk.invalid_tool_calls = invalid


def _reasoning_blocks(blocks: Sequence[ReasoningBlock]) -> list[dict[str, Any]]:
    """Signed, redacted and whole reasoning in the protocol's own block shape, to pass back
    as is: Anthropic's ``thinking`` / ``redacted_thinking`` dicts, the Responses API's
    reasoning item (``id``, ``summary``, ``encrypted_content``) as the gateway closed it."""
    return [_reasoning_block(block) for block in blocks]


def _reasoning_block(block: ReasoningBlock) -> dict[str, Any]:
    if block.item is not None:
        return dict(block.item)
    if block.redacted is not None:
        return {"type": "redacted_thinking", "data": block.redacted}
    return {"type": "thinking", "thinking": block.text, "signature": block.signature}


def map_usage(usage: Usage) -> UsageMetadata | None:
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


def _build_response_metadata(
    completion: Completion,
    *,
    choice: int | None = None,
    model: str | None = None,
    headers: Sequence[str] = DEFAULT_RESPONSE_HEADERS,
    stop_metadata: StopMetadata | None = None,
) -> dict[str, Any]:
    """The ``response_metadata`` of the final chunk (and of a whole message)."""
    meta: dict[str, Any] = {"model_provider": PROVIDER}
    followed = next((c for c in completion.choices if c.index == choice), None)
    finish = followed.finish_reason if followed is not None else completion.finish_reason
    if finish is not None:
        meta["finish_reason"] = finish
    if followed is not None and followed.stop_reason is not None:
        meta.update(_stop_fields(followed, stop_metadata))
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
    cited = followed.citations if followed is not None else completion.citations
    if cited:  # Anthropic's, as sent: the text block's annotations (langchain_sse._blocks)
        meta["citations"] = [dict(citation) for citation in cited]
    picked = _pick_headers(completion.headers, headers)
    if picked:
        meta["headers"] = picked
    return meta


def _stop_fields(followed: Choice, stop_metadata: StopMetadata | None) -> dict[str, Any]:
    """The protocol's own stop reason and sequence, and its words for them (if it has)."""
    stop_reason = followed.stop_reason
    assert stop_reason is not None
    fields = {"stop_reason": stop_reason, "stop_sequence": followed.stop_sequence}
    if stop_metadata is not None:
        fields.update(stop_metadata(stop_reason))
    return fields


def _pick_headers(received: Mapping[str, str], wanted: Sequence[str]) -> dict[str, str]:
    lowered = {key.lower(): value for key, value in received.items()}
    return {name: lowered[name] for name in wanted if name in lowered}


def convert_completion(completion: Completion, *, model: str | None = None) -> AIMessage:
    """A whole ``AIMessage`` from a Completion (e.g. the partial answer of a failed stream).

    It has the shape the aggregated stream has: text ``content``, ``reasoning_content`` and
    ``refusal`` in ``additional_kwargs``, parsed ``tool_calls`` (or ``invalid_tool_calls``),
    ``usage_metadata`` and ``response_metadata``.
    """
    first = completion.choices[0].index if completion.choices else None
    chunk = build_whole_chunk(completion, choice=first, model=model)
    message = message_chunk_to_message(chunk)
    assert isinstance(message, AIMessage)
    return message


def fill_llm_output(result: ChatResult) -> ChatResult:
    """Fill ``llm_output`` (legacy callers read ``token_usage`` and ``model_name`` there)."""
    meta = result.generations[0].message.response_metadata
    result.llm_output = {key: meta[key] for key in _LLM_OUTPUT_KEYS if key in meta}
    return result


def combine_llm_outputs(outputs: Sequence[dict[str, Any] | None], model: str) -> dict[str, Any]:
    """One ``llm_output`` for a ``generate`` batch: token counts summed."""
    usage: dict[str, int] = {}
    combined: dict[str, Any] = {"model_name": model}
    for output in filter(None, outputs):
        for key, value in (output.get("token_usage") or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                usage[key] = usage.get(key, 0) + value
        combined["model_name"] = output.get("model_name", combined["model_name"])
        if "system_fingerprint" in output:
            combined.setdefault("system_fingerprint", output["system_fingerprint"])
    combined["token_usage"] = usage
    return combined
