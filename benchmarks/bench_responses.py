"""OpenAI Responses streams: both adapters and the core against the OpenAI clients, side by side.

Over ``responses_server.py`` on loopback (a subprocess, its CPU not counted), which speaks the
Responses wire at ``/v1/responses`` as api.openai.com sends it (``event:`` lines,
``sequence_number``, ``response.created`` / ``in_progress``, the item's ``added`` / deltas /
``done`` events, ``response.completed`` with the whole response and its usage):

- **CPU per delta**: ``ChatSSE(protocol="responses").stream`` against langchain-openai's
  ``ChatOpenAI(use_responses_api=True).stream``, ``SSELLM(protocol="responses").stream_chat``
  against llama-index-llms-openai's ``OpenAIResponses.stream_chat`` (goal: at most 0.25x the
  anchor each), and the core pair, ``ChatClient(protocol="responses").stream`` against the
  openai SDK's ``client.responses.create(stream=True)`` iterated (no goal: the layer the
  anchors are built on), on a ``--text``-delta text stream (``output_text.delta`` events,
  10,000) and a ``--fragments``-piece function call (``function_call_arguments.delta``
  events, 20,000; the LangChain models and the SDK call have the tool bound, as a caller's
  would). A run's figure is the process CPU time of one whole call, from the call to the
  stream's end, divided by the stream's deltas; the caller keeps each piece's string and the
  last chunk (or response, or event), not the chunks. Each variant is warmed up, the
  collector's generations frozen, then the variants take turns ``--repeat`` times
  (``gc.collect()`` before each run, outside the clock); the median is printed.
- **Linear**: ours (the three) at ``--linear`` deltas (100,000) of both shapes; printed, the
  per-delta cost there over the one at the sizes above.
- **First token**: from the call to the first text delta, ``--ft-repeat`` runs (300) of a
  3-delta stream (one HTTP chunk per event), the rest of each answer read outside the timing,
  against raw ``httpx`` + ``orjson`` reading the same stream. Goals (as ``bench_anthropic.py``,
  whose docstring says why): at most +0.5 ms for ``ChatClient``, at most +0.2 ms over its
  framework's floor (``first_token_floors.py``) for ChatSSE.stream and SSELLM.stream_chat. The
  anchors for comparison, and the same adapters on chat completions (``stream_server.py``, the
  same words) over their own raw baseline: what the protocol itself adds.

Checked in every run (exit status 1 when wrong): every variant's text is the server's (joined
pieces; for LlamaIndex also the last message), or its call the server's call id, name and
arguments; ours also report the finish reason, the response id and the usage (input, cached,
output and reasoning tokens); the SDK's last event is ``response.completed`` with the usage.
``--json``: the report as JSON on stdout (the table then goes to stderr). Run:
``.venv/bin/python benchmarks/bench_responses.py [--repeat R] [--sections ...] [--json]
[--quick]`` (``--quick``: 300 deltas, 3,000 for linearity, 2 runs, 20 first-token runs; only
the checks matter then).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import orjson
import stream_server
from bench_anthropic import Expected, Seen, check_llamaindex, check_pieces
from harness import cpu_per_delta, first_text, median
from llama_index.core.base.llms.types import ChatMessage
from responses_server import (
    CACHED_TOKENS,
    CALL_ID,
    INPUT_TOKENS,
    MODEL,
    REASONING_TOKENS,
    RESPONSE_ID,
    TOOL_NAME,
    running,
)
from stream_server import text_words

import sse_core
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM

LC_OURS, LC_ANCHOR = "ChatSSE.stream", "ChatOpenAI.stream (anchor)"
LI_OURS, LI_ANCHOR = "SSELLM.stream_chat", "OpenAIResponses.stream_chat (anchor)"
CORE_OURS, CORE_ANCHOR = "ChatClient.stream", "openai SDK responses.create (anchor)"
LC_FLOOR = "LangChain floor (BaseChatModel.stream)"
LI_FLOOR = "LlamaIndex floor (CustomLLM.stream_chat)"
#: Each adapter's first-token floor: its framework's least model over ChatClient.
FLOOR_OF = {LC_OURS: LC_FLOOR, LI_OURS: LI_FLOOR}
PAIRS = {
    "LangChain": (LC_OURS, LC_ANCHOR),
    "LlamaIndex": (LI_OURS, LI_ANCHOR),
    "core": (CORE_OURS, CORE_ANCHOR),
}
ADAPTER = {name: adapter for adapter, pair in PAIRS.items() for name in pair}
OURS = tuple(ours for ours, _ in PAIRS.values())
#: The CPU goal of each pair (the core pair has none: the SDK is what the anchors sit on).
GOAL_RATIO: dict[str, float | None] = {"LangChain": 0.25, "LlamaIndex": 0.25, "core": None}
GOAL_FIRST_TOKEN_MS, GOAL_OVER_FLOOR_MS = 0.5, 0.2
ASK = [ChatMessage(role="user", content="go")]
FUNCTION: dict[str, Any] = {
    "name": TOOL_NAME,
    "description": "Write a file.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}
#: The tool as the frameworks bind it (chat completions' shape), and in the Responses API's
#: flat shape (the SDK call's and ChatClient's).
TOOL, FLAT_TOOL = {"type": "function", "function": FUNCTION}, {"type": "function", **FUNCTION}
#: The body raw httpx and ChatClient send (what the clients send, less their extras).
BODY: dict[str, Any] = {"model": MODEL, "input": [{"role": "user", "content": "go"}]}
HEADERS = {"authorization": "Bearer bench"}
FIRST_TOKEN_DELTAS = 3
#: The first-token rows of the same adapters on chat completions.
CC = "chat completions: "


# --- the variants: each run returns what the caller saw, checked outside the clock -------------


def _langchain_seen(chunks: Iterator[Any]) -> Seen:
    seen = Seen()
    for chunk in chunks:
        seen.pieces.append(chunk.text)  # ChatOpenAI's content is a list of blocks here
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


def _client_seen(client: sse_core.ChatClient, body: dict[str, Any]) -> Seen:
    seen = Seen()
    with client.stream(body) as stream:
        for event in stream:
            if type(event) is sse_core.TextDelta:
                seen.pieces.append(event.text)
            elif type(event) is sse_core.ToolCallDelta:
                seen.pieces.append(event.arguments)
                seen.ids.add(event.id or "")
                seen.names.add(event.name or "")
        seen.last = stream.completion
    return seen


def _sdk_seen(events: Iterator[Any]) -> Seen:
    seen = Seen()
    for event in events:
        kind = event.type
        if kind in ("response.output_text.delta", "response.function_call_arguments.delta"):
            seen.pieces.append(event.delta)
        elif kind == "response.output_item.added" and event.item.type == "function_call":
            seen.ids.add(event.item.call_id)
            seen.names.add(event.item.name)
        seen.last = event
    return seen


def _models(url: str, shape: str) -> dict[str, Callable[[], Seen]]:
    import openai
    from langchain_openai import ChatOpenAI
    from llama_index.llms.openai import OpenAIResponses

    common: dict[str, Any] = {"model": MODEL, "base_url": url, "api_key": "bench"}
    chat: Any = ChatSSE(**common, protocol="responses", max_retries=0, timeout=600)
    anchor: Any = ChatOpenAI(**common, use_responses_api=True, max_retries=0, timeout=600)
    if shape == "tools":
        chat, anchor = chat.bind_tools([TOOL]), anchor.bind_tools([TOOL])
    llm = SSELLM(**common, protocol="responses", max_retries=0, timeout=600)
    li_anchor = OpenAIResponses(model=MODEL, api_base=url, api_key="bench", max_retries=0,
                                timeout=600)  # fmt: skip
    client = sse_core.ChatClient(base_url=url, api_key="bench", protocol="responses")
    create: Any = openai.OpenAI(base_url=url, api_key="bench", max_retries=0,
                                timeout=600).responses.create  # fmt: skip
    tools = {"tools": [FLAT_TOOL]} if shape == "tools" else {}
    body = {**BODY, **tools}
    return {
        LC_OURS: lambda: _langchain_seen(chat.stream("go")),
        LC_ANCHOR: lambda: _langchain_seen(anchor.stream("go")),
        LI_OURS: lambda: _llamaindex_seen(llm.stream_chat(ASK)),
        LI_ANCHOR: lambda: _llamaindex_seen(li_anchor.stream_chat(ASK)),
        CORE_OURS: lambda: _client_seen(client, body),
        CORE_ANCHOR: lambda: _sdk_seen(create(model=MODEL, input="go", stream=True, **tools)),
    }


def check(name: str, seen: Seen, expected: Expected) -> list[str]:
    """What is wrong with one run's output (nothing: an empty list)."""
    try:
        adapter = ADAPTER[name]
        if adapter == "LlamaIndex":
            errors = check_llamaindex(seen, expected, CALL_ID)
        else:
            errors = check_pieces(seen, expected, CALL_ID)
        if name in OURS:
            errors += _check_usage(name, seen.last, expected)
        elif name == CORE_ANCHOR:
            errors += _check_sdk_end(seen.last, expected)
    except Exception as error:  # a malformed output is a failed check, not a crash
        errors = [f"{type(error).__name__}: {error}"]
    return [f"{name} ({expected.shape}, {expected.deltas}): {error}" for error in errors]


