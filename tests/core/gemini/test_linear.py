"""Gemini streams decode in time proportional to their size (100,000 text frames with usage on
each, 10,000 signed thought parts, 10,000 calls, one streamed argument in 20,000 pieces and
20,000 paths, 10,000 citations), and decode right. Bounded by timeouts generous for linear
code on a loaded 2-core machine; speed itself is for the benchmarks."""

from __future__ import annotations

import json

import pytest

from tests.core.gemini.gemini_wire import (
    body,
    call,
    candidate,
    chunk,
    decoded,
    frame,
    text,
    thought,
    usage,
)


@pytest.mark.timeout(60)
def test_a_hundred_thousand_text_frames_each_with_its_usage() -> None:
    frames = b"".join(frame(chunk(text(f"w{i} "), counts=usage(7, i + 1))) for i in range(100_000))
    result = decoded(frames + frame(chunk(finish="STOP", counts=usage(7, 100_000))))
    assert result.content == "".join(f"w{i} " for i in range(100_000))
    assert result.usage is not None and result.usage.completion_tokens == 100_000


@pytest.mark.timeout(30)
def test_ten_thousand_signed_thought_parts() -> None:
    frames = b"".join(
        frame(chunk(thought(f"t{i}", thoughtSignature=f"s{i}="))) for i in range(10_000)
    )
    result = decoded(frames + frame(chunk(text("done"), finish="STOP")))
    assert len(result.reasoning_blocks) == 10_000
    last = result.reasoning_blocks[-1]
    assert (last.text, last.signature) == ("t9999", "s9999=")
    assert last.item is not None and last.item["offset"] == len(result.reasoning) - len("t9999")


@pytest.mark.timeout(30)
def test_ten_thousand_calls_in_one_frame_and_across_frames() -> None:
    parts = [call("f", {"n": i}) for i in range(10_000)]
    one = decoded(body(chunk(*parts, finish="STOP")))
    across = decoded(b"".join(frame(chunk(part)) for part in parts) + frame(chunk(finish="STOP")))
    for result in (one, across):
        assert [tc.index for tc in result.tool_calls] == list(range(10_000))
        assert result.tool_calls[-1].arguments == '{"n":9999}'


def _piece(path: str, value: str, more: bool) -> bytes:
    partial = {"jsonPath": path, "stringValue": value, "willContinue": more}
    return frame(chunk({"functionCall": {"partialArgs": [partial], "willContinue": True}}))


@pytest.mark.timeout(30)
def test_one_streamed_argument_in_twenty_thousand_pieces() -> None:
    pieces = [f"line {i}\n" for i in range(20_000)]
    opening = frame(chunk({"functionCall": {"name": "store", "willContinue": True}}))
    frames = b"".join(_piece("$.text", piece, True) for piece in pieces)
    result = decoded(opening + frames + frame(chunk({"functionCall": {}}, finish="STOP")))
    (tool,) = result.tool_calls
    assert json.loads(tool.arguments) == {"text": "".join(pieces)}


@pytest.mark.timeout(30)
def test_one_streamed_call_with_twenty_thousand_paths() -> None:
    opening = frame(chunk({"functionCall": {"name": "store", "willContinue": True}}))
    frames = b"".join(_piece(f"$.rows[{i}].name", f"r{i}", False) for i in range(20_000))
    result = decoded(opening + frames + frame(chunk({"functionCall": {}}, finish="STOP")))
    (tool,) = result.tool_calls
    assert json.loads(tool.arguments) == {"rows": [{"name": f"r{i}"} for i in range(20_000)]}


@pytest.mark.timeout(30)
def test_ten_thousand_citations() -> None:
    frames = b"".join(
        frame({"candidates": [candidate([text("x")], citationMetadata={"citations": [
            {"startIndex": i, "endIndex": i + 1, "uri": f"https://s.example/{i}"}]})]})
        for i in range(10_000)
    )  # fmt: skip
    result = decoded(frames + frame(chunk(finish="STOP")))
    assert len(result.citations) == 10_000
