"""A core-only install (the wheel without extras: no uvicorn, no langchain-core, no
llama-index-core) runs ``sse-chat`` without a traceback anywhere: ``--version``, ``decode``
and a chat with a gateway work; what needs an extra says which, in one line (status 2)."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest

from sse_emulator import Emulator

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).parents[2]
CLI = "pip install 'sse-connectors[cli]'"


@pytest.fixture(scope="module")
def bin_dir(
    tmp_path_factory: pytest.TempPathFactory,
    wheel: Path,
    network_env: dict[str, str],
    locked: Path,
) -> Path:
    """A fresh virtualenv holding the wheel (the session's) with its two dependencies and
    no extra."""
    home = tmp_path_factory.mktemp("core-install")
    venv.create(home / "venv", with_pip=True)
    python = home / "venv" / "bin" / "python"
    for packages in (["--no-deps", str(wheel)], ["httpx", "pydantic"]):
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "-c", str(locked), *packages],
            check=True,
            capture_output=True,
            timeout=300,
            env=network_env,
        )
    return python.parent


def sse_chat(
    bin_dir: Path, *argv: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(bin_dir / "sse-chat"), *argv],
        check=False,
        input=stdin,
        capture_output=True,
        timeout=60,
        cwd=bin_dir,
    )


def test_no_extra_is_installed(bin_dir: Path) -> None:
    probe = (
        "import importlib.util as u\n"
        "for m in ('uvicorn', 'langchain_core', 'llama_index'):\n"
        "    print(m, u.find_spec(m) is not None)"
    )
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == [
        "uvicorn",
        "False",
        "langchain_core",
        "False",
        "llama_index",
        "False",
    ]


def test_version_and_decode_work(bin_dir: Path) -> None:
    version = sse_chat(bin_dir, "--version")
    assert (version.returncode, version.stderr) == (0, b"")
    assert version.stdout.startswith(b"sse-chat ")
    capture = ROOT / "examples" / "deepseek-reasoning.sse"
    for argv, stdin in (([str(capture)], None), (["-"], capture.read_bytes())):
        decoded = sse_chat(bin_dir, "decode", *argv, stdin=stdin)
        assert (decoded.returncode, decoded.stderr) == (0, b"")
        assert b"[finish_reason] stop\n" in decoded.stdout


def test_help_points_at_the_docs_for_faults(bin_dir: Path) -> None:
    shown = sse_chat(bin_dir, "chat", "--help")
    assert shown.returncode == 0
    assert b"docs/emulator.md" in shown.stdout and b"Traceback" not in shown.stderr


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["chat"],
            "sse-chat chat: without --base-url it starts the gateway emulator, which "
            f"needs uvicorn: {CLI}",
        ),
        (
            ["probe"],
            "sse-chat probe: without --base-url it probes the gateway emulator, which "
            f"needs uvicorn: {CLI}",
        ),
        (
            ["emulator"],
            "sse-chat emulator: the gateway emulator needs uvicorn: pip install "
            "'sse-connectors[emulator]'",
        ),
        (
            ["emulator", "--port", "8000", "--log"],
            "sse-chat emulator: the gateway emulator "
            "needs uvicorn: pip install "
            "'sse-connectors[emulator]'",
        ),
        (
            ["chat", "--via", "langchain", "--base-url", "http://127.0.0.1:9/v1"],
            "sse-chat chat: --via langchain needs langchain_core: pip install "
            "'sse-connectors[langchain]'",
        ),
        (
            ["chat", "--via", "llamaindex", "--base-url", "http://127.0.0.1:9/v1"],
            "sse-chat chat: --via llamaindex needs llama_index: pip install "
            "'sse-connectors[llamaindex]'",
        ),
    ],
)
def test_what_needs_an_extra_says_which_in_one_line(
    bin_dir: Path, argv: list[str], said: str
) -> None:
    done = sse_chat(bin_dir, *argv)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", said + "\n")


def test_a_chat_with_a_gateway_needs_no_extra(bin_dir: Path, emulator: Emulator) -> None:
    done = sse_chat(bin_dir, "chat", "--base-url", emulator.base_url(), "weather in Paris")
    assert done.returncode == 0
    assert done.stderr == b"(ran the tool locally; sending its result back)\n"  # a note
    assert b"[tool call] get_weather" in done.stdout
    assert b"[answer] Based on the tool results" in done.stdout
    assert len(emulator.requests) == 2
