"""``sse-chat decode FILE``: decode a captured SSE body (or ``-`` for stdin) and print it.

A body that is one JSON ``chat.completion`` (a gateway that answered JSON, which ``chat
--record`` records as it came, with ``application/json`` in the NNN.json beside it) is
decoded as the client decoded it. A capture that stops before the answer finished is said
to be cut, and what arrived is printed; a stream that carried an error prints the error and
what arrived before it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sse_chat.render import render_completion
from sse_core import Completion, IncompleteStreamError, SSEConnectorError, StreamError
from sse_core.pipeline.session import StreamSession

__all__ = ["add_decode_arguments", "decode_body", "run_decode"]

_SSE = "text/event-stream"


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


def _content_type(name: str, body: bytes) -> str:
    """The body's type: the recording's own (NNN.json beside NNN.sse), else JSON for a body
    that starts with ``{`` (no event stream does), else an event stream."""
    path = Path(name)
    if name != "-" and path.suffix == ".sse":
        try:
            meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
            headers = {str(k).lower(): str(v) for k, v in meta["headers"]}
            return headers.get("content-type", _SSE)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # no recording beside it, or not ours: judge by the body
    return "application/json" if body.lstrip()[:1] == b"{" else _SSE


def decode_body(body: bytes, content_type: str) -> Completion:
    """Decode a whole body of ``content_type`` as the client does (an event stream, or one
    JSON answer); raises the same errors as :func:`sse_core.decode`."""
    session = StreamSession(source="the body")
    session.begin({"content-type": content_type})
    session.step(body)
    session.end()
    return session.completion()


def run_decode(args: argparse.Namespace) -> int:
    """Decode and print; 0 when the stream ended well, 1 when not, 2 when unreadable."""
    try:
        body = _read(args.file)
    except OSError as exc:
        print(f"sse-chat decode: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        completion = decode_body(body, _content_type(args.file, body))
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
