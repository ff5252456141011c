"""Accumulation is linear: a 200 KB tool argument in 20,000 pieces costs the same per piece
as one in 20 (and text the same), measured as per-piece ratios in one run.

Checked (exit status 1 when wrong): each Completion holds the whole text or argument.
Run: ``.venv/bin/python benchmarks/bench_accumulator.py [--quick]`` (``--quick``: 20 / 200 /
2,000 pieces, 3 runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import sse_core

PIECE = 10  # bytes per piece: 20,000 pieces make a 200 KB argument


def pieces(count: int, tool: bool) -> list[sse_core.StreamEvent]:
    if tool:
        head: list[sse_core.StreamEvent] = [sse_core.ToolCallDelta(index=0, id="c", name="f")]
        return head + [sse_core.ToolCallDelta(index=0, arguments="x" * PIECE) for _ in range(count)]
    return [sse_core.TextDelta(text="x" * PIECE) for _ in range(count)]


def per_piece(count: int, tool: bool, repeat: int, errors: list[str]) -> float:
    """Median seconds per piece to accumulate ``count`` pieces and assemble the Completion."""
    events = pieces(count, tool)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        acc = sse_core.pipeline.Accumulator()
        acc.extend(events)
        acc.extend([sse_core.Finish(reason="stop")])
        result = acc.finish()
        times.append(time.perf_counter() - start)
        text = result.tool_calls[0].arguments if tool else result.content
        if text != "x" * (count * PIECE):
            errors.append(f"{count} pieces ({'tool' if tool else 'text'}): {len(text)} chars")
    return statistics.median(times) / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 / 200 / 2,000 pieces, 3 runs")
    parser.add_argument("--repeat", type=int, default=15, help="runs per size (median; 15)")
    args = parser.parse_args()
    sizes, repeat = ((20, 200, 2_000), 3) if args.quick else ((20, 2_000, 20_000), args.repeat)
    errors: list[str] = []
    print(f"{'events':15} {'pieces':>7} {'us/piece':>9}   (median of {repeat} runs)")
    for tool in (True, False):
        label = "tool arguments" if tool else "text"
        costs = {n: per_piece(n, tool, repeat, errors) for n in sizes}
        for n, cost in costs.items():
            print(f"{label:15} {n:>7} {cost * 1e6:>9.3f}")
        ratio = costs[sizes[-1]] / costs[sizes[0]]
        print(f"{label:15} per-piece ratio, {sizes[-1]:,} over {sizes[0]} pieces: {ratio:.2f}")
    for error in errors:
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
