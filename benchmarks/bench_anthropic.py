"""Anthropic Messages streams: both adapters against the Anthropic clients, side by side.

Over ``anthropic_server.py`` on loopback (a subprocess, its CPU not counted), which speaks
Anthropic's wire at ``/v1/messages`` (``message_start`` with usage, ``content_block_start``
/ ``_delta`` / ``_stop``, ``message_delta`` with the stop reason and cumulative usage,
``message_stop``, ``event:`` lines, a ``request-id`` header):

- **CPU per chunk**: ``ChatSSE(protocol="anthropic").stream`` against langchain-anthropic's
  ``ChatAnthropic.stream``, and ``SSELLM(protocol="anthropic").stream_chat`` against
  llama-index-llms-anthropic's ``Anthropic.stream_chat`` (goal: at most 0.25x the anchor
  each), on a ``--text``-delta text stream (``text_delta`` events, 10,000) and on a
  ``--fragments``-piece tool-input stream (``input_json_delta`` events of one ``tool_use``
  block, 20,000; the LangChain models have the tool bound, as a caller's would). A run's
  figure is the process CPU time of one whole call, from the call to the stream's end,
  divided by the stream's deltas (whatever a variant yields per delta); the caller keeps
  each piece's string and the last chunk, not the chunks (holding 100,000 chunks makes the
  collector's full passes grow with them, for every client alike). Each variant is warmed
  up, the collector's generations frozen, then the variants take turns ``--repeat`` times
  (``gc.collect()`` before each run, outside the clock); the median is printed. Anthropic's
  LlamaIndex LLM parses the whole tool input so far on every fragment (quadratic: minutes
  per run at 20,000), so on the tool stream it runs ``--slow-runs`` times (default 1) after
  no warm-up of its own (its imports and client were warmed on the text stream).
- **Linear**: the same for ours at ``--linear`` deltas (100,000) of both shapes; printed,
  the per-chunk cost there over the one at 10,000 text deltas / 20,000 fragments.
- **First token**: from the call to the first text delta, ``--ft-repeat`` runs (300) of a
  3-delta stream (one HTTP chunk per event), the rest of each answer read outside the
  timing, against raw ``httpx`` + ``orjson`` reading the same stream. Goals: at most
  +0.5 ms for ``ChatClient(protocol="anthropic")``, the layer that raw httpx compares
  with; at most +0.2 ms over its framework's floor for ChatSSE.stream and
  SSELLM.stream_chat. Each framework's floor (``first_token_floors.py``: its least model,
  over ChatClient) already costs more than +0.5 ms on a 2-core machine, for any model of
  that framework, so +0.5 ms over raw httpx cannot be an adapter's goal; the adapters'
  own share is what they add over that floor. The anchors for comparison, and the same
  adapters on chat completions (``stream_server.py``, the same words) over their own raw
  baseline, taking turns with the rest: what the protocol itself adds.

Checked in every run (exit status 1 when wrong): every variant's text is the server's
(joined chunk contents; for LlamaIndex the deltas and the last message), or its tool call
the server's id, name and input (the joined ``tool_call_chunks`` args; the last message's
ToolCallBlock); ours also report the stop reason and the cumulative usage with the cache
tokens. ``--json``: the report as JSON on stdout (the table then goes to stderr). Run:
``.venv/bin/python benchmarks/bench_anthropic.py [--repeat R] [--json] [--quick]``
(``--quick``: 300 deltas, 3,000 for linearity, 2 runs, 20 first-token runs; only the checks
matter then).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import stream_server
from anthropic_server import (
    CACHE_READ,
    CACHE_WRITE,
    INPUT_TOKENS,
    MODEL,
    TOOL_ID,
    TOOL_NAME,
    running,
)
from harness import cpu_per_delta, first_text, median
from llama_index.core.base.llms.types import ChatMessage
from stream_server import text_words, tool_arguments

import sse_core
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM

LC_OURS, LC_ANCHOR = "ChatSSE.stream", "ChatAnthropic.stream (anchor)"
LI_OURS, LI_ANCHOR = "SSELLM.stream_chat", "Anthropic.stream_chat (anchor)"
LC_FLOOR = "LangChain floor (BaseChatModel.stream)"
LI_FLOOR = "LlamaIndex floor (CustomLLM.stream_chat)"
#: Each adapter's first-token floor: its framework's least model over ChatClient.
FLOOR_OF = {LC_OURS: LC_FLOOR, LI_OURS: LI_FLOOR}
PAIRS = {"LangChain": (LC_OURS, LC_ANCHOR), "LlamaIndex": (LI_OURS, LI_ANCHOR)}
ADAPTER = {name: adapter for adapter, pair in PAIRS.items() for name in pair}
GOAL_RATIO, GOAL_FIRST_TOKEN_MS = 0.25, 0.5
#: An adapter's first-token goal: at most this over its framework's floor (see the docstring).
GOAL_OVER_FLOOR_MS = 0.2
CLIENT = "ChatClient.stream"
ASK = [ChatMessage(role="user", content="go")]
TOOL = {
    "name": TOOL_NAME,
    "description": "Write a file.",
    "input_schema": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}
#: The request raw httpx sends (what the clients send, less their extras).
BODY = {"model": MODEL, "max_tokens": 1024, "messages": [{"role": "user", "content": "go"}]}
HEADERS = {"x-api-key": "bench", "anthropic-version": "2023-06-01"}
FIRST_TOKEN_DELTAS = 3
#: The first-token rows of the same adapters on chat completions.
CC = "chat completions: "


@dataclass
class Expected:
    """What the server sends: the text or the tool input, and the delta count."""

    shape: str
    deltas: int
    text: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, shape: str, deltas: int) -> Expected:
        if shape == "tools":
            return cls(shape, deltas, arguments=json.loads("".join(tool_arguments(deltas))))
        return cls(shape, deltas, text="".join(text_words(deltas)))


# --- the variants: each run returns what the caller saw, checked outside the clock -------------


@dataclass
class Seen:
    """What a caller keeps of a stream as it reads it: the pieces (text, or tool input) as
    strings, the tool call ids and names, and the last chunk or response; never the chunks
    themselves (a caller holding 100,000 chunks makes the collector's full passes grow with
    them, whatever the client)."""

    pieces: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    last: Any = None


def _langchain_seen(chunks: Iterator[Any]) -> Seen:
    seen = Seen()
    for chunk in chunks:
        if isinstance(chunk.content, str):
            seen.pieces.append(chunk.content)
        for part in chunk.tool_call_chunks:
            seen.pieces.append(part.get("args") or "")
            seen.ids.add(part.get("id") or "")
            seen.names.add(part.get("name") or "")
        seen.last = chunk
    return seen


def _llamaindex_seen(responses: Iterator[Any]) -> Seen:
    seen = Seen()
    for response in responses:
        seen.pieces.append(response.delta or "")
        seen.last = response
    return seen


def _models(url: str, shape: str) -> dict[str, Callable[[], Seen]]:
    from langchain_anthropic import ChatAnthropic
    from llama_index.llms.anthropic import Anthropic

    common: dict[str, Any] = {"model": MODEL, "base_url": url, "api_key": "bench"}
    chat: Any = ChatSSE(**common, protocol="anthropic", max_retries=0, timeout=600)
    anchor: Any = ChatAnthropic(**common, max_retries=0, default_request_timeout=600)
    if shape == "tools":
        chat, anchor = chat.bind_tools([TOOL]), anchor.bind_tools([TOOL])
    llm = SSELLM(**common, protocol="anthropic", max_retries=0, timeout=600)
    li_anchor = Anthropic(**common, max_retries=0, timeout=600)
    return {
        LC_OURS: lambda: _langchain_seen(chat.stream("go")),
        LC_ANCHOR: lambda: _langchain_seen(anchor.stream("go")),
        LI_OURS: lambda: _llamaindex_seen(llm.stream_chat(ASK)),
        LI_ANCHOR: lambda: _llamaindex_seen(li_anchor.stream_chat(ASK)),
    }


def check(name: str, seen: Seen, expected: Expected) -> list[str]:
    """What is wrong with one run's output (nothing: an empty list)."""
    try:
        if ADAPTER[name] == "LangChain":
            errors = check_pieces(seen, expected)
        else:
            errors = check_llamaindex(seen, expected)
        if name in (LC_OURS, LI_OURS):
            errors += _check_usage(name, seen.last, expected)
    except Exception as error:  # a malformed output is a failed check, not a crash
        errors = [f"{type(error).__name__}: {error}"]
    return [f"{name} ({expected.shape}, {expected.deltas}): {error}" for error in errors]


