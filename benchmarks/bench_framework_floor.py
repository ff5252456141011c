"""Both adapters against their framework's own floor, per streamed text chunk, side by side.

The floor is the framework's own stream machinery with no I/O and no parsing:

- LangChain: a ``BaseChatModel`` whose ``_stream`` yields ``ChatGenerationChunk``s made
  from ready texts (a role chunk, one ``AIMessageChunk`` per text piece, a finish chunk with
  the usage), driven through ``BaseChatModel.stream``;
- LlamaIndex: a ``CustomLLM`` whose ``stream_chat``, under ``llm_chat_callback`` as every
  LlamaIndex LLM's, yields ``ChatResponse``s made from ready texts (one per text piece, each
  holding the message so far and the piece as its delta, as a LlamaIndex LLM's do).

The floor makes its chunks and responses in the stream, through the public (validated)
constructors, as any integration must; a second row, "its loop alone", yields the same
objects made before the clock starts (afresh for every run), so the two rows split the floor
into the framework's loop and its objects. Against them, over one ``stream_server.py``
loopback server (a subprocess, so its CPU is not counted) sending a ``--chunks``-frame text
stream (``--framing length``, the default: 64 KiB writes, a fast gateway; ``chunked``: one
HTTP chunk per frame, which adds h11's per-chunk work to every client alike):

- ``ChatSSE.stream`` and ``SSELLM.stream_chat`` with the fast paths on (the default);
- the same with the faithful path (``SSE_CONNECTORS_FAST=0``), in a second process started
  with the variable set so that every import-time decision takes it;
- the anchors ``ChatOpenAI.stream`` (langchain-openai) and ``OpenAILike.stream_chat``.

Each process warms every variant up, freezes the collector's generations, then runs its
variants in turn ``--repeat`` times (the floor in both processes). A run's figure is the
process CPU time of one whole call, from the call to the stream's end, divided by the stream's
text pieces (the content frames the server sent), whatever the variant yields per piece
(SSELLM yields one response per network read): nothing is subtracted. Printed: the median
µs per text chunk of each variant, its ratio to the floor measured in the same process
(goals: fast at most 0.3x the floor for LangChain and 0.4x for LlamaIndex; faithful at most
1.3x), what each yields per run, and what ``sse_core.fast_paths()`` says in each process
(without it, the faithful rows measure the fast path again, and the output says so).
``--json``: the same as JSON on stdout (the table then goes to stderr).

Checked (exit status 1 when wrong): in every run every variant produced the server's text
(the joined chunk contents; for LlamaIndex the joined deltas and the last message). The
server is stopped however the run ends. Run:
``.venv/bin/python benchmarks/bench_framework_floor.py [--chunks N] [--repeat R]
[--framing length|chunked] [--json] [--quick]`` (``--quick``: a 300-chunk stream, 2 runs;
only the checks matter then).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pydantic import PrivateAttr
from stream_server import running, text_words

LC_FAST, LC_FAITHFUL = "ChatSSE.stream, fast", "ChatSSE.stream, faithful"
LC_FLOOR, LC_LOOP = "floor: BaseChatModel.stream", "  its loop alone (chunks made before)"
LC_ANCHOR = "ChatOpenAI.stream (anchor)"
LI_FAST, LI_FAITHFUL = "SSELLM.stream_chat, fast", "SSELLM.stream_chat, faithful"
LI_FLOOR, LI_LOOP = "floor: CustomLLM.stream_chat", "  its loop alone (responses made before)"
LI_ANCHOR = "OpenAILike.stream_chat (anchor)"
#: (adapter, variant) per row, in the order printed.
ROWS = (
    *(("LangChain", name) for name in (LC_FAST, LC_FAITHFUL, LC_FLOOR, LC_LOOP, LC_ANCHOR)),
    *(("LlamaIndex", name) for name in (LI_FAST, LI_FAITHFUL, LI_FLOOR, LI_LOOP, LI_ANCHOR)),
)
FLOORS = {"LangChain": LC_FLOOR, "LlamaIndex": LI_FLOOR}
#: The goals, as ratios to the floor.
GOALS = {LC_FAST: 0.3, LC_FAITHFUL: 1.3, LI_FAST: 0.4, LI_FAITHFUL: 1.3}
MODEL = "bench-model"


# --- the floors: the framework's stream over ready-made chunks --------------------------------


Prepare = Callable[[], Callable[[], Iterator[str]]]
"""Made afresh before each run, outside the timing: returns the run to time."""


def langchain_floor(words: list[str], built: bool) -> Prepare:
    """Runs of ``BaseChatModel.stream`` over chunks made from ready texts (``built``: made
    in ``_stream``, validated, as an integration makes them; else made before the clock)."""
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessageChunk
    from langchain_core.outputs import ChatGenerationChunk, ChatResult

    class Replay(BaseChatModel):
        """Yields the chunks its source makes, nothing else (no I/O, no parsing)."""

        # Not a field: never dumped into the run's invocation params.
        _source: Callable[[], Iterator[Any]] = PrivateAttr()

        @property
        def _llm_type(self) -> str:
            return "replay"

        def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
            raise NotImplementedError

        def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
            yield from self._source()

    def chunks() -> Iterator[ChatGenerationChunk]:
        usage = {"input_tokens": 5, "output_tokens": len(words), "total_tokens": len(words) + 5}
        yield ChatGenerationChunk(message=AIMessageChunk(content=""))
        for word in words:
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))
        last = AIMessageChunk(
            content="",
            response_metadata={"finish_reason": "stop", "model_name": MODEL},
            usage_metadata=usage,  # type: ignore[arg-type]
        )
        yield ChatGenerationChunk(message=last)

    model = Replay()

    def prepare() -> Callable[[], Iterator[str]]:
        if built:
            model._source = chunks
        else:
            ready = [list(chunks())]  # handed over, so that no run outlives its objects
            model._source = lambda: iter(ready.pop())
        return lambda: (str(chunk.content) for chunk in model.stream("go"))

    return prepare


def llamaindex_floor(words: list[str], built: bool) -> Prepare:
    """Runs of a ``CustomLLM.stream_chat`` under ``llm_chat_callback`` over responses made
    from ready texts (``built``: made in ``stream_chat``, validated; else before the clock)."""
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ChatResponse,
        ChatResponseGen,
        CompletionResponse,
        LLMMetadata,
        MessageRole,
    )
    from llama_index.core.llms.callbacks import llm_chat_callback
    from llama_index.core.llms.custom import CustomLLM

    class Replay(CustomLLM):
        """Yields the responses its source makes, nothing else (no I/O, no parsing)."""

        _source: Callable[[], Iterator[Any]] = PrivateAttr()

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="replay", is_chat_model=True)

        def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
            raise NotImplementedError

        def stream_complete(self, prompt: str, formatted: bool = False, **kw: Any) -> Any:
            raise NotImplementedError

        @llm_chat_callback()
        def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
            yield from self._source()  # a generator: llm_chat_callback wraps only those

    def responses() -> Iterator[ChatResponse]:
        so_far = ""
        for word in words:  # each response holds the message so far, as LlamaIndex LLMs do
            so_far += word
            message = ChatMessage(role=MessageRole.ASSISTANT, content=so_far)
            yield ChatResponse(message=message, delta=word)

    llm = Replay()
    ask = [ChatMessage(role="user", content="go")]

    def prepare() -> Callable[[], Iterator[str]]:
        if built:
            llm._source = responses
        else:
            ready = [list(responses())]
            llm._source = lambda: iter(ready.pop())
        return lambda: _li_texts(llm.stream_chat(ask))

    return prepare


# --- the clients over loopback ---------------------------------------------------------------


def _li_texts(responses: Iterator[Any]) -> Iterator[str]:
    """The deltas of a LlamaIndex stream, then ``"\\0"`` and the last message's text."""
    last = None
    for response in responses:
        last = response
        if response.delta:
            yield response.delta
    yield "\0" + (str(last.message.content) if last is not None else "")


