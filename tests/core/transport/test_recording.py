"""RecordingTransport: what it writes per model call, and that the emulator replays it.

Live calls go to the session's emulator on loopback; gzip and exact read boundaries use
``httpx.MockTransport`` and a tee transport under the recorder.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import threading
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    Completion,
    IncompleteStreamError,
    ServerError,
    StreamError,
    decode,
)
from sse_core.transport.packages import default_package
from sse_core.transport.recording import (
    FORMAT,
    RecordingTransport,
    recording_async_client,
    recording_client,
)
from sse_core.transport.recording_masks import MAX_DECODED, decode_reads, mask_reads
from sse_emulator import DIALECTS, Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from sse_emulator.replay.recording import load_recording

pytestmark = pytest.mark.timeout(120)

KEY = "sk-canary-7f3e9a1b2c4d5e6f"
TENANT = "tenant-canary-99887766"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def ask(text: str, model: str = "emulator", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": text}], **extra}


def client(base_url: str, http: httpx.Client, **settings: Any) -> ChatClient:
    settings.setdefault("api_key", KEY)
    return ChatClient(base_url=base_url, http_client=http, timeout=10, **settings)


def sidecar(directory: Path, number: int = 1) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((directory / f"{number:03d}.json").read_text())
    return loaded


def body(directory: Path, number: int = 1) -> bytes:
    return (directory / f"{number:03d}.sse").read_bytes()


class Tee(httpx.BaseTransport):
    """Sends for real and keeps every raw read the recorder was handed."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.reads: list[bytes] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _TeeStream(response.stream, self.reads)
        return response

    def close(self) -> None:
        self.inner.close()


class _TeeStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, reads: list[bytes]) -> None:
        self.inner, self.reads = inner, reads

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.inner:
            self.reads.append(piece)
            yield piece

    def close(self) -> None:
        self.inner.close()


# --- what is written ---


def test_no_secret_is_written_and_secrets_are_masked(emulator: Emulator, tmp_path: Path) -> None:
    headers = {"X-Tenant": TENANT, "X-Plain": "visible", "X-Api-Key": KEY}
    with recording_client(tmp_path, secret_headers=["x-tenant"]) as http:
        completion = client(emulator.base_url(), http, default_headers=headers).complete(
            ask(f"echo: my key is {KEY} and my tenant {TENANT}")
        )
    assert KEY in completion.content  # the gateway echoed both secrets back
    for name in ("001.sse", "001.json"):
        text = (tmp_path / name).read_text()
        assert KEY not in text and TENANT not in text, name
        assert "***" in text, name
    meta = sidecar(tmp_path)
    sent = meta["request"]["headers"]
    assert sent["x-plain"] == "visible"
    assert not {"authorization", "x-tenant", "x-api-key"} & set(sent)
    assert meta["request"]["body"]["messages"][0]["content"] == (
        "echo: my key is *** and my tenant ***"
    )
    assert "my key is *** and my tenant ***" in decode(body(tmp_path)).content
    load_recording(tmp_path)  # the masked body still adds up to its reads


def test_sidecar_has_the_replay_format(emulator: Emulator, tmp_path: Path) -> None:
    with recording_client(tmp_path) as http:
        client(emulator.base_url(), http).complete(ask("hello"))
    meta = sidecar(tmp_path)
    assert set(meta) == {"format", "request", "status", "headers", "head_time", "reads", "elapsed",
                         "partial", "ended", "body_sha256"}  # fmt: skip
    assert meta["format"] == FORMAT == "sse-connectors/recording@1"
    assert meta["partial"] is False and meta["ended"] in ("whole", "closed after its last event")
    assert meta["body_sha256"] == hashlib.sha256(body(tmp_path)).hexdigest()
    assert meta["request"]["method"] == "POST"
    assert meta["request"]["url"] == emulator.base_url() + "/chat/completions"
    assert meta["request"]["body"]["messages"] == [{"role": "user", "content": "hello"}]
    assert meta["status"] == 200
    assert ["content-type", "text/event-stream; charset=utf-8"] in meta["headers"]
    assert all(isinstance(pair, list) and len(pair) == 2 for pair in meta["headers"])