def check_pieces(seen: Seen, expected: Expected, call_id: str = TOOL_ID) -> list[str]:
    """The streamed pieces (text, or one call's arguments) against the server's answer."""
    joined = "".join(seen.pieces)
    if expected.shape == "text":
        return [] if joined == expected.text else [f"text of {len(joined)} chars, not the server's"]
    errors = [] if json.loads(joined) == expected.arguments else ["tool input is not the server's"]
    if seen.ids - {""} != {call_id} or seen.names - {""} != {TOOL_NAME}:
        errors.append(f"tool call ids {seen.ids}, names {seen.names}")
    return errors


def check_llamaindex(seen: Seen, expected: Expected, call_id: str = TOOL_ID) -> list[str]:
    """A LlamaIndex stream's deltas and last message against the server's answer."""
    last = seen.last.message
    if expected.shape == "text":
        deltas = "".join(seen.pieces)
        errors = [] if deltas == expected.text else [f"deltas of {len(deltas)} chars"]
        if str(last.content) != expected.text:
            errors.append("the last message's text is not the server's")
        return errors
    calls = [b for b in last.blocks if type(b).__name__ == "ToolCallBlock"]
    if len(calls) != 1:
        return [f"{len(calls)} ToolCallBlocks in the last message"]
    call = calls[0]
    kwargs = call.tool_kwargs
    kwargs = kwargs if isinstance(kwargs, dict) else json.loads(kwargs)
    errors = [] if kwargs == expected.arguments else ["tool input is not the server's"]
    if (call.tool_call_id, call.tool_name) != (call_id, TOOL_NAME):
        errors.append(f"tool call {call.tool_call_id!r} {call.tool_name!r}")
    return errors


