"""Time to the first token, over raw httpx: every client and adapter path, sync and async.

``stream_server.py`` (a subprocess) answers each request with a 4-frame stream whose first
content frame goes out with the response head, so the time from the call to the first
content delta is the client's own work: building the request, sending it, reading the
head and the first frame, and every layer on the way back. Measured for:

- sync: raw ``httpx.Client`` + ``orjson`` (the baseline), ``ChatClient.stream``,
  ``ChatSSE.stream``, ``SSELLM.stream_chat``;
- async: raw ``httpx.AsyncClient`` + ``orjson`` (the async baseline),
  ``AsyncChatClient.stream``, ``ChatSSE.astream``, ``SSELLM.astream_chat``.

Beside the sync adapters, each framework's floor (``first_token_floors.py``: its least
model over ``ChatClient``, what any model of that framework adds before its first chunk) and
what the adapter adds over it. Each client is made once and warmed up (its pool holds a
connection), then the paths take turns, ``--repeat`` times; the rest of each answer is read
outside the timing. Printed: the median time to the first token and the time added over the
baseline (goals: at most 0.5 ms for a sync path, 0.75 ms for an async one; on a loaded
2-core machine the frameworks' floors alone may be above them). Checked (exit status 1 when wrong):
every path's first token is the stream's first word and every answer is whole. The server
is stopped however the run ends. Run:
``.venv/bin/python benchmarks/bench_first_token.py [--repeat R] [--quick]``
(``--quick``: 20 runs).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import orjson
from first_token_floors import LangChainFloor, LlamaIndexFloor
from llama_index.core.base.llms.types import ChatMessage
from stream_server import running, text_words

import sse_core
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM

FRAMES = 4
#: The first word (what the first token must be) and the whole text.
FIRST, TEXT = text_words(FRAMES - 3)[0], "".join(text_words(FRAMES - 3))
BODY = {"model": "bench-model", "messages": [{"role": "user", "content": "go"}]}
ASK = [ChatMessage(role="user", content="go")]
GOALS = {"sync": 0.5, "async": 0.75}  # ms over the baseline
LC_FLOOR = "LangChain floor (BaseChatModel.stream)"
LI_FLOOR = "LlamaIndex floor (CustomLLM.stream_chat)"
#: Each adapter's framework floor (``first_token_floors.py``), printed beside it (sync).
FLOORS = {"ChatSSE.stream": LC_FLOOR, "SSELLM.stream_chat": LI_FLOOR}


# --- each path: the texts it yields, the first one as soon as it arrives ----------------------


def _raw_lines(lines: Iterator[str]) -> Iterator[str]:
    for line in lines:
        if line.startswith("data: {"):
            choices = orjson.loads(line[6:])["choices"]
            if choices and (text := choices[0]["delta"].get("content")):
                yield text


def raw_sync(http: httpx.Client, url: str) -> Iterator[str]:
    with http.stream("POST", url + "/chat/completions", json={**BODY, "stream": True}) as reply:
        yield from _raw_lines(reply.iter_lines())


async def raw_async(http: httpx.AsyncClient, url: str) -> AsyncIterator[str]:
    async with http.stream("POST", url + "/chat/completions", json={**BODY, "stream": True}) as r:
        async for line in r.aiter_lines():
            for text in _raw_lines(iter((line,))):
                yield text


def client_sync(client: sse_core.ChatClient) -> Iterator[str]:
    with client.stream(BODY) as stream:
        for event in stream:
            if type(event) is sse_core.TextDelta:
                yield event.text


async def client_async(client: sse_core.AsyncChatClient) -> AsyncIterator[str]:
    async with client.stream(BODY) as stream:
        async for event in stream:
            if type(event) is sse_core.TextDelta:
                yield event.text


def chatsse_sync(model: ChatSSE) -> Iterator[str]:
    for chunk in model.stream("go"):
        if chunk.content:
            yield str(chunk.content)


async def chatsse_async(model: ChatSSE) -> AsyncIterator[str]:
    async for chunk in model.astream("go"):
        if chunk.content:
            yield str(chunk.content)


def ssellm_sync(llm: SSELLM) -> Iterator[str]:
    for response in llm.stream_chat(ASK):
        if response.delta:
            yield response.delta


async def ssellm_async(llm: SSELLM) -> AsyncIterator[str]:
    async for response in await llm.astream_chat(ASK):
        if response.delta:
            yield response.delta


# --- timing ----------------------------------------------------------------------------------

Outcome = tuple[float, str, str]  # seconds to the first text, the first text, the whole text


def time_sync(texts: Callable[[], Iterator[str]]) -> Outcome:
    started = time.perf_counter()
    stream = texts()
    first = next(stream, "")
    elapsed = time.perf_counter() - started
    return elapsed, first, first + "".join(stream)


async def time_async(texts: Callable[[], AsyncIterator[str]]) -> Outcome:
    started = time.perf_counter()
    stream = texts()
    first = await anext(stream, "")
    elapsed = time.perf_counter() - started
    return elapsed, first, first + "".join([text async for text in stream])


def _record(samples: dict[str, list[float]], errors: list[str], name: str, got: Outcome) -> None:
    elapsed, first, whole = got
    if first != FIRST or whole != TEXT:
        errors.append(
            f"{name}: expected {FIRST!r} first and {TEXT!r} whole, got {first!r}/{whole!r}"
        )
    samples.setdefault(name, []).append(elapsed)


def measure_sync(url: str, repeat: int, errors: list[str]) -> dict[str, list[float]]:
    http = httpx.Client(timeout=30)
    client = sse_core.ChatClient(base_url=url, api_key="bench")
    model = ChatSSE(model="bench-model", base_url=url, api_key="bench", max_retries=0)
    llm = SSELLM(model="bench-model", base_url=url, api_key="bench", max_retries=0)
    lc_floor = LangChainFloor(client=client, body=BODY)
    li_floor = LlamaIndexFloor(client=client, body=BODY)
    paths: dict[str, Callable[[], Iterator[str]]] = {
        "raw httpx (baseline)": lambda: raw_sync(http, url),
        "ChatClient.stream": lambda: client_sync(client),
        "ChatSSE.stream": lambda: chatsse_sync(model),
        "SSELLM.stream_chat": lambda: ssellm_sync(llm),
        LC_FLOOR: lambda: (str(c.content) for c in lc_floor.stream("go") if c.content),
        LI_FLOOR: lambda: (r.delta for r in li_floor.stream_chat(ASK) if r.delta),
    }
    samples: dict[str, list[float]] = {}
    for texts in paths.values():
        time_sync(texts)  # warm-up: imports, pools, the connection
    gc.collect()
    gc.freeze()
    for _ in range(repeat):
        for name, texts in paths.items():
            _record(samples, errors, name, time_sync(texts))
    for closable in (http, client, llm, model):
        closable.close()
    return samples


async def measure_async(url: str, repeat: int, errors: list[str]) -> dict[str, list[float]]:
    http = httpx.AsyncClient(timeout=30)
    client = sse_core.AsyncChatClient(base_url=url, api_key="bench")
    model = ChatSSE(model="bench-model", base_url=url, api_key="bench", max_retries=0)
    llm = SSELLM(model="bench-model", base_url=url, api_key="bench", max_retries=0)
    paths: dict[str, Callable[[], AsyncIterator[str]]] = {
        "raw httpx (baseline)": lambda: raw_async(http, url),
        "AsyncChatClient.stream": lambda: client_async(client),
        "ChatSSE.astream": lambda: chatsse_async(model),
        "SSELLM.astream_chat": lambda: ssellm_async(llm),
    }
    samples: dict[str, list[float]] = {}
    for texts in paths.values():
        await time_async(texts)
    gc.collect()
    gc.freeze()
    for _ in range(repeat):
        for name, texts in paths.items():
            _record(samples, errors, name, await time_async(texts))
    closing: list[Awaitable[Any]] = [http.aclose(), client.aclose(), llm.aclose(), model.aclose()]
    await asyncio.gather(*closing)
    return samples


def report(mode: str, samples: dict[str, list[float]]) -> None:
    medians = {name: statistics.median(values) * 1e3 for name, values in samples.items()}
    base = next(iter(medians.values()))
    print(f"{mode} (median of {len(next(iter(samples.values())))}; goal: +{GOALS[mode]} ms):")
    for name, value in medians.items():
        added = value - base
        verdict = "" if added <= GOALS[mode] or name in FLOORS.values() else "  ABOVE GOAL"
        floor = medians.get(FLOORS.get(name, ""))
        beside = "" if floor is None else f"  ({value - floor:+.3f} ms over its floor)"
        print(f"  {name:<40}{value:8.3f} ms {added:+8.3f} ms{beside}{verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="20 runs")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 20
    errors: list[str] = []
    with running(FRAMES) as url:
        sync = measure_sync(url, args.repeat, errors)
        asynchronous = asyncio.run(measure_async(url, args.repeat, errors))
    print(f"Time to the first token over loopback, {FRAMES}-frame answers")
    report("sync", sync)
    report("async", asynchronous)
    for error in sorted(set(errors)):
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
