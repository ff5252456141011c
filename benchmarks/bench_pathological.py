"""Pathological shapes: does the cost per frame stay flat as a stream grows?

A decoder that re-joins, re-scans or re-searches what it already holds is linear per frame,
quadratic per stream, and hides it on ordinary answers. Each shape below once was, or could
be, such a case. For each shape the same body is built at 10,000, 50,000 and 200,000 frames
and decoded by :func:`sse_core.decode` in 16 KiB reads; the table gives the median time per
frame (microseconds, over a few runs) and the ratio of the largest size to the smallest:
about 1.0 is linear, a ratio near the size ratio (20) is quadratic.

Shapes: whole tool calls without index (each a new call); whitespace-only content (held
while a ``<think>`` block could still start); 50 choices in turn; whole tool calls by index;
tool calls by index in pieces (a tenth of the frames open calls, the rest append to them in
turn); tool calls without index joined by id; named gateway events; long reasoning.

Speed is printed, never asserted. Checked (exit status 1 when wrong): at every size, the
Completion holds exactly what the body was built with (each choice's text, the reasoning,
every tool call's index, id, name and arguments, the named events, the finish reason). Run:
``.venv/bin/python benchmarks/bench_pathological.py [--quick] [--repeat R]``
(``--quick``: 2,000 / 10,000 / 40,000 frames, one run).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator

import sse_core

FINISH = b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
READ = 16 * 1024
SIZES = (10_000, 50_000, 200_000)
QUICK_SIZES = (2_000, 10_000, 40_000)

Shape = Callable[[int], bytes]


def _frame(delta: dict[str, object], index: int | None = None) -> bytes:
    choice: dict[str, object] = {"delta": delta}
    if index is not None:
        choice["index"] = index
    return b"data: " + json.dumps({"choices": [choice]}, separators=(",", ":")).encode() + b"\n\n"


def calls_without_index(n: int) -> bytes:
    """Whole calls, no index and no id: every frame is a new call."""
    return _frame({"tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}) * n + FINISH


def whitespace_content(n: int) -> bytes:
    """Content of one newline per frame: held while a ``<think>`` block could start."""
    return _frame({"content": "\n"}) * n + FINISH


def many_choices(n: int) -> bytes:
    """Fifty choices (``n=50``), a word each in turn."""
    frames = [_frame({"content": "word "}, index) for index in range(50)]
    return b"".join(frames[i % 50] for i in range(n)) + FINISH


def whole_calls_by_index(n: int) -> bytes:
    """Whole calls with index, id and name: ``n`` calls."""
    return (
        b"".join(
            _frame(
                {
                    "tool_calls": [
                        {"index": i, "id": f"c{i}", "function": {"name": "f", "arguments": "{}"}}
                    ]
                }
            )
            for i in range(n)
        )
        + FINISH
    )


def calls_by_index_in_pieces(n: int) -> bytes:
    """A tenth of the frames open calls; the others append an argument piece, in turn."""
    calls = max(n // 10, 1)
    opening = (
        _frame({"tool_calls": [{"index": i, "id": f"c{i}", "function": {"name": "f"}}]})
        for i in range(calls)
    )
    pieces = (
        _frame({"tool_calls": [{"index": i % calls, "function": {"arguments": "x"}}]})
        for i in range(n - calls)
    )
    return b"".join(opening) + b"".join(pieces) + FINISH


def calls_by_id(n: int) -> bytes:
    """No index: a tenth of the frames open calls by id, the others continue them by id."""
    calls = max(n // 10, 1)
    opening = (
        _frame({"tool_calls": [{"id": f"c{i}", "function": {"name": "f"}}]}) for i in range(calls)
    )
    pieces = (
        _frame({"tool_calls": [{"id": f"c{i % calls}", "function": {"arguments": "x"}}]})
        for i in range(n - calls)
    )
    return b"".join(opening) + b"".join(pieces) + FINISH


def named_events(n: int) -> bytes:
    """Named gateway events, kept in order on the Completion."""
    return b'event: gw.note\ndata: {"n":1}\n\n' * n + FINISH


def long_reasoning(n: int) -> bytes:
    """Reasoning a character per frame."""
    return _frame({"reasoning_content": "r"}) * n + FINISH


SHAPES: dict[str, Shape] = {
    "calls without index": calls_without_index,
    "whitespace-only content": whitespace_content,
    "50 choices": many_choices,
    "whole calls by index": whole_calls_by_index,
    "calls by index in pieces": calls_by_index_in_pieces,
    "calls by id, no index": calls_by_id,
    "named events": named_events,
    "long reasoning": long_reasoning,
}


# --- what each shape must decode to ------------------------------------------------------

#: (each choice's index and text, the reasoning, the calls (index, id, name, arguments), the
#: named events (name, data), the finish reason)
Summary = tuple[
    tuple[tuple[int, str], ...],
    str,
    tuple[tuple[int, str | None, str | None, str], ...],
    tuple[tuple[str, object], ...],
    str | None,
]


def summary(completion: sse_core.Completion) -> Summary:
    return (
        tuple((choice.index, choice.content) for choice in completion.choices),
        completion.reasoning,
        tuple((c.index, c.id, c.name, c.arguments) for c in completion.tool_calls),
        tuple((event.name, event.data) for event in completion.events),
        completion.finish_reason,
    )


def _share(total: int, parts: int, at: int) -> int:
    """How many of ``total`` items dealt in turn to ``parts`` go to part ``at``."""
    return total // parts + (1 if at < total % parts else 0)


def _pieces(n: int) -> Summary:
    """Calls by index in pieces and calls by id: the same calls."""
    calls = max(n // 10, 1)
    return (
        ((0, ""),),
        "",
        tuple((i, f"c{i}", "f", "x" * _share(n - calls, calls, i)) for i in range(calls)),
        (),
        "stop",
    )


EXPECTED: dict[str, Callable[[int], Summary]] = {
    "calls without index": lambda n: (
        ((0, ""),),
        "",
        tuple((i, None, "f", "{}") for i in range(n)),
        (),
        "stop",
    ),
    "whitespace-only content": lambda n: (((0, "\n" * n),), "", (), (), "stop"),
    "50 choices": lambda n: (
        tuple((i, "word " * _share(n, 50, i)) for i in range(min(n, 50))),
        "",
        (),
        (),
        "stop",
    ),
    "whole calls by index": lambda n: (
        ((0, ""),),
        "",
        tuple((i, f"c{i}", "f", "{}") for i in range(n)),
        (),
        "stop",
    ),
    "calls by index in pieces": _pieces,
    "calls by id, no index": _pieces,
    "named events": lambda n: (((0, ""),), "", (), (("gw.note", {"n": 1}),) * n, "stop"),
    "long reasoning": lambda n: (((0, ""),), "r" * n, (), (), "stop"),
}


def reads(body: bytes) -> Iterator[bytes]:
    """``body`` as 16 KiB network reads."""
    return (body[i : i + READ] for i in range(0, len(body), READ))


def per_frame(name: str, frames: int, repeat: int, errors: list[str]) -> float:
    """Median microseconds per frame of decoding shape ``name`` at ``frames`` frames; what
    is wrong with the decoded Completion goes to ``errors``."""
    body = SHAPES[name](frames)
    times = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        completion = sse_core.decode(reads(body))
        times.append(time.perf_counter() - started)
        if summary(completion) != EXPECTED[name](frames):
            errors.append(f"{name}, {frames} frames: the Completion is not what was sent")
    return statistics.median(times) / frames * 1e6


def row(name: str, costs: list[float]) -> str:
    cells = "".join(f"{cost:>12.2f}" for cost in costs)
    return f"{name:<26}{cells}{costs[-1] / costs[0]:>12.2f}"


def run(sizes: tuple[int, ...], repeat: int) -> list[str]:
    """Measure and check every shape at every size, print the table; what was wrong."""
    errors: list[str] = []
    header = "".join(f"{size:>10,} us" for size in sizes)
    print(f"{'shape (us per frame)':<26}{header}{f'{sizes[-1] // 1000}k/{sizes[0] // 1000}k':>12}")
    for name in SHAPES:
        print(row(name, [per_frame(name, size, repeat, errors) for size in sizes]), flush=True)
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (median; 3)")
    args = parser.parse_args()
    sizes, repeat = (QUICK_SIZES, 1) if args.quick else (SIZES, args.repeat)
    print(f"sse_core.decode in {READ // 1024} KiB reads; median of {repeat} run(s)")
    errors = run(sizes, repeat)
    for error in errors:
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
