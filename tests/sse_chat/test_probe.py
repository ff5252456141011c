"""``sse-chat probe``: what it reports for each emulator dialect (as docs/emulator.md
documents them), for a gateway with other habits (a replayed recording), and for
gateways it cannot probe (unreachable, a web page, silence): one line, never a traceback."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sse_chat.cli import main
from sse_chat.probe.analyse import exchange, reasoning_field, tool_style, usage_style
from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory

pytestmark = pytest.mark.timeout(120)

CHUNK = "chat.completion.chunk"
SSE_UTF8 = "text/event-stream; charset=utf-8"
#: What docs/emulator.md documents for each dialect, as the probe names it.
EXPECTED: dict[str, dict[str, Any]] = {
    "openai": {
        "content_type": SSE_UTF8,
        "done_sentinel": True,
        "usage": "chunk",
        "reasoning_field": "reasoning",
        "tool_calls": "by_index",
        "named_events": [],
        "chunk_object": CHUNK,
    },
    "shroud": {
        "content_type": SSE_UTF8,
        "done_sentinel": True,
        "usage": "chunk",
        "reasoning_field": "reasoning_content",
        "tool_calls": "by_index",
        "named_events": [],
        "chunk_object": CHUNK,
    },
    "streamchat": {
        "content_type": "text/event-stream",
        "done_sentinel": False,
        "usage": "final_chunk",
        "reasoning_field": None,
        "tool_calls": "whole",
        "named_events": [],
        "chunk_object": "chat.completion",
    },
    "spass": {
        "content_type": "text/event-stream",
        "done_sentinel": True,
        "usage": "named_event",
        "reasoning_field": None,
        "tool_calls": "no_index",
        "named_events": ["spass.cost"],
        "chunk_object": CHUNK,
    },
    "gateway": {
        "content_type": "text/event-stream",
        "done_sentinel": True,
        "usage": "chunk",
        "reasoning_field": None,
        "tool_calls": "by_index",
        "named_events": [],
        "chunk_object": CHUNK,
    },
    "aivene": {
        "content_type": "text/event-stream",
        "done_sentinel": True,
        "usage": "chunk",
        "reasoning_field": "reasoning_content",
        "tool_calls": "by_index",
        "named_events": [],
        "chunk_object": CHUNK,
    },
}


def probe(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(["probe", *argv])
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def probe_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, _ = probe([*argv, "--json"], capsys)
    assert code == 0, out
    (line,) = out.splitlines()  # ONE JSON object
    report: dict[str, Any] = json.loads(line)
    return report


@pytest.mark.parametrize("dialect", sorted(EXPECTED))
def test_each_emulator_dialect_is_reported_as_documented(
    dialect: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = probe_json(["--dialect", dialect], capsys)
    for key, value in EXPECTED[dialect].items():
        assert report[key] == value, (dialect, key)
    assert report["finish_reason"] is True and report["include_usage_accepted"] is True
    assert report["error_response"] == {
        "status": 400,
        "content_type": "application/json",
        "json_error": True,
        "message": "expected 'messages' to be a non-empty list of message objects",
    }
    assert report["step_errors"] == {}
    thinks = EXPECTED[dialect]["reasoning_field"] is not None
    assert report["thinking_switch"] == ("reasoning_effort" if thinks else None)
    assert report["requests"] == (5 if thinks else 6)  # a second thinking switch if needed
    recommended = report["recommended"]
    assert recommended["model"] == "emulator" and recommended["stream_usage"] is True
    assert recommended["base_url"].endswith("/v1")
    assert recommended.get("reasoning_effort") == ("low" if thinks else None)
    headers = {"SPASS-User-Id": "demo-user"} if dialect == "spass" else None
    assert recommended.get("default_headers") == headers
    assert report["recommended_llamaindex"]["include_usage"] is True
    # SSELLM's own reasoning_effort field, as ChatSSE's (not additional_kwargs)
    llamaindex = report["recommended_llamaindex"]
    assert llamaindex.get("reasoning_effort") == ("low" if thinks else None)
    assert "additional_kwargs" not in llamaindex


def test_the_report_for_people(emulator: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    base = emulator.base_url("streamchat")
    code, out, _ = probe(["--base-url", base, "--model", "m-1", "--header", "X-Team: t"], capsys)
    assert code == 0
    assert out.splitlines() == [
        f"probed {base}/chat/completions (model m-1, 6 requests)",
        "  content type   text/event-stream",
        "  end of stream  no [DONE]: the gateway closes the stream",
        "  finish reason  sent",
        "  chunk object   chat.completion",
        "  usage          on the chunk with the finish reason (stream_options.include_usage "
        "accepted)",
        "  reasoning      none seen (hidden by the gateway, or not a reasoning model)",
        "  tool calls     whole: each call complete in one chunk",
        "  named events   none",
        "  a bad request  HTTP 400 application/json: expected 'messages' to be a non-empty "
        "list of message objects",
        "recommended settings (the key: api_key=... or SSE_API_KEY):",
        # Every --header value is a secret (tests/sse_chat/test_header_secrets.py): named.
        f"  ChatSSE(model='m-1', base_url='{base}', default_headers={{'X-Team': '***'}}, "
        "stream_usage=True)",
        f"  SSELLM(model='m-1', base_url='{base}', default_headers={{'X-Team': '***'}}, "
        "include_usage=True)",
    ]
    assert len(emulator.requests) == 6
    assert all(r.header("x-team") == "t" for r in emulator.requests)


def test_recordings_are_kept_on_request_and_hold_no_key(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "sk-probe-canary-99999999"
    argv = ["--base-url", emulator.base_url(), "--model", "m", "--api-key", key]
    code, out, err = probe([*argv, "--record", str(tmp_path)], capsys)
    assert code == 0 and out.startswith("probed ")  # the report; the note goes to stderr
    assert err == f"(the recordings are in {tmp_path}, one folder per request)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "1-plain",
        "2-usage",
        "3-thinking",
        "5-tools",
        "6-failure",
    ]
    assert key not in "".join(p.read_text() for p in tmp_path.rglob("*.*"))
    assert all(r.header("authorization") for r in emulator.requests)  # it was sent, masked


# --- a gateway with other habits, replayed from a hand-made recording ---


def sse(*payloads: dict[str, Any], done: bool = True) -> bytes:
    body = b"".join(b"data: " + json.dumps(p).encode() + b"\n\n" for p in payloads)
    return body + (b"data: [DONE]\n\n" if done else b"")


def delta(choice: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": choice, "finish_reason": finish}],
        **extra,
    }


USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
TEXT = sse(delta({"content": "hi"}), delta({}, "stop", x_groq={"usage": USAGE}))
THINK = sse(delta({"content": "<think>hm</think>hi"}), delta({}, "stop"))
TOOLS = sse(
    delta({"tool_calls": [{"id": "c1", "function": {"name": "get_weather", "arguments": ""}}]}),
    delta({"tool_calls": [{"function": {"arguments": '{"city":"Paris"}'}}]}),
    delta({}, "tool_calls"),
)
REJECTED = b'{"error":{"message":"stream_options is not supported","type":"invalid_request"}}'


def write(folder: Path, number: int, status: int, body: bytes, kind: str) -> None:
    (folder / f"{number:03d}.sse").write_bytes(body)
    meta = {
        "format": "sse-connectors/recording@1",
        "status": status,
        "headers": [["content-type", kind]],
    }
    (folder / f"{number:03d}.json").write_text(json.dumps(meta))


def test_a_gateway_with_other_habits(
    emulator_replay: ReplayFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = [
        (200, TEXT, "text/event-stream"),  # plain
        (400, REJECTED, "application/json"),  # usage: stream_options refused...
        (200, TEXT, "text/event-stream"),  # ...and asked again without it
        (200, THINK, "text/event-stream"),  # thinking: <think> tags
        (200, TOOLS, "text/event-stream"),  # tools: pieces without an index
        (422, b"<html><title>Unprocessable</title></html>", "text/html"),  # the bad request
    ]
    for number, (status, body, kind) in enumerate(answers, start=1):
        write(tmp_path, number, status, body, kind)
    replay = emulator_replay(tmp_path)
    report = probe_json(["--base-url", replay.base_url(), "--model", "m"], capsys)
    assert report["usage"] == "x_groq" and report["include_usage_accepted"] is False
    assert report["reasoning_field"] == "think_tags"
    assert report["thinking_switch"] == "reasoning_effort"
    assert report["tool_calls"] == "no_index"
    assert report["error_response"] == {
        "status": 422,
        "content_type": "text/html",
        "json_error": False,
        "message": None,
    }
    assert report["recommended"]["stream_usage"] is False
    assert report["requests"] == 6 and len(replay.requests) == 6


def test_usage_and_reasoning_styles_from_bodies() -> None:
    meta = {"status": 200, "headers": [["content-type", "text/event-stream"]]}
    every = sse(delta({"content": "a"}, usage=USAGE), delta({}, "stop", usage=USAGE))
    assert usage_style(exchange(meta, every)) == "every_chunk"
    assert usage_style(exchange(meta, THINK)) == "none"
    details = sse(delta({"reasoning_details": [{"type": "reasoning.text", "text": "x"}]}))
    assert reasoning_field([exchange(meta, details)]) == "reasoning_details"
    whole = sse(
        delta(
            {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}]}
        )
    )
    assert tool_style(exchange(meta, whole)) == "whole"
    assert tool_style(exchange(meta, TEXT)) == "none"


# --- gateways it cannot probe ---


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_an_unreachable_gateway_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    code, out, err = probe(["--base-url", url, "--model", "m"], capsys)
    assert code == 1 and out == ""  # an error: on stderr
    assert err.startswith(
        f"sse-chat probe: unreachable: could not reach {url}/chat/completions (ConnectError"
    )
    assert err.count("\n") == 1 and err.count(url) == 1  # the URL once, not twice
    code, out, _ = probe(["--base-url", url, "--model", "m", "--json"], capsys)
    report = json.loads(out)
    assert code == 1 and report["reachable"] is False
    assert report["error"].startswith("unreachable: ")


class _WebPage(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        page = b"<!doctype html><html><title>Welcome to nginx!</title><body>hi</body></html>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_a_web_page_is_not_an_sse_gateway(
    web_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = probe(["--base-url", web_server, "--model", "m"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("sse-chat probe: not an SSE chat gateway: ")
    assert err.count(web_server) == 1 and "text/html" in err


def test_a_silent_gateway_is_bounded_by_the_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        started = time.monotonic()
        code, out, err = probe(["--base-url", url, "--model", "m", "--timeout", "0.5"], capsys)
        elapsed = time.monotonic() - started
    assert code == 1 and elapsed < 10 and out == ""
    assert err.startswith("sse-chat probe: no answer within the 0.5 s timeout: ")
    assert err.count(url) == 1


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--base-url", "http://127.0.0.1:9/v1"], "--base-url needs --model (the model to probe)"),
        (["--timeout", "0"], "argument --timeout: expected seconds in (0, 600], got '0'"),
        (["--base-url", "ftp://x/v1", "--model", "m"], "base_url must be an http(s) URL"),
    ],
)
def test_argument_errors(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = probe(argv, capsys)
    assert code == 2 and out == "" and said in err.splitlines()[-1]
