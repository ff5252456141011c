"""``sse-chat`` explains itself: version, help for everything, examples, and argument errors
that are one line (exit status 2), never a traceback and never silently ignored."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sse_chat import __version__
from sse_chat.cli import build_parser, main
from sse_chat.options import DIALECT_NAMES
from sse_emulator import DIALECTS, FAULTS

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).parents[2]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``main``; the exit status (argparse's too), stdout and stderr."""
    try:
        code = main(argv)
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"], capsys) == (0, f"sse-chat {__version__}\n", "")


def test_every_subcommand_is_there() -> None:
    assert set(subcommands()) == {"chat", "decode", "probe", "emulator", "info"}


@pytest.mark.parametrize("command", ["chat", "decode", "probe", "emulator", "info"])
def test_every_argument_and_option_has_help(command: str) -> None:
    parser = subcommands()[command]
    for action in parser._actions:
        assert action.help and action.help != argparse.SUPPRESS, (command, action.dest)


def test_the_chat_options_are_all_there() -> None:
    options = {o for a in subcommands()["chat"]._actions for o in a.option_strings}
    expected = {
        "--model",
        "--path",
        "--header",
        "--dialect",
        "--fault",
        "--via",
        "--base-url",
        "--no-tools",
        "--api-key",
        "--record",
        "--idle-timeout",
    }
    assert expected <= options


def test_help_shows_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "examples:\n  sse-chat chat " in out
    for command in ("chat", "decode", "probe", "emulator"):
        assert f"    {command} " in out
    code, out, _ = run(["chat", "--help"], capsys)
    assert code == 0 and "examples:\n  sse-chat chat " in out
    assert "--record DIR" in out and "--api-key KEY" in out


def test_fault_help_lists_the_emulators_faults(capsys: pytest.CaptureFixture[str]) -> None:
    (fault,) = [a for a in subcommands()["chat"]._actions if "--fault" in a.option_strings]
    assert fault.help is not None
    for name in FAULTS:
        assert name in fault.help


def test_the_dialect_names_are_the_emulators() -> None:
    assert sorted(DIALECT_NAMES) == sorted(DIALECTS)


@pytest.mark.parametrize(
    ("header", "said"),
    [
        ("x-a", "argument --header: expected NAME:VALUE, got 'x-a' (no colon)"),
        (":v", "argument --header: expected NAME:VALUE, got an empty name in ':v'"),
        (
            "x-a:é",
            "argument --header: the value of 'x-a' holds a character that cannot be sent in an "
            "HTTP header (a control or non-ASCII character): 'é'",
        ),
        (
            "x-a:b\x01c",
            "argument --header: the value of 'x-a' holds a character that cannot be sent in an "
            "HTTP header (a control or non-ASCII character): 'b\\x01c'",
        ),
        ("x a:b", "argument --header: 'x a' is not a valid header name"),
    ],
)
@pytest.mark.parametrize("command", ["chat", "probe"])
def test_a_bad_header_is_a_one_line_argument_error(
    command: str, header: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([command, "--header", header], capsys)
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == f"sse-chat {command}: error: {said}"
    assert "Traceback" not in err


def test_a_secret_header_value_is_not_shown(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["chat", "--header", "Authorization:Bearer sk-é-canary"], capsys)
    assert code == 2 and "canary" not in err and "(not shown)" in err


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("nosuch", "unknown emulator fault 'nosuch'; expected one of: bad-gateway,"),
        ("truncate; aftr=3", "fault 'truncate' got 'aftr=3'; expected after=..."),
        ("truncate; after=x", "fault 'truncate': after must be an integer, got 'x'"),
    ],
)
def test_a_fault_outside_the_catalogue_is_an_argument_error(
    capsys: pytest.CaptureFixture[str], fault: str, said: str
) -> None:
    """Said before anything starts, in the emulator's own words (not a 400 from it)."""
    code, out, err = run(["chat", "--fault", fault, "hi"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines()[-1].startswith(f"sse-chat chat: error: argument --fault: {said}")


def test_an_unsendable_fault_is_an_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["chat", "--fault", "café"], capsys)
    assert code == 2 and err.splitlines()[-1].startswith("sse-chat chat: error: argument --fault:")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--port", "99999"], "argument --port: expected a port 0..65535, got 99999"),
        (["--port", "-1"], "argument --port: expected a port 0..65535, got -1"),
        (["--dialect", "nosuch"], "argument --dialect: invalid choice: 'nosuch'"),
        (["--replay", "/nonexistent/rec"], "argument --replay: replay path /nonexistent/rec"),
    ],
)
def test_emulator_arguments_are_checked_under_sse_chat_emulator(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["emulator", *argv], capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: sse-chat emulator ")
    assert err.splitlines()[-1].startswith(f"sse-chat emulator: error: {said}")


def test_emulator_serves_and_stops_on_sigterm() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "sse_chat", "emulator", "--port", "0", "--log"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT
    ) as process:
        try:
            assert process.stdout is not None and process.stderr is not None
            banner = process.stdout.readline()
            assert banner.startswith("sse-connectors gateway emulator on http://127.0.0.1:")
            url = banner.split(" on ", 1)[1].split()[0]
            body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
            answer = httpx.post(url + "/v1/chat/completions", json=body, timeout=10)
            assert answer.status_code == 200
            assert "POST /v1/chat/completions" in process.stderr.readline()
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=20) == 0
        finally:
            process.kill()


def test_the_api_key_is_never_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    key = "sk-cli-canary-abcdef123456"
    argv = ["chat", "--no-tools", "--api-key", key, "--fault", "unauthorized", "hello"]
    code, out, err = run(argv, capsys)
    assert code == 1 and "AuthenticationError" in err
    assert key not in out + err
    code, out, err = run(["chat", "--no-tools", "--api-key", key + "é", "hello"], capsys)
    assert code == 1 and "api_key holds a character" in err
    assert key not in out + err


@pytest.mark.parametrize("command", ["chat", "probe"])
def test_dialect_with_a_gateway_url_is_refused(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--dialect picks the emulator's dialect: with a gateway URL it did nothing, silently."""
    argv = [command, "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--dialect", "spass"]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err == (
        f"sse-chat {command}: --dialect spass picks the built-in emulator's dialect, and a "
        "gateway URL is set (--base-url or $SSE_BASE_URL): the gateway speaks its own. Drop "
        "--dialect (for SPASS's user id, add --header 'SPASS-User-Id: ...')\n"
    )
    monkeypatch.setenv("SSE_BASE_URL", "http://127.0.0.1:9/v1")
    code, _, err = run([command, "--model", "m", "--dialect", "shroud"], capsys)
    assert code == 2 and "--dialect shroud picks the built-in emulator's dialect" in err
