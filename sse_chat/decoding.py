"""``sse-chat decode FILE``: decode a captured SSE body (or ``-`` for stdin) and print it.

A capture that stops before the answer finished is said to be cut, and what arrived is
printed; a stream that carried an error prints the error and what arrived before it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sse_chat.render import render_completion
from sse_core import IncompleteStreamError, SSEConnectorError, StreamError, decode

__all__ = ["add_decode_arguments", "run_decode"]


def add_decode_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``decode`` subcommand's argument."""
    parser.add_argument(
        "file",
        help="a file holding a raw text/event-stream body (a capture, or NNN.sse of a "
        "recording); '-' reads standard input",
    )


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    return Path(name).read_bytes()


def run_decode(args: argparse.Namespace) -> int:
    """Decode and print; 0 when the stream ended well, 1 when not, 2 when unreadable."""
    try:
        body = _read(args.file)
    except OSError as exc:
        print(f"sse-chat decode: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        completion = decode(body)
    except IncompleteStreamError as exc:
        print(
            "sse-chat decode: the stream was cut: it ends without a finish_reason and without "
            "[DONE]; what arrived:",
            file=sys.stderr,
        )
        render_completion(exc.partial, sys.stdout, ended="the stream was cut")
        return 1
    except StreamError as exc:
        print(f"sse-chat decode: {type(exc).__name__}: {exc}", file=sys.stderr)
        partial = exc.partial
        if partial.choices or partial.usage is not None or partial.events:
            print("what arrived before the error:", file=sys.stderr)
            render_completion(partial, sys.stdout, ended="the stream ended with an error")
        return 1
    except SSEConnectorError as exc:
        print(f"sse-chat decode: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    render_completion(completion, sys.stdout)
    return 0
