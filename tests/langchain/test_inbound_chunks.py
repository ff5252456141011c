"""The pure inbound mapping: StreamEvents to chunks, the final chunk, usage, content blocks.

The mapper follows the choice the core's accumulator follows; :func:`_read` feeds an
:class:`~sse_core.pipeline.Accumulator` first, as the stream does before it hands a read over.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

from langchain_sse._inbound import ChunkMapper, Item, MapMode, convert_completion, map_usage
from sse_core import (
    Choice,
    Completion,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    UsageUpdate,
)
from sse_core.pipeline import Accumulator


def _read(events: list[StreamEvent], mapper: ChunkMapper | None = None) -> list[Item]:
    """Map ``events`` as one read of a new stream (per event, unless ``mapper`` says)."""
    answer = Accumulator()
    answer.extend(events)
    return list((mapper or ChunkMapper()).read(events, answer))


def _reads(reads: list[list[StreamEvent]], mode: MapMode) -> list[Item]:
    """Map several reads of one stream, the accumulator fed before each read is mapped."""
    answer, mapper, items = Accumulator(), ChunkMapper(mode=mode), []
    for read in reads:
        answer.extend(read)
        items += mapper.read(read, answer)
    return items


def _messages(items: list[ChatGenerationChunk | GatewayEvent]) -> list[AIMessageChunk]:
    found = []
    for item in items:
        assert isinstance(item, ChatGenerationChunk)
        assert isinstance(item.message, AIMessageChunk)
        found.append(item.message)
    return found


EVENTS: list[StreamEvent] = [
    Metadata(id="chatcmpl-9", model="m1", system_fingerprint="fp"),
    ReasoningDelta(text="Think "),
    ReasoningDelta(text="hard."),
    TextDelta(text="Hel"),
    TextDelta(text="lo"),
    ToolCallDelta(index=0, id="call_1", name="get_weather", arguments=""),
    ToolCallDelta(index=0, arguments='{"city": '),
    ToolCallDelta(index=0, arguments='"Paris"}'),
    Finish(reason="tool_calls"),
    UsageUpdate(usage=Usage(prompt_tokens=5, completion_tokens=7, total_tokens=12)),
    StreamEnd(),
]
COMPLETION = Completion(
    choices=(
        Choice(
            index=0,
            content="Hello",
            reasoning="Think hard.",
            tool_calls=(
                ToolCall(index=0, id="call_1", name="get_weather", arguments='{"city": "Paris"}'),
            ),
            finish_reason="tool_calls",
        ),
    ),
    usage=Usage(
        prompt_tokens=5,
        completion_tokens=7,
        total_tokens=12,
        raw={"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12, "cost": 0.01},
    ),
    id="chatcmpl-9",
    model="m1",
    system_fingerprint="fp",
    events=(GatewayEvent(name="spass.tool-cap", data={"iterations": 10}),),
    done=True,
    headers={"X-Request-Id": "req_1", "content-type": "text/event-stream"},
)


def test_each_delta_event_gives_one_chunk_and_bookkeeping_events_give_none() -> None:
    chunks = _messages(_read(EVENTS))
    assert len(chunks) == 7
    assert [c.additional_kwargs.get("reasoning_content") for c in chunks[:2]] == ["Think ", "hard."]
    assert [c.content for c in chunks[2:4]] == ["Hel", "lo"]
    assert all(isinstance(c.content, str) for c in chunks)
    assert chunks[4].tool_call_chunks == [
        {"name": "get_weather", "args": "", "id": "call_1", "index": 0, "type": "tool_call_chunk"}
    ]
    assert chunks[5].tool_call_chunks[0]["id"] is None
    assert chunks[5].tool_call_chunks[0]["name"] is None
    # model_provider on the first chunk only (and on the final one, see below).
    assert chunks[0].response_metadata == {"model_provider": "sse"}
    assert all(c.response_metadata == {} for c in chunks[1:])
    assert all(c.usage_metadata is None for c in chunks)


def test_refusal_goes_to_additional_kwargs_and_keeps_its_block() -> None:
    _, message = _messages(_read([TextDelta(text="x"), RefusalDelta(text="No.")]))
    assert message.additional_kwargs == {"refusal": "No."}
    assert message.content == ""
    assert message.content_blocks == [{"type": "refusal", "refusal": "No."}]


def test_untagged_chunks_have_the_same_blocks_as_tagged_ones() -> None:
    events: list[StreamEvent] = [
        TextDelta(text="a"),
        ReasoningDelta(text="r"),
        ToolCallDelta(index=0, id="c", name="f", arguments="{"),
    ]
    chunks = _messages(_read([TextDelta(text="first"), *events]))[1:]
    for chunk in chunks:
        assert "model_provider" not in chunk.response_metadata
        tagged = chunk.model_copy(update={"response_metadata": {"model_provider": "sse"}})
        assert chunk.content_blocks == tagged.content_blocks


def test_gateway_events_are_handed_on_in_order_between_chunks() -> None:
    named = GatewayEvent(name="spass.tool-cap", data={"code": "x"})
    items = _read([TextDelta(text="a"), named, TextDelta(text="b")])
    assert items[1] is named
    assert [type(i) for i in items] == [ChatGenerationChunk, GatewayEvent, ChatGenerationChunk]


def test_only_the_first_choice_seen_is_followed() -> None:
    events: list[StreamEvent] = [
        TextDelta(text="a", choice=1),
        TextDelta(text="x", choice=2),
        TextDelta(text="b", choice=1),
        ToolCallDelta(index=0, id="c", name="f", choice=2),
    ]
    assert [c.content for c in _messages(_read(events))] == ["a", "b"]


def test_final_chunk_carries_usage_once_and_string_metadata_once() -> None:
    mapper = ChunkMapper(model="asked", headers=("x-request-id",))
    chunks = _messages(_read(EVENTS, mapper))
    final = mapper.build_final(COMPLETION, 0).message
    assert isinstance(final, AIMessageChunk)
    assert final.chunk_position == "last"
    assert final.content == ""
    assert final.usage_metadata == {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}
    assert final.response_metadata == {
        "model_provider": "sse",
        "finish_reason": "tool_calls",
        "model_name": "m1",
        "id": "chatcmpl-9",
        "system_fingerprint": "fp",
        "token_usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12,
                        "cost": 0.01},
        "gateway_events": [{"name": "spass.tool-cap", "data": {"iterations": 10}}],
        "headers": {"x-request-id": "req_1"},
    }  # fmt: skip
    whole = chunks[0] + chunks[1:] + [final]
    # Merged, nothing was concatenated twice and usage was counted once.
    assert whole.response_metadata["model_name"] == "m1"
    assert whole.response_metadata["finish_reason"] == "tool_calls"
    assert whole.response_metadata["model_provider"] == "sse"
    assert whole.usage_metadata == final.usage_metadata
    assert whole.content == "Hello"
    assert whole.additional_kwargs["reasoning_content"] == "Think hard."
    assert whole.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}
    ]


def test_final_chunk_names_the_requested_model_when_the_gateway_sends_none() -> None:
    meta = ChunkMapper(model="asked").build_final(Completion(model=""), None).message
    meta = meta.response_metadata
    assert meta["model_name"] == "asked"
    assert "finish_reason" not in meta
    assert ChunkMapper().build_final(Completion(), None).message.usage_metadata is None


def test_usage_details_map_to_langchain_names() -> None:
    usage = Usage(
        prompt_tokens=100,
        completion_tokens=40,
        total_tokens=140,
        cached_tokens=60,
        cache_write_tokens=30,
        reasoning_tokens=25,
    )
    assert map_usage(usage) == {
        "input_tokens": 100,
        "output_tokens": 40,
        "total_tokens": 140,
        "input_token_details": {"cache_read": 60, "cache_creation": 30},
        "output_token_details": {"reasoning": 25},
    }


def test_usage_without_total_adds_it_up_and_usage_without_counts_is_none() -> None:
    assert map_usage(Usage(prompt_tokens=3, completion_tokens=4)) == {
        "input_tokens": 3,
        "output_tokens": 4,
        "total_tokens": 7,
    }
    assert map_usage(Usage(raw={"cost": 1})) is None


def test_coalescing_merges_one_read_into_one_chunk() -> None:
    named = GatewayEvent(name="n", data=1)
    items = _read([*EVENTS[:8], named], ChunkMapper(mode=MapMode.COALESCE))
    assert len(items) == 2
    assert items[1] is named
    assert isinstance(items[0], ChatGenerationChunk)
    message = items[0].message
    assert isinstance(message, AIMessageChunk)
    assert message.content == "Hello"
    assert message.additional_kwargs == {"reasoning_content": "Think hard."}
    assert message.tool_call_chunks == [
        {
            "name": "get_weather",
            "args": '{"city": "Paris"}',
            "id": "call_1",
            "index": 0,
            "type": "tool_call_chunk",
        }
    ]


def test_coalescing_a_read_without_deltas_gives_no_chunk() -> None:
    assert _read([Finish(reason="stop"), StreamEnd()], ChunkMapper(mode=MapMode.COALESCE)) == []


def test_coalesced_and_per_event_streams_aggregate_to_the_same_message() -> None:
    events: list[StreamEvent] = [TextDelta(text=f"{n} ") for n in range(50)]
    events += [ToolCallDelta(index=1, id="b", name="g"), ToolCallDelta(index=1, arguments="{}")]
    reads = [events[i : i + 7] for i in range(0, len(events), 7)]
    per_event = _messages(_reads(reads, MapMode.EACH))
    coalesced = _messages(_reads(reads, MapMode.COALESCE))
    assert len(coalesced) == len(reads)
    one, other = per_event[0] + per_event[1:], coalesced[0] + coalesced[1:]
    assert one.content == other.content
    assert one.tool_calls == other.tool_calls


def test_completion_to_message_has_the_shape_of_the_aggregated_stream() -> None:
    message = convert_completion(COMPLETION)
    assert isinstance(message, AIMessage)
    assert message.content == "Hello"
    assert message.additional_kwargs == {"reasoning_content": "Think hard."}
    assert message.tool_calls[0]["args"] == {"city": "Paris"}
    assert message.usage_metadata == {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}
    assert message.response_metadata["finish_reason"] == "tool_calls"


def test_unparsable_tool_arguments_become_invalid_tool_calls() -> None:
    partial = Completion(
        choices=(Choice(tool_calls=(ToolCall(index=0, id="c", name="f", arguments="not json"),)),)
    )
    message = convert_completion(partial)
    assert message.tool_calls == []
    (bad,) = message.invalid_tool_calls
    assert {k: bad[k] for k in ("type", "id", "name", "args")} == {  # type: ignore[literal-required]
        "type": "invalid_tool_call", "id": "c", "name": "f", "args": "not json"}  # fmt: skip
    assert bad["error"] and bad["error"].startswith("the arguments are not valid JSON")


def test_aggregating_many_chunks_in_one_merge() -> None:
    # invoke aggregates with one n-ary merge (linear; the timing lives in the benchmark):
    # 20,000 argument pieces come out whole, with id and name once.
    events: list[StreamEvent] = [ToolCallDelta(index=0, id="c", name="f")]
    events += [ToolCallDelta(index=0, arguments="x") for _ in range(20_000)]
    first, *rest = _read(events)
    assert isinstance(first, ChatGenerationChunk)
    merged = first + [c for c in rest if isinstance(c, ChatGenerationChunk)]
    assert isinstance(merged.message, AIMessageChunk)
    (call,) = merged.message.tool_call_chunks
    assert (call["id"], call["name"], call["args"]) == ("c", "f", "x" * 20_000)
