"""The command line: argument errors are usage errors, signals end it cleanly, --log logs."""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from sse_emulator.cli import add_arguments, build_parser, main

BODY = {"model": "m", "messages": [{"role": "user", "content": "count to 3"}], "stream": True}
SECRET = "sk-emulator-secret-0123456789"


def start(*args: str) -> subprocess.Popen[str]:
    """``python -m sse_emulator`` in a child process this test owns."""
    return subprocess.Popen(
        [sys.executable, "-m", "sse_emulator", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    """Terminate the child (by its own PID) and return its status and stderr."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate(timeout=5)
        raise
    return process.returncode, err


@pytest.mark.parametrize("value", ["99999", "65536", "-1", "x", "8000.5"])
def test_a_port_out_of_range_is_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--port", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port: expected a port 0..65535" in err
    assert "Traceback" not in err


def test_an_unknown_dialect_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--dialect", "nope"])
    assert exited.value.code == 2
    assert "argument --dialect: invalid choice: 'nope'" in capsys.readouterr().err


def test_a_replay_path_that_is_no_recording_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--replay", str(tmp_path / "missing")])
    assert exited.value.code == 2
    assert "argument --replay: replay path" in capsys.readouterr().err


def test_replay_timing_without_replay_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--replay-timing"]) == 2
    assert "--replay-timing needs --replay" in capsys.readouterr().err


def test_every_option_has_help() -> None:
    options = [action for action in build_parser()._actions if action.option_strings]
    assert {"--port", "--dialect", "--api-key", "--log", "--replay", "--replay-timing"} <= {
        name for action in options for name in action.option_strings
    }
    for action in options:
        assert action.help and action.help.strip(), action.option_strings


def test_add_arguments_on_a_subcommand_names_that_program(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser(prog="sse-chat")
    sub = parser.add_subparsers(dest="command", required=True)
    add_arguments(sub.add_parser("emulator"))
    args = parser.parse_args(["emulator", "--port", "0", "--dialect", "spass", "--log"])
    assert (args.port, args.dialect, args.log, args.replay) == (0, "spass", True, None)
    with pytest.raises(SystemExit):
        parser.parse_args(["emulator", "--port", "x"])
    assert "usage: sse-chat emulator" in capsys.readouterr().err


def sigterm_caught(pid: int) -> bool:
    """Whether the process has a handler for SIGTERM (Linux: the SigCgt mask)."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) & (1 << (signal.SIGTERM - 1)))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("delay", [0.0, 0.002, 0.01, 0.03, 0.1, 0.3])
def test_sigterm_while_starting_exits_cleanly(delay: float) -> None:
    """From the moment Python code can catch it (the handlers go in before the port is
    bound), a SIGTERM at any point of the start-up ends the process with status 0."""
    process = start("--port", "0")
    try:
        deadline = time.monotonic() + 20
        while not sigterm_caught(process.pid):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the handlers never went in"
            time.sleep(0.0005)
        time.sleep(delay)
        process.send_signal(signal.SIGTERM)
        code = process.wait(30)  # a loaded machine: the start-up it cuts may be slow to end
    finally:
        stop(process)
    assert code == 0, process.stderr.read() if process.stderr else ""


def banner_port(process: subprocess.Popen[str]) -> int:
    assert process.stdout is not None
    banner = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+) ", banner)
    assert match, banner
    return int(match.group(1))


def test_log_prints_one_line_per_request_without_secrets() -> None:
    process = start("--port", "0", "--log", "--api-key", SECRET)
    try:
        url = f"http://127.0.0.1:{banner_port(process)}/v1/chat/completions"
        auth = {"Authorization": f"Bearer {SECRET}"}
        with httpx.Client(timeout=30.0) as http:
            assert http.post(url, json=BODY, headers=auth).status_code == 200
            assert http.post(url, json=BODY).status_code == 401
            slow = {**auth, "X-Emulator-Fault": "slow; delay=0.3"}
            with http.stream("POST", url, json=BODY, headers=slow) as response:
                next(response.iter_raw())
            time.sleep(0.5)  # the server notices the early close within milliseconds
    finally:
        code, err = stop(process)
    assert code == 0
    lines = err.strip().splitlines()
    assert len(lines) == 3, err
    ok, refused, left = lines
    assert re.fullmatch(
        r"POST /v1/chat/completions dialect=openai status=200 faults=- \d+\.\d{3}s complete", ok
    )
    assert "status=401" in refused and refused.endswith(" complete")
    assert "faults=slow;delay=0.3" in left and left.endswith(" client left early")
    assert SECRET[-6:] not in err and "Bearer" not in err


def test_the_handlers_are_in_before_the_port_is_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGTERM that arrives while the port is being bound stops the server cleanly."""
    from sse_emulator.server import background, foreground

    real_bind = background._bind
    seen: list[object] = []

    def bind_after_a_sigterm(port: int) -> object:
        handler = signal.getsignal(signal.SIGTERM)
        seen.append(handler)
        assert handler not in (signal.SIG_DFL, signal.SIG_IGN, None)  # else it would kill us
        signal.raise_signal(signal.SIGTERM)
        return real_bind(port)

    monkeypatch.setattr(background, "_bind", bind_after_a_sigterm)
    before = signal.getsignal(signal.SIGTERM)
    started = time.monotonic()
    foreground.serve(0, announce=None)  # returns: the signal only set the stop flag
    assert time.monotonic() - started < 2.0
    assert len(seen) == 1
    assert signal.getsignal(signal.SIGTERM) == before  # restored
