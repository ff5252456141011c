"""Accumulation is linear: a 200 KB tool argument in 20,000 pieces costs the same per piece
as one in 20 (and text the same), measured as per-piece ratios in one run.

Run: ``.venv/bin/python benchmarks/bench_accumulator.py``.
"""

from __future__ import annotations

import statistics
import time

import sse_core

PIECE = 10  # bytes per piece: 20,000 pieces make a 200 KB argument


def pieces(count: int, tool: bool) -> list[sse_core.StreamEvent]:
    if tool:
        head: list[sse_core.StreamEvent] = [sse_core.ToolCallDelta(index=0, id="c", name="f")]
        return head + [sse_core.ToolCallDelta(index=0, arguments="x" * PIECE) for _ in range(count)]
    return [sse_core.TextDelta(text="x" * PIECE) for _ in range(count)]


def per_piece(count: int, tool: bool, repeat: int = 15) -> float:
    """Median seconds per piece to accumulate ``count`` pieces and assemble the Completion."""
    events = pieces(count, tool)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        acc = sse_core.Accumulator()
        acc.extend(events)
        acc.extend([sse_core.Finish(reason="stop")])
        result = acc.finish()
        times.append(time.perf_counter() - start)
        assert len(result.tool_calls[0].arguments if tool else result.content) == count * PIECE
    return statistics.median(times) / count


def main() -> None:
    for tool in (True, False):
        label = "tool arguments" if tool else "text"
        costs = {n: per_piece(n, tool) for n in (20, 2_000, 20_000)}
        row = ", ".join(f"{n:>6} pieces {c * 1e6:.3f} us" for n, c in costs.items())
        print(f"{label:15} per piece: {row}")
        print(f"{'':15} per-piece ratio, 20,000 over 20 pieces: {costs[20_000] / costs[20]:.2f}")


if __name__ == "__main__":
    main()
