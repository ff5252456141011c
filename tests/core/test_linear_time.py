"""Linear on any input: bodies whose shape once made the decoder quadratic decode in time
proportional to their size, and decode right.

Each case is bounded by a timeout marker: generous for linear code (a few seconds of work on
a loaded 2-core machine) and out of reach for the quadratic code they regress against (76 s
for the first, 43 us per frame, about 8.6 s, for the second). Speed itself is measured, not
asserted, in benchmarks/bench_pathological.py.
"""

from __future__ import annotations

import json

import pytest

import sse_core
from sse_core import ToolCall

FINISH = b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'


@pytest.mark.timeout(20)
def test_whole_tool_calls_without_index() -> None:
    # Each call is whole, with no index and no id: every one is a new call.
    f = (
        b'data: {"choices":[{"delta":{"tool_calls":'
        b'[{"function":{"name":"f","arguments":"{}"}}]}}]}\n\n'
    )
    result = sse_core.decode(f * 40_000 + FINISH)
    assert len(result.tool_calls) == 40_000
    assert result.tool_calls[0] == ToolCall(index=0, name="f", arguments="{}")
    assert result.tool_calls[-1] == ToolCall(index=39_999, name="f", arguments="{}")
    assert [call.index for call in result.tool_calls] == list(range(40_000))
    assert result.finish_reason == "stop" and result.done


@pytest.mark.timeout(6)
def test_whitespace_only_content() -> None:
    # think.py: whitespace that may precede a <think> block is held; when no block comes it
    # is released as the answer text. 200,000 newlines are the answer, all of them.
    w = b'data: {"choices":[{"delta":{"content":"\\n"}}]}\n\n'
    result = sse_core.decode(w * 200_000 + FINISH)
    assert result.content == "\n" * 200_000
    assert result.reasoning == "" and result.finish_reason == "stop"


@pytest.mark.timeout(20)
def test_whitespace_then_a_think_block_and_the_answer() -> None:
    # The same held whitespace, then a block: what precedes the block is dropped.
    w = b'data: {"choices":[{"delta":{"content":" "}}]}\n\n'
    block = b'data: {"choices":[{"delta":{"content":"<think>plan</think>answer"}}]}\n\n'
    result = sse_core.decode(w * 100_000 + block + FINISH)
    assert (result.reasoning, result.content) == ("plan", "answer")


@pytest.mark.timeout(20)
def test_whitespace_only_reasoning_inside_a_block() -> None:
    opening = b'data: {"choices":[{"delta":{"content":"<think>a"}}]}\n\n'
    w = b'data: {"choices":[{"delta":{"content":" \\n"}}]}\n\n'
    closing = b'data: {"choices":[{"delta":{"content":"b</think>c"}}]}\n\n'
    result = sse_core.decode(opening + w * 100_000 + closing + FINISH)
    assert result.reasoning == "a" + " \n" * 100_000 + "b" and result.content == "c"


@pytest.mark.timeout(20)
def test_many_tool_calls_by_index() -> None:
    frames = [
        json.dumps(
            {
                "choices": [
                    {
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": i,
                                    "id": f"c{i}",
                                    "function": {"name": "f", "arguments": ""},
                                }
                            ]
                        }
                    }
                ]
            }
        )
        for i in range(5_000)
    ]
    frames += [
        json.dumps(
            {
                "choices": [
                    {
                        "delta": {
                            "tool_calls": [{"index": i % 5_000, "function": {"arguments": "x"}}]
                        }
                    }
                ]
            }
        )
        for i in range(50_000)
    ]
    body = b"".join(b"data: " + f.encode() + b"\n\n" for f in frames) + FINISH
    result = sse_core.decode(body)
    assert len(result.tool_calls) == 5_000
    assert all(call.arguments == "x" * 10 for call in result.tool_calls)
    assert result.tool_calls[4_999].id == "c4999"


@pytest.mark.timeout(20)
def test_many_choices() -> None:
    frames = [
        b'data: {"choices":[{"index":%d,"delta":{"content":"x"}}]}\n\n' % (i % 50)
        for i in range(100_000)
    ]
    result = sse_core.decode(b"".join(frames) + FINISH)
    assert len(result.choices) == 50
    assert all(choice.content == "x" * 2_000 for choice in result.choices)


@pytest.mark.timeout(20)
def test_many_named_events() -> None:
    event = b'event: gw.note\ndata: {"n":1}\n\n'
    result = sse_core.decode(event * 100_000 + FINISH)
    assert len(result.events) == 100_000 and result.events[-1].name == "gw.note"


@pytest.mark.timeout(20)
def test_long_reasoning_in_tiny_pieces() -> None:
    r = b'data: {"choices":[{"delta":{"reasoning_content":"r"}}]}\n\n'
    result = sse_core.decode(r * 200_000 + FINISH)
    assert result.reasoning == "r" * 200_000