def _check_usage(name: str, last: Any, expected: Expected) -> list[str]:
    """Ours: the stop reason and the last cumulative usage, cache tokens included."""
    stop = "tool_use" if expected.shape == "tools" else "end_turn"
    if name == LC_OURS:
        usage, meta = last.usage_metadata or {}, last.response_metadata
        got = (meta.get("stop_reason"), usage.get("output_tokens"),
               usage.get("input_token_details"), usage.get("input_tokens"))  # fmt: skip
        want = (stop, expected.deltas, {"cache_creation": CACHE_WRITE, "cache_read": CACHE_READ},
                INPUT_TOKENS + CACHE_WRITE + CACHE_READ)  # fmt: skip
    else:
        kwargs = last.message.additional_kwargs
        usage = kwargs.get("usage") or {}
        cache = (usage.get("cache_creation_input_tokens"), usage.get("cache_read_input_tokens"))
        got = (kwargs.get("stop_reason"), usage.get("output_tokens"), *cache)
        want = (stop, expected.deltas, CACHE_WRITE, CACHE_READ)
    return [] if got == want else [f"stop reason / usage {got}, expected {want}"]


# --- CPU per chunk -------------------------------------------------------------------------------


def side_by_side(args: argparse.Namespace, errors: list[str]) -> dict[str, Any]:
    """The four variants on the text stream and on the tool-input stream."""
    out: dict[str, Any] = {}
    for shape, deltas in (("text", args.text), ("tools", args.fragments)):
        expected = Expected.of(shape, deltas)
        slow = {LI_ANCHOR: args.slow_runs} if shape == "tools" else None
        with running(deltas, shape) as url:
            samples = cpu_per_delta(_models(url, shape), expected, args.repeat, errors, check, slow)
        out[shape] = {"deltas": deltas, "samples": samples}
    return out


def linear(args: argparse.Namespace, errors: list[str]) -> dict[str, Any]:
    """Ours at ``--linear`` deltas of both shapes."""
    out: dict[str, Any] = {}
    for shape in ("text", "tools"):
        expected = Expected.of(shape, args.linear)
        with running(args.linear, shape) as url:
            runs = {k: v for k, v in _models(url, shape).items() if k in (LC_OURS, LI_OURS)}
            samples = cpu_per_delta(runs, expected, args.repeat, errors, check)
        out[shape] = {"deltas": args.linear, "samples": samples}
    return out


# --- first token ---------------------------------------------------------------------------------


def _raw(http: httpx.Client, url: str) -> Iterator[str]:
    with http.stream("POST", url + "/v1/messages", json={**BODY, "stream": True}) as reply:
        for line in reply.iter_lines():
            if line.startswith("data: {"):
                event = orjson.loads(line[6:])
                delta = event.get("delta") or {}
                if event["type"] == "content_block_delta" and delta["type"] == "text_delta":
                    yield delta["text"]


def _client(client: sse_core.ChatClient) -> Iterator[str]:
    with client.stream(BODY) as stream:
        for event in stream:
            if type(event) is sse_core.TextDelta:
                yield event.text


