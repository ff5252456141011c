"""SSELLM against OpenAILike on the same loopback stream: CPU per chunk and how it scales.

Run by hand (not a test)::

    .venv/bin/python benchmarks/bench_llamaindex.py            # 10k and 100k chunks, 5 runs
    .venv/bin/python benchmarks/bench_llamaindex.py --quick    # 200 and 2k chunks, 2 runs

The gateway emulator runs in a child process (``python -m sse_emulator``) so its CPU
is not counted; the client's CPU is the thread time of the consuming thread (for async,
the event loop's thread). Both LLMs read the same answer from the same dialect (plain
OpenAI): ``echo: w w w ...`` streamed one word per chunk. A "chunk" is a ``data:`` frame
on the wire, the unit both clients receive. SSELLM yields one ChatResponse per piece of body
that changed the message (the emulator, like SSE servers generally, sends one HTTP chunk per
event, so that is one per frame here), OpenAILike one per frame; the table shows both.

Printed: the median CPU microseconds per wire chunk of each client and their ratio (goal:
SSELLM at most 0.35x OpenAILike), and for each client the per-chunk cost at the large size
over the small size (goal for SSELLM: at most 1.10, flat; a client that rebuilds the running
text per chunk grows with the answer).

Checked (exit status 1 when wrong): in every run both clients end with the same text, the
answer the emulator was asked to echo. The emulator is stopped (killed if it does not stop)
however the run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.llms.openai_like import OpenAILike

from llamaindex_sse import SSELLM

MODEL = "emulator"


@contextmanager
def emulator() -> Iterator[str]:
    """The emulator in a child process on a free loopback port; yields its base URL."""
    child = subprocess.Popen(
        [sys.executable, "-m", "sse_emulator", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()  # "... on http://127.0.0.1:<port> (base URLs: ...)"
        url = line.split(" on ", 1)[1].split()[0]
        yield url + "/v1"
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(timeout=10)
        if child.stdout is not None:
            child.stdout.close()


def ask(words: int) -> list[ChatMessage]:
    return [ChatMessage(role="user", content="echo: " + " ".join(["w"] * words))]


def wire_chunks(base_url: str, words: int) -> int:
    """How many ``data:`` chunks (``[DONE]`` excluded) the emulator sends for the answer."""
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": ask(words)[0].content}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    with httpx.stream("POST", base_url + "/chat/completions", json=body, timeout=120) as reply:
        frames = sum(1 for line in reply.iter_lines() if line.startswith("data: {"))
    return frames


def sse_llm(base_url: str) -> SSELLM:
    return SSELLM(model=MODEL, base_url=base_url, api_key="bench", max_retries=0, timeout=120)


def sse_llm_otel(base_url: str) -> SSELLM:
    """SSELLM recording to a local OpenTelemetry SDK provider (telemetry on)."""
    from otel_local import local_telemetry

    return SSELLM(
        model=MODEL,
        base_url=base_url,
        api_key="bench",
        max_retries=0,
        timeout=120,
        telemetry=local_telemetry(),
    )


def openai_like(base_url: str) -> OpenAILike:
    return OpenAILike(
        model=MODEL,
        api_base=base_url,
        api_key="bench",
        is_chat_model=True,
        is_function_calling_model=True,
        max_retries=0,
        timeout=120,
    )


@dataclass
class Run:
    cpu: float  # seconds of thread CPU
    responses: int
    text: str  # the last response's message text


def run_sync(llm: FunctionCallingLLM, messages: list[ChatMessage]) -> Run:
    gc.collect()
    responses = 0
    last = None
    started = time.thread_time()
    for response in llm.stream_chat(messages):
        responses += 1
        last = response
    cpu = time.thread_time() - started
    return Run(cpu, responses, str(last.message.content) if last else "")


async def run_async(llm: FunctionCallingLLM, messages: list[ChatMessage]) -> Run:
    gc.collect()
    responses = 0
    last = None
    started = time.thread_time()
    async for response in await llm.astream_chat(messages):
        responses += 1
        last = response
    cpu = time.thread_time() - started
    return Run(cpu, responses, str(last.message.content) if last else "")


Series = dict[str, list[Run]]
CLIENTS: dict[str, Callable[[str], FunctionCallingLLM]] = {
    "SSELLM": sse_llm,
    "OpenAILike": openai_like,
    "SSELLM+otel": sse_llm_otel,
}


def series_sync(base_url: str, messages: list[ChatMessage], repeats: int) -> Series:
    """``repeats`` runs of each client, interleaved so drift hits both alike."""
    llms = {name: make(base_url) for name, make in CLIENTS.items()}
    for llm in llms.values():  # warm up: imports, pools, the first connection
        run_sync(llm, ask(10))
    runs: Series = {name: [] for name in llms}
    for _ in range(repeats):
        for name, llm in llms.items():
            runs[name].append(run_sync(llm, messages))
    return runs


async def series_async(base_url: str, messages: list[ChatMessage], repeats: int) -> Series:
    """Async twin of :func:`series_sync`, all in one event loop (clients pool per loop)."""
    llms = {name: make(base_url) for name, make in CLIENTS.items()}
    for llm in llms.values():
        await run_async(llm, ask(10))
    runs: Series = {name: [] for name in llms}
    for _ in range(repeats):
        for name, llm in llms.items():
            runs[name].append(await run_async(llm, messages))
    return runs


MODES = ("sync", "async")
Key = tuple[str, str, int]


def check(runs: Series, size: int, mode: str) -> list[str]:
    """What is wrong with the texts of ``runs`` (each should be the ``size`` words echoed)."""
    texts = {run.text for series in runs.values() for run in series}
    if len(texts) != 1 or texts.pop().split() != ["w"] * size:
        return [f"{mode}, {size} words: the clients' texts differ or are not the echo"]
    return []


def bench(base_url: str, sizes: list[int], repeats: int) -> list[str]:
    errors: list[str] = []
    chunks = {size: wire_chunks(base_url, size) for size in sizes}
    per_chunk: dict[Key, list[float]] = {}
    responses: dict[Key, float] = {}
    for size in sizes:
        messages = ask(size)
        for mode in MODES:
            if mode == "sync":
                runs = series_sync(base_url, messages, repeats)
            else:
                runs = asyncio.run(series_async(base_url, messages, repeats))
            errors += check(runs, size, mode)
            for name, series in runs.items():
                per_chunk[(name, mode, size)] = [run.cpu / chunks[size] for run in series]
                responses[(name, mode, size)] = statistics.median(r.responses for r in series)
    report(sizes, chunks, per_chunk, responses)
    return errors


def report(
    sizes: list[int],
    chunks: dict[int, int],
    per_chunk: dict[Key, list[float]],
    responses: dict[Key, float],
) -> None:
    def median_us(key: Key) -> float:
        return statistics.median(per_chunk[key]) * 1e6

    print(f"\n{'mode':<6} {'chunks':>7} {'client':<11} {'CPU us/chunk':>13} {'responses':>10}")
    for mode in MODES:
        for size in sizes:
            for name in CLIENTS:
                key = (name, mode, size)
                print(
                    f"{mode:<6} {chunks[size]:>7} {name:<11} "
                    f"{median_us(key):>13.2f} {responses[key]:>10.0f}"
                )
    small, large = sizes[0], sizes[-1]
    print("\nratios (medians)")
    for mode in MODES:
        for size in sizes:
            ratio = median_us(("SSELLM", mode, size)) / median_us(("OpenAILike", mode, size))
            verdict = "ok" if ratio <= 0.35 else "ABOVE GOAL"
            print(
                f"  {mode:<5} {chunks[size]:>7} chunks: SSELLM / OpenAILike = {ratio:.3f}x  "
                f"(goal <= 0.35: {verdict})"
            )
            on = median_us(("SSELLM+otel", mode, size)) / median_us(("SSELLM", mode, size))
            print(f"  {mode:<5} {chunks[size]:>7} chunks: telemetry on (SDK) / off = {on:.3f}x")
        for name in CLIENTS:
            growth = median_us((name, mode, large)) / median_us((name, mode, small))
            goal = f"  (goal <= 1.10: {'ok' if growth <= 1.10 else 'ABOVE GOAL'})"
            print(
                f"  {mode:<5} {name:<11} per-chunk {chunks[large]} / {chunks[small]} = "
                f"{growth:.3f}{goal if name == 'SSELLM' else ''}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per client and size")
    parser.add_argument("--quick", action="store_true", help="200 and 2k chunks, 2 runs")
    args = parser.parse_args()
    sizes = [200, 2_000] if args.quick else [10_000, 100_000]
    repeats = 2 if args.quick else args.repeats
    print(f"python {sys.version.split()[0]}; sizes {sizes}; {repeats} runs each, interleaved")
    with emulator() as base_url:
        errors = bench(base_url, sizes, repeats)
    for error in errors:
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
