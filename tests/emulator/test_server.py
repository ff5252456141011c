"""Starting and stopping: fast, clean, on loopback only; and the same request, the same bytes."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from sse_emulator import Emulator
from sse_emulator.__main__ import main

BODY = {"model": "m", "messages": [{"role": "user", "content": "count to 5"}], "stream": True}


def refused(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_start_and_stop_are_fast_and_leave_no_thread_or_port() -> None:
    threads_before = set(threading.enumerate())
    started = time.monotonic()
    emulator = Emulator().start()
    start_time = time.monotonic() - started
    port = emulator.port
    with httpx.Client(timeout=5.0) as http:  # a keep-alive connection stays open meanwhile
        assert http.post(emulator.base_url() + "/chat/completions", json=BODY).status_code == 200
        stopping = time.monotonic()
        emulator.stop()
        stop_time = time.monotonic() - stopping
    assert start_time < 0.5 and stop_time < 0.5
    assert set(threading.enumerate()) == threads_before
    assert not emulator.running
    assert refused(port)


def test_stop_ends_a_stalled_stream_promptly() -> None:
    emulator = Emulator().start()
    received: list[bytes] = []

    def read() -> None:
        with (
            httpx.Client(timeout=10.0) as http,
            http.stream(
                "POST",
                emulator.base_url() + "/chat/completions",
                json=BODY,
                headers={"X-Emulator-Fault": "stall; after=1; seconds=60"},
            ) as response,
        ):
            received.extend(response.iter_raw())

    reader = threading.Thread(target=read)
    reader.start()
    emulator.wait_for_requests(1)
    time.sleep(0.05)
    stopping = time.monotonic()
    emulator.stop()
    reader.join(5.0)
    assert time.monotonic() - stopping < 1.0
    assert not reader.is_alive()
    assert received  # the first event arrived before the stall


def test_context_manager_and_notebook_style_and_restart() -> None:
    with Emulator() as emulator:
        assert emulator.running
        assert emulator.url == f"http://127.0.0.1:{emulator.port}"
        assert emulator.base_url("shroud") == emulator.url + "/shroud/v1"
        assert emulator.base_url() == emulator.url + "/v1"
    assert not emulator.running
    again = Emulator().start()
    try:
        assert again.start() is again  # idempotent
        assert httpx.get(again.url + "/_emulator/health").json()["ok"] is True
    finally:
        again.stop()
    again.start()  # a stopped emulator starts again
    again.stop()
    assert not again.running


async def test_async_context_manager() -> None:
    async with Emulator() as emulator, httpx.AsyncClient() as http:
        response = await http.post(emulator.base_url("aivene") + "/chat/completions", json=BODY)
        assert response.status_code == 200
    assert not emulator.running


def test_port_is_unavailable_before_start() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        _ = Emulator().port
    with pytest.raises(ValueError, match="unknown dialect"):
        Emulator(dialect="nope")


def test_default_dialect_and_api_key_options() -> None:
    with Emulator(dialect="shroud", api_key="sekret") as emulator, httpx.Client() as http:
        url = emulator.base_url() + "/chat/completions"
        assert http.post(url, json=BODY).status_code == 401
        good = http.post(url, json=BODY, headers={"Authorization": "Bearer sekret"})
        assert good.status_code == 200
        assert b'"delta":{"role":"assistant"}}' in good.content  # the Shroud shape


def test_the_same_request_gives_the_same_bytes(emulator: Emulator) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    requests = [
        ("/v1", {**BODY, "stream_options": {"include_usage": True}, "reasoning_effort": "high"}),
        (
            "/aivene/v1",
            {**BODY, "messages": [{"role": "user", "content": "weather in Oslo"}], "tools": tools},
        ),
        ("/streamchat/v1", BODY),
        ("/gateway/v1", {**BODY, "stream": False}),
    ]
    with Emulator() as other, httpx.Client() as http:
        for base, body in requests:
            bodies = {
                http.post(f"{server.url}{base}/chat/completions", json=body).content
                for server in (emulator, emulator, other)
            }
            assert len(bodies) == 1, base


def test_python_dash_m_serves_until_terminated() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "sse_emulator", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert f"http://127.0.0.1:{port}" in banner
        deadline = time.monotonic() + 10
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/_emulator/health", timeout=1.0)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.02)
        assert health.json()["ok"] is True
    finally:
        process.terminate()  # only the process this test started, by its PID
        code = process.wait(10)
    assert code == 0


def test_main_reports_a_taken_port(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["--port", str(taken.getsockname()[1])]) == 1
    assert "cannot serve on 127.0.0.1" in capsys.readouterr().err
