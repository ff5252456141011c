"""How fast the gateway learns the caller left: a bare ``break`` out of an async stream against
``contextlib.aclosing``, through ChatSSE.astream and SSELLM.astream_chat.

Each stream asks the emulator (on loopback, in this process's background thread) for a long,
slow answer; the caller leaves after the first chunk, either with a bare ``break`` (the
stream object dropped, so the event loop's asyncgen finalizer closes it) or inside
``aclosing``. The time is from the caller's leaving to the emulator's record of the client
going (its own clock, the same monotonic one). The loop keeps turning meanwhile (the caller
waits on the emulator's record, as an application goes on with its work), and the cyclic
garbage collector is off: a reference cycle that kept the stream alive until a collection
would show as a stream never closed. Medians and the worst, in milliseconds.

    .venv/bin/python benchmarks/bench_break.py [--quick] [--streams N] [--fast 0|1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from llama_index.core.llms import ChatMessage

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_emulator import Emulator

LONG = "count to 500"
SLOW = {"X-Emulator-Fault": "slow; delay=0.05"}


async def _open_chatsse(model: Any) -> Any:
    return model.astream(LONG)


async def _open_ssellm(model: Any) -> Any:
    return await model.astream_chat([ChatMessage(role="user", content=LONG)])


async def _leave(open_stream: Callable[[Any], Awaitable[Any]], model: Any, closing: bool) -> float:
    """Read the first chunk and leave (``closing``: inside ``aclosing``; else a bare break,
    the stream dropped); when the caller left."""
    stream = await open_stream(model)
    if closing:
        async with contextlib.aclosing(stream):
            async for _ in stream:
                break
            left = time.monotonic()
        return left
    async for _ in stream:
        break
    left = time.monotonic()
    del stream
    return left


async def _run(
    emulator: Emulator, open_stream: Callable[[Any], Awaitable[Any]], model: Any, closing: bool,
    streams: int,
) -> tuple[list[float], int]:  # fmt: skip
    """The delays (ms) from leaving to the gateway's record of it, and streams never closed."""
    delays: list[float] = []
    never = 0
    for _ in range(streams):
        emulator.reset()
        left = await _leave(open_stream, model, closing)
        try:
            record = await emulator.wait_for_disconnect_async(5.0)
        except TimeoutError:
            never += 1
            continue
        assert record.disconnected and not record.completed, record
        assert record.disconnected_at is not None
        # aclosing's close is awaited before `left` is read: the record can come first.
        delays.append(max(record.disconnected_at - left, 0.0) * 1000)
    return delays, never


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few streams: the checks only")
    parser.add_argument("--streams", type=int, default=200)
    args = parser.parse_args(argv)
    streams = 5 if args.quick else args.streams
    gc.disable()  # a stream kept alive by a cycle would never close
    failed = False
    print(f"{'adapter':<10} {'leaving':<10} {'median ms':>10} {'max ms':>8} {'never':>6}")
    with Emulator() as emulator:
        cases = [
            ("ChatSSE", _open_chatsse, ChatSSE),
            ("SSELLM", _open_ssellm, SSELLM),
        ]
        for name, open_stream, cls in cases:
            model = cls(model="m", base_url=emulator.base_url(), api_key="k",
                        default_headers=SLOW)  # fmt: skip
            for closing in (False, True):
                delays, never = asyncio.run(_run(emulator, open_stream, model, closing, streams))
                label = "aclosing" if closing else "break"
                worst = max(delays) if delays else float("nan")
                median = statistics.median(delays) if delays else float("nan")
                print(f"{name:<10} {label:<10} {median:>10.2f} {worst:>8.2f} {never:>6}")
                failed |= never > 0
    gc.enable()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
