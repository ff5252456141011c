"""``sse-chat``: decode a capture, and chat live against the emulator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import sse_chat.chat
from sse_chat.cli import main
from sse_core import ChatClient
from sse_core.transport.packages import default_package
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).parents[2]


def test_decode_prints_the_assembled_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", str(ROOT / "examples" / "deepseek-reasoning.sse")]) == 0
    out = capsys.readouterr().out
    assert "[reasoning]\nHmm, the user just said" in out
    assert "Hello there! 😊 How can I help you today?" in out
    assert "[finish_reason] stop" in out
    assert "prompt=6 completion=212 total=218 cached_tokens=0 reasoning_tokens=198" in out


def test_decode_reports_a_typed_error_and_the_partial(capsys: pytest.CaptureFixture[str]) -> None:
    capture = ROOT / "tests/fixtures/real/groq__gpt-oss-event-error-tool-use-failed.sse"
    assert main(["decode", str(capture)]) == 1
    captured = capsys.readouterr()
    assert "GatewayStreamError" in captured.err and "Tool call validation failed" in captured.err
    assert "[reasoning]" in captured.out


def test_decode_of_a_file_that_is_no_event_stream_says_so_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Nothing arrived before the error: no empty answer is printed after it."""
    page = tmp_path / "page.html"
    page.write_text("<html><body>Not here</body></html>\n")
    assert main(["decode", str(page)]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("sse-chat decode: StreamProtocolError: expected an event stream")
    assert "what arrived" not in captured.err
    assert captured.out == ""


def test_decode_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["decode", str(tmp_path / "nope.sse")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_chat_runs_a_tool_round_trip_against_a_gateway(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chat", "--base-url", emulator.base_url(), "weather in Paris and Tokyo"]) == 0
    out = capsys.readouterr().out
    assert out.count("[tool call] get_weather") == 2
    assert '{"city":"Paris"}' in out and '{"city":"Tokyo"}' in out
    assert "[answer] Based on the tool results" in out and "finish_reason=stop" in out
    assert len(emulator.requests) == 2  # the question, then the tool results


def test_chat_without_base_url_starts_its_own_emulator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", "--no-tools", "hello"]) == 0
    out, err = capsys.readouterr()
    assert "started the gateway emulator" in err and "[answer]" in out and "usage: prompt=" in out


def test_chat_reports_a_truncated_stream(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "chat",
            "--base-url",
            emulator.base_url(),
            "--no-tools",
            "--fault",
            "truncate; after=3",
            "hello",
        ]
    )
    assert code == 1
    assert "error: the stream was cut before the answer finished" in capsys.readouterr().err


def test_chat_shows_named_gateway_events(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "chat",
        "--base-url",
        emulator.base_url("spass"),
        "--no-tools",
        "hi",
    ]
    assert main([*args, "--header", "SPASS-User-Id: u1"]) == 0
    assert "[event spass.cost]" in capsys.readouterr().out


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_chat_through_each_framework(
    via: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["chat", "--via", via, "--base-url", emulator.base_url(), "weather in Paris and Tokyo"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.count("[tool call] get_weather") == 2
    assert "[reasoning]" in out and "[answer] Based on the tool results" in out
    assert "finish_reason=tool_calls" in out and "finish_reason=stop" in out
    assert len(emulator.requests) == 2


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_chat_through_each_framework_reports_truncation(
    via: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["chat", "--via", via, "--base-url", emulator.base_url(), "--no-tools"]
    assert main([*args, "--fault", "truncate; after=3", "hello"]) == 1
    assert "error: the stream was cut before the answer finished" in capsys.readouterr().err


# --- chat --record ---


def test_chat_records_every_model_call_for_replay(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "session"
    argv = ["chat", "--base-url", emulator.base_url(), "--api-key", "sk-record-canary-1234"]
    assert main([*argv, "--record", str(record), "weather in Paris"]) == 0
    live, notes = capsys.readouterr()
    assert notes.splitlines()[-1] == (
        f"(recorded 2 model call(s) in {record}; replay with 'sse-chat emulator --replay {record}')"
    )
    assert sorted(p.name for p in record.iterdir()) == [
        "001.json",
        "001.sse",
        "002.json",
        "002.sse",
    ]
    assert "sk-record-canary" not in "".join(p.read_text() for p in record.iterdir())
    # the recording decodes, and replays as the live chat ran
    assert main(["decode", str(record / "001.sse")]) == 0
    decoded = capsys.readouterr().out
    assert '[tool call 0] get_weather({"city":"Paris"})' in decoded
    assert "[finish_reason] tool_calls" in decoded
    with Emulator(replay=record) as replay:
        assert main(["chat", "--base-url", replay.base_url(), "anything"]) == 0
    assert capsys.readouterr().out == live


def test_record_through_a_framework_driver_passes_the_recording_client(
    emulator: Emulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen: dict[str, Any] = {}

    def driver(*, base_url: str, http_client: httpx.Client, **rest: Any) -> None:
        seen.update(rest, http_client=http_client)
        with ChatClient(base_url=base_url, http_client=http_client) as client:
            client.complete(
                {"model": rest["model"], "messages": [{"role": "user", "content": "hi"}]}
            )

    monkeypatch.setattr(sse_chat.chat, "_driver", lambda via: driver)
    argv = ["chat", "--via", "langchain", "--base-url", emulator.base_url()]
    assert main([*argv, "--record", str(tmp_path), "--no-tools"]) == 0
    # the library's default package (httpx, or httpx2 with SSE_CONNECTORS_HTTP=httpx2)
    assert isinstance(seen["http_client"], default_package().module.Client)
    assert seen["http_client"].is_closed  # the command closes what it opened
    assert sorted(p.name for p in tmp_path.iterdir()) == ["001.json", "001.sse"]
    assert "(recorded 1 model call(s) in" in capsys.readouterr().err


def test_record_through_a_driver_without_http_client_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def driver(*, base_url: str, **rest: Any) -> None:
        raise AssertionError("not called")

    monkeypatch.setattr(sse_chat.chat, "_driver", lambda via: driver)
    argv = ["chat", "--via", "llamaindex", "--base-url", "http://127.0.0.1:9/v1"]
    assert main([*argv, "--record", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        "sse-chat chat: --record with --via llamaindex needs an http_client parameter in "
        "sse_chat/via_llamaindex.py\n"
    )


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_chat_through_each_framework_records_for_replay(
    via: str, emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--via", via, "--base-url", emulator.base_url(), "--record", str(tmp_path)]
    assert main([*argv, "weather in Paris and Tokyo"]) == 0
    live, notes = capsys.readouterr()
    assert notes.splitlines()[-1].startswith(f"(recorded 2 model call(s) in {tmp_path}; ")
    with Emulator(replay=tmp_path) as replay:
        argv = ["chat", "--via", via, "--base-url", replay.base_url(), "anything"]
        assert main(argv) == 0
    assert capsys.readouterr().out == live


@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
def test_named_gateway_events_render_as_they_arrive(
    via: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """The event comes after the third frame, inside the reasoning: it is shown there, once,
    before the answer (ChatSSE's custom callback events, SSELLM's SSEGatewayEvent)."""
    argv = ["chat", "--via", via, "--base-url", emulator.base_url(), "--no-tools"]
    assert main([*argv, "--fault", "named-event; after=3", "hi"]) == 0
    lines = capsys.readouterr().out.splitlines()
    events = [n for n, line in enumerate(lines) if line.startswith("[event emulator.notice] ")]
    answer = next(n for n, line in enumerate(lines) if line.startswith("[answer] "))
    assert len(events) == 1 and lines[0].startswith("[reasoning] ") and events[0] < answer, lines
    assert lines[events[0] + 1].startswith("[reasoning] ")  # the reasoning goes on after it


def test_decode_reads_a_json_answer_that_record_wrote(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gateway that answers one JSON body although a stream was asked for: ``--record``
    keeps the body as it came, and ``decode`` decodes it as the client did."""
    argv = ["chat", "--base-url", emulator.base_url(), "--no-tools", "--fault", "json-body"]
    assert main([*argv, "--record", str(tmp_path), "hello"]) == 0
    live = capsys.readouterr().out
    assert (tmp_path / "001.sse").read_bytes().startswith(b'{"id":')
    assert main(["decode", str(tmp_path / "001.sse")]) == 0
    decoded = capsys.readouterr().out
    answer = live.split("[answer] ", 1)[1].split("\n", 1)[0]
    assert f"[content]\n{answer}\n" in decoded and "[finish_reason] stop" in decoded
    # without the recording's NNN.json beside it too (stdin): a body that starts with '{'
    (tmp_path / "001.json").unlink()
    assert main(["decode", str(tmp_path / "001.sse")]) == 0
    assert capsys.readouterr().out == decoded
