"""``sse-chat decode`` of Anthropic Messages streams: the protocol told by the first event
(an ``event: message_start`` line, or ``"type": "message_start"`` in the data of a frame
without ``event:`` line) or given by ``--protocol``; real captures from
tests/fixtures/real/anthropic/ (provenance in its SOURCES.md), cut streams and error events."""

from __future__ import annotations

from pathlib import Path

import pytest

from sse_chat.cli import main
from sse_chat.decoding import detect_protocol

pytestmark = pytest.mark.timeout(60)

FOLDER = Path(__file__).parents[2] / "tests" / "fixtures" / "real" / "anthropic"
REDACTED = FOLDER / "pydantic-ai__sonnet45-redacted-thinking-padded-frames.sse"
SSE = "text/event-stream"


def data_only(name: str) -> bytes:
    """A ``*.payloads.jsonl`` capture framed as ``data:`` lines without ``event:`` lines."""
    raw = (FOLDER / name).read_bytes()
    return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())


def decode(
    tmp_path: Path, body: bytes, capsys: pytest.CaptureFixture[str], *options: str
) -> tuple[int, str, str]:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(body)
    code = main(["decode", *options, str(capture)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_capture_with_event_lines_is_told_by_its_first_event(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["decode", str(REDACTED)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("model: claude-sonnet-4-5-20250929   id: msg_018XZkwvj9asBiffg3fXt88s\n")
    assert "[content]\nI notice that you've sent what appears to be some" in out
    assert "[redacted thinking] 744 characters\n[redacted thinking] 296 characters\n" in out
    assert "[finish_reason] stop (stop_reason end_turn)\n" in out
    assert out.endswith(
        "[usage] input_tokens=92 output_tokens=189 cache_creation_input_tokens=0 "
        "cache_read_input_tokens=0 total=281\n"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "vercel-ai__tool-no-args.payloads.jsonl",
            [
                "[content]\nI'll update the issue list for you.\n",
                "[tool call 0] updateIssueList({}) id=toolu_01QE1WLsSVp5hy5Q3GmGTmjP\n",
                "[finish_reason] tool_calls (stop_reason tool_use)\n",
                "[usage] input_tokens=565 output_tokens=48 ",
            ],
        ),
        (
            "vercel-ai__message-delta-input-tokens.payloads.jsonl",
            ["[content]\npong\n", "[usage] input_tokens=61 output_tokens=2 total=63"],
        ),
        (
            "vercel-ai__message-start-prepopulated-content.payloads.jsonl",
            [
                '[tool call 0] lookup_customer({"id":"customer_123"}) id=toolu_followup\n',
                "[finish_reason] tool_calls (stop_reason tool_use)\n",
                "[event message_start] ",
            ],
        ),
        (
            "vercel-ai__refusal-stop-details.payloads.jsonl",
            [
                "[finish_reason] content_filter (stop_reason refusal)\n",
                '"stop_details":{"type":"refusal","category":"cyber"',
                "[usage] input_tokens=18 output_tokens=5 cache_creation_input_tokens=0",
            ],
        ),
    ],
)
def test_frames_without_event_lines_are_told_by_the_type_in_their_data(
    name: str, expected: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = decode(tmp_path, data_only(name), capsys)
    assert (code, err) == (0, "")
    for text in expected:
        assert text in out, (text, out)


def test_protocol_given_wins_over_detection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read as chat completions, an Anthropic stream has no answer: the flag is obeyed."""
    body = REDACTED.read_bytes()
    code, _, err = decode(tmp_path, body, capsys, "--protocol", "chat_completions")
    assert code == 1
    assert "without a finish_reason and without [DONE]" in err
    code, anthropic, _ = decode(tmp_path, body, capsys, "--protocol", "anthropic")
    assert code == 0
    code, detected, _ = decode(tmp_path, body, capsys)
    assert code == 0 and detected == anthropic


def test_a_cut_stream_says_what_anthropic_streams_end_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = REDACTED.read_bytes()
    cut = body[: body.index(b"event: message_delta")]
    code, out, err = decode(tmp_path, cut, capsys)
    assert code == 1
    assert err == (
        "sse-chat decode: the stream was cut: it ends without a stop_reason and without "
        "message_stop; what arrived:\n"
    )
    assert "I notice that you've sent" in out and "[redacted thinking] 744 characters" in out
    assert "[finish_reason] none: the stream was cut\n" in out


def test_an_error_event_after_the_answer_began(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = REDACTED.read_bytes()
    head = body[: body.index(b"event: message_delta")]
    error = (
        b"event: error\n"
        b'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    )
    code, out, err = decode(tmp_path, head + error, capsys)
    assert code == 1
    assert err.startswith("sse-chat decode: GatewayStreamError: ")
    assert "Overloaded" in err and "what arrived before the error:" in err
    assert "I notice that you've sent" in out


def test_a_whole_message_answered_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    message = (
        b'{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":'
        b'[{"type":"text","text":"Hi there"}],"stop_reason":"end_turn","stop_sequence":null,'
        b'"usage":{"input_tokens":5,"output_tokens":3}}'
    )
    code, out, err = decode(tmp_path, message, capsys)
    assert (code, err) == (0, "")
    assert "[content]\nHi there\n" in out and "(stop_reason end_turn)" in out
    assert "[usage] input_tokens=5 output_tokens=3 total=8" in out


@pytest.mark.parametrize(
    ("body", "protocol"),
    [
        (b"event: message_start\ndata: {}\n\n", "anthropic"),
        (b': hello\n\nevent: ping\ndata: {"type": "ping"}\n\n', "anthropic"),
        (b'data: {"type":"message_start","message":{}}\n\n', "anthropic"),
        (b'data: {"type": "content_block_delta", "index": 0}\n\n', "anthropic"),
        (b'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n', "chat_completions"),
        (b'event: spass.cost\ndata: {"type":"ping"}\n\n', "chat_completions"),
        (b"event: error\ndata: {}\n\ndata: [DONE]\n\n", "chat_completions"),
        (b"", "chat_completions"),
        (b"not an event stream at all", "chat_completions"),
    ],
)
def test_detection(body: bytes, protocol: str) -> None:
    assert detect_protocol(body, SSE) == protocol