def _check_usage(name: str, last: Any, expected: Expected) -> list[str]:
    """Ours: the finish reason, the response id and the usage of ``response.completed``."""
    finish = "tool_calls" if expected.shape == "tools" else "stop"
    want = (finish, RESPONSE_ID, INPUT_TOKENS, expected.deltas, CACHED_TOKENS, REASONING_TOKENS)
    if name == LC_OURS:
        usage, meta = last.usage_metadata or {}, last.response_metadata
        cached = (usage.get("input_token_details") or {}).get("cache_read")
        reasoning = (usage.get("output_token_details") or {}).get("reasoning")
        got = (meta.get("finish_reason"), meta.get("id"), usage.get("input_tokens"),
               usage.get("output_tokens"), cached, reasoning)  # fmt: skip
    elif name == LI_OURS:
        kwargs = last.additional_kwargs
        got = (kwargs.get("finish_reason"), (last.raw or {}).get("id"),
               kwargs.get("prompt_tokens"), kwargs.get("completion_tokens"),
               kwargs.get("cached_tokens"), kwargs.get("reasoning_tokens"))  # fmt: skip
    else:
        choice, usage = last.choices[0], last.usage
        got = (choice.finish_reason, last.id, usage.prompt_tokens, usage.completion_tokens,
               usage.cached_tokens, usage.reasoning_tokens)  # fmt: skip
        if name == CORE_OURS and not _same_call(choice, expected):
            return ["the completion's answer is not the server's"]
    return [] if got == want else [f"finish / id / usage {got}, expected {want}"]


