"""``sse-chat chat`` as a separate process: the answer on stdout, notes and errors on stderr
(``> answer.txt`` keeps the answer in the file and the trouble on the terminal), and the
wait indicator, on a real pseudo-terminal only, erased before the first token."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(90)

CHAT = [sys.executable, "-m", "sse_chat", "chat", "--no-tools", "--model", "plain"]
ENV = {**os.environ, "NO_COLOR": "1"}
#: One drawing of the indicator: a carriage return, then the time waited so far.
DRAWN = re.compile(r"\r\(waiting for the first token: (\d+\.\d) s\)")


def on_a_terminal(argv: list[str], *, within: float = 60) -> tuple[int, str]:
    """Run ``argv`` with stdout and stderr on a pseudo-terminal; its exit status and all it
    wrote there (bounded in time)."""
    leader, follower = os.openpty()
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=ENV
    )
    os.close(follower)
    seen = bytearray()
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if not ready:
                continue
            try:
                piece = os.read(leader, 4096)
            except OSError:  # EIO: the process closed the terminal
                break
            if not piece:
                break
            seen += piece
        code = process.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        process.kill()
        os.close(leader)
    return code, seen.decode("utf-8", "replace")


def test_the_answer_goes_to_stdout_and_the_error_to_stderr(
    emulator: Emulator, tmp_path: Path
) -> None:
    """``sse-chat chat > answer.txt``: the file holds the answer only."""
    answer = tmp_path / "answer.txt"
    argv = [*CHAT, "--base-url", emulator.base_url(), "echo: one two three four"]
    with answer.open("w") as out:
        done = subprocess.run(
            [*argv, "--fault", "rate-limit; retry-after=0.1, truncate; after=4"],
            check=False,
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
            timeout=60,
        )
    assert done.returncode == 1
    assert answer.read_text() == "[answer] one two three\n"
    assert done.stderr.splitlines() == [
        "(429 from the gateway, retrying in 0.1 s)",
        "error: the stream was cut before the answer finished: the gateway ended it without a "
        "finish_reason and without [DONE]",
        "the answer so far:",
        "[answer] one two three",
    ]


def test_a_stall_before_the_first_token_shows_the_time_waited_on_a_terminal(
    emulator: Emulator,
) -> None:
    """The upstream stays silent for 2 s after the role chunk, then closes: the terminal shows
    the wait growing, and the indicator is erased before the error is written."""
    argv = [*CHAT, "--base-url", emulator.base_url(), "--fault", "stall; after=1; seconds=2"]
    code, screen = on_a_terminal([*argv, "echo: hello"])
    assert code == 1
    waited = [float(seconds) for seconds in DRAWN.findall(screen)]
    assert len(waited) >= 3 and waited == sorted(waited) and waited[-1] >= 1.5, screen
    last = max(match.end() for match in DRAWN.finditer(screen))
    erase = screen.index("\r" + " " * len("(waiting for the first token: 0.0 s)") + "\r", last)
    assert erase < screen.index("error: the stream was cut"), screen


def test_the_indicator_is_erased_at_the_first_token(emulator: Emulator) -> None:
    """Each event comes 0.8 s late: the indicator shows, then goes before ``[answer]``, and
    is not drawn again while the answer streams (it is for the wait before the first token)."""
    argv = [*CHAT, "--base-url", emulator.base_url(), "--fault", "slow; delay=0.8"]
    code, screen = on_a_terminal([*argv, "echo: one two"])
    assert code == 0, screen
    answer = screen.index("[answer] ")
    drawings = [match.start() for match in DRAWN.finditer(screen)]
    assert drawings and max(drawings) < answer, screen
    width = len("(waiting for the first token: 0.0 s)")
    assert screen.rindex("\r" + " " * width + "\r", 0, answer) > max(drawings)
    assert "[answer] one two" in screen and "finish_reason=stop" in screen


def test_no_indicator_when_the_output_is_piped(emulator: Emulator) -> None:
    argv = [*CHAT, "--base-url", emulator.base_url(), "--fault", "slow; delay=0.8"]
    done = subprocess.run(
        [*argv, "echo: one two"], check=False, capture_output=True, text=True, env=ENV, timeout=60
    )
    assert done.returncode == 0
    assert done.stdout.startswith("[answer] one two\n")
    assert "waiting" not in done.stdout + done.stderr and "\r" not in done.stdout + done.stderr
