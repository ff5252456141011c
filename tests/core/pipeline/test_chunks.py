"""The chunk decoder (``pipeline/chunks.py``): each dialect's chat chunk to StreamEvents.

Most cases go through :func:`sse_core.decode` on small hand-written bodies, so what they
check is the events the chunk decoder made, as the accumulator assembles them.
"""

from __future__ import annotations

import json

import pytest

from sse_core import (
    Finish,
    GatewayEvent,
    GatewayStreamError,
    IncompleteStreamError,
    Metadata,
    ReasoningDelta,
    StreamDecoder,
    StreamEnd,
    StreamProtocolError,
    TextDelta,
    ToolCallDelta,
    Usage,
    UsageUpdate,
    decode,
)
from sse_core.pipeline import ChunkDecoder, ServerSentEvent
from tests.core.core_frames import delta, sse, tool

# --- text, reasoning, think tags -------------------------------------------------------------


def test_text_and_finish() -> None:
    result = decode(sse(delta(content="Hel"), delta(content="lo"), delta(finish="stop")))
    assert (result.content, result.finish_reason, result.done) == ("Hello", "stop", True)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_fields(field: str) -> None:
    result = decode(sse(delta(**{field: "think"}), delta(content="answer", finish="stop")))
    assert (result.reasoning, result.content) == ("think", "answer")


def test_reasoning_content_wins_over_a_duplicate_reasoning_field() -> None:
    result = decode(sse(delta(reasoning_content="a", reasoning="a"), delta(finish="stop")))
    assert result.reasoning == "a"


def test_reasoning_details_only_when_no_plain_reasoning() -> None:
    details = [{"type": "reasoning.text", "text": "x"}]
    both = decode(sse(delta(reasoning="r", reasoning_details=details), delta(finish="stop")))
    only = decode(sse(delta(reasoning_details=details), delta(finish="stop")))
    assert (both.reasoning, only.reasoning) == ("r", "x")


@pytest.mark.parametrize(
    "pieces",
    [
        ["<think>\nplan</think>\n\nAnswer"],
        ["<th", "ink>", "\npl", "an</th", "ink>", "\n\nAns", "wer"],
        ["  <think>plan", "</think>Answer"],
    ],
)
def test_leading_think_block_in_content_becomes_reasoning(pieces: list[str]) -> None:
    chunks = [delta(content=p) for p in pieces] + [delta(finish="stop")]
    result = decode(sse(*chunks))
    assert (result.reasoning, result.content) == ("plan", "Answer")


def test_think_tag_later_in_content_is_text() -> None:
    result = decode(sse(delta(content="Use <think> tags"), delta(finish="stop")))
    assert (result.reasoning, result.content) == ("", "Use <think> tags")


def test_unclosed_think_block_kept_in_partial() -> None:
    with pytest.raises(IncompleteStreamError) as info:
        decode(sse(delta(content="<think>still"), delta(content=" going"), done=False))
    assert (info.value.partial.reasoning, info.value.partial.content) == ("still going", "")


def test_content_that_is_only_a_tag_prefix_is_released_at_the_end() -> None:
    result = decode(sse(delta(content="<th"), delta(finish="stop")))
    assert result.content == "<th"


def test_think_tags_in_a_reasoning_field_are_removed_and_inner_whitespace_kept() -> None:
    # groq/compound opens the block in its reasoning field; trim=False keeps the whitespace
    # before the closing tag (the text after it is reasoning too).
    result = decode(
        sse(
            delta(reasoning="<think>\n step one"),
            delta(reasoning=" </think> step two "),
            delta(content="done", finish="stop"),
        )
    )
    assert (result.reasoning, result.content) == ("step one step two ", "done")


def test_content_as_array_of_text_and_thinking_parts() -> None:
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}], "closed": True}
    result = decode(
        sse(
            delta(content=[thinking]),
            delta(content=[{"type": "text", "text": "ok"}], finish="stop"),
        )
    )
    assert (result.reasoning, result.content) == ("hmm", "ok")


