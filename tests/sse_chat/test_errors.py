"""Errors that say what to change: the idle timeout names its setting and value, and a 501
is not retried and is said to be a request the server does not implement."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sse_chat.cli import main
from sse_core import ChatClient, ServerError, StreamTimeoutError, Timeouts
from sse_core.transport.http import error_from_response
from sse_core.transport.retry import RetryPolicy
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
STALL = "stall; after=3; seconds=20"


def test_the_idle_timeout_error_names_the_setting_and_its_value(emulator: Emulator) -> None:
    client = ChatClient(
        base_url=emulator.base_url(),
        timeout=Timeouts(idle=0.5),
        default_headers={"X-Emulator-Fault": STALL},
    )
    started = time.monotonic()
    with client, pytest.raises(StreamTimeoutError) as caught:
        client.complete(PAYLOAD)
    assert time.monotonic() - started < 10
    assert "within Timeouts.idle (0.5 s)" in str(caught.value)


def test_chat_idle_timeout_sets_it_and_the_error_says_so(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--no-tools", "--idle-timeout", "1"]
    started = time.monotonic()
    assert main([*argv, "--fault", STALL, "hello"]) == 1
    assert time.monotonic() - started < 15
    error = capsys.readouterr().err.splitlines()[0]
    assert error.startswith("error: StreamTimeoutError: no bytes arrived from ")
    assert error.endswith("within Timeouts.idle (1 s) (ReadTimeout); --idle-timeout sets it")


class _NotImplemented(BaseHTTPRequestHandler):
    """Answers every POST with 501 and counts them."""

    count = 0

    def do_POST(self) -> None:
        type(self).count += 1
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = b'{"error":{"message":"Unsupported method","type":"not_implemented"}}'
        self.send_response(501)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def not_implemented() -> Iterator[str]:
    _NotImplemented.count = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotImplemented)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_a_501_is_not_retried_and_is_said_to_be_not_implemented(not_implemented: str) -> None:
    with ChatClient(base_url=not_implemented) as client, pytest.raises(ServerError) as caught:
        client.complete(PAYLOAD)
    assert _NotImplemented.count == 1  # no retry
    said = str(caught.value)
    assert "does not implement this request (501 Not Implemented)" in said
    assert "its upstream failed" not in said and "retrying later" not in said


def test_chat_with_a_501_says_so_without_retrying(
    not_implemented: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chat", "--base-url", not_implemented, "--no-tools", "hi"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "retrying" not in err and _NotImplemented.count == 1
    assert err.startswith("error: NotImplementedByServerError: the gateway answered HTTP 501 from ")
    assert "does not implement this request" in err


def test_other_5xx_are_still_retried() -> None:
    policy = RetryPolicy(jitter=0)
    for status, retried in ((500, True), (501, False), (502, True), (503, True)):
        error = error_from_response(status, {}, b"x")
        delay = policy.next_delay(error, attempt=1, retry_after=None, rand=0.5)
        assert (delay is not None) == retried, status
