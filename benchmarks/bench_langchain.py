"""ChatSSE against ChatOpenAI(base_url=...) on the same loopback streams, side by side.

Two servers, each in its own process so the client's CPU time is the client's alone:

- ``emulator``: ``python -m sse_emulator`` rendering every event live (it is slower
  than either client, so each network read brings one event);
- ``replay``: the emulator's bytes for the same request, captured once and written back
  at wire speed by a tiny stdlib server (a fast gateway: a read brings many events).

Measured, medians over ``--repeat`` runs, with ``gc.freeze()`` after warm-up in every client
process so that a collection of the imported modules does not land in one run at random:

1. CPU per chunk: one 5,000-chunk stream through ``model.stream()``; process CPU time per
   content chunk for ChatOpenAI, ChatSSE, and ChatSSE with ``coalesce=True``.
2. 200 concurrent 500-chunk streams through ``model.astream()`` in one event loop, each
   client in a fresh process: wall time, CPU time and memory growth (peak RSS over the RSS
   before the run, Linux ``VmHWM`` reset through ``/proc/self/clear_refs``).

Run: ``.venv/bin/python benchmarks/bench_langchain.py [--repeat 5] [--streams 200]
[--quick]`` (``--quick``: a 200-chunk stream, 10 concurrent 50-chunk streams, one run each).
This is a benchmark, not a test: it prints figures and the ratios to ChatOpenAI. Checked
(exit status 1 when wrong): every client's text ends with the count asked for; the servers
are stopped (killed if they do not stop) however the run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from harness import ratio

CLIENTS = ("chatopenai", "chatsse", "chatsse-coalesce")
#: The CPU table's clients: ChatSSE recording to a local OpenTelemetry SDK provider too.
CPU_CLIENTS = (*CLIENTS, "chatsse-otel")
HOST = "127.0.0.1"


# --- servers -------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"no server on {HOST}:{port} after {timeout} s")


def _spawn(args: list[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL)
    _wait_for(port)
    return proc


async def _replay(port: int, body: bytes) -> None:
    """Answer every POST with ``body`` (the captured stream), in 64 KiB writes."""
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n"

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?i)content-length:\s*(\d+)", request)
                await reader.readexactly(int(length.group(1)) if length else 0)
                writer.write(head % len(body))
                for at in range(0, len(body), 65536):
                    writer.write(body[at : at + 65536])
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, HOST, port, backlog=1024)
    async with server:
        await server.serve_forever()


def _capture(base_url: str, chunks: int) -> bytes:
    """The emulator's bytes for the benchmark request."""
    body = {
        "model": "emulator",
        "messages": [{"role": "user", "content": f"count to {chunks}"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    response = httpx.post(base_url + "/chat/completions", json=body, timeout=60)
    response.raise_for_status()
    return response.content


# --- clients -------------------------------------------------------------------------------


def make_model(client: str, base_url: str) -> Any:
    """A chat model of the named client kind on ``base_url``."""
    if client == "chatopenai":
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model="emulator", base_url=base_url, api_key="bench", stream_usage=True, max_retries=0
        )
    from langchain_sse import ChatSSE

    extra: dict[str, Any] = {}
    if client.endswith("otel"):
        from otel_local import local_telemetry

        extra["telemetry"] = local_telemetry()
    return ChatSSE(
        model="emulator",
        base_url=base_url,
        api_key="bench",
        coalesce=client.endswith("coalesce"),
        **extra,
    )


def cpu_per_chunk(client: str, base_url: str, chunks: int, repeat: int) -> list[float]:
    """Process CPU microseconds per content chunk of ``model.stream()``, one value per run."""
    model = make_model(client, base_url)
    for _ in model.stream("count to 20"):
        pass
    gc.collect()
    gc.freeze()
    results = []
    for _ in range(repeat):
        start = time.process_time()
        text = "".join(str(piece.content) for piece in model.stream(f"count to {chunks}"))
        results.append((time.process_time() - start) / chunks * 1e6)
        assert text.endswith(f" {chunks}"), text[-20:]
    return results


def _rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


async def _concurrent(model: Any, streams: int, chunks: int) -> None:
    async def one() -> None:
        text = []
        async for piece in model.astream(f"count to {chunks}"):
            text.append(str(piece.content))
        assert "".join(text).endswith(f" {chunks}"), text[-3:]

    await asyncio.gather(*(one() for _ in range(streams)))


def concurrency(client: str, base_url: str, streams: int, chunks: int) -> dict[str, float]:
    """Wall time, CPU time and peak RSS growth of ``streams`` concurrent streams."""
    model = make_model(client, base_url)

    async def run() -> dict[str, float]:
        await _concurrent(model, 4, chunks)  # warm-up: imports, pools, first requests
        gc.collect()
        gc.freeze()
        Path("/proc/self/clear_refs").write_text("5")  # reset the RSS high-water mark
        before = _rss_kib("VmRSS")
        wall, cpu = time.perf_counter(), time.process_time()
        await _concurrent(model, streams, chunks)
        return {
            "wall_s": time.perf_counter() - wall,
            "cpu_s": time.process_time() - cpu,
            "mem_mib": (_rss_kib("VmHWM") - before) / 1024,
        }

    return asyncio.run(run())


def _worker(args: argparse.Namespace) -> None:
    """One measurement in this (fresh) process; prints JSON."""
    if args.worker == "cpu":
        print(json.dumps(cpu_per_chunk(args.client, args.base_url, args.chunks, args.repeat)))
    else:
        print(json.dumps(concurrency(args.client, args.base_url, args.streams, args.chunks)))


def _run_worker(kind: str, client: str, base_url: str, **options: int) -> Any:
    argv = [sys.executable, __file__, "--worker", kind, "--client", client, "--base-url", base_url]
    for key, value in options.items():
        argv += [f"--{key}", str(value)]
    done = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=900)
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- report --------------------------------------------------------------------------------


def _table(title: str, rows: dict[str, float], unit: str, fmt: Callable[[float], str]) -> None:
    anchor = rows["chatopenai"]
    print(f"\n{title}")
    for client, value in rows.items():
        print(f"  {client:<18} {fmt(value):>10} {unit:<10} {ratio(value, anchor)} ChatOpenAI")


def main() -> None:
    """Start the servers, run every measurement in fresh processes, print medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=5000)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--stream-chunks", type=int, default=500)
    parser.add_argument("--worker", choices=("cpu", "concurrency"))
    parser.add_argument("--client", choices=CPU_CLIENTS)
    parser.add_argument("--base-url")
    parser.add_argument("--replay-port", type=int)
    parser.add_argument("--replay-file")
    parser.add_argument("--quick", action="store_true", help="small streams, one run each")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.chunks, args.streams, args.stream_chunks = 1, 200, 10, 50
    if args.replay_port:
        asyncio.run(_replay(args.replay_port, Path(args.replay_file).read_bytes()))
        return
    if args.worker:
        if args.worker == "concurrency":
            args.chunks = args.stream_chunks
        _worker(args)
        return
    _bench(args)


def _bench(args: argparse.Namespace) -> None:
    port = _free_port()
    emulator = _spawn(["-m", "sse_emulator", "--port", str(port)], port)
    servers = [emulator]
    try:
        live = f"http://{HOST}:{port}/v1"
        replays = {}
        for chunks in (args.chunks, args.stream_chunks):
            path = Path(f"/tmp/bench_langchain_{chunks}.sse")
            path.write_bytes(_capture(live, chunks))
            replay_port = _free_port()
            servers.append(
                _spawn([__file__, "--replay-port", str(replay_port), "--replay-file", str(path)],
                       replay_port)
            )  # fmt: skip
            replays[chunks] = f"http://{HOST}:{replay_port}/v1"
        print(f"{args.chunks}-chunk stream, {args.repeat} runs per client; medians")
        for server, url in (("emulator", live), ("replay", replays[args.chunks])):
            rows = {
                c: statistics.median(
                    _run_worker("cpu", c, url, chunks=args.chunks, repeat=args.repeat)
                )
                for c in CPU_CLIENTS
            }
            _table(f"CPU per chunk, {server}", rows, "us/chunk", lambda v: f"{v:.1f}")
            on_off = ratio(rows["chatsse-otel"], rows["chatsse"], width=0)
            print(f"  telemetry on (SDK) / off: {on_off}")
        for server, url in (("replay", replays[args.stream_chunks]), ("emulator", live)):
            results = {c: [] for c in CLIENTS}  # type: dict[str, list[dict[str, float]]]
            for _ in range(max(1, args.repeat // 2)):
                for client in CLIENTS:
                    results[client].append(
                        _run_worker("concurrency", client, url, streams=args.streams,
                                    **{"stream-chunks": args.stream_chunks})
                    )  # fmt: skip
            label = f"{args.streams} concurrent {args.stream_chunks}-chunk streams, {server}"
            for key, unit in (("wall_s", "s wall"), ("cpu_s", "s CPU"), ("mem_mib", "MiB")):
                rows = {c: statistics.median(r[key] for r in results[c]) for c in CLIENTS}
                _table(f"{label}: {unit}", rows, unit, lambda v: f"{v:.2f}")
    finally:
        for proc in servers:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


if __name__ == "__main__":
    main()