def test_url_keeps_no_user_info_and_no_credential_query(emulator: Emulator, tmp_path: Path) -> None:
    base = emulator.base_url().replace("http://", "http://alice:pw-canary-1234@")
    path = "/chat/completions?api-version=2024-10&api_key=query-canary-5678"
    with recording_client(tmp_path) as http:
        client(base, http, path=path, api_key=None).complete(ask("hello"))
    text = (tmp_path / "001.json").read_text()
    assert "alice" not in text and "pw-canary" not in text and "query-canary" not in text
    url = sidecar(tmp_path)["request"]["url"]
    assert url == emulator.base_url() + "/chat/completions?api-version=2024-10"


def test_body_is_byte_for_byte_with_the_reads_as_they_came(
    emulator: Emulator, tmp_path: Path
) -> None:
    tee = Tee()
    with recording_client(tmp_path, inner=tee) as http:
        stream = client(emulator.base_url(), http).stream(ask("count to 30"))
        with stream:
            for _ in stream:
                pass
    assert body(tmp_path) == b"".join(tee.reads)
    assert [size for _, size in sidecar(tmp_path)["reads"]] == [len(r) for r in tee.reads]
    assert stream.completion == decode(body(tmp_path))


def test_read_offsets_follow_a_slow_stream(emulator: Emulator, tmp_path: Path) -> None:
    headers = {"X-Emulator-Fault": "slow; delay=0.05"}
    with recording_client(tmp_path) as http:
        client(emulator.base_url(), http, default_headers=headers).complete(ask("count to 5"))
    meta = sidecar(tmp_path)
    times = [at for at, _ in meta["reads"]]
    assert len(times) >= 8  # role, reasoning-free words, finish, usage, [DONE]
    assert 0 < meta["head_time"] <= times[0] <= times[-1] <= meta["elapsed"] < 10
    assert times == sorted(times)
    assert times[-1] - times[0] >= 0.05 * (len(times) - 2)  # one delay before every event
    assert sum(size for _, size in meta["reads"]) == len(body(tmp_path))


