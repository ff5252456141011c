"""The payload parsers (``pipeline/payloads.py``): usage objects of every dialect, error
bodies, reasoning parts, and JSON frames (bad UTF-8 recovered, anything else refused)."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core import ErrorFrame, StreamProtocolError, Usage
from sse_core.pipeline.payloads import (
    details_text,
    parse_chunk_json,
    parse_error,
    parse_loose,
    parse_usage,
    thinking_text,
)

# --- usage ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({}, Usage()),
        (
            {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 9},
            Usage(prompt_tokens=3, completion_tokens=4, total_tokens=9),
        ),
        (
            {"prompt_tokens": 3, "completion_tokens": 4},
            Usage(prompt_tokens=3, completion_tokens=4, total_tokens=7),
        ),
        (
            {"input_tokens": 2, "output_tokens": 5},
            Usage(prompt_tokens=2, completion_tokens=5, total_tokens=7),
        ),
        (
            {
                "prompt_tokens": 10,
                "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": 8, "cache_creation_tokens": 2},
                "completion_tokens_details": {"reasoning_tokens": 1},
            },
            Usage(
                prompt_tokens=10,
                completion_tokens=1,
                total_tokens=11,
                cached_tokens=8,
                cache_write_tokens=2,
                reasoning_tokens=1,
            ),
        ),
        ({"prompt_cache_hit_tokens": 6}, Usage(cached_tokens=6)),  # DeepSeek
        ({"cached_tokens": 5}, Usage(cached_tokens=5)),  # Together
        (
            {"cache_read_input_tokens": 4, "cache_creation_input_tokens": 1},
            Usage(cached_tokens=4, cache_write_tokens=1),
        ),
        ({"reasoning_tokens": 2}, Usage(reasoning_tokens=2)),
        (
            {"prompt_tokens": True, "completion_tokens": "4", "total_tokens": 1.5},
            Usage(),
        ),
        (
            {"prompt_tokens_details": None, "completion_tokens_details": [1]},
            Usage(),
        ),
        (
            {"prompt_tokens": 2**70, "completion_tokens": 1},
            Usage(prompt_tokens=2**70, completion_tokens=1, total_tokens=2**70 + 1),
        ),
    ],
)
def test_parse_usage(raw: dict[str, Any], expected: Usage) -> None:
    usage = parse_usage(raw)
    assert usage == expected and usage.raw is raw


# --- error bodies ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            {"error": {"message": "boom", "type": "server_error", "code": "c1"}},
            ("boom", "server_error", "c1"),
        ),
        ({"error": {"detail": "d", "code": 400}}, ("d", None, 400)),
        ({"error": {"msg": "m", "code": True, "type": 5}}, ("m", None, None)),
        ({"error": {"code": "x"}}, ('{"code":"x"}', None, "x")),
        ({"error": "plain"}, ("plain", None, None)),
        ({"error": ""}, ("the gateway reported an error", None, None)),
        ("text only", ("text only", None, None)),
        ({"message": "top", "type": "t"}, ("top", "t", None)),
        (None, ("the gateway reported an error", None, None)),
        ([1, 2], ("[1, 2]", None, None)),
    ],
)
def test_parse_error(payload: object, expected: tuple[str, object, object]) -> None:
    frame = parse_error(payload)
    assert (frame.message, frame.type, frame.code) == expected
    assert frame.data == payload and isinstance(frame, ErrorFrame)


# --- reasoning parts ------------------------------------------------------------------------


def test_details_text() -> None:
    details = [
        {"type": "reasoning.text", "text": "a"},
        {"type": "reasoning.summary", "summary": "b"},
        {"type": "reasoning.encrypted", "data": "xxx"},
        {"text": 5},
        "c",
        None,
    ]
    assert details_text(details) == "ab"
    assert details_text({"text": "a"}) == "" and details_text(None) == ""


def test_thinking_text() -> None:
    assert thinking_text("plain") == "plain"
    assert thinking_text([{"type": "text", "text": "a"}, {"text": 1}, "x", {"text": "b"}]) == "ab"
    assert thinking_text(None) == "" and thinking_text({"text": "a"}) == ""


# --- JSON frames ----------------------------------------------------------------------------


def test_parse_chunk_json() -> None:
    assert parse_chunk_json(b'{"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}


def test_invalid_utf8_is_replaced_as_an_sse_text_decoder_would() -> None:
    assert parse_chunk_json(b'{"t": "a\xff\xfeb"}') == {"t": "a\ufffd\ufffdb"}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"[1]", "got list"),
        (b'"s"', "got str"),
        (b"1", "got int"),
        (b"null", "got NoneType"),
        (b"{oops", "got invalid JSON"),
        (b"", "got invalid JSON"),
        (b"{\xff", "got invalid JSON"),
    ],
)
def test_anything_but_a_json_object_is_a_protocol_error(data: bytes, words: str) -> None:
    with pytest.raises(StreamProtocolError, match="expected a JSON object in a data frame") as info:
        parse_chunk_json(data)
    assert words in str(info.value)


def test_the_message_quotes_at_most_200_bytes_of_the_frame() -> None:
    with pytest.raises(StreamProtocolError) as info:
        parse_chunk_json(b"{" + b"x" * 10_000)
    assert "x" * 199 in str(info.value) and "x" * 201 not in str(info.value)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"a":1}', {"a": 1}),
        (b"[1]", [1]),
        (b"plain text", "plain text"),
        (b'{"t":"\xff"}', {"t": "\ufffd"}),
        (b"\xff not json", "\ufffd not json"),
        (b"", ""),
    ],
)
def test_parse_loose(data: bytes, expected: object) -> None:
    assert parse_loose(data) == expected
