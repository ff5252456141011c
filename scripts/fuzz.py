"""Fuzz the sans-IO pipeline with mutations of real captures: only typed errors may escape.

Each input is a capture from ``tests/fixtures/real`` or ``tests/fixtures/seeds`` changed by
one to three mutations: bit flips, truncation, a splice of two captures, a JSON value of the
wrong type somewhere in a chunk (the chunk is walked and one of its values, at any depth, is
replaced by a value of another type), huge numbers, deep nesting, CR/LF/NUL insertion, and
cut or stray UTF-8 sequences. Every input is decoded whole with :func:`sse_core.decode`, at
random cuts, and through the README's incremental loop (:class:`StreamDecoder` +
:class:`Accumulator`, read by read).

An exception that is not an :class:`~sse_core.SSEConnectorError` is an *untyped exception*,
a defect: the input (its repr, cut short) and the traceback are printed. A body that decodes
differently whole and cut into reads is a *split mismatch*, a defect too; so is a *driver
mismatch*: the incremental loop, fed the cut reads, reaching another verdict (error class,
or completion) than ``decode`` of the whole body. At the end: inputs tried, untyped
exceptions, split and driver mismatches, the slowest input and the time taken. Exit status 1
if anything was found. The same seed gives the same inputs (their digest is
printed).

``--protocol anthropic`` fuzzes the Anthropic Messages decoder the same way, with the captures
of ``tests/fixtures/real/anthropic``.

Run: ``.venv/bin/python scripts/fuzz.py [--inputs N] [--seed S] [--protocol P]``.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import itertools
import json
import random
import re
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import sse_core
from sse_core import Completion, SSEConnectorError, StreamDecoder, StreamError
from sse_core.pipeline import Accumulator
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES
from sse_core.protocols import protocol_names

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
PREVIEW = 400  # characters of an input's repr shown with its traceback
SHOWN = 10  # failures printed in full; the rest are counted
#: max_event_bytes per input: mostly the default, sometimes small enough to be reached.
BOUNDS = (DEFAULT_MAX_EVENT_BYTES,) * 10 + (4096, 64)

Mutator = Callable[[random.Random, bytes, Sequence[bytes]], bytes]


# --- the corpus ---------------------------------------------------------------------------------


def load_corpus(root: Path = FIXTURES, protocol: str = "chat_completions") -> list[bytes]:
    """The captures of ``protocol``, as wire bytes (``*.payloads.jsonl`` lines framed as
    ``data:`` events)."""
    folders = ("real/anthropic",) if protocol == "anthropic" else ("real", "seeds")
    bodies = []
    for path in sorted(path for folder in folders for path in root.glob(f"{folder}/*.sse")):
        bodies.append(path.read_bytes())
    for path in sorted(root.glob(f"{folders[0]}/*.payloads.jsonl")):
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
        bodies.append(b"".join(b"data: " + line + b"\n\n" for line in lines))
    return bodies


# --- mutations ----------------------------------------------------------------------------------


def bit_flips(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """One to eight random bits flipped."""
    data = bytearray(body)
    for _ in range(rng.randint(1, 8)):
        if data:
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
    return bytes(data)


def truncation(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """The body cut short anywhere."""
    return body[: rng.randint(0, len(body))]


def splice(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """The start of this capture, then the end of another."""
    other = rng.choice(corpus)
    return body[: rng.randint(0, len(body))] + other[rng.randint(0, len(other)) :]


_FRAME = re.compile(rb"^data: ?(\{.*)$", re.MULTILINE)
_OTHER_TYPES: tuple[Any, ...] = (
    None, True, False, 0, -1, 2**64, 1.5, -0.0, "", "x", "<think>", [], [None], {}, {"k": "v"},
    [{"index": "0"}], {"text": 5},
)  # fmt: skip


def _frames(body: bytes) -> list[re.Match[bytes]]:
    return list(_FRAME.finditer(body))


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside decoded JSON (the root excluded)."""
    children: Iterator[tuple[Any, Any]]
    if isinstance(value, dict):
        children = iter(value.items())
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        return
    for key, child in children:
        yield (*path, key)
        yield from _paths(child, (*path, key))


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = new


def _rewrite_frame(
    rng: random.Random, body: bytes, change: Callable[[Any, tuple[Any, ...]], bytes]
) -> bytes:
    """Decode one random JSON frame, let ``change`` rewrite a random path of it, put it back."""
    frames = _frames(body)
    rng.shuffle(frames)
    for match in frames[:5]:
        try:  # an earlier mutation may have nested it past what json and recursion allow
            chunk = json.loads(match.group(1))
            paths = list(_paths(chunk))
            if paths:
                new = change(chunk, rng.choice(paths))
                return body[: match.start(1)] + new + body[match.end(1) :]
        except (ValueError, RecursionError):
            continue
    return body


