"""Gemini API streams: both adapters against the Google GenAI clients, side by side.

Over ``gemini_server.py`` on loopback (a subprocess, its CPU not counted), which speaks
Google's wire at ``/v1beta/models/{model}:streamGenerateContent?alt=sse`` (one whole
``GenerateContentResponse`` per ``data:`` frame, ``\\r\\n`` line ends, cumulative
``usageMetadata`` on every frame, ``finishReason`` on the last, no end marker):

- **CPU per delta**: ``ChatSSE(protocol="gemini").stream`` against langchain-google-genai's
  ``ChatGoogleGenerativeAI.stream`` (``base_url`` the server), and
  ``SSELLM(protocol="gemini").stream_chat`` against llama-index-llms-google-genai's
  ``GoogleGenAI.stream_chat`` (``http_options=HttpOptions(base_url=...)``, ``max_tokens`` and
  ``context_window`` given, so that it asks no ``models.get`` first), goal: at most 0.25x the
  anchor each; on a ``--text``-frame text stream (10,000 ``text`` parts) and a
  ``--calls``-frame function-call stream (1,000 ``functionCall`` parts, each a whole call; the
  LangChain models have the function bound, as a caller's would). A run's figure is the
  process CPU time of one whole call, from the call to the stream's end, divided by the
  frames; the caller keeps each piece's string and the last chunk, not the chunks. Each
  variant is warmed up, the collector's generations frozen, then the variants take turns
  ``--repeat`` times (``gc.collect()`` before each run, outside the clock); the median is
  printed.

The anchors are the project's dev dependencies only where the lock has them: an anchor that
is not installed is left out of the table (its row says so) and ours are measured and
checked alone.

Checked in every run (exit status 1 when wrong): every variant's text is the server's
(joined chunk contents; for LlamaIndex the deltas and the last message), or its calls the
server's, in order (name and arguments: the joined ``tool_call_chunks`` args of each call;
the last message's ToolCallBlocks); ours also report the finish (``STOP``) and the last
cumulative usage. ``--json``: the report as JSON on stdout (the table then goes to stderr).
Run: ``.venv/bin/python benchmarks/bench_gemini.py [--repeat R] [--json] [--quick]``
(``--quick``: 300 text frames, 30 calls, 2 runs; only the checks matter then).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gemini_server import CALL_NAME, MODEL, PROMPT_TOKENS, call_arg, running
from harness import cpu_per_delta
from llama_index.core.base.llms.types import ChatMessage
from stream_server import text_words

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM

LC_OURS, LC_ANCHOR = "ChatSSE.stream", "ChatGoogleGenerativeAI.stream (anchor)"
LI_OURS, LI_ANCHOR = "SSELLM.stream_chat", "GoogleGenAI.stream_chat (anchor)"
PAIRS = {"LangChain": (LC_OURS, LC_ANCHOR), "LlamaIndex": (LI_OURS, LI_ANCHOR)}
ADAPTER = {name: adapter for adapter, pair in PAIRS.items() for name in pair}
#: Each anchor's distribution and module (left out when the module is not installed).
ANCHOR_MODULES = {
    LC_ANCHOR: ("langchain-google-genai", "langchain_google_genai"),
    LI_ANCHOR: ("llama-index-llms-google-genai", "llama_index.llms.google_genai"),
}
GOAL_RATIO = 0.25
ASK = [ChatMessage(role="user", content="go")]
TOOL = {
    "name": CALL_NAME,
    "description": "Write a file.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}
#: Generous enough for the slowest anchor's whole run on a busy machine.
TIMEOUT = 600


def installed(name: str) -> bool:
    """Whether an anchor's module can be imported here."""
    return importlib.util.find_spec(ANCHOR_MODULES[name][1]) is not None


@dataclass
class Expected:
    """What the server sends: the text or the calls, and the frame count."""

    shape: str
    deltas: int
    text: str = ""
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    @classmethod
    def of(cls, shape: str, deltas: int) -> Expected:
        if shape == "calls":
            return cls(shape, deltas, calls=[(CALL_NAME, call_arg(n)) for n in range(deltas)])
        return cls(shape, deltas, text="".join(text_words(deltas)))


