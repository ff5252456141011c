"""Every header given with ``--header`` is a secret (issue 36), as ChatSSE and SSELLM take
every header they are given: a gateway that echoes one (``x-portkey-api-key``, or any other
name) in an error status, in an error frame inside the stream, or in a refused request never
gets its value printed by ``sse-chat chat`` (through the core, ChatSSE or SSELLM) or
``sse-chat probe`` (the report for people, the ``--json`` report and its recommended
settings), nor written into a recording (``--record``): it shows as ``***``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sse_chat.cli import main
from sse_emulator import Emulator
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

PORTKEY = "pk-live-7b1f3c9e2d4a"
TENANT = "tenant-canary-5e8d21"
HEADERS = ["--header", f"x-portkey-api-key: {PORTKEY}", "--header", f"X-Tenant: {TENANT}"]
SECRETS = (PORTKEY, TENANT)


def _echoed(request: bytes) -> str:
    """The request's header lines, as a careless gateway writes them back."""
    head = request.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    return "; ".join(head.split("\r\n")[1:])


def refusing(n: int, request: bytes) -> bytes:
    """A 401 whose message echoes every header it got."""
    message = f"invalid credentials: {_echoed(request)}"
    body = json.dumps({"error": {"message": message, "type": "auth", "code": "bad_key"}})
    return response(body.encode(), status="401 Unauthorized",
                    headers=("content-type: application/json",))  # fmt: skip


def failing_midstream(n: int, request: bytes) -> bytes:
    """A stream that starts, then reports an error frame echoing every header."""
    frames = [
        {"choices": [{"index": 0, "delta": {"content": "hi"}}]},
        {"error": {"message": f"upstream refused: {_echoed(request)}", "code": 500}},
    ]
    return response(b"".join(b"data: " + json.dumps(f).encode() + b"\n\n" for f in frames))


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def shows_no_secret(text: str) -> None:
    for value in SECRETS:
        assert value not in text


@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
@pytest.mark.parametrize("answer", [refusing, failing_midstream], ids=["status", "frame"])
def test_chat_never_prints_a_header_a_gateway_echoes(
    capsys: pytest.CaptureFixture[str], via: str, answer: object
) -> None:
    with serving(answer) as server:  # type: ignore[arg-type]
        argv = ["chat", "--base-url", server.url, "--model", "m", "--api-key", "sk-x",
                "--no-tools", "--via", via, *HEADERS, "hello"]  # fmt: skip
        code, printed = run(argv, capsys)
        assert PORTKEY in _echoed(server.requests[0])  # it was sent, and echoed
    assert code == 1
    shows_no_secret(printed)
    assert "***" in printed


@pytest.mark.parametrize("report", [[], ["--json"]], ids=["people", "json"])
def test_probe_never_prints_a_header_a_gateway_echoes(
    capsys: pytest.CaptureFixture[str], report: list[str]
) -> None:
    with serving(refusing) as server:
        argv = ["probe", "--base-url", server.url, "--model", "m", "--api-key", "sk-x",
                "--protocol", "chat_completions", *HEADERS, *report]  # fmt: skip
        _, printed = run(argv, capsys)
    shows_no_secret(printed)
    assert "***" in printed


@pytest.mark.parametrize("report", [[], ["--json"]], ids=["people", "json"])
def test_probe_recommends_the_headers_without_their_values(
    emulator: Emulator, capsys: pytest.CaptureFixture[str], report: list[str], tmp_path: Path
) -> None:
    argv = ["probe", "--base-url", emulator.base_url(), "--model", "m", *HEADERS,
            "--record", str(tmp_path), *report]  # fmt: skip
    code, printed = run(argv, capsys)
    assert code == 0
    assert all(r.header("x-tenant") == TENANT for r in emulator.requests)  # sent as given
    shows_no_secret(printed)
    assert "X-Tenant" in printed and "***" in printed
    recorded = b"".join(path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())
    assert recorded and not any(value.encode() in recorded for value in SECRETS)


@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
def test_chat_records_no_header_value(
    emulator: Emulator, capsys: pytest.CaptureFixture[str], tmp_path: Path, via: str
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--model", "m", "--no-tools",
            "--via", via, "--record", str(tmp_path), *HEADERS, "echo: hi"]  # fmt: skip
    code, printed = run(argv, capsys)
    assert code == 0, printed
    assert emulator.last_request is not None
    assert emulator.last_request.header("x-tenant") == TENANT
    recorded = b"".join(path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())
    assert recorded and not any(value.encode() in recorded for value in SECRETS)
