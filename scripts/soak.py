"""Soak the transport and both adapters with thousands of mixed-fault streams; find leaks.

Each stream is planned from a seed: a channel (``ChatClient``, ``AsyncChatClient``,
LangChain's ``ChatSSE`` sync and async, LlamaIndex's ``SSELLM`` sync and async), an
emulator fault (none, a mid-stream error frame, truncation, a stall under a short idle
timeout, a reset connection, a 429 then success, a 502 then success, a slow stream, UTF-8
split across writes, bursts of frames) and a way of reading it: to the end, the whole
answer at once, or abandoned after the first piece (``break`` with no close). Sync streams
run on a thread pool, async ones concurrently in one event loop. The emulator runs in a
child process, so every socket this process holds is a client's.

Printed: open sockets, file descriptors and RSS before and after (the clients closed or
dropped and collected), the peak of sockets seen meanwhile and the maximum RSS, outcomes by
fault, errors by type, and every *untyped exception* (one that is not an
``SSEConnectorError``) with its traceback. Exit status 1 on a leaked socket or an untyped
exception.

Run: ``.venv/bin/python scripts/soak.py [--streams N] [--quick] [--seed S]``
(``--streams`` 10,000 by default; ``--quick``: 300).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import os
import random
import re
import resource
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

from sse_core import (
    AsyncChatClient,
    ChatClient,
    RetryPolicy,
    SSEConnectorError,
    Timeouts,
)

QUICK = 300
THREADS = 8
CONCURRENCY = 16
STALL_IDLE = 0.3  # the idle timeout of the streams that stall

#: Fault name -> the X-Emulator-Fault header value (None: no fault).
FAULTS: dict[str, str | None] = {
    "none": None,
    "error-frame": "error-frame; after=2",
    "truncate": "truncate; after=2",
    "stall": "stall; after=2; seconds=5",
    "reset": "reset; after=2",
    "429-then-ok": "rate-limit; count=1; retry-after=0",
    "502-then-ok": "bad-gateway; count=1",
    "slow": "slow; delay=0.005",
    "split-utf8": "split-utf8; pause=0.001",
    "burst": "burst; frames=4",
}
CHANNELS = ("client", "langchain", "llamaindex")
MODES = ("consume", "whole", "abandon")


@dataclass(frozen=True)
class Plan:
    """One stream: what to call, with which fault, read how."""

    index: int
    channel: str
    is_async: bool
    fault: str
    mode: str

    @property
    def prompt(self) -> str:
        """The question: unique per stream (a status fault's count is kept per body)."""
        return f"echo: soak {self.index} café ☕ done"


def plans(count: int, seed: int) -> list[Plan]:
    """``count`` streams, drawn from ``seed``."""
    rng = random.Random(seed)
    return [
        Plan(
            index=i,
            channel=rng.choice(CHANNELS),
            is_async=rng.random() < 0.5,
            fault=rng.choice(sorted(FAULTS)),
            mode=rng.choice(MODES),
        )
        for i in range(count)
    ]


# --- the gateway: the emulator in a child process -----------------------------------------------


class Gateway:
    """``python -m sse_emulator --port 0`` in a child process, stopped by :meth:`stop`."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sse_emulator", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        banner = self.process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", banner)
        if found is None:
            self.stop()
            raise RuntimeError(f"the emulator did not start: {banner!r}")
        self.base_url = f"http://127.0.0.1:{found.group(1)}/v1"

    def stop(self) -> None:
        """End the child process (the one this object started)."""
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


# --- resources ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Sockets, file descriptors and resident memory of this process at one moment."""

    sockets: int
    fds: int
    rss_mib: float


def _fd_targets() -> list[str]:
    targets = []
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the fd listdir itself used is gone by now
            targets.append(os.readlink(f"/proc/self/fd/{name}"))
    return targets


def usage() -> Usage:
    """What this process holds now (psutil if installed, else /proc/self)."""
    try:
        import psutil  # type: ignore[import-untyped]
    except ImportError:
        targets = _fd_targets()
        sockets = sum(1 for t in targets if t.startswith("socket:"))
        with open("/proc/self/statm") as statm:
            rss = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        return Usage(sockets=sockets, fds=len(targets), rss_mib=rss / 2**20)
    process = psutil.Process()
    return Usage(
        sockets=len(process.net_connections(kind="all")),
        fds=process.num_fds(),
        rss_mib=process.memory_info().rss / 2**20,
    )


def max_rss_mib() -> float:
    """The largest RSS this process had (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- the tally ------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Outcomes by fault, errors by type, untyped exceptions, the peak of sockets."""

    outcomes: dict[str, collections.Counter[str]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    untyped: list[str] = field(default_factory=list)
    peak_sockets: int = 0
    done: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, plan: Plan, error: BaseException | None) -> None:
        """Count how ``plan`` ended: well (``error`` None), typed, or untyped."""
        with self.lock:
            self.done += 1
            if error is None:
                self.outcomes[plan.fault]["ok"] += 1
                return
            name = type(error).__name__
            self.outcomes[plan.fault][name] += 1
            if isinstance(error, SSEConnectorError):
                self.errors[name] += 1
                return
            trace = "".join(traceback.format_exception(error))
            self.untyped.append(f"{plan}:\n{trace}")

    def sample(self) -> None:
        """Note the sockets open now (every few streams)."""
        sockets = usage().sockets
        with self.lock:
            self.peak_sockets = max(self.peak_sockets, sockets)


# --- the channels: sync -------------------------------------------------------------------------


def _headers(plan: Plan) -> dict[str, str]:
    value = FAULTS[plan.fault]
    return {"X-Emulator-Fault": value} if value else {}


def _timeout(plan: Plan) -> Timeouts:
    return Timeouts(idle=STALL_IDLE) if plan.fault == "stall" else Timeouts()


FAST_RETRY = RetryPolicy(max_retries=2, initial_delay=0.01, max_delay=0.05)


class Models:
    """The clients and adapter models, one per (channel, fault), made on first use."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self._made: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def get(self, kind: str, plan: Plan) -> Any:
        """The ``kind`` object for ``plan``'s fault."""
        key = (kind, plan.fault)
        with self._lock:
            if key not in self._made:
                self._made[key] = self._make(kind, plan)
            return self._made[key]

    def _make(self, kind: str, plan: Plan) -> Any:
        settings: dict[str, Any] = {"base_url": self.base_url, "timeout": _timeout(plan)}
        if kind == "client":
            return ChatClient(retry=FAST_RETRY, **settings)
        if kind == "async-client":
            return AsyncChatClient(retry=FAST_RETRY, **settings)
        headers = _headers(plan) or None
        if kind == "langchain":
            from langchain_sse import ChatSSE

            return ChatSSE(model="m", api_key="sk-soak", default_headers=headers, **settings)
        from llamaindex_sse import SSELLM

        return SSELLM(model="m", default_headers=headers or {}, **settings)

    def close(self) -> None:
        """Close the sync core clients; drop everything else (collected afterwards)."""
        for (kind, _), made in self._made.items():
            if kind == "client":
                made.close()
        self._made.clear()

    async def aclose(self) -> None:
        """Close the async core clients (in the loop that made them)."""
        for (kind, _), made in list(self._made.items()):
            if kind == "async-client":
                await made.aclose()


def _read(items: Iterator[Any], mode: str) -> None:
    for _ in items:
        if mode == "abandon":
            break  # no close: the stream is dropped here


def run_client(models: Models, plan: Plan) -> None:
    client: ChatClient = models.get("client", plan)
    body = {"model": "m", "messages": [{"role": "user", "content": plan.prompt}]}
    if plan.mode == "whole":
        client.complete(body, headers=_headers(plan))
        return
    _read(iter(client.stream(body, headers=_headers(plan))), plan.mode)


def run_langchain(models: Models, plan: Plan) -> None:
    model = models.get("langchain", plan)
    if plan.mode == "whole":
        model.invoke(plan.prompt)
        return
    _read(model.stream(plan.prompt), plan.mode)


def _messages(plan: Plan) -> list[Any]:
    from llama_index.core.llms import ChatMessage

    return [ChatMessage(role="user", content=plan.prompt)]


def run_llamaindex(models: Models, plan: Plan) -> None:
    llm = models.get("llamaindex", plan)
    if plan.mode == "whole":
        llm.chat(_messages(plan))
        return
    _read(llm.stream_chat(_messages(plan)), plan.mode)


SYNC: dict[str, Callable[[Models, Plan], None]] = {
    "client": run_client,
    "langchain": run_langchain,
    "llamaindex": run_llamaindex,
}


def run_sync(models: Models, plan: Plan, tally: Tally) -> None:
    """One sync stream, its outcome counted."""
    try:
        SYNC[plan.channel](models, plan)
    except Exception as exc:
        tally.record(plan, exc)
    else:
        tally.record(plan, None)
    if plan.index % 50 == 0:
        tally.sample()


# --- the channels: async ------------------------------------------------------------------------


async def _aread(items: AsyncIterator[Any], mode: str) -> None:
    async for _ in items:
        if mode == "abandon":
            break  # no aclose: the stream is dropped here


async def arun_client(models: Models, plan: Plan) -> None:
    client: AsyncChatClient = models.get("async-client", plan)
    body = {"model": "m", "messages": [{"role": "user", "content": plan.prompt}]}
    if plan.mode == "whole":
        await client.complete(body, headers=_headers(plan))
        return
    await _aread(aiter(client.stream(body, headers=_headers(plan))), plan.mode)


async def arun_langchain(models: Models, plan: Plan) -> None:
    model = models.get("langchain", plan)
    if plan.mode == "whole":
        await model.ainvoke(plan.prompt)
        return
    await _aread(model.astream(plan.prompt), plan.mode)


async def arun_llamaindex(models: Models, plan: Plan) -> None:
    llm = models.get("llamaindex", plan)
    if plan.mode == "whole":
        await llm.achat(_messages(plan))
        return
    await _aread(await llm.astream_chat(_messages(plan)), plan.mode)


ASYNC: dict[str, Callable[[Models, Plan], Awaitable[None]]] = {
    "client": arun_client,
    "langchain": arun_langchain,
    "llamaindex": arun_llamaindex,
}


async def arun(models: Models, plan: Plan, tally: Tally, gate: asyncio.Semaphore) -> None:
    """One async stream, its outcome counted."""
    async with gate:
        try:
            await ASYNC[plan.channel](models, plan)
        except Exception as exc:
            tally.record(plan, exc)
        else:
            tally.record(plan, None)
    if plan.index % 50 == 0:
        tally.sample()


async def async_part(models: Models, work: Sequence[Plan], tally: Tally) -> None:
    gate = asyncio.Semaphore(CONCURRENCY)
    await asyncio.gather(*(arun(models, plan, tally, gate) for plan in work))
    await models.aclose()


def sync_part(models: Models, work: Sequence[Plan], tally: Tally) -> None:
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for future in [pool.submit(run_sync, models, plan, tally) for plan in work]:
            future.result()


# --- the run ------------------------------------------------------------------------------------


@dataclass
class Result:
    """What a soak run measured."""

    streams: int
    before: Usage
    after: Usage
    tally: Tally
    elapsed: float

    @property
    def leaked_sockets(self) -> int:
        """Sockets open after the run that were not open before it."""
        return max(self.after.sockets - self.before.sockets, 0)

    @property
    def failed(self) -> bool:
        """A leaked socket or an untyped exception."""
        return bool(self.leaked_sockets or self.tally.untyped)


def _run_all(work: Sequence[Plan], base_url: str, tally: Tally) -> None:
    """The async streams in an event loop on a thread of their own, the sync ones on a
    thread pool, at the same time; every client closed or dropped at the end."""
    models = Models(base_url)
    async_work = [plan for plan in work if plan.is_async]
    runner = threading.Thread(target=asyncio.run, args=(async_part(models, async_work, tally),))
    runner.start()
    sync_part(models, [plan for plan in work if not plan.is_async], tally)
    runner.join()
    models.close()


def soak(streams: int, seed: int, base_url: str) -> Result:
    """Run ``streams`` planned streams against ``base_url``; measure before and after."""
    import llama_index.core.llms  # noqa: F401

    import langchain_sse  # noqa: F401 - imported before measuring, as the streams need them
    import llamaindex_sse  # noqa: F401

    work = plans(streams, seed)
    gc.collect()
    before = usage()
    tally = Tally(peak_sockets=before.sockets)
    started = time.perf_counter()
    _run_all(work, base_url, tally)
    elapsed = time.perf_counter() - started
    gc.collect()  # what only the dropped objects held is released now
    after = usage()
    # Responses dropped inside a collection are closed on the closer thread, a moment later:
    # a socket still open 2 s on is a leak, one closing meanwhile is not.
    settled = time.monotonic() + 2.0
    while after.sockets > before.sockets and time.monotonic() < settled:
        time.sleep(0.05)
        gc.collect()
        after = usage()
    return Result(streams, before, after, tally, elapsed)


def report(result: Result, out: TextIO) -> None:
    """Print the figures of a run."""
    before, after, tally = result.before, result.after, result.tally
    print(f"streams: {result.streams} in {result.elapsed:.1f} s", file=out)
    print(
        f"sockets: {before.sockets} before, {after.sockets} after "
        f"(peak {tally.peak_sockets}); leaked: {result.leaked_sockets}",
        file=out,
    )
    print(f"file descriptors: {before.fds} before, {after.fds} after", file=out)
    print(
        f"RSS: {before.rss_mib:.1f} MiB before, {after.rss_mib:.1f} MiB after, "
        f"max {max_rss_mib():.1f} MiB",
        file=out,
    )
    print("outcomes by fault:", file=out)
    for fault in sorted(tally.outcomes):
        counts = ", ".join(f"{k} {v}" for k, v in tally.outcomes[fault].most_common())
        print(f"  {fault:<12} {counts}", file=out)
    errors = ", ".join(f"{k} {v}" for k, v in tally.errors.most_common()) or "none"
    print(f"errors by type: {errors}", file=out)
    print(f"untyped exceptions: {len(tally.untyped)}", file=out)
    for trace in tally.untyped[:10]:
        print(f"--- untyped exception in {trace}", file=out)


def main(argv: Sequence[str] | None = None, *, out: TextIO = sys.stdout) -> int:
    """Parse the arguments, soak, print; 1 on a leaked socket or an untyped exception."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=10_000, help="streams (10000)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK} streams")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    args = parser.parse_args(argv)
    streams = QUICK if args.quick else args.streams
    gateway = Gateway()
    try:
        result = soak(streams, args.seed, gateway.base_url)
    finally:
        gateway.stop()
    report(result, out)
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
