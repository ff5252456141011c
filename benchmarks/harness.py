"""What the protocol benchmarks share (``bench_anthropic``, ``bench_responses``,
``bench_gemini``, ``bench_langchain``): CPU per delta of variants run side by side, the time to
a first text, medians and ratios. Each benchmark keeps its own variants, checks and report."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Protocol, TypeVar

__all__ = ["cpu_per_delta", "first_text", "median", "ratio"]

Seen = TypeVar("Seen")


class Expected(Protocol):
    """What a run must show; ``deltas``: how many deltas its stream holds."""

    @property
    def deltas(self) -> int: ...


E = TypeVar("E", bound=Expected)


def cpu_per_delta(
    runs: dict[str, Callable[[], Seen]],
    expected: E,
    repeat: int,
    errors: list[str],
    check: Callable[[str, Seen, E], list[str]],
    slow: dict[str, int] | None = None,
) -> dict[str, list[float]]:
    """µs of process CPU per delta of each run of each variant, taking turns, each run checked
    (what is wrong goes to ``errors``); ``slow``: the variants run only so many times, with no
    warm-up."""
    slow = slow or {}
    for name, run in runs.items():
        if name not in slow:
            errors += check(name, run(), expected)  # warm-up: imports, pools, the connection
    gc.collect()
    gc.freeze()
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for turn in range(repeat):
        for name, run in runs.items():
            if turn >= slow.get(name, repeat):
                continue
            gc.collect()
            started = time.process_time()
            got = run()
            samples[name].append((time.process_time() - started) / expected.deltas * 1e6)
            errors += check(name, got, expected)
            del got
    gc.unfreeze()
    return samples


def first_text(texts: Callable[[], Iterator[str]]) -> tuple[float, str, str]:
    """Seconds to the first text of a stream (from the call), that text, and the whole."""
    started = time.perf_counter()
    stream = texts()
    first = next(stream, "")
    elapsed = time.perf_counter() - started
    return elapsed, first, first + "".join(stream)


def median(values: list[float]) -> float:
    """The median, rounded to 3 places."""
    return round(statistics.median(values), 3)


def ratio(value: float, anchor: float, width: int = 6) -> str:
    """``value / anchor`` as ``"0.25x"``, or ``"n/a"`` when the anchor measured nothing.

    A figure such as the growth of the resident set can be zero for the anchor on a short
    run; a ratio to it says nothing, so the report says so instead of failing.
    """
    if anchor <= 0:
        return f"{'n/a':>{width + 1}}"
    return f"{value / anchor:{width}.2f}x"
