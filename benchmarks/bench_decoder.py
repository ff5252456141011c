"""Decoder speed on every frame shape: sse_core against the practical limit and the usual stacks.

For each frame shape a gateway sends, the same body is decoded by:

- ``floor``: ``bytes.split(b"\\n\\n")`` + ``orjson.loads`` of each ``data:`` payload (no SSE
  rules, no events: the practical limit);
- ``httpx-sse``: ``httpx_sse.EventSource(...).iter_sse()`` + ``json.loads``;
- ``openai``: the openai SDK's ``Stream`` over the same bytes (parsed chunk models; it is
  ~100x the floor, so it runs in fewer rounds, ``--sdk-repeat``);
- ``sse_core``: ``StreamDecoder.feed`` (events), and ``+acc``: the same with every event
  added to an ``Accumulator`` and the Completion assembled;
- ``msgspec``, ``ms+acc``: the same with ``StreamDecoder(accelerator="msgspec")`` (the
  opt-in accelerator; left out when msgspec is not installed).

Shapes: ``text`` (content words), ``reasoning`` (``reasoning_content`` words), ``tool
fragments`` (one 212 KB argument in 20,000 pieces), ``whole calls`` (a whole tool call per
frame), ``usage every chunk`` (text with a usage object on every chunk, Gemini-style),
``named events`` (``event: spass.tool-cap`` frames). Each body is fed in 16 KiB reads (a fast
gateway) and one frame per read (a slow one).

Printed: medians of CPU time per frame and the ratio of each stack to the floor (goal for
sse_core: at most 1.5x). The heap of imported modules is frozen (``gc.freeze()``) before
each shape, so that a full collection over it does not land in one run at random.

Checked (exit status 1 when wrong): every stack saw every frame, and sse_core's Completion
holds exactly the text, reasoning, arguments, calls, usage and events the body was built
with, the same events for either read pattern (and with the accelerator, the same events
and Completion as without). Run:
``.venv/bin/python benchmarks/bench_decoder.py [--chunks N] [--pieces P] [--repeat R]
[--shapes text,usage] [--no-sdk] [--quick]`` (``--quick``: small bodies, 3 rounds, seconds).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import httpx_sse
import openai
import orjson
from openai.types.chat import ChatCompletionChunk

import sse_core

Pieces = list[bytes]
READ = 16 * 1024
BASE = {
    "id": "chatcmpl-bench",
    "object": "chat.completion.chunk",
    "created": 1715000000,
    "model": "Qwen/Qwen3-32B",
    "system_fingerprint": "fp_bench",
}
WORDS = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]
DONE = b"data: [DONE]\n\n"


# --- bodies ---------------------------------------------------------------------------------


@dataclass
class Body:
    """A body's frames and what sse_core must make of it."""

    frames: list[bytes]
    content: str = ""
    reasoning: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (id, name, arguments)
    completion_tokens: int | None = None
    events: int = 0
    finish: str = "stop"

    @property
    def data_frames(self) -> int:
        """Frames before ``[DONE]``: what the floor and the stacks count."""
        return len(self.frames) - 1