def wrong_types(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """A value somewhere in a chunk replaced by a value of another type."""

    def change(chunk: Any, path: tuple[Any, ...]) -> bytes:
        _replace(chunk, path, rng.choice(_OTHER_TYPES))
        return json.dumps(chunk).encode()

    return _rewrite_frame(rng, body, change)


_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_HUGE = (b"1" + b"0" * 400, b"-9" * 200, b"1e999", b"-1e999", b"18446744073709551616", b"1e-999")


def huge_numbers(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """Up to five numbers replaced by huge ones (400 digits, 1e999, 2**64)."""
    spans = [m.span() for m in _NUMBER.finditer(body)]
    for start, end in sorted(rng.sample(spans, min(5, len(spans))), reverse=True):
        body = body[:start] + rng.choice(_HUGE) + body[end:]
    return body


def deep_nesting(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """A value in a chunk wrapped in hundreds to thousands of arrays or objects."""
    depth = rng.choice((64, 200, 256, 1000, 5000))
    opening, closing = rng.choice(((b"[", b"]"), (b'{"a":', b"}")))
    marker = "\x00nest\x00"

    def change(chunk: Any, path: tuple[Any, ...]) -> bytes:
        _replace(chunk, path, marker)
        text = json.dumps(chunk).encode()
        return text.replace(json.dumps(marker).encode(), opening * depth + b"1" + closing * depth)

    return _rewrite_frame(rng, body, change)


_CONTROL = (b"\r", b"\n", b"\x00", b"\r\n", b"\n\n", b"\r\r", b"\x00\n")


def control_chars(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """CR, LF and NUL inserted at one to five random places."""
    for _ in range(rng.randint(1, 5)):
        at = rng.randint(0, len(body))
        body = body[:at] + rng.choice(_CONTROL) + body[at:]
    return body


_WIDE = ("é", "☕", "🎉", "中", "\u2028", "\ufeff")


def split_utf8(rng: random.Random, body: bytes, corpus: Sequence[bytes]) -> bytes:
    """Multi-byte characters, whole or cut short, inserted (the random reads then cut the
    whole ones too); or a BOM in front."""
    if rng.random() < 0.1:
        return b"\xef\xbb\xbf" + body
    for _ in range(rng.randint(1, 5)):
        char = rng.choice(_WIDE).encode()
        piece = char if rng.random() < 0.5 else char[: rng.randint(1, len(char))]
        at = rng.randint(0, len(body))
        body = body[:at] + piece + body[at:]
    return body


MUTATORS: dict[str, Mutator] = {
    "bit-flips": bit_flips,
    "truncation": truncation,
    "splice": splice,
    "wrong-types": wrong_types,
    "huge-numbers": huge_numbers,
    "deep-nesting": deep_nesting,
    "control-chars": control_chars,
    "split-utf8": split_utf8,
}


def mutate(rng: random.Random, corpus: Sequence[bytes]) -> tuple[str, bytes]:
    """A random capture with one to three random mutations; their names and the bytes."""
    body = rng.choice(corpus)
    names = [rng.choice(sorted(MUTATORS)) for _ in range(rng.choice((1, 1, 2, 3)))]
    for name in names:
        body = MUTATORS[name](rng, body, corpus)
    return "+".join(names), body


# --- decoding -----------------------------------------------------------------------------------


def cut(rng: random.Random, body: bytes) -> list[bytes]:
    """``body`` cut into reads at random points (sometimes byte by byte for short bodies)."""
    if len(body) < 2_000 and rng.random() < 0.1:
        return [body[i : i + 1] for i in range(len(body))]
    points = sorted({rng.randint(0, len(body)) for _ in range(rng.randint(1, 12))})
    edges = [0, *points, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges) if b > a]


def outcome(pieces: Sequence[bytes], bound: int, protocol: str) -> tuple[str, Completion]:
    """What :func:`sse_core.decode` makes of ``pieces``: ("ok", completion) or the error
    class and partial (other exceptions propagate: they are the untyped ones)."""
    try:
        return "ok", sse_core.decode(pieces, max_event_bytes=bound, protocol=protocol)
    except StreamError as exc:
        return type(exc).__name__, exc.partial


def through_decoder(
    pieces: Sequence[bytes], bound: int, protocol: str
) -> tuple[str, Completion | None]:
    """The README's incremental loop (StreamDecoder + Accumulator, read by read): ("ok",
    completion) or the error class (its partial is the loop's to assemble, so None)."""
    decoder, answer = StreamDecoder(max_event_bytes=bound, protocol=protocol), Accumulator()
    try:
        for piece in pieces:
            for event in decoder.feed(piece):
                answer.add(event)
            if decoder.done:
                break
        answer.extend(decoder.finish())
        answer.mark()
        return "ok", answer.finish()
    except StreamError as exc:
        return type(exc).__name__, None


@dataclass
class Finding:
    """One defect: what was found, where, with which input."""

    kind: str
    way: str
    mutation: str
    body: bytes
    detail: str


@dataclass
class Report:
    """What a fuzzing run did and found."""

    inputs: int = 0
    findings: list[Finding] = field(default_factory=list)
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    slowest: float = 0.0
    digest: str = ""

    @property
    def untyped(self) -> int:
        """How many untyped exceptions were found."""
        return sum(1 for f in self.findings if f.kind == "untyped exception")

    @property
    def mismatches(self) -> int:
        """How many bodies decoded differently whole and cut into reads."""
        return sum(1 for f in self.findings if f.kind == "split mismatch")

    @property
    def driver_mismatches(self) -> int:
        """How many bodies the incremental loop judged otherwise than ``decode``."""
        return sum(1 for f in self.findings if f.kind == "driver mismatch")


def _attempt(action: Callable[[], Any]) -> tuple[Any, str | None]:
    """Run ``action``; (its result, None), (None, None) for a typed error, or the traceback."""
    try:
        return action(), None
    except SSEConnectorError:
        return None, None
    except Exception:
        return None, traceback.format_exc()


def check(
    rng: random.Random,
    mutation: str,
    body: bytes,
    report: Report,
    protocol: str = "chat_completions",
) -> list[Finding]:
    """Decode ``body`` every way; the defects found (the whole outcome counted in ``report``)."""
    bound = rng.choice(BOUNDS)
    pieces = cut(rng, body)
    found = []
    ways: list[tuple[str, Callable[[], Any]]] = [
        ("decode whole", lambda: outcome([body], bound, protocol)),
        ("decode cut", lambda: outcome(pieces, bound, protocol)),
        ("StreamDecoder+Accumulator", lambda: through_decoder(pieces, bound, protocol)),
    ]
    results = {}
    for way, action in ways:
        results[way], trace = _attempt(action)
        if trace is not None:
            found.append(Finding("untyped exception", way, mutation, body, trace))
    whole, split = results["decode whole"], results["decode cut"]
    report.outcomes[whole[0] if whole is not None else "untyped"] += 1
    sizes = [len(p) for p in pieces]
    if whole is not None and split is not None and whole != split:
        detail = f"whole: {whole[0]}, cut at {sizes}: {split[0]}\n"
        found.append(Finding("split mismatch", "decode cut", mutation, body, detail))
    way = "StreamDecoder+Accumulator"
    loop = results[way]
    if whole is not None and loop is not None and _differ(whole, loop):
        detail = f"decode whole: {whole[0]}, the incremental loop cut at {sizes}: {loop[0]}\n"
        found.append(Finding("driver mismatch", way, mutation, body, detail))
    return found


def _differ(whole: tuple[str, Completion], loop: tuple[str, Completion | None]) -> bool:
    """Whether two verdicts differ: the error class, or the completion of a success."""
    return whole[0] != loop[0] or (whole[0] == "ok" and whole[1] != loop[1])


def fuzz(
    inputs: int, seed: int, *, out: TextIO = sys.stdout, protocol: str = "chat_completions"
) -> Report:
    """Try ``inputs`` mutated captures of ``protocol``; print each defect as found; return
    the report."""
    rng = random.Random(seed)
    corpus = load_corpus(protocol=protocol)
    report = Report()
    digest = hashlib.sha256()
    for _ in range(inputs):
        mutation, body = mutate(rng, corpus)
        digest.update(body)
        started = time.perf_counter()
        for finding in check(rng, mutation, body, report, protocol):
            report.findings.append(finding)
            if len(report.findings) <= SHOWN:
                show(finding, out)
        report.slowest = max(report.slowest, time.perf_counter() - started)
        report.inputs += 1
    report.digest = digest.hexdigest()[:16]
    return report


def show(finding: Finding, out: TextIO) -> None:
    """Print one defect: what, where, the input (cut short) and the traceback."""
    shown = repr(finding.body)
    if len(shown) > PREVIEW:
        shown = shown[:PREVIEW] + f"... ({len(finding.body)} bytes)"
    print(f"--- {finding.kind} in {finding.way} (mutations: {finding.mutation})", file=out)
    print(f"input: {shown}", file=out)
    print(finding.detail.rstrip(), file=out)


def summary(report: Report, elapsed: float, out: TextIO) -> None:
    """Print the figures of a run."""
    print(f"inputs tried: {report.inputs}", file=out)
    print(f"untyped exceptions: {report.untyped}", file=out)
    print(f"split mismatches: {report.mismatches}", file=out)
    print(f"driver mismatches: {report.driver_mismatches}", file=out)
    kinds = ", ".join(f"{kind} {count}" for kind, count in report.outcomes.most_common())
    print(f"outcomes (decoded whole): {kinds}", file=out)
    print(f"slowest input: {report.slowest * 1000:.1f} ms", file=out)
    print(f"inputs digest: {report.digest}", file=out)
    print(f"elapsed: {elapsed:.1f} s", file=out)


def main(argv: Sequence[str] | None = None, *, out: TextIO = sys.stdout) -> int:
    """Parse the arguments, fuzz, print the figures; 1 if a defect was found."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=20_000, help="inputs to try (20000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument(
        "--protocol",
        choices=protocol_names(),
        default="chat_completions",
        help="(chat_completions)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    report = fuzz(args.inputs, args.seed, out=out, protocol=args.protocol)
    summary(report, time.perf_counter() - started, out)
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