def _first_token_paths(url: str, http: httpx.Client) -> dict[str, Callable[[], Iterator[str]]]:
    from first_token_floors import LangChainFloor, LlamaIndexFloor
    from langchain_anthropic import ChatAnthropic
    from llama_index.llms.anthropic import Anthropic

    common: dict[str, Any] = {"model": MODEL, "base_url": url, "api_key": "bench"}
    client = sse_core.ChatClient(base_url=url, api_key="bench", protocol="anthropic")
    lc_floor = LangChainFloor(client=client, body=BODY)
    li_floor = LlamaIndexFloor(client=client, body=BODY)
    chat = ChatSSE(**common, protocol="anthropic", max_retries=0)
    llm = SSELLM(**common, protocol="anthropic", max_retries=0)
    anchor = ChatAnthropic(**common, max_retries=0)
    li_anchor = Anthropic(**common, max_retries=0)
    return {
        "raw httpx + orjson (baseline)": lambda: _raw(http, url),
        CLIENT: lambda: _client(client),
        LC_FLOOR: lambda: (str(c.content) for c in lc_floor.stream("go") if c.content),
        LI_FLOOR: lambda: (r.delta for r in li_floor.stream_chat(ASK) if r.delta),
        LC_OURS: lambda: (str(c.content) for c in chat.stream("go") if c.content),
        LI_OURS: lambda: (r.delta for r in llm.stream_chat(ASK) if r.delta),
        LC_ANCHOR: lambda: (str(c.content) for c in anchor.stream("go") if c.content),
        LI_ANCHOR: lambda: (r.delta for r in li_anchor.stream_chat(ASK) if r.delta),
    }


def _chat_completions_paths(url: str) -> dict[str, Callable[[], Iterator[str]]]:
    """The same adapters on chat completions (``stream_server.py``), over their own raw
    baseline: what the protocol itself adds or saves."""
    from bench_first_token import chatsse_sync, raw_sync, ssellm_sync

    http = httpx.Client(timeout=30)
    chat = ChatSSE(model=MODEL, base_url=url, api_key="bench", max_retries=0)
    llm = SSELLM(model=MODEL, base_url=url, api_key="bench", max_retries=0)
    return {
        CC + "raw httpx + orjson (baseline)": lambda: raw_sync(http, url),
        CC + LC_OURS: lambda: chatsse_sync(chat),
        CC + LI_OURS: lambda: ssellm_sync(llm),
    }


def first_token(args: argparse.Namespace, errors: list[str]) -> dict[str, list[float]]:
    """ms from the call to the first text delta, per path."""
    words = text_words(FIRST_TOKEN_DELTAS)
    samples: dict[str, list[float]] = {}
    with (
        running(FIRST_TOKEN_DELTAS, framing="chunked") as url,
        stream_server.running(FIRST_TOKEN_DELTAS + 3) as cc_url,  # + role, finish, usage
        httpx.Client(timeout=30, headers=HEADERS) as http,
    ):
        paths = {**_first_token_paths(url, http), **_chat_completions_paths(cc_url)}
        for texts in paths.values():
            first_text(texts)  # warm-up: imports, pools, the connection
        gc.collect()
        gc.freeze()
        for _ in range(args.ft_repeat):
            for name, texts in paths.items():
                elapsed, first, whole = first_text(texts)
                samples.setdefault(name, []).append(elapsed * 1e3)
                if (first, whole) != (words[0], "".join(words)):
                    errors.append(f"first token, {name}: {first!r} first, {whole!r} whole")
        gc.unfreeze()
    return samples


# --- report --------------------------------------------------------------------------------------


def summary(cpu: dict[str, Any], lin: dict[str, Any], ft: dict[str, list[float]]) -> dict[str, Any]:
    rows = []
    for shape, part in cpu.items():
        medians = {name: median(values) for name, values in part["samples"].items()}
        for adapter, (ours, anchor) in PAIRS.items():
            ratio = round(medians[ours] / medians[anchor], 3)
            rows.append({
                "shape": shape, "deltas": part["deltas"], "adapter": adapter,
                "ours": ours, "ours_us_per_chunk": medians[ours],
                "anchor": anchor, "anchor_us_per_chunk": medians[anchor],
                "ratio": ratio, "goal": GOAL_RATIO, "met": ratio <= GOAL_RATIO,
                "runs": {ours: len(part["samples"][ours]), anchor: len(part["samples"][anchor])},
            })  # fmt: skip
    growth = []
    for shape, part in lin.items():
        for name, values in part["samples"].items():
            small = median(cpu[shape]["samples"][name])
            large = median(values)
            growth.append({
                "shape": shape, "variant": name, "small_deltas": cpu[shape]["deltas"],
                "small_us_per_chunk": small, "large_deltas": part["deltas"],
                "large_us_per_chunk": large, "ratio": round(large / small, 3),
            })  # fmt: skip
    medians = {name: median(values) for name, values in ft.items()}
    bases = [value for name, value in medians.items() if name.endswith("(baseline)")]
    first = [
        {"path": name, "ms": value, "added_ms": round(value - bases[name.startswith(CC)], 3),
         "goal_ms": GOAL_FIRST_TOKEN_MS if name == CLIENT else None,
         "over_floor_goal_ms": GOAL_OVER_FLOOR_MS if name in FLOOR_OF else None,
         "over_floor_ms": round(value - medians[FLOOR_OF[name]], 3) if name in FLOOR_OF
         else None}
        for name, value in medians.items()
    ]  # fmt: skip
    return {"cpu_per_chunk": rows, "linear": growth, "first_token": first}