def _frame(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
    chunk = {**BASE, "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    if delta is None and finish is None:
        chunk["choices"] = []
    chunk.update(extra)
    return b"data: " + orjson.dumps(chunk) + b"\n\n"


def _usage(completion: int) -> dict[str, int]:
    return {"prompt_tokens": 12, "completion_tokens": completion, "total_tokens": 12 + completion}


def _framed(body: Body, middle: list[bytes], finish: str = "stop") -> Body:
    """Role frame, ``middle``, the finish frame, a usage chunk, ``[DONE]``."""
    total = len(middle) + 3
    body.frames = [
        _frame({"role": "assistant", "content": ""}),
        *middle,
        _frame({}, finish),
        _frame(None, usage=_usage(total)),
        DONE,
    ]
    body.completion_tokens = total
    body.finish = finish
    return body


def text(chunks: int, _pieces: int) -> Body:
    words = [WORDS[i % len(WORDS)] for i in range(chunks - 3)]
    middle = [_frame({"content": word}) for word in words]
    return _framed(Body([], content="".join(words)), middle)


def reasoning(chunks: int, _pieces: int) -> Body:
    words = [WORDS[i % len(WORDS)] for i in range(chunks - 3)]
    middle = [_frame({"reasoning_content": word}) for word in words]
    return _framed(Body([], reasoning="".join(words)), middle)


def tool_fragments(_chunks: int, pieces: int) -> Body:
    """One call whose ~10.6-byte argument pieces make a 212 KB JSON string (at 20,000)."""
    size = pieces * 106 // 10
    filler = ("lorem ipsum dolor sit amet, " * (size // 28 + 2))[: size - 40]
    arguments = json.dumps({"path": "notes.txt", "content": filler})
    cuts = [len(arguments) * i // pieces for i in range(pieces + 1)]
    parts = [arguments[a:b] for a, b in itertools.pairwise(cuts)]
    head = {"index": 0, "id": "call_bench", "type": "function"}
    middle = [_frame({"tool_calls": [{**head, "function": {"name": "write", "arguments": ""}}]})]
    middle += [
        _frame({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}) for part in parts
    ]
    body = Body([], calls=[("call_bench", "write", arguments)])
    return _framed(body, middle, "tool_calls")


def whole_calls(chunks: int, _pieces: int) -> Body:
    calls = [(f"call_{i}", "lookup", f'{{"city": "Paris", "n": {i}}}') for i in range(chunks - 3)]
    middle = [
        _frame(
            {
                "tool_calls": [
                    {
                        "index": i,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                ]
            }
        )
        for i, (call_id, name, arguments) in enumerate(calls)
    ]
    return _framed(Body([], calls=calls), middle, "tool_calls")


def usage_every_chunk(chunks: int, _pieces: int) -> Body:
    words = [WORDS[i % len(WORDS)] for i in range(chunks - 2)]
    frames = [_frame({"content": w}, usage=_usage(i + 1)) for i, w in enumerate(words)]
    frames += [_frame({}, "stop", usage=_usage(chunks - 1)), DONE]
    return Body(frames, content="".join(words), completion_tokens=chunks - 1)


def named_events(chunks: int, _pieces: int) -> Body:
    frames = [
        b'event: spass.tool-cap\ndata: {"remaining":%d,"limit":%d}\n\n' % (chunks - i, chunks)
        for i in range(chunks - 2)
    ]
    frames += [_frame({"content": "ok"}, "stop"), DONE]
    return Body(frames, content="ok", events=chunks - 2)


SHAPES: dict[str, Callable[[int, int], Body]] = {
    "text": text,
    "reasoning": reasoning,
    "tool fragments": tool_fragments,
    "whole calls": whole_calls,
    "usage every chunk": usage_every_chunk,
    "named events": named_events,
}


def pieces_of(body: Body) -> Pieces:
    return body.frames


def in_reads(frames: list[bytes], size: int) -> Pieces:
    body = b"".join(frames)
    return [body[i : i + size] for i in range(0, len(body), size)]


# --- the stacks -----------------------------------------------------------------------------


def run_floor(pieces: Pieces) -> int:
    count = 0
    for block in b"".join(pieces).split(b"\n\n"):
        at = block.find(b"data: ")
        if at >= 0:
            payload = block[at + 6 :]
            if payload == b"[DONE]":
                break
            orjson.loads(payload)
            count += 1
    return count


class _Stream(httpx.SyncByteStream):
    def __init__(self, pieces: Pieces) -> None:
        self._pieces = pieces

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._pieces)


def _response(pieces: Pieces) -> httpx.Response:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=_Stream(pieces), request=request
    )


def run_httpx_sse(pieces: Pieces) -> int:
    count = 0
    for event in httpx_sse.EventSource(_response(pieces)).iter_sse():
        if event.data == "[DONE]":
            break
        json.loads(event.data)
        count += 1
    return count


_CLIENT = openai.OpenAI(api_key="bench", base_url="http://127.0.0.1/v1")


def run_openai(pieces: Pieces) -> int:
    stream = openai.Stream(cast_to=ChatCompletionChunk, response=_response(pieces), client=_CLIENT)
    return sum(1 for _ in stream)


def _decoder(accelerator: str | None) -> sse_core.StreamDecoder:
    if accelerator is None:  # the pure path (and a sse_core from before the accelerator)
        return sse_core.StreamDecoder()
    return sse_core.StreamDecoder(accelerator=accelerator)


def run_sse_core(pieces: Pieces, accelerator: str | None = None) -> int:
    """The events, counted (kept, they would weigh on the garbage collector, as no consumer
    that hands them on makes them)."""
    decoder = _decoder(accelerator)
    count = 0
    for piece in pieces:
        count += len(decoder.feed(piece))
    return count + len(decoder.finish())


def all_events(pieces: Pieces, accelerator: str | None = None) -> list[sse_core.StreamEvent]:
    """Every event of the body (for the checks, not timed)."""
    decoder = _decoder(accelerator)
    events: list[sse_core.StreamEvent] = []
    for piece in pieces:
        events += decoder.feed(piece)
    return events + decoder.finish()


def run_sse_core_acc(pieces: Pieces, accelerator: str | None = None) -> sse_core.Completion:
    decoder = _decoder(accelerator)
    acc = sse_core.pipeline.Accumulator()
    add = acc.add
    for piece in pieces:
        for event in decoder.feed(piece):
            add(event)
    for event in decoder.finish():
        add(event)
    return acc.finish()


FLOOR, OURS, ACC, MS, MS_ACC = "floor", "sse_core", "+acc", "msgspec", "ms+acc"
RUNNERS: dict[str, Callable[[Pieces], object]] = {
    FLOOR: run_floor,
    OURS: run_sse_core,
    ACC: run_sse_core_acc,
    MS: lambda pieces: run_sse_core(pieces, "msgspec"),
    MS_ACC: lambda pieces: run_sse_core_acc(pieces, "msgspec"),
    "httpx-sse": run_httpx_sse,
    "openai": run_openai,
}
try:  # msgspec installed, and a sse_core that has the accelerator
    sse_core.StreamDecoder(accelerator="msgspec")
except (TypeError, sse_core.ConfigurationError):
    del RUNNERS[MS], RUNNERS[MS_ACC]


# --- checks ---------------------------------------------------------------------------------


def check(body: Body, name: str, result: object) -> list[str]:
    """What is wrong with ``result`` of runner ``name`` on ``body`` (nothing: [])."""
    if name in (OURS, MS):
        return []  # the events are compared across read patterns in :func:`measure_shape`
    if name == MS_ACC:
        same = result == run_sse_core_acc(pieces_of(body))
        return [] if same else ["ms+acc: the Completion differs from the pure path's"]
    if name != ACC:
        return [] if result == body.data_frames else [f"{name}: {result} frames"]
    assert isinstance(result, sse_core.Completion)
    found = {
        "content": result.content,
        "reasoning": result.reasoning,
        "calls": [(c.id, c.name, c.arguments) for c in result.tool_calls],
        "completion_tokens": result.usage.completion_tokens if result.usage else None,
        "events": len(result.events),
        "finish": result.finish_reason,
    }
    want = {key: getattr(body, key) for key in found}
    return [f"+acc {key}: {found[key]!r:.60} != {want[key]!r:.60}" for key in found
            if found[key] != want[key]]  # fmt: skip


# --- measuring ------------------------------------------------------------------------------


@dataclass
class Row:
    shape: str
    reads: str
    frames: int
    seconds: dict[str, float]


def measure_shape(
    shape: str, body: Body, repeat: int, sdk_repeat: int, errors: list[str]
) -> list[Row]:
    """Median CPU seconds per runner for both read patterns; runners take turns."""
    rows = []
    events: dict[str, object] = {}
    for label, pieces in (("16 KiB", in_reads(body.frames, READ)), ("1 frame", body.frames)):
        times: dict[str, list[float]] = {name: [] for name in RUNNERS}
        for round_ in range(repeat):
            for name, fn in RUNNERS.items():
                if name == "openai" and round_ >= sdk_repeat:
                    continue
                start = time.process_time()
                result = fn(pieces)
                times[name].append(time.process_time() - start)
                if round_ == 0:
                    errors += [f"{shape}, {label}: {e}" for e in check(body, name, result)]
        events[label] = all_events(pieces)
        if MS in RUNNERS:
            events[label + ", msgspec"] = all_events(pieces, "msgspec")
        seconds = {name: statistics.median(v) for name, v in times.items() if v}
        rows.append(Row(shape, label, body.data_frames, seconds))
    if len(set(map(repr, events.values()))) != 1:
        errors.append(f"{shape}: the events differ between read patterns or with msgspec")
    return rows


def print_table(rows: list[Row]) -> None:
    others = [name for name in RUNNERS if name not in (FLOOR, OURS, ACC)]
    head = f"{'shape':<18} {'reads':<8} {'frames':>7} {'floor us':>9} {'sse_core':>9} {'+acc':>7}"
    print(head + "".join(f" {name:>9}" for name in others))
    for row in rows:
        floor = row.seconds[FLOOR]
        cells = [f"{row.seconds[OURS] / floor:8.2f}x", f"{row.seconds[ACC] / floor:6.2f}x"]
        cells += [
            f"{row.seconds[name] / floor:8.2f}x" if name in row.seconds else f"{'-':>9}"
            for name in others
        ]
        per = floor / row.frames * 1e6
        print(f"{row.shape:<18} {row.reads:<8} {row.frames:>7} {per:>9.3f} " + " ".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000, help="frames per body (10,000)")
    parser.add_argument("--pieces", type=int, default=20_000, help="argument pieces (20,000)")
    parser.add_argument("--repeat", type=int, default=9, help="rounds (median; 9)")
    parser.add_argument("--sdk-repeat", type=int, default=3, help="rounds of the openai SDK")
    parser.add_argument("--no-sdk", action="store_true", help="leave the openai SDK out")
    parser.add_argument("--shapes", help="comma-separated shapes (default: all)")
    parser.add_argument("--quick", action="store_true", help="small bodies, 3 rounds")
    args = parser.parse_args()
    if args.quick:
        args.chunks, args.pieces, args.repeat, args.sdk_repeat = 400, 800, 3, 1
    if args.no_sdk:
        RUNNERS.pop("openai")
    shapes = args.shapes.split(",") if args.shapes else list(SHAPES)
    print(
        f"CPU time per frame, median of {args.repeat} rounds ({args.sdk_repeat} for openai); "
        "ratios to the floor (split + orjson)"
    )
    errors: list[str] = []
    rows: list[Row] = []
    for shape in shapes:
        body = SHAPES[shape](args.chunks, args.pieces)
        # As bench_langchain: the imported modules (openai, httpx, ...) are frozen out of the
        # collector, so that a full collection over them lands in no run at random.
        gc.collect()
        gc.freeze()
        rows += measure_shape(shape, body, args.repeat, args.sdk_repeat, errors)
    print_table(rows)
    for error in errors:
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