def _same_call(choice: Any, expected: Expected) -> bool:
    """Whether ChatClient's completion holds the server's text, or its one call."""
    if expected.shape == "text":
        return bool(choice.content == expected.text and not choice.tool_calls)
    calls = choice.tool_calls
    return (len(calls) == 1 and (calls[0].id, calls[0].name) == (CALL_ID, TOOL_NAME)
            and json.loads(calls[0].arguments) == expected.arguments)  # fmt: skip


def _check_sdk_end(last: Any, expected: Expected) -> list[str]:
    usage = last.response.usage if last.type == "response.completed" else None
    if usage is None or usage.output_tokens != expected.deltas:
        return [f"the last event is {last.type}, usage {usage}"]
    return []


# --- CPU per delta -------------------------------------------------------------------------------


def side_by_side(args: argparse.Namespace, errors: list[str]) -> dict[str, Any]:
    """The six variants on the text stream and on the function-call stream."""
    out: dict[str, Any] = {}
    for shape, deltas in (("text", args.text), ("tools", args.fragments)):
        expected = Expected.of(shape, deltas)
        with running(deltas, shape) as url:
            samples = cpu_per_delta(_models(url, shape), expected, args.repeat, errors, check)
        out[shape] = {"deltas": deltas, "samples": samples}
    return out


def linear(args: argparse.Namespace, errors: list[str]) -> dict[str, Any]:
    """Ours at ``--linear`` deltas of both shapes."""
    out: dict[str, Any] = {}
    for shape in ("text", "tools"):
        expected = Expected.of(shape, args.linear)
        with running(args.linear, shape) as url:
            runs = {k: v for k, v in _models(url, shape).items() if k in OURS}
            samples = cpu_per_delta(runs, expected, args.repeat, errors, check)
        out[shape] = {"deltas": args.linear, "samples": samples}
    return out


# --- first token ---------------------------------------------------------------------------------


def _raw(http: httpx.Client, url: str) -> Iterator[str]:
    with http.stream("POST", url + "/responses", json={**BODY, "stream": True}) as reply:
        for line in reply.iter_lines():
            if line.startswith("data: {"):
                event = orjson.loads(line[6:])
                if event["type"] == "response.output_text.delta":
                    yield event["delta"]
                elif event["type"] == "response.completed":
                    return


def _texts(client: sse_core.ChatClient) -> Iterator[str]:
    with client.stream(BODY) as stream:
        for event in stream:
            if type(event) is sse_core.TextDelta:
                yield event.text


def _sdk_texts(events: Iterator[Any]) -> Iterator[str]:
    return (event.delta for event in events if event.type == "response.output_text.delta")


