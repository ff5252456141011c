"""Tool-call fragments against text frames, through both adapters: CPU per frame over loopback.

Two ``stream_server.py`` processes (so only the client's CPU is counted) serve the same
number of frames: content words (``text``), or one tool call whose 212 KB JSON arguments
arrive in 20,000 pieces (``tools``, ``bench_decoder.py``'s "tool fragments"). Each path
reads both, taking turns, ``--repeat`` times; the table gives the median process CPU per
frame of each shape and their ratio (goal: a fragment costs at most 1.5x a text frame):

- ``ChatClient``: the core alone (events), for reference;
- ``ChatSSE.stream`` / ``ChatSSE.astream``: one ``AIMessageChunk`` per frame;
- ``ChatSSE.invoke``: the whole message (no chunk kept);
- ``SSELLM.stream_chat`` / ``SSELLM.astream_chat``: one ``ChatResponse`` per network read;
- ``SSELLM.chat``: the whole ``ChatResponse``.

Checked (exit status 1 when wrong): every path ends with exactly the text, or the call's
id, name and arguments, the server sent; the streaming paths of ChatSSE gave one chunk per
frame. The servers are stopped however the run ends. Run:
``.venv/bin/python benchmarks/bench_fragments.py [--frames N] [--repeat R] [--quick]``
(``--quick``: 500 frames, 2 runs).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from stream_server import CALL_ID, CALL_NAME, running, text_words, tool_arguments

import sse_core
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM

SHAPES = ("text", "tools")
ASK = [ChatMessage(role="user", content="go")]


@dataclass(frozen=True)
class Expected:
    """What a path must end with: the text, or the one call (id, name, arguments)."""

    frames: int
    text: str = ""
    call: tuple[str, str, str] | None = None
    pieces: int = 0  # the frames that carry a piece (text words, or argument pieces + opening)


def expected(frames: int, shape: str) -> Expected:
    if shape == "tools":
        parts = tool_arguments(frames - 4)
        return Expected(frames, call=(CALL_ID, CALL_NAME, "".join(parts)), pieces=len(parts) + 1)
    words = text_words(frames - 3)
    return Expected(frames, text="".join(words), pieces=len(words))


# --- what each path ends with: (text, call or None, pieces seen or -1) -----------------------

Outcome = tuple[str, tuple[str, str, str] | None, int]


def _client(client: sse_core.ChatClient) -> Outcome:
    with client.stream(
        {"model": "bench-model", "messages": [{"role": "user", "content": "go"}]}
    ) as s:
        pieces = sum(
            1 for event in s if type(event) in (sse_core.TextDelta, sse_core.ToolCallDelta)
        )
        done = s.completion
    assert done is not None
    calls = done.tool_calls
    call = (calls[0].id or "", calls[0].name or "", calls[0].arguments) if calls else None
    return done.content, call, pieces


def _lc_fold(chunks: list[Any]) -> Outcome:
    """Text and call of streamed chunks (the argument pieces joined), and the pieces seen."""
    text, args, call_id, name, pieces = [], [], "", "", 0
    for chunk in chunks:
        if chunk.content:
            text.append(chunk.content)
            pieces += 1
        for fragment in chunk.tool_call_chunks:
            call_id = call_id or fragment["id"] or ""
            name = name or fragment["name"] or ""
            args.append(fragment["args"] or "")
            pieces += 1
    call = (call_id, name, "".join(args)) if name else None
    return "".join(text), call, pieces


def _lc_message(message: AIMessage) -> Outcome:
    calls = message.tool_calls
    call = None
    if calls or message.invalid_tool_calls:
        found = calls[0] if calls else message.invalid_tool_calls[0]
        args = found["args"]
        call = (
            found["id"] or "",
            found["name"] or "",
            args if isinstance(args, str) else json.dumps(args),
        )
    return str(message.content), call, -1


def _li_message(message: ChatMessage) -> Outcome:
    blocks = [b for b in message.blocks if isinstance(b, ToolCallBlock)]
    call = None
    if blocks:
        kwargs = blocks[0].tool_kwargs
        call = (blocks[0].tool_call_id or "", blocks[0].tool_name, str(kwargs))
    return message.content or "", call, -1


def _lc_stream(model: ChatSSE) -> Outcome:
    return _lc_fold(list(model.stream("go")))


async def _lc_astream(model: ChatSSE) -> Outcome:
    return _lc_fold([chunk async for chunk in model.astream("go")])


def _lc_invoke(model: ChatSSE) -> Outcome:
    return _lc_message(model.invoke("go"))


def _li_stream(llm: SSELLM) -> Outcome:
    responses = list(llm.stream_chat(ASK))
    return _li_message(responses[-1].message)


async def _li_astream(llm: SSELLM) -> Outcome:
    responses = [response async for response in await llm.astream_chat(ASK)]
    return _li_message(responses[-1].message)


def _li_chat(llm: SSELLM) -> Outcome:
    return _li_message(llm.chat(ASK).message)


# --- measuring -------------------------------------------------------------------------------

Sync = Callable[[Any], Outcome]
Async = Callable[[Any], Awaitable[Outcome]]
#: path -> (what it is made from, how one run reads the answer)
PATHS: dict[str, tuple[str, Sync | Async]] = {
    "ChatClient (core)": ("client", _client),
    "ChatSSE.stream": ("chatsse", _lc_stream),
    "ChatSSE.invoke": ("chatsse", _lc_invoke),
    "ChatSSE.astream": ("chatsse", _lc_astream),
    "SSELLM.stream_chat": ("ssellm", _li_stream),
    "SSELLM.chat": ("ssellm", _li_chat),
    "SSELLM.astream_chat": ("ssellm", _li_astream),
}


def _make(kind: str, url: str) -> Any:
    if kind == "client":
        return sse_core.ChatClient(base_url=url, api_key="bench")
    if kind == "chatsse":
        return ChatSSE(model="bench-model", base_url=url, api_key="bench", max_retries=0)
    return SSELLM(model="bench-model", base_url=url, api_key="bench", max_retries=0)


def _check(name: str, shape: str, want: Expected, got: Outcome, errors: list[str]) -> None:
    text, call, pieces = got
    if text != want.text or call != want.call:
        errors.append(f"{name}, {shape}: expected {want.text[:20]!r}/{want.call and want.call[:2]},"
                      f" got {text[:20]!r}/{call and call[:2]} (or other arguments)")  # fmt: skip
    elif pieces not in (-1, want.pieces):
        errors.append(f"{name}, {shape}: expected {want.pieces} pieces, got {pieces}")


async def _measure_async(
    runs: dict[str, Callable[[], Any]], repeat: int
) -> dict[str, list[tuple[float, Outcome]]]:
    samples: dict[str, list[tuple[float, Outcome]]] = {key: [] for key in runs}
    for fn in runs.values():
        await fn()  # warm-up: imports, pools, first connection
    gc.collect()
    gc.freeze()
    for _ in range(repeat):
        for key, fn in runs.items():
            start = time.process_time()
            outcome = await fn()
            samples[key].append((time.process_time() - start, outcome))
    return samples


def _measure_sync(
    runs: dict[str, Callable[[], Any]], repeat: int
) -> dict[str, list[tuple[float, Outcome]]]:
    samples: dict[str, list[tuple[float, Outcome]]] = {key: [] for key in runs}
    for fn in runs.values():
        fn()
    gc.collect()
    gc.freeze()
    for _ in range(repeat):
        for key, fn in runs.items():
            start = time.process_time()
            outcome = fn()
            samples[key].append((time.process_time() - start, outcome))
    return samples


def measure(
    urls: dict[str, str], frames: int, repeat: int, errors: list[str]
) -> dict[str, dict[str, float]]:
    """Median CPU microseconds per frame, by path and shape."""
    wants = {shape: expected(frames, shape) for shape in SHAPES}
    objects = {(kind, shape): _make(kind, url) for kind in ("client", "chatsse", "ssellm")
               for shape, url in urls.items()}  # fmt: skip
    runs_sync: dict[str, Callable[[], Any]] = {}
    runs_async: dict[str, Callable[[], Any]] = {}
    for name, (kind, fn) in PATHS.items():
        for shape in SHAPES:
            target = runs_async if asyncio.iscoroutinefunction(fn) else runs_sync
            target[f"{name}|{shape}"] = lambda fn=fn, obj=objects[(kind, shape)]: fn(obj)
    samples = _measure_sync(runs_sync, repeat)
    samples.update(asyncio.run(_measure_async(runs_async, repeat)))
    table: dict[str, dict[str, float]] = {name: {} for name in PATHS}
    for key, values in samples.items():
        name, shape = key.split("|")
        for _, outcome in values:
            _check(name, shape, wants[shape], outcome, errors)
        table[name][shape] = statistics.median(cpu for cpu, _ in values) / frames * 1e6
    for obj in objects.values():
        with contextlib.suppress(Exception):
            obj.close()
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="500 frames, 2 runs")
    args = parser.parse_args()
    if args.quick:
        args.frames, args.repeat = 500, 2
    errors: list[str] = []
    with (
        running(args.frames, "text", "length") as text_url,
        running(args.frames, "tools", "length") as tools_url,
    ):
        table = measure({"text": text_url, "tools": tools_url}, args.frames, args.repeat, errors)
    print(f"CPU per frame over loopback, {args.frames} frames (median of {args.repeat}):")
    print(f"  {'path':<22}{'text us':>10}{'tools us':>10}{'tools/text':>12}")
    for name, row in table.items():
        ratio = row["tools"] / row["text"]
        flag = "" if name.startswith("ChatClient") or ratio <= 1.5 else "  ABOVE GOAL (1.5x)"
        print(f"  {name:<22}{row['text']:>10.2f}{row['tools']:>10.2f}{ratio:>11.2f}x{flag}")
    for error in sorted(set(errors)):
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