@dataclass
class Seen:
    """What a caller keeps of a stream: the text pieces, each call's name and argument
    pieces by its index, and the last chunk or response (never the chunks themselves)."""

    pieces: list[str] = field(default_factory=list)
    calls: dict[int, tuple[str, list[str]]] = field(default_factory=dict)
    last: Any = None


def _langchain_seen(chunks: Iterator[Any]) -> Seen:
    seen = Seen()
    for chunk in chunks:
        if isinstance(chunk.content, str):
            seen.pieces.append(chunk.content)
        for part in chunk.tool_call_chunks:
            _, args = seen.calls.setdefault(part["index"], (part.get("name") or "", []))
            args.append(part.get("args") or "")
        seen.last = chunk
    return seen


def _llamaindex_seen(responses: Iterator[Any]) -> Seen:
    seen = Seen()
    for response in responses:
        seen.pieces.append(response.delta or "")
        seen.last = response
    return seen


def _models(url: str, shape: str) -> dict[str, Callable[[], Seen]]:
    common: dict[str, Any] = {"model": MODEL, "base_url": url, "api_key": "bench"}
    chat: Any = ChatSSE(**common, protocol="gemini", max_retries=0, timeout=TIMEOUT)
    llm = SSELLM(**common, protocol="gemini", max_retries=0, timeout=TIMEOUT)
    if shape == "calls":
        chat = chat.bind_tools([TOOL])
    runs: dict[str, Callable[[], Seen]] = {
        LC_OURS: lambda: _langchain_seen(chat.stream("go")),
        LI_OURS: lambda: _llamaindex_seen(llm.stream_chat(ASK)),
    }
    if installed(LC_ANCHOR):
        from langchain_google_genai import ChatGoogleGenerativeAI

        # max_retries=1: one attempt, no retry (its 0 is google-genai's default, 5 retries).
        anchor: Any = ChatGoogleGenerativeAI(
            model=MODEL, base_url=url, google_api_key="bench", max_retries=1, timeout=TIMEOUT
        )
        if shape == "calls":
            anchor = anchor.bind_tools([TOOL])
        runs[LC_ANCHOR] = lambda: _langchain_seen(anchor.stream("go"))
    if installed(LI_ANCHOR):
        from google.genai import types
        from llama_index.llms.google_genai import GoogleGenAI

        li_anchor = GoogleGenAI(
            model=MODEL, api_key="bench", max_retries=0, max_tokens=1024,
            context_window=1_000_000, http_options=types.HttpOptions(base_url=url),
        )  # fmt: skip
        runs[LI_ANCHOR] = lambda: _llamaindex_seen(li_anchor.stream_chat(ASK))
    return runs


def check(name: str, seen: Seen, expected: Expected) -> list[str]:
    """What is wrong with one run's output (nothing: an empty list)."""
    try:
        if ADAPTER[name] == "LangChain":
            errors = check_langchain(seen, expected)
        else:
            errors = check_llamaindex(seen, expected)
        if name in (LC_OURS, LI_OURS):
            errors += _check_finish(name, seen.last, expected)
    except Exception as error:  # a malformed output is a failed check, not a crash
        errors = [f"{type(error).__name__}: {error}"]
    return [f"{name} ({expected.shape}, {expected.deltas}): {error}" for error in errors]


def check_langchain(seen: Seen, expected: Expected) -> list[str]:
    """LangChain chunks' text, or each call's name and joined arguments, in order."""
    if expected.shape == "text":
        joined = "".join(seen.pieces)
        return [] if joined == expected.text else [f"text of {len(joined)} chars, not the server's"]
    calls = [(name, json.loads("".join(args))) for _, (name, args) in sorted(seen.calls.items())]
    return [] if calls == expected.calls else [f"{len(calls)} calls, not the server's"]


def check_llamaindex(seen: Seen, expected: Expected) -> list[str]:
    """A LlamaIndex stream's deltas and last message against the server's answer."""
    last = seen.last.message
    if expected.shape == "text":
        deltas = "".join(seen.pieces)
        errors = [] if deltas == expected.text else [f"deltas of {len(deltas)} chars"]
        if str(last.content) != expected.text:
            errors.append("the last message's text is not the server's")
        return errors
    blocks = [b for b in last.blocks if type(b).__name__ == "ToolCallBlock"]
    calls = [(b.tool_name, _kwargs(b.tool_kwargs)) for b in blocks]
    return [] if calls == expected.calls else [f"{len(calls)} ToolCallBlocks, not the server's"]


