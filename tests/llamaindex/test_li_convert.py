"""StreamEvents to ChatResponses (pure): the per-chunk contract and the lazy running message."""

from __future__ import annotations

import copy
import pickle

from llama_index.core.base.llms.types import (
    ChatMessage,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from pydantic import BaseModel

from llamaindex_sse._completion import chat_response
from llamaindex_sse._convert import ResponseStream
from llamaindex_sse._lazy import RunningText, StreamMessage
from sse_core import (
    Completion,
    Done,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    UsageUpdate,
)
from sse_core.completion import Choice

USAGE = Usage(
    prompt_tokens=11,
    completion_tokens=7,
    total_tokens=18,
    cached_tokens=3,
    cache_write_tokens=2,
    reasoning_tokens=4,
    raw={"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18, "cost": 0.1},
)


def test_each_response_has_the_delta_and_the_running_text_in_one_text_block() -> None:
    stream = ResponseStream()
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


def test_reasoning_is_a_thinking_block_and_thinking_delta() -> None:
    stream = ResponseStream()
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


def test_interleaved_tool_calls_stay_two_calls_with_ids_set_once() -> None:
    stream = ResponseStream()
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


def test_a_tool_call_without_an_id_gets_a_stable_one() -> None:
    stream = ResponseStream()
    response = stream.add([ToolCallDelta(index=2, name="f", arguments="{}")])
    assert response is not None
    (block,) = [b for b in response.message.blocks if isinstance(b, ToolCallBlock)]
    assert block.tool_call_id == "call_2"
    assert response.message.additional_kwargs["tool_calls"][0]["id"] == "call_2"


def test_refusal_goes_to_message_additional_kwargs() -> None:
    stream = ResponseStream()
    stream.add([RefusalDelta(text="I can't ")])
    response = stream.add([RefusalDelta(text="help."), Finish(reason="stop")])
    assert response is not None
    assert response.message.additional_kwargs["refusal"] == "I can't help."
    assert response.message.content == ""


def test_the_last_response_carries_usage_and_finish_reason() -> None:
    stream = ResponseStream()
    stream.add([TextDelta(text="Hi")])
    stream.add([Finish(reason="stop")])
    last = stream.add([UsageUpdate(usage=USAGE), Done()])
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


def test_a_stream_with_nothing_to_show_still_gives_one_response() -> None:
    stream = ResponseStream()
    assert stream.add([Metadata(id="c1"), Done()]) is None
    response = stream.last()
    assert response is not None
    assert response.delta == "" and response.message.content == ""
    assert response.raw is not None and response.raw["usage"] is None


def test_gateway_events_are_collected_and_not_shown_as_content() -> None:
    stream = ResponseStream()
    event = GatewayEvent(name="spass.tool-cap", data={"cap": 3})
    assert stream.add([event]) is None
    assert stream.gateway_events == [event]


def test_only_the_first_choice_is_followed() -> None:
    stream = ResponseStream()
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


def test_the_lazy_message_behaves_as_a_chat_message() -> None:
    stream = ResponseStream()
    stream.add([ReasoningDelta(text="hmm")])
    response = stream.add([TextDelta(text="Hi"), ToolCallDelta(index=0, id="c", name="f")])
    assert response is not None
    message = response.message
    assert isinstance(message, StreamMessage) and isinstance(message, ChatMessage)
    plain = ChatMessage(
        role="assistant", blocks=message.blocks, additional_kwargs=message.additional_kwargs
    )
    dumped = response.model_dump()
    assert dumped["message"] == plain.model_dump()
    assert message == plain and plain == message
    assert copy.deepcopy(message) == plain
    assert pickle.loads(pickle.dumps(message)) == plain
    assert ChatMessage.model_validate_json(message.model_dump_json()) == plain
    assert str(message) == "assistant: Hi"


def test_the_lazy_message_can_be_changed_like_any_other() -> None:
    stream = ResponseStream()
    response = stream.add([TextDelta(text="Hi")])
    assert response is not None
    response.message.additional_kwargs["extra"] = 1
    response.message.content = "Bye"
    assert response.message.content == "Bye"
    assert response.message.additional_kwargs == {"extra": 1}
    assert response.message.model_dump()["blocks"] == [{"block_type": "text", "text": "Bye"}]


def test_nothing_is_joined_until_a_message_is_read() -> None:
    stream = ResponseStream()
    responses = [stream.add([TextDelta(text=str(i % 10))]) for i in range(1000)]
    raw_dict = BaseModel.__dict__["__dict__"].__get__  # the instance dict, bypassing assembly
    assert all("blocks" not in raw_dict(r.message) for r in responses if r is not None)
    assert responses[-1] is not None and responses[-1].message.content == "0123456789" * 100
    assert responses[9] is not None and responses[9].message.content == "0123456789"


def test_running_text_reuses_the_previous_join_when_read_in_order() -> None:
    text = RunningText()
    text.parts.extend(["a", "b", "c"])
    assert [text.upto(n) for n in (1, 2, 3, 2, 0)] == ["a", "ab", "abc", "ab", ""]


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
    response = chat_response(completion)
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
