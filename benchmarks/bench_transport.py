"""Transport speed over loopback: sse_core's clients against raw httpx + orjson and the openai SDK.

Each reads the same 10,000-chunk stream from ``stream_server.py`` (a subprocess, so only the
client's CPU time is counted). Prints medians of CPU time per frame and ratios to raw httpx,
and the time-to-first-token overhead over raw httpx (goal: at most 0.5 ms). ``--otel`` adds
sse_core's client recording to a local OpenTelemetry SDK tracer and meter provider (the cost
of telemetry on; without it, sse_core's client runs as an application without a provider
does: telemetry off). Checked (exit
status 1 when wrong): every client read every frame, sse_core's answer is the whole text.
The server is stopped (killed if it does not stop) however the run ends. Run:
``.venv/bin/python benchmarks/bench_transport.py [--chunks N] [--repeat R] [--quick] [--otel]``
(``--quick``: 500 frames, 3 runs, 20 first-token runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import httpx
import openai
import orjson
from harness import ratio
from stream_server import running

import sse_core

PAYLOAD = {"model": "bench-model", "messages": [{"role": "user", "content": "go"}]}


def raw_httpx(http: httpx.Client, url: str, first: list[float]) -> int:
    count = 0
    with http.stream("POST", url + "/chat/completions", json={**PAYLOAD, "stream": True}) as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                payload = line[6:]
                if payload == "[DONE]":
                    break
                chunk = orjson.loads(payload)
                choices = chunk["choices"]
                if choices and choices[0]["delta"].get("content") and not first:
                    first.append(time.perf_counter())
                count += 1
    return count


def openai_sdk(client: openai.OpenAI, first: list[float]) -> int:
    count = 0
    stream = client.chat.completions.create(
        model="bench-model", messages=[{"role": "user", "content": "go"}], stream=True
    )
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content and not first:
            first.append(time.perf_counter())
        count += 1
    return count


WORDS = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]


def ours(client: sse_core.ChatClient, first: list[float]) -> int:
    """The text deltas read (one per content frame); the answer checked."""
    count = 0
    with client.stream(PAYLOAD) as stream:
        for event in stream:
            if type(event) is sse_core.TextDelta:
                if event.text and not first:
                    first.append(time.perf_counter())
                count += 1
        answer = stream.completion
    text = "".join(WORDS[i % len(WORDS)] for i in range(count))
    if answer is None or answer.content != text or answer.finish_reason != "stop":
        raise RuntimeError(f"sse_core's answer is not the stream's text: {answer!r:.80}")
    return count


#: What each client counts of a ``chunks``-frame stream: raw httpx and the SDK every frame
#: before [DONE]; sse_core the text deltas (the frames but the role, finish and usage ones).
EXPECTED = {
    "raw httpx + orjson": 0,
    "openai SDK": 0,
    "sse_core ChatClient": -3,
    "sse_core + OTel SDK": -3,
}


def traced_client(url: str) -> sse_core.ChatClient:
    """sse_core's client recording to a local OpenTelemetry SDK tracer and meter provider
    (:func:`otel_local.local_telemetry`): never the global ones."""
    from otel_local import local_telemetry

    return sse_core.ChatClient(
        base_url=url, api_key="bench", include_usage=False, telemetry=local_telemetry()
    )


def measure(
    url: str, chunks: int, repeat: int, ttft: bool, errors: list[str], otel: bool = False
) -> dict[str, float]:
    """Median CPU seconds per frame (or seconds to the first token) per client, taking turns."""
    http = httpx.Client(timeout=30)
    sdk = openai.OpenAI(base_url=url, api_key="bench", max_retries=0)
    mine = sse_core.ChatClient(base_url=url, api_key="bench", include_usage=False)
    runners: dict[str, Callable[[list[float]], int]] = {
        "raw httpx + orjson": lambda first: raw_httpx(http, url, first),
        "openai SDK": lambda first: openai_sdk(sdk, first),
        "sse_core ChatClient": lambda first: ours(mine, first),
    }
    if otel:
        traced = traced_client(url)
        runners["sse_core + OTel SDK"] = lambda first: ours(traced, first)
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(repeat):
        for name, fn in runners.items():
            first: list[float] = []
            start_cpu, start = time.process_time(), time.perf_counter()
            count = fn(first)
            cpu = time.process_time() - start_cpu
            if count != chunks + EXPECTED[name]:
                errors.append(f"{name} read {count} of {chunks + EXPECTED[name]}")
            samples[name].append(first[0] - start if ttft else cpu / chunks)
    http.close()
    mine.close()
    sdk.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def with_server(
    chunks: int, repeat: int, ttft: bool, errors: list[str], otel: bool
) -> dict[str, float]:
    """Start stream_server.py with ``chunks`` frames and measure against it."""
    with running(chunks) as url:
        return measure(url, chunks, repeat, ttft, errors, otel)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--ttft-repeat", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="500 frames, 3 runs")
    parser.add_argument(
        "--otel", action="store_true", help="also sse_core recording to an OpenTelemetry SDK"
    )
    args = parser.parse_args()
    if args.quick:
        args.chunks, args.repeat, args.ttft_repeat = 500, 3, 20
    errors: list[str] = []
    cpu = with_server(args.chunks, args.repeat, False, errors, args.otel)
    ttft = with_server(4, args.ttft_repeat, True, errors, args.otel)
    base, first = cpu["raw httpx + orjson"], ttft["raw httpx + orjson"]
    print(f"CPU per frame over loopback, {args.chunks} frames (median of {args.repeat}):")
    for name, value in cpu.items():
        print(f"  {name:22} {value * 1e6:7.2f} us/frame   {ratio(value, base, 5)} raw httpx")
    print(f"Time to first token (median of {args.ttft_repeat}):")
    for name, value in ttft.items():
        print(f"  {name:22} {value * 1e3:7.3f} ms   {(value - first) * 1e3:+.3f} ms vs raw httpx")
    for error in sorted(set(errors)):
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
