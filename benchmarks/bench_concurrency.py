"""Thousands of concurrent streams in one process: wall, CPU, memory and delivery delay.

``stream_server.py`` (its own process) answers every request at wire speed with the same
numbered answer (content ``w1 ``, ``w2 ``, ...; one HTTP chunk per frame, as an SSE server
that flushes every event writes it). Each client reads ``--streams`` such answers at once
in one event loop (``asyncio.gather``), in a fresh process per run:

- ``raw httpx + orjson``: ``httpx.AsyncClient`` lines, for reference;
- ``AsyncChatClient``: sse_core's events;
- ``ChatSSE.astream``: one ``AIMessageChunk`` per frame;
- ``SSELLM.astream_chat``: ``ChatResponse``s.

Every client is made with its pool raised to the number of streams (``max_connections``;
the default 1,000 would queue the rest), and the process's open-files limit is raised.

Measured, medians over ``--repeat`` runs:

1. wall time and CPU time of the whole batch, and peak RSS growth per stream (KiB: peak
   RSS over the RSS before the batch, Linux ``VmHWM`` reset through ``/proc/self/clear_refs``;
   imported modules frozen by ``gc.freeze()`` after a warm-up);
2. in separate runs (so the instrument adds nothing to the figures above): the delay
   between a frame's arrival and its delivery to the consumer. Arrival is when the client
   read the frame's bytes from the socket: httpcore's network reads are timed (a wrapper
   notes the time and the last whole frame of each read, in the task that reads), and
   delivery is when the consumer receives the text naming that frame. Printed: the 50th
   and 99th percentile and the largest delay over all frames.

Goals: memory growth under 40 KiB per stream, p99 delay under 5 ms. Checked (exit status 1
when wrong): every stream of every run delivered exactly the answer's text. The server is
stopped however the run ends. Run:
``.venv/bin/python benchmarks/bench_concurrency.py [--streams N] [--chunks M] [--repeat R]
[--quick]`` (full: 2,000 streams of 500 chunks, 3 runs; ``--quick``: 100 of 50, 1 run).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from array import array
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from stream_server import numbered_words, raise_open_files, running

CLIENTS = ("raw httpx + orjson", "AsyncChatClient", "ChatSSE.astream", "SSELLM.astream_chat")
KIB_GOAL, P99_GOAL_MS = 40.0, 5.0
BUCKET = 1e-5  # delay histogram: 10 us buckets, up to 1 s
BUCKETS = 100_001

# --- the consumers: each yields the text of every frame as the consumer receives it ---------

Texts = Callable[[], AsyncIterator[str]]


def make_texts(client: str, url: str, streams: int) -> Texts:
    """A function that streams one answer and yields its texts, for ``client``."""
    body = {"model": "bench-model", "messages": [{"role": "user", "content": "go"}]}
    if client == "raw httpx + orjson":
        import httpx
        import orjson

        limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams)
        http = httpx.AsyncClient(timeout=60, limits=limits)

        async def raw() -> AsyncIterator[str]:
            request = {**body, "stream": True}
            async with http.stream("POST", url + "/chat/completions", json=request) as reply:
                async for line in reply.aiter_lines():
                    if line.startswith("data: {"):
                        choices = orjson.loads(line[6:])["choices"]
                        if choices and (text := choices[0]["delta"].get("content")):
                            yield text

        return raw
    if client == "AsyncChatClient":
        import sse_core

        core = sse_core.AsyncChatClient(base_url=url, api_key="bench", max_connections=streams)

        async def events() -> AsyncIterator[str]:
            async with core.stream(body) as stream:
                async for event in stream:
                    if type(event) is sse_core.TextDelta:
                        yield event.text

        return events
    if client == "ChatSSE.astream":
        from langchain_sse import ChatSSE

        model = ChatSSE(model="bench-model", base_url=url, api_key="bench", max_connections=streams)

        async def chunks() -> AsyncIterator[str]:
            async for chunk in model.astream("go"):
                if chunk.content:
                    yield str(chunk.content)

        return chunks
    from llama_index.core.base.llms.types import ChatMessage

    from llamaindex_sse import SSELLM

    llm = SSELLM(model="bench-model", base_url=url, api_key="bench", max_connections=streams)
    ask = [ChatMessage(role="user", content="go")]

    async def responses() -> AsyncIterator[str]:
        async for response in await llm.astream_chat(ask):
            if response.delta:
                yield response.delta

    return responses


# --- arrival times: httpcore's network reads, timed in the task that reads -----------------


class Arrivals:
    """The reads of one stream: (the last whole frame a read completed, when it was read)."""

    __slots__ = ("at", "frames", "times")

    def __init__(self) -> None:
        self.frames: list[int] = []
        self.times: list[float] = []
        self.at = 0

    def read(self, data: bytes, now: float) -> None:
        end = data.rfind(b"\n\n")
        start = data.rfind(b'"content":"w', 0, end) if end >= 0 else -1
        if start >= 0:
            digits = data[start + 12 : data.find(b" ", start + 12)]
            self.frames.append(int(digits))
            self.times.append(now)

    def arrived(self, frame: int) -> float | None:
        """When ``frame`` was read (frames are asked for in order)."""
        frames, at = self.frames, self.at
        while at < len(frames) and frames[at] < frame:
            at += 1
        self.at = at
        return self.times[at] if at < len(frames) else None


_stream: ContextVar[Arrivals | None] = ContextVar("bench_arrivals", default=None)


def time_the_reads() -> None:
    """Wrap httpcore's asyncio network read to note each read's time for its stream."""
    from httpcore._backends.anyio import AnyIOStream

    read = AnyIOStream.read

    async def timed(self: Any, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = await read(self, max_bytes, timeout)
        arrivals = _stream.get()
        if arrivals is not None:
            arrivals.read(data, time.perf_counter())
        return data

    AnyIOStream.read = timed  # type: ignore[method-assign]


# --- one run, in this (fresh) process -------------------------------------------------------


def _kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


async def _one(texts: Texts, expected: str, hist: array[int] | None) -> bool:
    """Read one answer; whether its text is the answer's. With ``hist``, note each frame's
    delay in it."""
    arrivals = Arrivals() if hist is not None else None
    _stream.set(arrivals)
    got: list[str] = []
    async for text in texts():
        got.append(text)
        if arrivals is not None and hist is not None:
            now = time.perf_counter()
            for word in text.split():
                read_at = arrivals.arrived(int(word[1:]))
                if read_at is not None:
                    hist[min(int((now - read_at) / BUCKET), BUCKETS - 1)] += 1
    return "".join(got) == expected


def worker(client: str, url: str, streams: int, chunks: int, latency: bool) -> dict[str, Any]:
    raise_open_files()
    if latency:
        time_the_reads()
    texts = make_texts(client, url, streams)
    expected = "".join(numbered_words(chunks - 3))
    hist = array("L", bytes(8 * BUCKETS)) if latency else None

    async def run() -> dict[str, Any]:
        warm = await asyncio.gather(*(_one(texts, expected, None) for _ in range(4)))
        gc.collect()
        gc.freeze()
        Path("/proc/self/clear_refs").write_text("5")  # reset the RSS high-water mark
        before = _kib("VmRSS")
        wall, cpu = time.perf_counter(), time.process_time()
        done = await asyncio.gather(*(_one(texts, expected, hist) for _ in range(streams)))
        return {
            "wall_s": time.perf_counter() - wall,
            "cpu_s": time.process_time() - cpu,
            "kib_per_stream": (_kib("VmHWM") - before) / streams,
            "wrong": streams + 4 - sum(done) - sum(warm),
        }

    result = asyncio.run(run())
    if hist is not None:
        result.update(_percentiles(hist))
    return result


def _percentiles(hist: array[int]) -> dict[str, float]:
    total = sum(hist)
    found: dict[str, float] = {"frames_timed": total}
    wanted = {"p50_ms": 0.50, "p99_ms": 0.99, "max_ms": 1.0}
    seen = 0
    for bucket, count in enumerate(hist):
        seen += count
        for name, share in list(wanted.items()):
            if count and seen >= share * total:
                found[name] = (bucket + 1) * BUCKET * 1e3
                del wanted[name]
    return found


# --- the runs and the table -----------------------------------------------------------------


def _run_worker(client: str, url: str, args: argparse.Namespace, latency: bool) -> Any:
    argv = [sys.executable, __file__, "--worker", client, "--url", url,
            "--streams", str(args.streams), "--chunks", str(args.chunks)]  # fmt: skip
    if latency:
        argv.append("--latency")
    done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:  # say why, not only that it failed
        raise SystemExit(f"the {client} worker failed (exit {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(args: argparse.Namespace) -> list[str]:
    errors: list[str] = []
    runs: dict[str, list[dict[str, Any]]] = {client: [] for client in CLIENTS}
    # The server's lifetime bounds a stuck run, not a slow one: a loaded machine takes long.
    with running(args.chunks, "numbered", args.framing, lifetime=7200.0) as url:
        for _ in range(args.repeat):
            for client in CLIENTS:
                plain = _run_worker(client, url, args, latency=False)
                timed = _run_worker(client, url, args, latency=True)
                runs[client].append({**plain, **{k: v for k, v in timed.items() if "ms" in k}})
                for result in (plain, timed):
                    if result["wrong"]:
                        errors.append(f"{client}: {result['wrong']} stream(s) with a wrong text")
                if timed.get("frames_timed", 0) < args.streams * (args.chunks - 3) * 0.99:
                    errors.append(f"{client}: only {timed.get('frames_timed')} frames timed")
    report(args, runs)
    return errors


def report(args: argparse.Namespace, runs: dict[str, list[dict[str, Any]]]) -> None:
    print(f"{args.streams} concurrent streams of {args.chunks} chunks ({args.framing}), one loop "
          f"(median of {args.repeat} run(s); goals: < {KIB_GOAL:g} KiB/stream, "
          f"p99 delay < {P99_GOAL_MS:g} ms)")  # fmt: skip
    head = ("client", "wall s", "CPU s", "KiB/stream", "p50 ms", "p99 ms", "max ms")
    print(f"  {head[0]:<22}" + "".join(f"{h:>12}" for h in head[1:]))
    keys = ("wall_s", "cpu_s", "kib_per_stream", "p50_ms", "p99_ms", "max_ms")
    for client, results in runs.items():
        values = [statistics.median(r.get(key, float("nan")) for r in results) for key in keys]
        flags = []
        if client != CLIENTS[0] and values[2] >= KIB_GOAL:
            flags.append("memory")
        if client != CLIENTS[0] and values[4] >= P99_GOAL_MS:
            flags.append("delay")
        note = f"  ABOVE GOAL ({', '.join(flags)})" if flags else ""
        print(f"  {client:<22}" + "".join(f"{v:>12.2f}" for v in values) + note)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--chunks", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100 streams of 50 chunks, 1 run")
    parser.add_argument("--framing", choices=("chunked", "length"), default="chunked",
                        help="the server's framing (stream_server.py --framing)")  # fmt: skip
    parser.add_argument("--worker", choices=CLIENTS)
    parser.add_argument("--url")
    parser.add_argument("--latency", action="store_true")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.url, args.streams, args.chunks, args.latency)))
        return 0
    if args.quick:
        args.streams, args.chunks, args.repeat = 100, 50, 1
    raise_open_files()
    errors = bench(args)
    for error in sorted(set(errors)):
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
