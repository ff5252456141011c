"""``sse-chat chat --trace`` prints each model call's span when it ends, through every way
of calling the model, and says what is missing when the OpenTelemetry SDK is not there."""

from __future__ import annotations

import importlib.util

import pytest

from sse_chat.cli import main
from sse_emulator import Emulator


@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
def test_each_call_of_a_tool_loop_prints_its_span(
    emulator: Emulator, via: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--via", via, "--trace", "weather in Paris"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    spans = [line for line in err.splitlines() if line.startswith("span: chat ")]
    assert len(spans) == 2  # the tool call, then the answer to its result
    assert all("  ok  " in line for line in spans)
    assert "  gen_ai.usage.input_tokens = " in err
    assert "  gen_ai.response.finish_reasons = ['tool_calls']" in err
    assert "weather in Paris" not in err  # no content unless asked


def test_a_cut_stream_prints_its_error_span(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "chat",
        "--base-url",
        emulator.base_url("anthropic"),
        "--protocol",
        "anthropic",
        "--fault",
        "truncate; after=3",
        "--trace",
        "hi",
    ]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "ERROR (IncompleteStreamError)" in err
    assert "  sse.usage.partial = True" in err
    assert "exception.stacktrace" not in err


def test_without_the_sdk_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name.startswith("opentelemetry") else found(name, *a),
    )
    assert main(["chat", "--trace", "hi"]) == 2
    assert "opentelemetry-sdk" in capsys.readouterr().err
