"""``sse-chat``: the command-line entry point.

Subcommands:
    chat [PROMPT]   stream a chat live (starts the gateway emulator when no --base-url)
    decode FILE     decode a captured SSE body (or ``-``: stdin) and print the message
    probe           characterize a gateway with a few small requests
    info            versions, and which fast paths are on and why (for bug reports)
    emulator        run the gateway emulator on 127.0.0.1 (its own options and checks)

Commands that need an extra that is not installed say which, in one line (exit status 2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sse_chat.chat import add_chat_arguments
from sse_chat.decoding import add_decode_arguments, run_decode
from sse_chat.extras import missing_extra
from sse_chat.info import add_info_arguments, run_info
from sse_chat.probe.command import add_probe_arguments
from sse_core import __version__

__all__ = ["build_parser", "main"]


class _Formatter(argparse.HelpFormatter):
    """Wraps descriptions as usual, but keeps an ``examples:`` epilog as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


EXAMPLES = """\
examples:
  sse-chat chat                                   a chat with the built-in gateway emulator
  sse-chat chat --base-url https://host/v1 --model my-model "Hello"
  sse-chat chat --protocol anthropic --base-url https://host --model m "Hi"   Messages API
  sse-chat chat --protocol responses --base-url https://host/v1 --model m "Hi"  Responses API
  sse-chat chat --record recordings/first         record every model call for replay
  sse-chat decode recordings/first/001.sse        decode a recorded or captured body
  sse-chat probe --base-url https://host/v1 --model my-model
  sse-chat emulator --port 8000 --replay recordings/first
  sse-chat info --json                            versions and fast paths, for a bug report
"""
CHAT_EXAMPLES = """\
examples:
  sse-chat chat                                   emulator, demo tool, reasoning model
  sse-chat chat "weather in Paris and Tokyo"      two tool calls, then the answer
  sse-chat chat --no-tools --fault "rate-limit; retry-after=1" hello
  sse-chat chat --dialect spass --via langchain "weather in Rome"
  sse-chat chat --dialect anthropic               the emulator's Anthropic Messages API
  sse-chat chat --dialect anthropic --model emulator --thinking 2048 --no-tools hi
  sse-chat chat --protocol responses --effort low  OpenAI's Responses API, reasoning summary
  SSE_API_KEY=... sse-chat chat --base-url https://host/v1 --model my-model "Hi"
  sse-chat chat --base-url https://host/v1 --model m --record recordings/session
"""


def _cmd_chat(args: argparse.Namespace) -> int:
    from sse_chat.chat import run_chat

    return run_chat(args)


def _cmd_probe(args: argparse.Namespace) -> int:
    from sse_chat.probe.command import run_probe

    return run_probe(args)


def _cmd_emulator(args: argparse.Namespace) -> int:
    if said := missing_extra("emulator", "the gateway emulator"):
        print(f"sse-chat emulator: {said}", file=sys.stderr)
        return 2
    from sse_emulator.cli import run

    return run(args)


_EMULATOR_HELP = "run the gateway emulator on 127.0.0.1"
_EMULATOR_DESCRIPTION = (
    "Serve the deterministic OpenAI-compatible gateway emulator on 127.0.0.1 until Ctrl-C "
    "(docs/emulator.md)."
)


def _add_emulator(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    try:
        from sse_emulator.cli import add_arguments
    except ImportError:
        # No uvicorn: take every argument as it comes (no option prefix at all), so that
        # whatever was typed gets the one line saying what to install.
        emulator = sub.add_parser(
            "emulator",
            help=_EMULATOR_HELP,
            description=_EMULATOR_DESCRIPTION,
            prefix_chars="\x00",
            add_help=False,
        )
        emulator.add_argument("options", nargs="*", help="the emulator's options")
    else:
        emulator = sub.add_parser(
            "emulator", help=_EMULATOR_HELP, description=_EMULATOR_DESCRIPTION
        )
        add_arguments(emulator)
    emulator.set_defaults(func=_cmd_emulator)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sse-chat",
        description="Stream chats from OpenAI-compatible gateways (chat completions or the "
        "Responses API) and Anthropic-protocol gateways, decode captures, probe and record "
        "gateways, and run the gateway emulator.",
        epilog=EXAMPLES,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"sse-chat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chat = sub.add_parser(
        "chat",
        help="stream a chat live (the gateway emulator when no --base-url)",
        description="Stream a chat: reasoning, answer, tool calls (the demo get_weather tool "
        "is run locally and its result sent back) and usage; over chat completions, "
        "Anthropic's Messages API (--protocol anthropic) or OpenAI's Responses API "
        "(--protocol responses).",
        epilog=CHAT_EXAMPLES,
        formatter_class=_Formatter,
    )
    add_chat_arguments(chat)
    chat.set_defaults(func=_cmd_chat)
    decode = sub.add_parser(
        "decode",
        help="decode a captured SSE body and print the message",
        description="Decode a captured text/event-stream body and print the assembled message "
        "(chat completions, Anthropic Messages or the Responses API, told by its first event).",
    )
    add_decode_arguments(decode)
    decode.set_defaults(func=run_decode)
    probe = sub.add_parser(
        "probe",
        help="characterize a gateway with a few small requests",
        description="Send a handful of small requests, record them, and report how the "
        "gateway streams: end of stream, usage, reasoning, tool calls, named events, errors; "
        "then the ChatSSE and SSELLM settings that fit.",
        formatter_class=_Formatter,
    )
    add_probe_arguments(probe)
    probe.set_defaults(func=_cmd_probe)
    info = sub.add_parser(
        "info",
        help="versions, and which fast paths are on and why (for bug reports)",
        description="Print Python, the platform, the versions of sse-connectors and its "
        "dependencies, and each fast path with its tested ranges, whether it is on and why "
        "(SSE_CONNECTORS_FAST=0 turns them all off).",
    )
    add_info_arguments(info)
    info.set_defaults(func=run_info)
    _add_emulator(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sse-chat``; returns the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        print("(interrupted)", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