def test_an_error_status_is_recorded_and_replayed(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    headers = {"X-Emulator-Fault": "bad-gateway"}
    with recording_client(tmp_path) as http, pytest.raises(ServerError) as live:
        client(emulator.base_url(), http, default_headers=headers, max_retries=0).complete(
            ask("hello")
        )
    meta = sidecar(tmp_path)
    assert meta["status"] == 502
    assert json.loads(body(tmp_path))["error"]["message"]
    replay = emulator_replay(tmp_path)
    with httpx.Client() as http, pytest.raises(ServerError) as replayed:
        client(replay.base_url(), http, max_retries=0).complete(ask("hello"))
    assert replayed.value.status_code == live.value.status_code == 502
    assert replayed.value.error_message == live.value.error_message


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compressed_body_is_stored_as_the_decoder_saw_it(
    encoding: str, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    plain = b"".join(
        b'data: {"choices":[{"index":0,"delta":{"content":"%s "}}]}\n\n' % word
        for word in (b"one", b"two", b"three", b"four")
    )
    plain += (
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    packed = gzip.compress(plain) if encoding == "gzip" else zlib.compress(plain)
    pieces = [packed[i : i + 40] for i in range(0, len(packed), 40)]

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream", "content-encoding": encoding}
        return httpx.Response(200, headers=headers, content=iter(pieces))

    mock = httpx.MockTransport(answer)
    with recording_client(tmp_path, inner=mock) as http:
        live = client("http://gateway.test/v1", http).complete(ask("hello"))
    assert body(tmp_path) == plain
    names = [name for name, _ in sidecar(tmp_path)["headers"]]
    assert "content-encoding" not in names and "content-type" in names
    assert sum(size for _, size in sidecar(tmp_path)["reads"]) == len(plain)
    assert live.content == "one two three four "
    with httpx.Client() as http:
        assert client(emulator_replay(tmp_path).base_url(), http).complete(ask("x")) == live


def test_a_recorded_bomb_is_kept_compressed_with_bounded_memory() -> None:
    # A client refuses a bomb mid-body; the recorder must not inflate what it read of it.
    bomb = zlib.compress(bytes(4 * MAX_DECODED), 9)
    reads = [(0.0, bomb[i : i + 65536]) for i in range(0, len(bomb), 65536)]
    tracemalloc.start()
    try:
        assert decode_reads("deflate", reads) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MAX_DECODED + 8 * 1024 * 1024  # the pieces kept, never the whole bomb
    assert decode_reads("zstd", reads) is None  # a coding the clients refuse stays as it came
    assert decode_reads("gzip", [(0.5, gzip.compress(b"data: x\n\n"))]) == [(0.5, b"data: x\n\n")]


def test_mask_reads_moves_the_read_boundaries_with_the_mask() -> None:
    reads = [(0.1, b"abcSEC"), (0.2, b"RETdef"), (0.3, b"gSECRETh")]
    masked, sizes = mask_reads(reads, ["SECRET"])
    assert masked == b"abc***defg***h"
    assert sizes == [(0.1, 6), (0.2, 3), (0.3, 5)]
    assert sum(size for _, size in sizes) == len(masked)
    assert mask_reads(reads, ["abc"]) == (b"abcSECRETdefgSECRETh", [(0.1, 6), (0.2, 6), (0.3, 8)])


# --- when files are written, and under which number ---


def test_a_consumer_that_leaves_early_is_recorded_up_to_there(
    emulator: Emulator, tmp_path: Path
) -> None:
    whole, early = tmp_path / "whole", tmp_path / "early"
    headers = {"X-Emulator-Fault": "slow; delay=0.05"}
    with recording_client(whole) as http:
        client(emulator.base_url(), http, default_headers=headers).complete(ask("count to 20"))
    with recording_client(early) as http:
        with client(emulator.base_url(), http, default_headers=headers).stream(
            ask("count to 20")
        ) as stream:
            next(iter(stream))
        assert (early / "001.sse").exists()  # written when the response closed
    assert 0 < len(body(early)) < len(body(whole))
    assert body(whole).startswith(body(early))


def test_a_stream_that_failed_is_recorded_as_it_arrived(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    headers = {"X-Emulator-Fault": "reset; after=3"}
    with recording_client(tmp_path) as http, pytest.raises(IncompleteStreamError) as live:
        client(emulator.base_url(), http, default_headers=headers).complete(ask("count to 9"))
    # the connection broke (the recording client's own package says so)
    assert isinstance(live.value.__cause__, default_package().module.RemoteProtocolError)
    # what arrived ends in half an event: decoded, that is a protocol error after the text
    with pytest.raises(StreamError) as decoded:
        decode(body(tmp_path))
    assert decoded.value.partial.content == live.value.partial.content != ""
    replay = emulator_replay(tmp_path)
    with httpx.Client() as http, pytest.raises(StreamError) as replayed:
        client(replay.base_url(), http).complete(ask("x"))
    assert replayed.value.partial.content == live.value.partial.content


def test_numbers_continue_after_the_highest_in_the_directory(
    emulator: Emulator, tmp_path: Path
) -> None:
    (tmp_path / "007.sse").write_bytes(b"data: [DONE]\n\n")
    (tmp_path / "notes.txt").write_text("not a recording")
    with recording_client(tmp_path) as http:
        client(emulator.base_url(), http).complete(ask("hello"))
    with recording_client(tmp_path) as http:  # a second transport on the same folder
        client(emulator.base_url(), http).complete(ask("hello again"))
    assert sorted(p.name for p in tmp_path.glob("0*")) == [
        "007.sse", "008.json", "008.sse", "009.json", "009.sse"
    ]  # fmt: skip


def test_concurrent_calls_get_distinct_numbers_and_matching_files(
    emulator: Emulator, tmp_path: Path
) -> None:
    with recording_client(tmp_path) as http:
        chat = client(emulator.base_url(), http)
        threads = [
            threading.Thread(target=chat.complete, args=(ask(f"echo: call {n}"),)) for n in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert sorted(p.name for p in tmp_path.glob("*.sse")) == [f"{n:03d}.sse" for n in range(1, 9)]
    answered = set()
    for number in range(1, 9):
        asked = sidecar(tmp_path, number)["request"]["body"]["messages"][0]["content"]
        assert decode(body(tmp_path, number)).content == asked.removeprefix("echo: ")
        answered.add(asked)
    assert len(answered) == 8


async def test_async_calls_are_recorded(emulator: Emulator, tmp_path: Path) -> None:
    async with recording_async_client(tmp_path) as http:
        chat = AsyncChatClient(base_url=emulator.base_url(), api_key=KEY, http_client=http,
                               timeout=10)  # fmt: skip
        first = await chat.complete(ask(f"echo: {KEY}"))
        second = await chat.complete(ask("weather in Paris", tools=[WEATHER]))
    assert first.content == KEY
    assert KEY not in (tmp_path / "001.sse").read_text() + (tmp_path / "001.json").read_text()
    assert decode(body(tmp_path, 2)) == second
    assert sidecar(tmp_path, 2)["status"] == 200


def test_a_transport_for_one_side_refuses_the_other(tmp_path: Path) -> None:
    transport = RecordingTransport(tmp_path, inner=httpx.HTTPTransport())
    with pytest.raises(TypeError, match="sync only"), httpx.Client() as http:
        request = http.build_request("GET", "http://127.0.0.1:9/")
        asyncio.run(transport.handle_async_request(request))
    transport.close()


# --- replay: every dialect, through ChatClient ---


def run_session(base_url: str, http: httpx.Client, headers: dict[str, str]) -> list[Completion]:
    """Two model calls: a thinking tool call, then plain text."""
    chat = client(base_url, http, default_headers=headers)
    think = ask("weather in Paris and Tokyo", model="emulator-think", tools=[WEATHER])
    return [chat.complete(think), chat.complete(ask("echo: replayed word for word"))]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_dialect_replays_as_it_ran(
    dialect: str, emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    headers = {"SPASS-User-Id": "u1"} if dialect == "spass" else {}
    with recording_client(tmp_path) as http:
        live = run_session(emulator.base_url(dialect), http, headers)
    assert len(live[0].tool_calls) == 2 and live[0].finish_reason == "tool_calls"
    assert live[1].content == "replayed word for word" and live[1].usage is not None
    replay = emulator_replay(tmp_path)
    with httpx.Client() as http:
        replayed = run_session(replay.base_url(), http, {})
    assert replayed == live
    for before, after in zip(live, replayed, strict=True):
        assert (after.reasoning, after.usage, after.events) == (
            before.reasoning, before.usage, before.events
        )  # fmt: skip


async def test_a_default_transport_serves_both_sides(emulator: Emulator, tmp_path: Path) -> None:
    transport = RecordingTransport(tmp_path)
    with httpx.Client(transport=transport, timeout=10) as http:
        client(emulator.base_url(), http).complete(ask("echo: sync"))
    async with httpx.AsyncClient(transport=transport, timeout=10) as http:
        chat = AsyncChatClient(base_url=emulator.base_url(), http_client=http, timeout=10)
        await chat.complete(ask("echo: async"))
    assert [decode(body(tmp_path, n)).content for n in (1, 2)] == ["sync", "async"]