def _first_token_paths(url: str, http: httpx.Client) -> dict[str, Callable[[], Iterator[str]]]:
    import openai
    from first_token_floors import LangChainFloor, LlamaIndexFloor
    from langchain_openai import ChatOpenAI
    from llama_index.llms.openai import OpenAIResponses

    common: dict[str, Any] = {"model": MODEL, "base_url": url, "api_key": "bench"}
    client = sse_core.ChatClient(base_url=url, api_key="bench", protocol="responses")
    lc_floor = LangChainFloor(client=client, body=BODY)
    li_floor = LlamaIndexFloor(client=client, body=BODY)
    chat = ChatSSE(**common, protocol="responses", max_retries=0)
    llm = SSELLM(**common, protocol="responses", max_retries=0)
    anchor = ChatOpenAI(**common, use_responses_api=True, max_retries=0)
    li_anchor = OpenAIResponses(model=MODEL, api_base=url, api_key="bench", max_retries=0)
    create: Any = openai.OpenAI(base_url=url, api_key="bench", max_retries=0).responses.create
    return {
        "raw httpx + orjson (baseline)": lambda: _raw(http, url),
        CORE_OURS: lambda: _texts(client),
        LC_FLOOR: lambda: (str(c.content) for c in lc_floor.stream("go") if c.content),
        LI_FLOOR: lambda: (r.delta for r in li_floor.stream_chat(ASK) if r.delta),
        LC_OURS: lambda: (c.text for c in chat.stream("go") if c.text),
        LI_OURS: lambda: (r.delta for r in llm.stream_chat(ASK) if r.delta),
        CORE_ANCHOR: lambda: _sdk_texts(create(model=MODEL, input="go", stream=True)),
        LC_ANCHOR: lambda: (c.text for c in anchor.stream("go") if c.text),
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
            ratio, goal = round(medians[ours] / medians[anchor], 3), GOAL_RATIO[adapter]
            rows.append({
                "shape": shape, "deltas": part["deltas"], "adapter": adapter,
                "ours": ours, "ours_us_per_chunk": medians[ours],
                "anchor": anchor, "anchor_us_per_chunk": medians[anchor],
                "ratio": ratio, "goal": goal, "met": goal is None or ratio <= goal,
            })  # fmt: skip
    growth = []
    for shape, part in lin.items():
        for name, values in part["samples"].items():
            small, large = median(cpu[shape]["samples"][name]), median(values)
            growth.append({
                "shape": shape, "variant": name, "small_deltas": cpu[shape]["deltas"],
                "small_us_per_chunk": small, "large_deltas": part["deltas"],
                "large_us_per_chunk": large, "ratio": round(large / small, 3),
            })  # fmt: skip
    medians = {name: median(values) for name, values in ft.items()}
    bases = [value for name, value in medians.items() if name.endswith("(baseline)")]
    first = [
        {"path": name, "ms": value, "added_ms": round(value - bases[name.startswith(CC)], 3),
         "goal_ms": GOAL_FIRST_TOKEN_MS if name == CORE_OURS else None,
         "over_floor_goal_ms": GOAL_OVER_FLOOR_MS if name in FLOOR_OF else None,
         "over_floor_ms": round(value - medians[FLOOR_OF[name]], 3) if name in FLOOR_OF
         else None}
        for name, value in medians.items()
    ]  # fmt: skip
    return {"cpu_per_chunk": rows, "linear": growth, "first_token": first}


def table(report: dict[str, Any], args: argparse.Namespace) -> list[str]:
    lines = [
        f"CPU per delta (process CPU of the whole call / deltas), median of {args.repeat}; "
        "goal ours <= 0.25x for the adapters",
        f"  {'stream':<14}{'ours':<20}{'µs':>9}  {'anchor':<38}{'µs':>9}{'ratio':>8}",
    ]
    for row in report["cpu_per_chunk"]:
        verdict = "" if row["met"] else "  ABOVE GOAL"
        lines.append(
            f"  {row['shape'] + ' ' + format(row['deltas'], ','):<14}{row['ours']:<20}"
            f"{row['ours_us_per_chunk']:>9.2f}  {row['anchor']:<38}"
            f"{row['anchor_us_per_chunk']:>9.2f}{row['ratio']:>7.3f}x{verdict}"
        )
    lines.append("Linear: µs per delta at the large size over the small (flat: about 1)")
    for row in report["linear"]:
        lines.append(
            f"  {row['shape']:<6}{row['variant']:<20}{row['small_deltas']:>8,}: "
            f"{row['small_us_per_chunk']:>8.2f}  {row['large_deltas']:>8,}: "
            f"{row['large_us_per_chunk']:>8.2f}  ratio {row['ratio']:.2f}"
        )
    lines.append(
        f"First text delta, {FIRST_TOKEN_DELTAS}-delta stream, median of {args.ft_repeat} "
        f"(goals: ChatClient <= +{GOAL_FIRST_TOKEN_MS} ms over the baseline, each adapter "
        f"<= +{GOAL_OVER_FLOOR_MS} ms over its framework's floor)"
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
    parser.add_argument("--fragments", type=int, default=20_000, help="argument fragments")
    parser.add_argument("--linear", type=int, default=100_000, help="deltas for linearity")
    parser.add_argument("--repeat", type=int, default=5)
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
        args.linear, args.repeat, args.ft_repeat = 3_000, 2, 20
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
