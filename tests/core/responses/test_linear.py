"""Responses streams decode in time proportional to their size (100,000 text deltas with
their final text compared, one call's arguments in 20,000 pieces, 10,000 reasoning items,
10,000 calls), and decode right. Bounded by timeouts generous for linear code on a loaded
2-core machine; speed itself is for the benchmarks."""

from __future__ import annotations

import json

import pytest

import sse_core
from tests.core.responses.responses_wire import (
    added,
    arguments,
    arguments_done,
    call_item,
    completed,
    created,
    frame,
    item_done,
    message_item,
    reasoning_item,
    summary,
    text,
    text_done,
)


def _decode(*parts: bytes) -> sse_core.Completion:
    return sse_core.decode(b"".join(parts), protocol="responses")


@pytest.mark.timeout(40)
def test_a_hundred_thousand_text_deltas_and_their_final_text() -> None:
    words = [f"w{i} " for i in range(100_000)]
    deltas = b"".join(
        frame({**text(0, word), "sequence_number": i + 2}) for i, word in enumerate(words)
    )
    whole = "".join(words)
    result = _decode(
        frame(created()),
        frame(added(0, message_item())),
        deltas,
        frame(text_done(0, whole)),
        frame(item_done(0, message_item(text=whole))),
        frame(completed([message_item(text=whole)])),
    )
    assert result.content == whole and result.events == ()


@pytest.mark.timeout(20)
def test_one_calls_arguments_in_twenty_thousand_pieces() -> None:
    value = {"rows": [f"row {i}" for i in range(20_000)]}
    encoded = json.dumps(value)
    size = -(-len(encoded) // 20_000)
    pieces = [encoded[i : i + size] for i in range(0, len(encoded), size)]
    result = _decode(
        frame(created()),
        frame(added(0, call_item("call_big", "store"))),
        b"".join(frame(arguments(0, piece)) for piece in pieces),
        frame(arguments_done(0, encoded)),
        frame(completed([call_item("call_big", "store", encoded)])),
    )
    (call,) = result.tool_calls
    assert json.loads(call.arguments) == value and call.arguments_error is None


@pytest.mark.timeout(20)
def test_ten_thousand_reasoning_items() -> None:
    items = b"".join(
        frame(added(i, reasoning_item(f"rs_{i}")))
        + frame(summary(i, f"t{i}", item_id=f"rs_{i}"))
        + frame(item_done(i, reasoning_item(f"rs_{i}", [f"t{i}"], encrypted=f"s{i}=")))
        for i in range(10_000)
    )
    result = _decode(frame(created()), items, frame(completed()))
    assert len(result.reasoning_blocks) == 10_000
    last = result.reasoning_blocks[-1]
    assert (last.text, last.signature) == ("t9999", "s9999=")


@pytest.mark.timeout(20)
def test_ten_thousand_calls_matched_with_the_final_output() -> None:
    calls = [call_item(f"call_{i}", "f", "{}") for i in range(10_000)]
    streamed = b"".join(frame(added(i, call)) for i, call in enumerate(calls))
    result = _decode(frame(created()), streamed, frame(completed(list(reversed(calls)))))
    assert [call.index for call in result.tool_calls] == list(range(10_000))
    assert {call.arguments for call in result.tool_calls} == {"{}"} and result.events == ()
