"""Anthropic streams decode in time proportional to their size (100,000 text deltas, one tool
input in 20,000 pieces, 10,000 signed thinking blocks, 10,000 tool calls), and decode right.
Bounded by timeouts generous for linear code on a loaded 2-core machine; speed itself is for
the benchmarks."""

from __future__ import annotations

import json

import pytest

import sse_core
from tests.core.anthropic.messages_wire import (
    STOP,
    block,
    frame,
    json_piece,
    message_delta,
    signature,
    start,
    stop_block,
    text,
    thinking,
)


def _decode(*parts: bytes) -> sse_core.Completion:
    return sse_core.decode(b"".join(parts), protocol="anthropic")


@pytest.mark.timeout(30)
def test_a_hundred_thousand_text_deltas() -> None:
    deltas = b"".join(frame(text(0, f"w{i} ")) for i in range(100_000))
    result = _decode(frame(start()), frame(block(0)), deltas, frame(message_delta()), frame(STOP))
    assert result.content == "".join(f"w{i} " for i in range(100_000))


@pytest.mark.timeout(20)
def test_one_tool_input_in_twenty_thousand_pieces() -> None:
    value = {"rows": [f"row {i}" for i in range(20_000)]}
    encoded = json.dumps(value)
    size = -(-len(encoded) // 20_000)
    pieces = [encoded[i : i + size] for i in range(0, len(encoded), size)]
    body = b"".join(frame(json_piece(0, piece)) for piece in pieces)
    result = _decode(
        frame(start()),
        frame(block(0, "tool_use", id="toolu_big", name="store")),
        body,
        frame(stop_block(0)),
        frame(message_delta("tool_use")),
        frame(STOP),
    )
    (call,) = result.tool_calls
    assert json.loads(call.arguments) == value and call.arguments_error is None


@pytest.mark.timeout(20)
def test_ten_thousand_signed_thinking_blocks() -> None:
    blocks = b"".join(
        frame(block(i, "thinking"))
        + frame(thinking(i, f"t{i}"))
        + frame(signature(i, f"s{i}="))
        + frame(stop_block(i))
        for i in range(10_000)
    )
    result = _decode(frame(start()), blocks, frame(message_delta()), frame(STOP))
    assert len(result.reasoning_blocks) == 10_000
    assert result.reasoning_blocks[-1] == sse_core.ReasoningBlock(text="t9999", signature="s9999=")


@pytest.mark.timeout(20)
def test_ten_thousand_tool_calls_without_input() -> None:
    calls = b"".join(
        frame(block(i, "tool_use", id=f"toolu_{i}", name="f")) + frame(stop_block(i))
        for i in range(10_000)
    )
    result = _decode(frame(start()), calls, frame(message_delta("tool_use")), frame(STOP))
    assert [call.index for call in result.tool_calls] == list(range(10_000))
    assert {call.arguments for call in result.tool_calls} == {"{}"}
