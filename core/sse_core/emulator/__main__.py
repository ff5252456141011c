"""``python -m sse_core.emulator --port N``: serve the gateway emulator on 127.0.0.1."""

from __future__ import annotations

import argparse
import sys

from sse_core.emulator.server.foreground import serve
from sse_core.emulator.wire.dialects import DIALECTS


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser (shared with ``sse-chat emulator``)."""
    parser = argparse.ArgumentParser(
        prog="python -m sse_core.emulator",
        description="Serve the deterministic OpenAI-compatible gateway emulator on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: any free)")
    parser.add_argument(
        "--dialect",
        choices=sorted(DIALECTS),
        default="openai",
        help="dialect of the unprefixed /v1/chat/completions (default: openai)",
    )
    parser.add_argument("--api-key", default=None, help="require 'Authorization: Bearer KEY'")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and serve until interrupted.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).

    Returns:
        The process exit status: 0 after a clean shutdown, 1 if the port is taken.
    """
    args = build_parser().parse_args(argv)
    try:
        serve(args.port, dialect=args.dialect, api_key=args.api_key)
    except OSError as error:
        print(f"cannot serve on 127.0.0.1:{args.port}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
