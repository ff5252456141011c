"""What ``sse-chat`` prints, word for word: banners, retries as they happen, cut streams,
missing extras, and no ``.;`` joins or stray blank lines anywhere."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

import sse_chat.extras
from sse_chat.cli import main
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).parents[2]
CUT = b'data: {"choices":[{"index":0,"delta":{"reasoning_content":"Hmm."}}]}\n\n' + (
    b'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
)


def run(
    argv: list[str], capsys: pytest.CaptureFixture[str], *, blank_lines: bool = False
) -> tuple[int, str, str]:
    """Run ``main``: exit status, stdout, stderr; checks the text reads well on the way.

    ``blank_lines``: the content itself holds blank lines (a real capture).
    """
    try:
        code = main(argv)
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert blank_lines or "\n\n" not in out + err, (out, err)  # no stray blank line
    assert ".;" not in out + err and "Traceback" not in err
    assert "finish_reason] None" not in out and ".partial" not in out + err
    return code, out, err


def test_the_banner_names_the_emulator_dialect_and_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(["chat", "--no-tools", "--dialect", "shroud", "--model", "m1", "hi"], capsys)
    assert code == 0
    first = err.splitlines()[0]
    assert re.fullmatch(
        r"\(no --base-url: started the gateway emulator at http://127\.0\.0\.1:\d+, "
        r"dialect shroud, model m1\)",
        first,
    ), first


def test_a_retry_is_shown_as_it_happens(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--no-tools", "hello"]
    code, out, err = run([*argv, "--fault", "rate-limit; retry-after=1"], capsys)
    assert code == 0
    assert err == "(429 from the gateway, retrying in 1 s)\n"  # a notice: on stderr
    lines = out.splitlines()
    assert lines[0].startswith("[reasoning] ") and lines[-1].startswith("finish_reason=stop  ")
    assert len(emulator.requests) == 2


def test_a_whole_turn_reads_line_by_line(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["chat", "--base-url", emulator.base_url(), "weather in Paris"], capsys)
    assert code == 0
    assert err == "(ran the tool locally; sending its result back)\n"
    assert out.splitlines() == [
        '[reasoning] The user wrote: "weather in Paris". I should call get_weather.',
        '[tool call] get_weather {"city":"Paris"}',
        "finish_reason=tool_calls  usage: prompt=103 completion=12 total=115 cached_tokens=0 "
        "reasoning_tokens=10",
        '[reasoning] The user wrote: "weather in Paris". The tool results are in, so I can '
        "answer from them.",
        '[answer] Based on the tool results: get_weather returned {"city":"Paris",'
        '"forecast":"sunny","temperature_c":21}.',
        "finish_reason=stop  usage: prompt=187 completion=25 total=212 cached_tokens=159 "
        "reasoning_tokens=17",
    ]


def test_a_cut_stream_shows_the_answer_so_far(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--no-tools", "--model", "plain"]
    argv += ["--fault", "truncate; after=4"]
    code, out, err = run([*argv, "echo: one two three four"], capsys)
    assert code == 1
    assert out == "[answer] one two three\n"  # the answer, as far as it came
    assert err.splitlines() == [
        "error: the stream was cut before the answer finished: the gateway ended it without a "
        "finish_reason and without [DONE]",
        "the answer so far:",
        "[answer] one two three",
    ]


def test_a_broken_connection_is_said_so(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--no-tools", "--model", "plain"]
    code, out, err = run([*argv, "--fault", "reset; after=3", "echo: one two three"], capsys)
    assert code == 1
    assert out == "[answer] one two\n"
    assert err.splitlines() == [
        "error: the stream was cut before the answer finished: the connection broke "
        "(RemoteProtocolError)",
        "the answer so far:",
        "[answer] one two",
    ]


def test_an_error_before_any_answer_says_nothing_arrived(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--no-tools", "--model", "plain"]
    code, out, err = run([*argv, "--fault", "error-frame; after=0", "hello"], capsys)
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("error: GatewayStreamError: ")
    assert lines[1:] == ["the answer so far: nothing had arrived"]


def test_decode_of_a_cut_capture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "cut.sse"
    capture.write_bytes(CUT)
    code, out, err = run(["decode", str(capture)], capsys)
    assert code == 1
    assert err == (
        "sse-chat decode: the stream was cut: it ends without a finish_reason and without "
        "[DONE]; what arrived:\n"
    )
    assert out == (
        "[reasoning]\nHmm.\n[content]\nHel\n[finish_reason] none: the stream was cut\n"
        "[usage] not reported\n"
    )


def test_decode_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body = (ROOT / "examples" / "deepseek-reasoning.sse").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    code, out, _ = run(["decode", "-"], capsys, blank_lines=True)
    assert code == 0
    assert "[finish_reason] stop\n" in out
    assert out.endswith(
        "[usage] prompt=6 completion=212 total=218 cached_tokens=0 reasoning_tokens=198\n"
    )


def test_decode_of_a_stream_that_ended_with_done_but_no_finish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "done.sse"
    capture.write_bytes(CUT + b"data: [DONE]\n\n")
    code, out, _ = run(["decode", str(capture)], capsys)
    assert code == 0
    assert "[finish_reason] none: the stream ended with [DONE] without one\n" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["chat", "hi"],
            "sse-chat chat: without --base-url it starts the gateway emulator, which needs "
            "uvicorn: pip install 'sse-connectors[cli]'",
        ),
        (
            ["probe"],
            "sse-chat probe: without --base-url it probes the gateway emulator, which needs "
            "uvicorn: pip install 'sse-connectors[cli]'",
        ),
        (
            ["emulator", "--port", "0"],
            "sse-chat emulator: the gateway emulator needs uvicorn: pip install "
            "'sse-connectors[emulator]'",
        ),
    ],
)
def test_a_missing_extra_is_one_line(
    argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sse_chat.extras, "_installed", lambda module: False)
    assert run(argv, capsys) == (2, "", said + "\n")


@pytest.mark.parametrize(
    ("via", "module"), [("langchain", "langchain_core"), ("llamaindex", "llama_index")]
)
def test_a_missing_framework_is_one_line(
    via: str, module: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sse_chat.extras, "_installed", lambda module: False)
    argv = ["chat", "--via", via, "--base-url", "http://127.0.0.1:9/v1"]
    said = f"sse-chat chat: --via {via} needs {module}: pip install 'sse-connectors[{via}]'\n"
    assert run(argv, capsys) == (2, "", said)