def test_content_parts_of_unknown_shape_are_skipped() -> None:
    parts = [1, "x", {"type": "image", "url": "u"}, {"type": "text", "text": 5}, {"type": "text"}]
    result = decode(
        sse(delta(content=[*parts, {"type": "text", "text": "kept"}]), delta(finish="stop"))
    )
    assert (result.content, result.reasoning) == ("kept", "")


def test_refusal() -> None:
    result = decode(sse(delta(refusal="I can"), delta(refusal="not."), delta(finish="stop")))
    assert (result.refusal, result.content) == ("I cannot.", "")


# --- tool calls -------------------------------------------------------------------------------


def test_tool_call_by_index_in_pieces_id_and_name_once() -> None:
    events = StreamDecoder().feed(
        sse(
            delta(tool_calls=[tool(0, id="call_1", type="function", name="f", arguments="")]),
            delta(tool_calls=[tool(0, id="", arguments='{"a"')]),
            delta(tool_calls=[tool(0, id="", name="f", arguments=":1}")]),
        )
    )
    calls = [e for e in events if isinstance(e, ToolCallDelta)]
    assert calls == [
        ToolCallDelta(index=0, id="call_1", name="f", arguments=""),
        ToolCallDelta(index=0, arguments='{"a"'),
        ToolCallDelta(index=0, arguments=":1}"),
    ]