def _fixed(run: Callable[[], Iterator[str]]) -> Prepare:
    return lambda: run


def variants(mode: str, url: str, words: list[str]) -> dict[str, Prepare]:
    """Each variant of this process: a name -> a preparation that returns the run to time."""
    from llama_index.core.base.llms.types import ChatMessage

    from langchain_sse import ChatSSE
    from llamaindex_sse import SSELLM

    ask = [ChatMessage(role="user", content="go")]
    chat = ChatSSE(model=MODEL, base_url=url, api_key="bench", max_retries=0, timeout=120)
    llm = SSELLM(model=MODEL, base_url=url, api_key="bench", max_retries=0, timeout=120)
    faithful = mode == "faithful"
    out: dict[str, Prepare] = {
        LC_FAITHFUL if faithful else LC_FAST: _fixed(
            lambda: (str(chunk.content) for chunk in chat.stream("go"))
        ),
        LC_FLOOR: langchain_floor(words, built=True),
        LI_FAITHFUL if faithful else LI_FAST: _fixed(lambda: _li_texts(llm.stream_chat(ask))),
        LI_FLOOR: llamaindex_floor(words, built=True),
    }
    if not faithful:
        out[LC_LOOP] = langchain_floor(words, built=False)
        out[LI_LOOP] = llamaindex_floor(words, built=False)
        out.update(_anchors(url, ask))
    return out


