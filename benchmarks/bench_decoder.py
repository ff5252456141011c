"""Decoder speed: sse_core against the practical limit and the usual stacks, in one run.

Decodes the same 10,000-chunk chat stream with:

- ``limit``: ``bytes.split(b"\\n\\n")`` + ``orjson.loads`` (no SSE rules at all: the floor);
- ``httpx-sse``: ``httpx_sse.EventSource(...).iter_sse()`` + ``json.loads``;
- ``openai``: the openai SDK's ``Stream`` over the same bytes (parsed chunk models);
- ``sse_core``: ``StreamDecoder.feed`` (events), and with the ``Accumulator`` (a Completion).

Each is fed the body in 16 KiB reads and, separately, one frame per read (a slow stream).
Prints medians of CPU time per chunk and ratios to the limit. Run:
``.venv/bin/python benchmarks/bench_decoder.py [--chunks N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterator

import httpx
import httpx_sse
import openai
import orjson
from openai.types.chat import ChatCompletionChunk

import sse_core

Pieces = list[bytes]


def make_stream(chunks: int) -> list[bytes]:
    """Frames of a realistic OpenAI-format chat stream (role, text, finish, usage, [DONE])."""
    base = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1715000000,
        "model": "Qwen/Qwen3-32B",
        "system_fingerprint": "fp_bench",
    }
    frames = [
        {
            **base,
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
            ],
        }
    ]
    words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]
    frames += [
        {
            **base,
            "choices": [
                {"index": 0, "delta": {"content": words[i % len(words)]}, "finish_reason": None}
            ],
        }
        for i in range(chunks - 3)
    ]
    frames.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    frames.append(
        {
            **base,
            "choices": [],
            "usage": {
                "prompt_tokens": 12,
                "completion_tokens": chunks,
                "total_tokens": chunks + 12,
            },
        }
    )
    out = [b"data: " + json.dumps(f, separators=(",", ":")).encode() + b"\n\n" for f in frames]
    out.append(b"data: [DONE]\n\n")
    return out


def in_reads(frames: list[bytes], size: int) -> Pieces:
    body = b"".join(frames)
    return [body[i : i + size] for i in range(0, len(body), size)]


def run_limit(pieces: Pieces) -> int:
    count = 0
    for block in b"".join(pieces).split(b"\n\n"):
        if block.startswith(b"data: "):
            payload = block[6:]
            if payload == b"[DONE]":
                break
            orjson.loads(payload)
            count += 1
    return count


def _response(pieces: Pieces) -> httpx.Response:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    return httpx.Response(
        200,
        headers={"content-type": "text/event-stream"},
        stream=httpx.ByteStream(b"") if not pieces else _Stream(pieces),
        request=request,
    )


class _Stream(httpx.SyncByteStream):
    def __init__(self, pieces: Pieces) -> None:
        self._pieces = pieces

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._pieces)


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


def run_sse_core(pieces: Pieces) -> int:
    decoder = sse_core.StreamDecoder()
    count = 0
    for piece in pieces:
        count += len(decoder.feed(piece))
    return count + len(decoder.finish())


def run_sse_core_acc(pieces: Pieces) -> int:
    decoder = sse_core.StreamDecoder()
    acc = sse_core.Accumulator()
    for piece in pieces:
        acc.extend(decoder.feed(piece))
    acc.extend(decoder.finish())
    return len(acc.finish().content)


RUNNERS: dict[str, Callable[[Pieces], int]] = {
    "limit (split+orjson)": run_limit,
    "httpx-sse + json": run_httpx_sse,
    "openai SDK Stream": run_openai,
    "sse_core StreamDecoder": run_sse_core,
    "sse_core + Accumulator": run_sse_core_acc,
}


def measure(pieces: Pieces, repeat: int) -> dict[str, float]:
    """Median CPU seconds per runner; runners take turns so machine noise hits all alike."""
    times: dict[str, list[float]] = {name: [] for name in RUNNERS}
    for _ in range(repeat):
        for name, fn in RUNNERS.items():
            start = time.process_time()
            fn(pieces)
            times[name].append(time.process_time() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    frames = make_stream(args.chunks)
    for label, pieces in (
        ("16 KiB reads", in_reads(frames, 16384)),
        ("one frame per read", frames),
    ):
        print(f"\n{args.chunks} chunks, {label} (median of {args.repeat}, CPU time)")
        results = measure(pieces, args.repeat)
        floor = results["limit (split+orjson)"]
        for name, seconds in results.items():
            per = seconds / args.chunks * 1e6
            print(f"  {name:26} {per:7.2f} us/chunk   {seconds / floor:5.2f}x limit")


if __name__ == "__main__":
    main()