def test_interleaved_calls_by_index() -> None:
    result = decode(
        sse(
            delta(tool_calls=[tool(0, id="a", name="f"), tool(1, id="b", name="g")]),
            delta(tool_calls=[tool(1, arguments="{}")]),
            delta(tool_calls=[tool(0, arguments='{"x":1}')]),
            delta(finish="tool_calls"),
        )
    )
    assert [(c.index, c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (0, "a", "f", '{"x":1}'),
        (1, "b", "g", "{}"),
    ]


def test_calls_without_index_join_by_id_else_continue_the_open_call() -> None:
    result = decode(
        sse(
            delta(tool_calls=[tool(id="a", name="f", arguments='{"x"'), tool(id="b", name="g")]),
            delta(tool_calls=[tool(id="a", arguments=":1}")]),
            delta(tool_calls=[tool(id="b", arguments="{")]),
            delta(tool_calls=[tool(arguments="}")]),
            delta(finish="tool_calls"),
        )
    )
    assert [(c.index, c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (0, "a", "f", '{"x":1}'),
        (1, "b", "g", "{}"),
    ]


def test_whole_calls_without_index_or_id_are_separate_calls() -> None:
    result = decode(
        sse(
            delta(
                tool_calls=[tool(id="", name="f", arguments="{}"), tool(name="g", arguments="{}")]
            ),
            delta(finish="stop"),
        )
    )
    assert [(c.index, c.id, c.name) for c in result.tool_calls] == [(0, None, "f"), (1, None, "g")]


def test_index_reused_for_a_new_id_starts_a_new_call() -> None:
    result = decode(
        sse(
            delta(tool_calls=[tool(0, id="a", name="f", arguments="{}")]),
            delta(tool_calls=[tool(0, id="b", name="g", arguments="{")]),
            delta(tool_calls=[tool(0, arguments="}")]),
            delta(finish="tool_calls"),
        )
    )
    assert [(c.index, c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (0, "a", "f", "{}"),
        (1, "b", "g", "{}"),
    ]


def test_arguments_sent_as_an_object_are_serialised() -> None:
    result = decode(
        sse(delta(tool_calls=[tool(0, id="a", name="f", arguments={"x": 1})]), delta(finish="stop"))
    )
    assert json.loads(result.tool_calls[0].arguments) == {"x": 1}


def test_tool_call_entries_that_are_not_objects_are_skipped() -> None:
    result = decode(
        sse(delta(tool_calls=[None, 3, "x", tool(0, id="a", name="f")]), delta(finish="stop"))
    )
    assert [(c.index, c.id, c.name) for c in result.tool_calls] == [(0, "a", "f")]


# --- choices, usage, metadata -----------------------------------------------------------------


def test_n_choices_kept_apart() -> None:
    result = decode(
        sse(
            delta(0, content="a"),
            delta(1, content="b"),
            delta(0, content="c", finish="stop"),
            delta(1, finish="length"),
        )
    )
    assert [(c.index, c.content, c.finish_reason) for c in result.choices] == [
        (0, "ac", "stop"),
        (1, "b", "length"),
    ]


def test_choice_without_index_is_choice_zero() -> None:
    result = decode(sse(delta(None, content="x"), delta(None, finish="stop")))
    assert [(c.index, c.content) for c in result.choices] == [(0, "x")]


@pytest.mark.parametrize("index", ["1", 1.0, None, True])
def test_choice_with_a_non_int_index_is_choice_zero(index: object) -> None:
    chunk = {"choices": [{"index": index, "delta": {"content": "x"}, "finish_reason": "stop"}]}
    result = decode(sse(chunk))
    assert [(c.index, c.content) for c in result.choices] == [(0, "x")]


def test_usage_details_and_x_groq() -> None:
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 4,
        "prompt_tokens_details": {"cached_tokens": 8, "cache_write_tokens": 2},
        "completion_tokens_details": {"reasoning_tokens": 3},
    }
    groq = {**delta(finish="stop"), "x_groq": {"id": "r", "usage": usage}}
    result = decode(sse(groq)).usage
    assert result is not None
    assert (result.total_tokens, result.cached_tokens, result.cache_write_tokens) == (14, 8, 2)
    assert result.reasoning_tokens == 3


def test_usage_only_chunk_with_empty_choices() -> None:
    result = decode(
        sse(
            delta(content="a", finish="stop"),
            {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}},
        )
    )
    assert result.usage is not None and result.usage.total_tokens == 2


def test_metadata_first_non_empty_wins() -> None:
    first = {"id": "", "model": "", "choices": []}
    second = {"id": "x1", "model": "m", "system_fingerprint": "fp", "created": 5, "choices": []}
    third = {"id": "x2", "model": "other", "choices": [{"delta": {}, "finish_reason": "stop"}]}
    result = decode(sse(first, second, third))
    assert (result.id, result.model, result.system_fingerprint, result.created) == (
        "x1",
        "m",
        "fp",
        5,
    )


def test_metadata_event_emitted_once_per_field() -> None:
    events = StreamDecoder().feed(
        sse({"id": "a", "model": "m", "choices": []}, {"id": "b", "choices": []})
    )
    assert [e for e in events if isinstance(e, Metadata)] == [Metadata(id="a", model="m")]


def test_metadata_of_the_wrong_type_is_ignored() -> None:
    events = ChunkDecoder()._decode_chunk({"id": 5, "model": ["m"], "created": "now"})
    assert events == []


# --- named events, errors, end of stream ------------------------------------------------------


def test_spass_cost_is_usage_and_a_gateway_event() -> None:
    body = (
        sse(delta(None, content="hi"), done=False)
        + b'event: spass.cost\ndata: {"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}\n\n'
        + b'event: spass.tool-cap\ndata: {"code":"tool_loop_max_iterations","iterations":10}\n\n'
        + b"data: [DONE]\n\n"
    )
    result = decode(body)
    assert result.usage is not None and result.usage.total_tokens == 5
    assert [(e.name, e.data.get("code")) for e in result.events] == [
        ("spass.cost", None),
        ("spass.tool-cap", "tool_loop_max_iterations"),
    ]


def test_named_event_with_text_data() -> None:
    events = StreamDecoder().feed(b"event: note\ndata: hello\n\n")
    assert events == [GatewayEvent(name="note", data="hello")]


@pytest.mark.parametrize(
    ("frame", "message", "code"),
    [
        (
            b'data: {"error":{"message":"boom","type":"upstream_error",'
            b'"code":"inference_failed"}}\n\n',
            "boom",
            "inference_failed",
        ),
        (b'data: {"error":"plain text"}\n\n', "plain text", None),
        (b'event: error\ndata: {"error":{"message":"bad","code":400}}\n\n', "bad", 400),
        (b"event: error\ndata: not json\n\n", "not json", None),
    ],
)
def test_error_frames_raise_with_partial(frame: bytes, message: str, code: object) -> None:
    body = sse(delta(content="partial text"), done=False) + frame + b"data: [DONE]\n\n"
    with pytest.raises(GatewayStreamError, match=message) as info:
        decode(body)
    assert info.value.code == code
    assert info.value.partial.content == "partial text"


def test_error_chunk_that_carries_usage_keeps_it_in_the_partial() -> None:
    chunk = {
        "error": {"code": 400, "message": "Token limit reached"},
        "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": None}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 9},
    }
    with pytest.raises(GatewayStreamError) as info:
        decode(sse(delta(content="so far"), chunk))
    usage = info.value.partial.usage
    assert usage is not None and usage.total_tokens == 16


