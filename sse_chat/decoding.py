"""``sse-chat decode FILE``: decode a captured SSE body (or ``-`` for stdin) and print it.

A body that is one JSON ``chat.completion`` (a gateway that answered JSON, which ``chat
--record`` records as it came, with ``application/json`` in the NNN.json beside it) is
decoded as the client decoded it (an Anthropic ``message`` and a Responses ``response``
object too). The protocol is ``--protocol``'s, or told by the first event that says
(``auto``): Anthropic's Messages API when its type is one of Anthropic's (an ``event:
message_start`` line, or ``"type": "message_start"`` in the data of a frame without
``event:`` line), OpenAI's Responses API when it is a ``response.*`` event
(``response.created``, ...; named or typed in the data), else chat completions (Google's
Gemini API is read with ``--protocol gemini``; the app's
table says which types tell which protocol: :mod:`sse_chat.protocols`). A capture that stops
before the answer finished is said to be cut, and what arrived is printed; a stream that
carried an error prints the error and what arrived before it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from sse_chat.options import PROTOCOL_NAMES
from sse_chat.protocols import DEFAULT, app_protocol, told_by_answer, told_by_event
from sse_chat.render import render_completion
from sse_core import Completion, IncompleteStreamError, SSEConnectorError, StreamError
from sse_core.pipeline import SSEParser
from sse_core.pipeline.session import StreamSession

__all__ = ["add_decode_arguments", "decode_body", "detect_protocol", "run_decode"]

_SSE = "text/event-stream"
#: How much of the body detection reads: the first events are in it.
_SNIFF = 1 << 16


def add_decode_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``decode`` subcommand's argument."""
    parser.add_argument(
        "--protocol",
        default="auto",
        choices=("auto", *PROTOCOL_NAMES),
        help="the stream's protocol (default: auto, told by its first event: anthropic for "
        "Anthropic's message_start, responses for the Responses API's response.created (or "
        "another response.* event), in an event: line or in the data; else "
        "chat_completions)",
    )
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


def _says(name: str, data: str) -> str | None:
    """The protocol one event shows, or None when it shows none (a comment-only or named
    gateway event, an error frame every protocol sends)."""
    if told := told_by_event(name):
        return told.name
    if name != "message":
        return None  # a gateway's own event (or an error): any protocol may carry it
    if data.strip() == "[DONE]":
        return DEFAULT.name
    try:
        payload: Any = from_json(data)
    except ValueError:
        payload = None
    kind = payload.get("type") if isinstance(payload, dict) else None
    if isinstance(kind, str) and (told := told_by_event(kind)):
        return told.name
    chunk = isinstance(payload, dict) and ("choices" in payload or "object" in payload)
    return DEFAULT.name if chunk else None


def detect_protocol(body: bytes, content_type: str) -> str:
    """The protocol ``body`` is in, by its first event that tells (a JSON answer by its
    shape, e.g. the Messages API's ``message``); the default protocol when none does."""
    if content_type.startswith("application/json"):
        try:
            answer: Any = from_json(body)
        except ValueError:
            return DEFAULT.name
        return told_by_answer(answer).name if isinstance(answer, dict) else DEFAULT.name
    try:
        events = SSEParser().feed(body[:_SNIFF])
    except SSEConnectorError:
        return DEFAULT.name  # the decoder says what is wrong with it
    for event in events:
        if said := _says(event.event, event.data):
            return said
    return DEFAULT.name


def decode_body(body: bytes, content_type: str, protocol: str = DEFAULT.name) -> Completion:
    """Decode a whole body of ``content_type`` as the client does (an event stream, or one
    JSON answer); raises the same errors as :func:`sse_core.decode`."""
    session = StreamSession(source="the body", protocol=protocol)
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
    content_type = _content_type(args.file, body)
    protocol = args.protocol
    if protocol == "auto":
        protocol = detect_protocol(body, content_type)
    try:
        completion = decode_body(body, content_type, protocol)
    except IncompleteStreamError as exc:
        print(
            f"sse-chat decode: the stream was cut: it ends without {app_protocol(protocol).ends}; "
            "what arrived:",
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
