"""Core values to ChatResponses (pure): the per-chunk contract of ResponseMapper, over the
core's accumulator, with lazy and with plain messages; and a whole Completion (chat)."""

from __future__ import annotations

import pytest
from llama_index.core.base.llms.types import (
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from llamaindex_sse._inbound import build_message_parts, to_chat_response
from llamaindex_sse._lazy import Build, StreamMessage
from sse_core import (
    Completion,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    UsageUpdate,
)
from sse_core.completion import Choice
from tests.llamaindex.li_support import Feed

USAGE = Usage(
    prompt_tokens=11,
    completion_tokens=7,
    total_tokens=18,
    cached_tokens=3,
    cache_write_tokens=2,
    reasoning_tokens=4,
    raw={"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18, "cost": 0.1},
)


@pytest.fixture(params=[True, False], ids=["lazy", "plain"])
def stream(request: pytest.FixtureRequest) -> Feed:
    """A fed ResponseMapper; every contract holds with lazy messages and with the fallback."""
    return Feed(Build(lazy=request.param))


def test_each_response_has_the_delta_and_the_running_text_in_one_text_block(stream: Feed) -> None:
    first = stream.add([Metadata(id="c1", model="m"), TextDelta(text="Hel")])
    second = stream.add([TextDelta(text="lo"), TextDelta(text=" you")])
    assert first is not None and second is not None
    assert (first.delta, second.delta) == ("Hel", "lo you")
    assert [type(b) for b in second.message.blocks] == [TextBlock]
    assert second.message.content == "Hello you"
    assert first.message.content == "Hel"  # an earlier chunk keeps its own text
    assert second.message.role is MessageRole.ASSISTANT
    assert second.raw is not None
    assert second.raw["choices"][0]["delta"] == {"content": "lo you"}
    assert (second.raw["id"], second.raw["model"]) == ("c1", "m")


def test_the_message_kind_follows_the_build() -> None:
    lazy = Feed(Build(lazy=True)).add([TextDelta(text="a")])
    plain = Feed(Build(lazy=False)).add([TextDelta(text="a")])
    assert lazy is not None and plain is not None
    assert isinstance(lazy.message, StreamMessage)
    assert not isinstance(plain.message, StreamMessage)
    assert lazy.model_dump() == plain.model_dump()


def test_reasoning_is_a_thinking_block_and_thinking_delta(stream: Feed) -> None:
    first = stream.add([ReasoningDelta(text="Let me ")])
    second = stream.add([ReasoningDelta(text="think."), TextDelta(text="Hi")])
    assert first is not None and second is not None
    assert first.additional_kwargs["thinking_delta"] == "Let me "
    assert first.delta == ""
    assert second.additional_kwargs["thinking_delta"] == "think."
    thinking, text = second.message.blocks
    assert isinstance(thinking, ThinkingBlock) and thinking.content == "Let me think."
    assert isinstance(text, TextBlock) and text.text == "Hi"
    third = stream.add([TextDelta(text="!")])
    assert third is not None and "thinking_delta" not in third.additional_kwargs
    assert second.raw is not None
    assert second.raw["choices"][0]["delta"] == {"content": "Hi", "reasoning_content": "think."}


def test_interleaved_tool_calls_stay_two_calls_with_ids_set_once(stream: Feed) -> None:
    stream.add([ToolCallDelta(index=0, id="call_a", name="add", arguments='{"a": ')])
    stream.add([ToolCallDelta(index=1, id="call_b", name="mul", arguments='{"x": 2')])
    stream.add([ToolCallDelta(index=0, id="call_a", name="add", arguments="1}")])
    last = stream.add([ToolCallDelta(index=1, arguments="}"), Finish(reason="tool_calls")])
    assert last is not None
    blocks = [b for b in last.message.blocks if isinstance(b, ToolCallBlock)]
    assert [(b.tool_call_id, b.tool_name, b.tool_kwargs) for b in blocks] == [
        ("call_a", "add", '{"a": 1}'),
        ("call_b", "mul", '{"x": 2}'),
    ]
    assert last.message.additional_kwargs["tool_calls"] == [
        {"id": "call_a", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}},
        {"id": "call_b", "type": "function", "function": {"name": "mul", "arguments": '{"x": 2}'}},
    ]
    assert last.additional_kwargs["finish_reason"] == "tool_calls"


def test_raw_tool_call_fragments_are_the_reads_merged(stream: Feed) -> None:
    response = stream.add(
        [
            ToolCallDelta(index=0, id="call_a", name="add", arguments='{"a": '),
            ToolCallDelta(index=0, arguments="1}"),
            ToolCallDelta(index=1, id="call_b", name="mul"),
        ]
    )
    assert response is not None and response.raw is not None
    assert response.raw["choices"][0]["delta"]["tool_calls"] == [
        {
            "index": 0,
            "id": "call_a",
            "type": "function",
            "function": {"name": "add", "arguments": '{"a": 1}'},
        },
        {
            "index": 1,
            "id": "call_b",
            "type": "function",
            "function": {"name": "mul", "arguments": ""},
        },
    ]


def test_an_earlier_chunk_keeps_its_own_tool_calls(stream: Feed) -> None:
    first = stream.add([ToolCallDelta(index=0, id="c1", name="f", arguments='{"a"')])
    stream.add(
        [ToolCallDelta(index=0, arguments=": 1}"), ToolCallDelta(index=1, id="c2", name="g")]
    )
    assert first is not None
    (block,) = [b for b in first.message.blocks if isinstance(b, ToolCallBlock)]
    assert (block.tool_call_id, block.tool_kwargs) == ("c1", '{"a"')


def test_a_tool_call_without_an_id_gets_a_stable_one(stream: Feed) -> None:
    response = stream.add([ToolCallDelta(index=2, name="f", arguments="{}")])
    assert response is not None
    (block,) = [b for b in response.message.blocks if isinstance(b, ToolCallBlock)]
    assert block.tool_call_id == "call_2"
    assert response.message.additional_kwargs["tool_calls"][0]["id"] == "call_2"


def test_refusal_goes_to_message_additional_kwargs(stream: Feed) -> None:
    stream.add([RefusalDelta(text="I can't ")])
    response = stream.add([RefusalDelta(text="help."), Finish(reason="stop")])
    assert response is not None
    assert response.message.additional_kwargs["refusal"] == "I can't help."
    assert response.message.content == ""
    assert response.raw is not None
    assert response.raw["choices"][0]["delta"] == {"refusal": "help."}


def test_the_last_response_carries_usage_and_finish_reason(stream: Feed) -> None:
    stream.add([TextDelta(text="Hi")])
    stream.add([Finish(reason="stop")])
    last = stream.add([UsageUpdate(usage=USAGE), StreamEnd()])
    assert last is not None
    assert last.raw is not None
    assert last.raw["usage"] == {
        "prompt_tokens": 11,
        "completion_tokens": 7,
        "total_tokens": 18,
        "cost": 0.1,
        "prompt_tokens_details": {"cached_tokens": 3, "cache_write_tokens": 2},
        "completion_tokens_details": {"reasoning_tokens": 4},
    }
    assert last.additional_kwargs == {
        "finish_reason": "stop",
        "prompt_tokens": 11,
        "completion_tokens": 7,
        "total_tokens": 18,
        "cached_tokens": 3,
        "cache_write_tokens": 2,
        "reasoning_tokens": 4,
    }
    assert last.raw["choices"][0]["finish_reason"] == "stop"
    assert last.message.content == "Hi"
    assert stream.last() is None  # something was yielded: no extra response


def test_a_later_usage_report_replaces_the_earlier_one(stream: Feed) -> None:
    stream.add([UsageUpdate(usage=Usage(prompt_tokens=1, completion_tokens=1, total_tokens=2))])
    last = stream.add([UsageUpdate(usage=USAGE)])
    assert last is not None and last.raw is not None
    assert last.additional_kwargs["total_tokens"] == 18
    assert last.raw["usage"]["total_tokens"] == 18


def test_a_stream_with_nothing_to_show_still_gives_one_response(stream: Feed) -> None:
    assert stream.add([Metadata(id="c1"), StreamEnd()]) is None
    response = stream.last()
    assert response is not None
    assert response.delta == "" and response.message.content == ""
    assert response.raw is not None and response.raw["usage"] is None
    assert response.raw["id"] == "c1"


def test_gateway_events_are_not_shown_as_content(stream: Feed) -> None:
    event = GatewayEvent(name="spass.tool-cap", data={"cap": 3})
    assert stream.add([event]) is None
    assert stream.events == (event,)  # what the stream loop dispatches


def test_only_the_first_choice_is_followed(stream: Feed) -> None:
    response = stream.add(
        [
            TextDelta(text="A", choice=0),
            TextDelta(text="B", choice=1),
            Finish(reason="stop", choice=1),
        ]
    )
    assert response is not None
    assert response.message.content == "A"
    assert "finish_reason" not in response.additional_kwargs


def test_message_parts_order_the_blocks() -> None:
    call = ToolCall(index=0, id="c1", name="f", arguments="{}")
    blocks, kwargs = build_message_parts("Hi", "hmm", "no", (call,))
    assert [type(b) for b in blocks] == [ThinkingBlock, TextBlock, ToolCallBlock]
    assert kwargs == {
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
        "refusal": "no",
    }
    assert build_message_parts("", "", "", ()) == ([TextBlock(text="")], {})


def test_chat_response_maps_a_whole_completion() -> None:
    completion = Completion(
        choices=(
            Choice(
                content="Hi",
                reasoning="hmm",
                refusal="",
                tool_calls=(ToolCall(index=0, id="c1", name="f", arguments='{"x": 1}'),),
                finish_reason="tool_calls",
            ),
        ),
        usage=USAGE,
        id="r1",
        model="m",
    )
    response = to_chat_response(completion)
    assert [type(b) for b in response.message.blocks] == [ThinkingBlock, TextBlock, ToolCallBlock]
    assert response.message.additional_kwargs["tool_calls"][0]["function"] == {
        "name": "f",
        "arguments": '{"x": 1}',
    }
    assert response.raw is not None
    assert response.raw["usage"]["prompt_tokens"] == 11
    assert response.raw["choices"][0]["message"]["reasoning_content"] == "hmm"
    assert response.additional_kwargs["finish_reason"] == "tool_calls"
    assert response.additional_kwargs["reasoning_tokens"] == 4


def test_chat_response_and_the_last_streamed_response_agree(stream: Feed) -> None:
    events = [
        Metadata(id="r1", model="m"),
        ReasoningDelta(text="hmm"),
        TextDelta(text="Hi"),
        ToolCallDelta(index=0, id="c1", name="f", arguments='{"x": 1}'),
        Finish(reason="tool_calls"),
        UsageUpdate(usage=USAGE),
    ]
    last = stream.add(events)
    whole = to_chat_response(stream.answer.completion())
    assert last is not None and last.raw is not None and whole.raw is not None
    assert last.message.blocks == whole.message.blocks
    assert last.message.additional_kwargs == whole.message.additional_kwargs
    assert last.raw["usage"] == whole.raw["usage"]
    assert {k: v for k, v in last.additional_kwargs.items() if k != "thinking_delta"} == (
        whole.additional_kwargs
    )