def _anchors(url: str, ask: list[Any]) -> dict[str, Prepare]:
    from langchain_openai import ChatOpenAI
    from llama_index.llms.openai_like import OpenAILike

    lc = ChatOpenAI(model=MODEL, base_url=url, api_key="bench", max_retries=0, timeout=120)  # type: ignore[arg-type]
    li = OpenAILike(
        model=MODEL, api_base=url, api_key="bench", is_chat_model=True, max_retries=0, timeout=120
    )
    return {
        LC_ANCHOR: _fixed(lambda: (str(chunk.content) for chunk in lc.stream("go"))),
        LI_ANCHOR: _fixed(lambda: _li_texts(li.stream_chat(ask))),
    }


# --- one process: its variants, taking turns ---------------------------------------------------


def fast_paths() -> dict[str, Any] | None:
    """What ``sse_core.fast_paths()`` says, as ``{name: {"on": bool, "why": str}}``; ``None``
    when it does not exist."""
    import sse_core

    report = getattr(sse_core, "fast_paths", None)
    if isinstance(report, types.ModuleType):  # the registry's module, not its function
        report = getattr(report, "fast_paths", None)
    if not callable(report):
        return None
    out: dict[str, Any] = {}
    for name, entry in dict(report()).items():
        if isinstance(entry, dict):
            out[str(name)] = {"on": bool(entry.get("on")), "why": str(entry.get("why", ""))}
        else:
            out[str(name)] = {"on": bool(entry.on), "why": str(getattr(entry, "why", ""))}
    return out


def _check(name: str, texts: list[str], adapter: str, expected: str, errors: list[str]) -> None:
    got = "".join(texts)
    if adapter == "LlamaIndex":
        got, _, last = got.partition("\0")
        if last != expected:
            errors.append(f"{name}: the last message is {last[-40:]!r}, not the server's text")
    if got != expected:
        errors.append(f"{name}: streamed {len(got)} chars ({got[-40:]!r}), not the server's text")


def worker(mode: str, url: str, chunks: int, repeat: int) -> dict[str, Any]:
    """Warm up, then time every variant of this process in turn ``repeat`` times."""
    words = text_words(chunks - 3)
    expected = "".join(words)
    adapter = {name: a for a, name in ROWS}
    runs = variants(mode, url, words)
    errors: list[str] = []
    yields = {}
    for name, prepare in runs.items():  # warm-up: imports, pools, the connection
        texts = list(prepare()())
        _check(name, texts, adapter[name], expected, errors)
        yields[name] = len(texts) - (adapter[name] == "LlamaIndex")  # not the last message
    gc.collect()
    gc.freeze()
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, prepare in runs.items():
            run = prepare()
            gc.collect()
            started = time.process_time()
            texts = list(run())
            cpu = time.process_time() - started
            samples[name].append(cpu / len(words) * 1e6)
            _check(name, texts, adapter[name], expected, errors)
    return {
        "samples": samples,
        "yields": yields,
        "errors": sorted(set(errors)),
        "fast_paths": fast_paths(),
    }


def _run_worker(mode: str, url: str, chunks: int, repeat: int) -> dict[str, Any]:
    """One process's measurements (``faithful``: with ``SSE_CONNECTORS_FAST=0``)."""
    env = dict(os.environ)
    env.pop("SSE_CONNECTORS_FAST", None)
    if mode == "faithful":
        env["SSE_CONNECTORS_FAST"] = "0"
    argv = [sys.executable, __file__, "--worker", mode, "--base-url", url]
    argv += ["--chunks", str(chunks), "--repeat", str(repeat)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} worker failed:\n{done.stdout}\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --- report ------------------------------------------------------------------------------------


