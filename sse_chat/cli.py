"""``sse-chat``: the command-line entry point.

Subcommands:
    chat [PROMPT]   stream a chat live (starts the gateway emulator when no --base-url)
    decode FILE     decode a captured SSE body and print the assembled message
    emulator        run the gateway emulator on 127.0.0.1
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from sse_chat.chat import add_chat_arguments
from sse_chat.render import render_completion
from sse_core import SSEConnectorError, StreamError, decode

__all__ = ["main"]


def _cmd_decode(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        body = path.read_bytes()
    except OSError as exc:
        print(f"sse-chat: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        completion = decode(body)
    except StreamError as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("partial result received before the error:", file=sys.stderr)
        render_completion(exc.partial, sys.stdout)
        return 1
    except SSEConnectorError as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    render_completion(completion, sys.stdout)
    return 0


def _cmd_chat(args: argparse.Namespace) -> int:
    from sse_chat.chat import run_chat

    return run_chat(args)


def _cmd_emulator(args: argparse.Namespace) -> int:
    from sse_core.emulator.__main__ import main as emulator_main

    argv = ["--port", str(args.port), "--dialect", args.dialect]
    if args.api_key:
        argv += ["--api-key", args.api_key]
    return emulator_main(argv)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sse-chat", description="Stream chats from OpenAI-compatible gateways."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    chat = sub.add_parser("chat", help="stream a chat live (emulator by default)")
    add_chat_arguments(chat)
    chat.set_defaults(func=_cmd_chat)
    dec = sub.add_parser("decode", help="decode a captured SSE body and print the message")
    dec.add_argument("file", help="a file holding the raw text/event-stream body")
    dec.set_defaults(func=_cmd_decode)
    emu = sub.add_parser("emulator", help="run the gateway emulator on 127.0.0.1")
    emu.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free)")
    emu.add_argument("--dialect", default="openai", help="dialect of the plain /v1 path")
    emu.add_argument("--api-key", default=None, help="require 'Authorization: Bearer KEY'")
    emu.set_defaults(func=_cmd_emulator)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sse-chat``; returns the process exit code."""
    args = _parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