def _kwargs(value: Any) -> Any:
    return value if isinstance(value, dict) else json.loads(value)


def _check_finish(name: str, last: Any, expected: Expected) -> list[str]:
    """Ours: Gemini's finish word and the last cumulative usage."""
    if name == LC_OURS:
        usage, meta = last.usage_metadata or {}, last.response_metadata
        got = (meta.get("stop_reason"), usage.get("input_tokens"), usage.get("output_tokens"))
    else:
        kwargs = last.additional_kwargs  # the ChatResponse's, not its message's
        counts = (kwargs.get("prompt_tokens"), kwargs.get("completion_tokens"))
        got = (kwargs.get("stop_reason"), *counts)
    want = ("STOP", PROMPT_TOKENS, expected.deltas)
    return [] if got == want else [f"stop reason / usage {got}, expected {want}"]


def side_by_side(args: argparse.Namespace, errors: list[str]) -> dict[str, Any]:
    """Every variant on the text stream and on the function-call stream."""
    out: dict[str, Any] = {}
    for shape, deltas in (("text", args.text), ("calls", args.calls)):
        expected = Expected.of(shape, deltas)
        with running(deltas, shape) as url:
            samples = cpu_per_delta(_models(url, shape), expected, args.repeat, errors, check)
        out[shape] = {"deltas": deltas, "samples": samples}
    return out


def summary(cpu: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for shape, part in cpu.items():
        medians = {n: round(statistics.median(v), 3) for n, v in part["samples"].items()}
        for adapter, (ours, anchor) in PAIRS.items():
            theirs = medians.get(anchor)
            ratio = round(medians[ours] / theirs, 3) if theirs else None
            rows.append({
                "shape": shape, "deltas": part["deltas"], "adapter": adapter,
                "ours": ours, "ours_us_per_delta": medians[ours],
                "anchor": anchor, "anchor_us_per_delta": theirs, "ratio": ratio,
                "goal": GOAL_RATIO, "met": None if ratio is None else ratio <= GOAL_RATIO,
            })  # fmt: skip
    return rows


def table(rows: list[dict[str, Any]], args: argparse.Namespace) -> list[str]:
    lines = [
        f"CPU per delta (process CPU of the whole call / frames), median of {args.repeat}; "
        f"goal ours <= {GOAL_RATIO}x",
        f"  {'stream':<14}{'ours':<22}{'µs':>9}  {'anchor':<40}{'µs':>10}{'ratio':>8}",
    ]
    for row in rows:
        if row["ratio"] is None:
            missing = ANCHOR_MODULES[row["anchor"]][0]
            theirs = f"  {row['anchor']:<40}  ({missing} is not installed)"
        else:
            verdict = "" if row["met"] else "  ABOVE GOAL"
            theirs = (
                f"  {row['anchor']:<40}{row['anchor_us_per_delta']:>10.2f}"
                f"{row['ratio']:>7.3f}x{verdict}"
            )
        lines.append(
            f"  {row['shape'] + ' ' + format(row['deltas'], ','):<14}{row['ours']:<22}"
            f"{row['ours_us_per_delta']:>9.2f}{theirs}"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", type=int, default=10_000, help="text frames")
    parser.add_argument("--calls", type=int, default=1_000, help="function-call frames")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="JSON on stdout, the table on stderr")
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 runs")
    args = parser.parse_args()
    if args.quick:
        args.text, args.calls, args.repeat = 300, 30, 2
    errors: list[str] = []
    cpu = side_by_side(args, errors)
    rows = summary(cpu)
    out = sys.stderr if args.json else sys.stdout
    print("\n".join(table(rows, args)), file=out)
    if args.json:
        print(json.dumps({"cpu_per_delta": rows, "samples": cpu, "errors": sorted(set(errors))}))
    for error in sorted(set(errors)):
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