def test_empty_data_is_a_keepalive() -> None:
    assert decode(b"data:\n\n" + sse(delta(content="x", finish="stop"))).content == "x"


def test_whole_completion_object_with_message() -> None:
    body = {
        "id": "c",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "whole", "reasoning_content": "r"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    events = ChunkDecoder()._decode_chunk(body)
    assert ReasoningDelta(text="r") in events and TextDelta(text="whole") in events
    assert Finish(reason="stop") in events and any(isinstance(e, UsageUpdate) for e in events)


# --- the ServerSentEvent entry point and flush -------------------------------------------------


def test_decode_takes_a_server_sent_event() -> None:
    decoder = ChunkDecoder()
    text = decoder.decode(ServerSentEvent(data='{"choices":[{"delta":{"content":"é"}}]}'))
    cost = decoder.decode(ServerSentEvent(data='{"prompt_tokens":2}', event="spass.cost"))
    done = decoder.decode(ServerSentEvent(data="[DONE]"))
    assert text == [TextDelta(text="é")]
    assert cost == [
        UsageUpdate(usage=Usage(prompt_tokens=2)),
        GatewayEvent(name="spass.cost", data={"prompt_tokens": 2}),
    ]
    assert done == [StreamEnd()] and decoder.done


def test_decode_of_a_non_object_message_is_a_protocol_error() -> None:
    with pytest.raises(StreamProtocolError, match="expected a JSON object"):
        ChunkDecoder().decode(ServerSentEvent(data="[1]"))


def bare(choice: int = 0, **fields: object) -> dict[str, object]:
    """A chunk without metadata (no Metadata event among what it decodes to)."""
    return {"choices": [{"index": choice, "delta": fields}]}


def test_done_flushes_text_held_for_a_tag_first() -> None:
    decoder = ChunkDecoder()
    assert decoder._decode_chunk(bare(content="  <thi")) == []
    assert decoder.decode(ServerSentEvent(data="[DONE]")) == [TextDelta(text="  <thi"), StreamEnd()]


def test_flush_gives_held_reasoning_and_text_per_choice() -> None:
    decoder = ChunkDecoder()
    assert decoder._decode_chunk(bare(0, content="<think>open")) == [ReasoningDelta(text="open")]
    assert decoder._decode_chunk(bare(1, content="<th")) == []
    assert decoder._decode_chunk(bare(2, reasoning="<think>r </thi")) == [
        ReasoningDelta(text="r ", choice=2)
    ]
    assert decoder.flush() == [
        TextDelta(text="<th", choice=1),
        ReasoningDelta(text="</thi", choice=2),
    ]
    assert decoder.flush() == []  # released once