def table(report: dict[str, Any], args: argparse.Namespace) -> list[str]:
    lines = [
        f"CPU per delta (process CPU of the whole call / deltas), median of {args.repeat} "
        f"(the LlamaIndex anchor on tools: {args.slow_runs}); goal ours <= {GOAL_RATIO}x",
        f"  {'stream':<14}{'ours':<22}{'µs':>9}  {'anchor':<32}{'µs':>10}{'ratio':>8}",
    ]
    for row in report["cpu_per_chunk"]:
        verdict = "" if row["met"] else "  ABOVE GOAL"
        lines.append(
            f"  {row['shape'] + ' ' + format(row['deltas'], ','):<14}{row['ours']:<22}"
            f"{row['ours_us_per_chunk']:>9.2f}  {row['anchor']:<32}"
            f"{row['anchor_us_per_chunk']:>10.2f}{row['ratio']:>7.3f}x{verdict}"
        )
    lines.append("Linear: µs per delta at the large size over the small (flat: about 1)")
    for row in report["linear"]:
        lines.append(
            f"  {row['shape']:<6}{row['variant']:<22}{row['small_deltas']:>8,}: "
            f"{row['small_us_per_chunk']:>8.2f}  {row['large_deltas']:>8,}: "
            f"{row['large_us_per_chunk']:>8.2f}  ratio {row['ratio']:.2f}"
        )
    lines.append(
        f"First text delta, {FIRST_TOKEN_DELTAS}-delta stream, median of {args.ft_repeat} "
        f"(goals: ChatClient <= +{GOAL_FIRST_TOKEN_MS} ms over the baseline, each adapter "
        f"<= +{GOAL_OVER_FLOOR_MS} ms over its floor: its framework's least model over "
        "ChatClient, what any model of it adds)"
    )
    for row in report["first_token"]:
        floor = row["over_floor_ms"]
        over = (row["goal_ms"] is not None and row["added_ms"] > row["goal_ms"]) or (
            floor is not None and floor > row["over_floor_goal_ms"]
        )
        lines.append(
            f"  {row['path']:<50}{row['ms']:>8.3f} ms {row['added_ms']:>+8.3f} ms"
            + (f"  ({floor:+.3f} ms over its floor)" if floor is not None else "")
            + ("  ABOVE GOAL" if over else "")
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", type=int, default=10_000, help="text deltas")
    parser.add_argument("--fragments", type=int, default=20_000, help="tool-input fragments")
    parser.add_argument("--linear", type=int, default=100_000, help="deltas for linearity")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--slow-runs", type=int, default=1, help="the LlamaIndex anchor, tools")
    parser.add_argument("--ft-repeat", type=int, default=300, help="first-token runs")
    parser.add_argument(
        "--sections",
        default="cpu,linear,first-token",
        help="which to run (linear runs cpu too: its ratios are to cpu's figures)",
    )
    parser.add_argument("--json", action="store_true", help="JSON on stdout, the table on stderr")
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 runs")
    args = parser.parse_args()
    if args.quick:
        args.text = args.fragments = 300
        args.linear, args.repeat, args.slow_runs, args.ft_repeat = 3_000, 2, 2, 20
    errors: list[str] = []
    sections = set(args.sections.split(","))
    cpu = side_by_side(args, errors) if sections & {"cpu", "linear"} else {}
    lin = linear(args, errors) if "linear" in sections else {}
    ft = first_token(args, errors) if "first-token" in sections else {}
    report = summary(cpu, lin, ft)
    out = sys.stderr if args.json else sys.stdout
    print("\n".join(table(report, args)), file=out)
    if args.json:
        report["samples"] = {"cpu_per_chunk": cpu, "linear": lin, "first_token": ft}
        report["errors"] = sorted(set(errors))
        print(json.dumps(report, indent=2))
    for error in sorted(set(errors)):
        print("CHECK FAILED:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
