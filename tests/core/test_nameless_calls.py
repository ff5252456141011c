"""A tool call without a name is never a call, on every protocol (issue 36): its fragments
are held while a name may still come, and a call that ends without one is kept as one
GatewayEvent, :data:`~sse_core.pipeline.tool_calls.NAMELESS_CALL`, with where it was
(``index``), its ``id`` and its ``arguments`` as sent: never a ToolCallDelta, never a
ToolCall, and no ``tool_calls`` finish of our making (Responses; chat completions and
Anthropic keep the finish reason the gateway gave). A call whose name comes after its
arguments is a call, with every piece.

Each body is decoded whole, split at every byte, and through ``StreamDecoder`` to see that
no ToolCallDelta of a nameless call ever leaves the decoder.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sse_core import Completion, GatewayEvent, StreamDecoder, ToolCall, ToolCallDelta
from sse_core.pipeline.tool_calls import NAMELESS_CALL
from tests.core import core_frames as chat
from tests.core.anthropic import messages_wire as anthropic
from tests.core.responses import responses_wire as responses

ARGS = '{"city": "Paris"}'


def outcomes(data: bytes, protocol: str) -> list[tuple[str, Completion]]:
    """``data`` decoded whole and split at every byte."""
    wire = {"chat_completions": chat, "anthropic": anthropic, "responses": responses}[protocol]
    found = []
    for cut in range(len(data) + 1):
        if protocol == "chat_completions":
            found.append(chat.outcome(chat.chop(data, [cut])))
        else:
            found.append(wire.outcome(wire.chop(data, [cut])))
    return found


def calls_streamed(data: bytes, protocol: str) -> list[ToolCallDelta]:
    decoder = StreamDecoder(protocol=protocol)
    events = [e for at in range(len(data)) for e in decoder.feed(data[at : at + 1])]
    events += decoder.finish()
    return [event for event in events if isinstance(event, ToolCallDelta)]


def nameless(completion: Completion) -> list[Any]:
    return [event.data for event in completion.events if event.name == NAMELESS_CALL]


# --- Responses ---

UNANNOUNCED = responses.body(
    responses.created(),
    responses.arguments(0, '{"city": '),
    responses.arguments(0, '"Paris"}'),
    responses.completed(),
)


def test_responses_arguments_of_an_item_never_announced_are_no_call() -> None:
    for verdict, completion in outcomes(UNANNOUNCED, "responses"):
        assert verdict == "ok"
        assert completion.tool_calls == ()
        assert completion.finish_reason == "stop"
        assert nameless(completion) == [{"index": 0, "id": None, "arguments": ARGS}]
    assert calls_streamed(UNANNOUNCED, "responses") == []


def test_responses_a_call_named_only_in_its_done_event_is_a_call_with_every_piece() -> None:
    named_late = responses.body(
        responses.created(),
        responses.arguments(0, '{"city": '),
        responses.arguments(0, '"Paris"}'),
        responses.arguments_done(0, ARGS, name="get_weather"),
        responses.item_done(0, responses.call_item("call_1", "get_weather", ARGS)),
        responses.completed(),
    )
    for verdict, completion in outcomes(named_late, "responses"):
        assert verdict == "ok"
        assert completion.tool_calls == (
            ToolCall(index=0, id="call_1", name="get_weather", arguments=ARGS),
        )
        assert (completion.finish_reason, nameless(completion)) == ("tool_calls", [])
    first = calls_streamed(named_late, "responses")[0]
    assert (first.name, first.arguments) == ("get_weather", ARGS)


def test_responses_a_nameless_call_is_not_counted_among_the_calls() -> None:
    both = responses.body(
        responses.created(),
        responses.arguments(0, "{}"),
        responses.added(1, responses.call_item("call_2", "get_time")),
        responses.arguments(1, '{"zone": "UTC"}'),
        responses.completed(),
    )
    for verdict, completion in outcomes(both, "responses"):
        assert verdict == "ok"
        assert [(c.index, c.name) for c in completion.tool_calls] == [(0, "get_time")]
        assert completion.finish_reason == "tool_calls"
        assert nameless(completion) == [{"index": 0, "id": None, "arguments": "{}"}]


def test_responses_a_cut_stream_keeps_the_nameless_fragment_on_its_partial() -> None:
    cut = responses.body(responses.created(), responses.arguments(0, '{"city": '))
    verdict, partial = responses.outcome([cut])
    assert verdict == "IncompleteStreamError"
    assert partial.tool_calls == ()
    assert nameless(partial) == [{"index": 0, "id": None, "arguments": '{"city": '}]


# --- chat completions ---

CHAT_NAMELESS = chat.sse(
    chat.delta(tool_calls=[chat.tool(0, arguments='{"city": ')]),
    chat.delta(tool_calls=[chat.tool(0, arguments='"Paris"}')]),
    chat.delta(finish="tool_calls"),
)


def test_chat_a_tool_call_that_never_gets_a_name_is_no_call() -> None:
    for verdict, completion in outcomes(CHAT_NAMELESS, "chat_completions"):
        assert verdict == "ok"
        assert completion.tool_calls == ()
        assert nameless(completion) == [{"index": 0, "id": None, "arguments": ARGS}]
        assert completion.finish_reason == "tool_calls"  # the gateway's word, as sent
    assert calls_streamed(CHAT_NAMELESS, "chat_completions") == []


def test_chat_a_nameless_call_at_a_close_without_done_is_kept_too() -> None:
    closed = chat.sse(
        chat.delta(tool_calls=[chat.tool(0, id="call_9", arguments="{}")]),
        chat.delta(finish="tool_calls"),
        done=False,
    )
    verdict, completion = chat.outcome([closed])
    assert verdict == "ok" and completion.tool_calls == ()
    assert nameless(completion) == [{"index": 0, "id": "call_9", "arguments": "{}"}]


def test_chat_a_name_after_the_arguments_makes_a_call_of_every_piece() -> None:
    late = chat.sse(
        chat.delta(tool_calls=[chat.tool(0, id="call_1", arguments='{"city": ')]),
        chat.delta(tool_calls=[chat.tool(0, name="get_weather", arguments='"Paris"}')]),
        chat.delta(finish="tool_calls"),
    )
    for verdict, completion in outcomes(late, "chat_completions"):
        assert verdict == "ok"
        assert completion.tool_calls == (
            ToolCall(index=0, id="call_1", name="get_weather", arguments=ARGS),
        )
        assert nameless(completion) == []
    (first,) = calls_streamed(late, "chat_completions")
    assert (first.id, first.name, first.arguments) == ("call_1", "get_weather", ARGS)


def test_chat_a_whole_answer_with_a_nameless_call_has_no_call() -> None:
    whole = {
        "id": "c1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None,
                            "tool_calls": [{"id": "call_1", "type": "function",
                                            "function": {"arguments": "{}"}}]},
                "finish_reason": "tool_calls",
            }
        ],
    }  # fmt: skip
    completion = StreamDecoder().decode_whole(json.dumps(whole).encode())
    assert not [e for e in completion if isinstance(e, ToolCallDelta)]
    assert [e.data for e in completion if isinstance(e, GatewayEvent)] == [
        {"index": 0, "id": "call_1", "arguments": "{}"}
    ]


# --- Anthropic ---


def anthropic_body(*opening: Any) -> bytes:
    """Text, then a tool input at block 1 after ``opening`` (no start: a block never
    started), and a ``tool_use`` stop."""
    return anthropic.body(
        anthropic.start(),
        anthropic.block(0),
        anthropic.text(0, "Let me look."),
        anthropic.stop_block(0),
        *opening,
        anthropic.json_piece(1, '{"city": '),
        anthropic.json_piece(1, '"Paris"}'),
        anthropic.stop_block(1),
        anthropic.message_delta("tool_use"),
        anthropic.STOP,
    )


ANTHROPIC_NAMELESS = anthropic_body()


@pytest.mark.parametrize(
    "opening",
    [[], [anthropic.block(1, "tool_use", id="toolu_1", name="")]],
    ids=["never-started", "started-without-a-name"],
)
def test_anthropic_input_of_a_block_with_no_name_is_no_call(opening: list[Any]) -> None:
    data = anthropic_body(*opening)
    call_id = "toolu_1" if opening else None
    for verdict, completion in outcomes(data, "anthropic"):
        assert verdict == "ok"
        assert (completion.content, completion.tool_calls) == ("Let me look.", ())
        assert nameless(completion) == [{"index": 1, "id": call_id, "arguments": ARGS}]
        assert completion.finish_reason == "tool_calls"  # the gateway's tool_use, as sent
    assert calls_streamed(data, "anthropic") == []


def test_anthropic_a_prefilled_tool_use_without_a_name_is_no_call() -> None:
    prefilled = {"type": "tool_use", "id": "toolu_1", "input": {"city": "Paris"}}
    data = anthropic.body(
        anthropic.start(content=[prefilled]), anthropic.message_delta("tool_use"), anthropic.STOP
    )
    verdict, completion = anthropic.outcome([data])
    assert verdict == "ok" and completion.tool_calls == ()
    assert nameless(completion) == [{"index": 0, "id": "toolu_1", "arguments": '{"city":"Paris"}'}]
