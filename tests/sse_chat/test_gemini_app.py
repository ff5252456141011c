"""``sse-chat chat --protocol gemini`` and ``sse-chat probe --protocol gemini``: the demo
conversation over Google's Gemini API against the emulator's ``gemini`` dialect (which refuses
a Gemini 3 call sent back without its signature), through the core and ChatSSE; and the
probe's small report of the dialect."""

from __future__ import annotations

import json

import pytest

from sse_chat.cli import main
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("via", ["core", "langchain"])
def test_a_tool_round_trip_sends_the_signature_back(
    emulator: Emulator, capsys: pytest.CaptureFixture[str], via: str
) -> None:
    argv = ["chat", "--protocol", "gemini", "--base-url", emulator.base_url("gemini")]
    argv += ["--model", "gemini-3-pro-preview", "--via", via, "--effort", "low"]
    code, out, err = run([*argv, "What is the weather in Paris?"], capsys)
    assert code == 0, err
    assert "finish_reason=tool_calls stop_reason=STOP" in out
    assert "[answer] Based on the tool results: get_weather returned" in out
    first, second = emulator.requests
    assert first.path.endswith("/v1beta/models/gemini-3-pro-preview:streamGenerateContent")
    assert second.status == 200  # the call's thoughtSignature went back as it came
    sent = json.loads(second.body)
    assert [content["role"] for content in sent["contents"]] == ["user", "model", "user"]
    assert sent["generationConfig"]["thinkingConfig"] == {
        "thinkingLevel": "LOW",
        "includeThoughts": True,
    }


def test_the_probe_reports_the_gemini_dialect(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["probe", "--protocol", "gemini", "--base-url", emulator.base_url("gemini"), "--json"]
    code, out, err = run([*argv, "--model", "gemini-3-pro-preview"], capsys)
    assert code == 0, err
    report = json.loads(out)
    assert report["protocol"] == "gemini" and report["finish_reason"] == "STOP"
    assert report["content_type"].startswith("text/event-stream")
    assert report["thoughts"] and report["signatures"] and report["tool_calls"]
    assert not report["done_marker"] and not report["step_errors"]
    assert report["recommended"]["protocol"] == "gemini"
