"""``sse-chat decode`` of OpenAI Responses streams: the protocol told by the first event
(``event: response.created`` or another ``response.*`` event, or its ``type`` in the data of a
frame without ``event:`` line) or given by ``--protocol``; the fixtures of
tests/fixtures/responses/ (provenance in its SOURCES.md), the terminal statuses with the raw
reason, reasoning items kept to send back, gateway events, cut streams and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sse_chat.cli import main
from sse_chat.decoding import detect_protocol

pytestmark = pytest.mark.timeout(60)

FOLDER = Path(__file__).parents[2] / "tests" / "fixtures" / "responses"
SSE = "text/event-stream"


def fixture(name: str) -> bytes:
    return (FOLDER / name).read_bytes()


def without_event_lines(body: bytes) -> bytes:
    return b"\n".join(line for line in body.split(b"\n") if not line.startswith(b"event:"))


def decode(
    tmp_path: Path, body: bytes, capsys: pytest.CaptureFixture[str], *options: str
) -> tuple[int, str, str]:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(body)
    code = main(["decode", *options, str(capture)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("framing", [bytes, without_event_lines])
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "reasoning-summary.sse",
            [
                "[reasoning]\n**Evaluating the sum**\n\nI need 2 + 2.\n\n**Answering**\n",
                "[content]\n2 + 2 = 4.\n",
                "[reasoning item] rs_68af40310c3c8193a4a3d4fb4e3b5ce805438e46b5f69a3b: "
                "encrypted_content 166 characters\n",
                "[finish_reason] stop (stop_reason completed)\n",
                "[usage] input_tokens=75 output_tokens=1186 input_tokens_details.cached_tokens=0 "
                "output_tokens_details.reasoning_tokens=1024 total=1261\n",
            ],
        ),
        (
            "function-calls.sse",
            [
                '[tool call 0] get_weather({"location":"Paris, France"}) id=call_Xk3Nm8Q1\n',
                '[tool call 1] get_weather({"location":"Bogotá, Colombia"}) id=call_P2cQa7Zd\n',
                "[finish_reason] tool_calls (stop_reason completed)\n",
            ],
        ),
        (
            "incomplete.sse",
            [
                "[content]\nOnce upon a time\n",
                "[finish_reason] length (stop_reason max_output_tokens)",
            ],
        ),
        (
            "web-search.sse",
            [
                "[content]\nA new park opened in Paris today.\n",
                '[citation] {"type":"url_citation"',
                "[event response.web_search_call.searching] ",
            ],
        ),
        (
            "vllm-unnamed-empty-output.sse",
            [
                "[reasoning]\nUser asks for 2+2.\n[content]\n4\n",
                "[event response.reasoning_part.added] ",
                "[finish_reason] stop (stop_reason completed)\n",
            ],
        ),
    ],
)
def test_a_capture_is_told_by_its_first_event(
    framing: object,
    name: str,
    expected: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert callable(framing)
    code, out, err = decode(tmp_path, framing(fixture(name)), capsys)
    assert (code, err) == (0, "")
    assert out.startswith("model: ")
    for text in expected:
        assert text in out, (text, out)
    assert "[tool call" not in out or name == "function-calls.sse"


def test_deltas_that_disagree_with_the_final_text_are_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gateway's deltas that lost a token: a decoded body is a whole answer, the final
    text (docs/protocols/responses.md), and the response.output_mismatch gateway event
    shows what the deltas carried beside it."""
    body = fixture("text.sse").replace(b'"delta":" the"', b'"delta":""', 1)
    assert body != fixture("text.sse")
    code, out, err = decode(tmp_path, body, capsys)
    assert (code, err) == (0, "")
    assert "[content]\nUnder the soft glow" in out
    assert '"streamed":"Under soft glow' in out
    assert "[event response.output_mismatch] {" in out
    assert '"final":"Under the soft glow of the moon' in out


def test_a_failed_response_says_so_with_what_arrived(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = decode(tmp_path, fixture("failed.sse"), capsys)
    assert code == 1
    assert err.startswith("sse-chat decode: GatewayStreamError: ")
    assert "The model produced invalid content." in err
    assert "what arrived before the error:" in err
    assert "[content]\nPartial\n[finish_reason] none: the stream ended with an error\n" in out


def test_a_cut_stream_says_what_responses_streams_end_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = fixture("text.sse")
    code, out, err = decode(tmp_path, body[: body.index(b"event: response.completed")], capsys)
    assert code == 1
    assert err == (
        "sse-chat decode: the stream was cut: it ends without a terminal event "
        "(response.completed, response.incomplete or response.failed); what arrived:\n"
    )
    assert "[content]\nUnder the soft glow" in out
    assert "[finish_reason] none: the stream was cut\n" in out


def test_protocol_given_wins_over_detection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = fixture("text.sse")
    code, _, _ = decode(tmp_path, body, capsys, "--protocol", "chat_completions")
    assert code == 1
    code, given, _ = decode(tmp_path, body, capsys, "--protocol", "responses")
    assert code == 0
    code, detected, _ = decode(tmp_path, body, capsys)
    assert code == 0 and detected == given


def test_a_whole_response_answered_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    response = (
        b'{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m",'
        b'"output":[{"id":"msg_1","type":"message","role":"assistant","status":"completed",'
        b'"content":[{"type":"output_text","text":"Hi there","annotations":[]}]}],'
        b'"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}}'
    )
    code, out, err = decode(tmp_path, response, capsys)
    assert (code, err) == (0, "")
    assert "[content]\nHi there\n" in out and "(stop_reason completed)" in out
    assert "[usage] input_tokens=5 output_tokens=3 total=8" in out


@pytest.mark.parametrize(
    ("body", "protocol"),
    [
        (b'event: response.created\ndata: {"type":"response.created"}\n\n', "responses"),
        (b'data: {"type":"response.created","response":{"object":"response"}}\n\n', "responses"),
        (b": keepalive\n\nevent: response.in_progress\ndata: {}\n\n", "responses"),
        (b'data: {"type":"response.output_text.delta","delta":"x"}\n\n', "responses"),
        # an error event says nothing: every protocol may send one
        (
            b'event: error\ndata: {"type":"error"}\n\nevent: response.failed\ndata: {}\n\n',
            "responses",
        ),
        (b'data: {"type":"message_start","message":{}}\n\n', "anthropic"),
        (b'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n', "chat_completions"),
        (b"data: [DONE]\n\n", "chat_completions"),
    ],
)
def test_detection(body: bytes, protocol: str) -> None:
    assert detect_protocol(body, SSE) == protocol


def test_detection_of_a_json_answer() -> None:
    assert detect_protocol(b'{"object":"response","output":[]}', "application/json") == "responses"
    assert detect_protocol(b'{"type":"message"}', "application/json") == "anthropic"
    assert detect_protocol(b'{"error":{"message":"x"}}', "application/json") == "chat_completions"