def summary(results: dict[str, dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    """Medians, the ratio of each to its own process's floor, and the goals' verdicts."""
    rows = []
    for adapter, name in ROWS:
        mode = "faithful" if name.endswith("faithful") else "fast"
        samples = results[mode]["samples"]
        median = statistics.median(samples[name])
        floor = statistics.median(samples[FLOORS[adapter]])
        goal = GOALS.get(name)
        rows.append(
            {
                "adapter": adapter,
                "variant": name,
                "process": mode,
                "us_per_chunk": round(median, 3),
                "floor_us_per_chunk": round(floor, 3),
                "ratio_to_floor": round(median / floor, 3),
                "yields_per_run": results[mode]["yields"][name],
                "samples_us": [round(value, 3) for value in samples[name]],
                "goal": goal,
                "met": None if goal is None else median / floor <= goal,
            }
        )
    for mode in ("fast", "faithful"):  # the floor as the other process measured it
        for adapter in FLOORS:
            value = statistics.median(results[mode]["samples"][FLOORS[adapter]])
            results[mode].setdefault("floors", {})[adapter] = round(value, 3)
    return {
        "chunks": args.chunks,
        "text_chunks": args.chunks - 3,
        "framing": args.framing,
        "repeat": args.repeat,
        "rows": rows,
        "floors": {mode: results[mode]["floors"] for mode in results},
        "fast_paths": {mode: results[mode]["fast_paths"] for mode in results},
        "errors": results["fast"]["errors"] + results["faithful"]["errors"],
    }


def _paths_note(paths: dict[str, Any] | None, mode: str) -> list[str]:
    if paths is None:
        note = "sse_core.fast_paths() does not exist yet: SSE_CONNECTORS_FAST=0 changes nothing"
        return [
            f"{mode} process: {note}"
            + (", the faithful rows measure the fast path again" if mode == "faithful" else "")
        ]
    on = sorted(name for name, entry in paths.items() if entry["on"])
    off = {name: entry["why"] for name, entry in paths.items() if not entry["on"]}
    lines = [f"{mode} process: fast paths on: {', '.join(on) or 'none'}"]
    lines += [f"  off: {name} ({why})" for name, why in sorted(off.items())]
    if mode == "faithful" and on:
        lines.append("  (some fast paths stay on with SSE_CONNECTORS_FAST=0: not all faithful)")
    return lines


def table(report: dict[str, Any]) -> list[str]:
    lines = [
        f"Per streamed text chunk: {report['text_chunks']:,} text chunks "
        f"({report['framing']} framing), process CPU, median of {report['repeat']};",
        "ratio to the floor measured in the same process",
        f"  {'variant':<42}{'µs/chunk':>9}{'x floor':>9}{'yields':>8}  goal",
    ]
    adapter = ""
    for row in report["rows"]:
        if row["adapter"] != adapter:
            adapter = row["adapter"]
            lines.append(f"{adapter}:")
        goal = "" if row["goal"] is None else f"<= {row['goal']}x"
        if row["met"] is False:
            goal += "  ABOVE GOAL"
        lines.append(
            f"  {row['variant']:<42}{row['us_per_chunk']:>9.2f}"
            f"{row['ratio_to_floor']:>8.2f}x{row['yields_per_run']:>8}  {goal}"
        )
    floors = report["floors"]["faithful"]
    lines.append(
        "floor in the faithful process: "
        + ", ".join(f"{name} {value:.2f} µs" for name, value in floors.items())
    )
    for mode in ("fast", "faithful"):
        lines += _paths_note(report["fast_paths"][mode], mode)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--framing", choices=("length", "chunked"), default="length")
    parser.add_argument("--json", action="store_true", help="JSON on stdout, the table on stderr")
    parser.add_argument("--quick", action="store_true", help="a 300-chunk stream, 2 runs")
    parser.add_argument("--worker", choices=("fast", "faithful"))
    parser.add_argument("--base-url")
    args = parser.parse_args()
    if args.quick:
        args.chunks, args.repeat = 300, 2
    if args.worker:
        print(json.dumps(worker(args.worker, args.base_url, args.chunks, args.repeat)))
        return 0
    with running(args.chunks, framing=args.framing) as url:
        results = {mode: _run_worker(mode, url, args.chunks, args.repeat)
                   for mode in ("fast", "faithful")}  # fmt: skip
    report = summary(results, args)
    out = sys.stderr if args.json else sys.stdout
    print("\n".join(table(report)), file=out)
    if args.json:
        print(json.dumps(report, indent=2))
    for error in report["errors"]:
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
