"""The emulator's command line: ``python -m sse_emulator`` and ``sse-chat emulator``.

:func:`add_arguments` puts the options on any parser (``sse-chat`` adds them to its own
``emulator`` subcommand, so usage errors name that program), :func:`run` serves with
parsed arguments, and :func:`main` does both for ``python -m sse_emulator``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from sse_emulator.replay.recording import RecordingError, load_recording
from sse_emulator.server.foreground import serve
from sse_emulator.server.record import RequestRecord, access_line
from sse_emulator.wire.dialects import DIALECTS

PROG = "python -m sse_emulator"
#: The port served when none is given.
DEFAULT_PORT = 8000


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535.

    Raises:
        argparse.ArgumentTypeError: For anything else (argparse turns it into a usage
            error with exit status 2).
    """
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, got {port}")
    return port


def recording_path(text: str) -> Path:
    """An argparse type: a replay path that holds a recording (checked now, not later).

    Raises:
        argparse.ArgumentTypeError: When the path is missing, empty or not a recording.
    """
    try:
        load_recording(text)
    except RecordingError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return Path(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the emulator's options to ``parser``.

    Args:
        parser: A parser or a subcommand's parser; its program name is the one usage
            errors show.
    """
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help=f"port on 127.0.0.1, 0..65535; 0 picks a free one (default: {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--dialect",
        choices=sorted(DIALECTS),
        default="openai",
        help="the dialect the unprefixed /v1/chat/completions speaks (default: openai)",
    )
    parser.add_argument(
        "--api-key",
        default=None,
        metavar="KEY",
        help=(
            "require 'Authorization: Bearer KEY' (or 'x-api-key: KEY' on anthropic) on chat"
            " requests (default: accept any)"
        ),
    )
    parser.add_argument(
        "--log",
        action="store_true",
        help="print one line per request to stderr as it completes (never a key)",
    )
    parser.add_argument(
        "--replay",
        type=recording_path,
        default=None,
        metavar="PATH",
        help="answer chat requests from a recording: a .sse file (every request) or a "
        "directory of NNN.sse files with their .json sidecars (one per request, in order)",
    )
    parser.add_argument(
        "--replay-timing",
        action="store_true",
        help="with --replay: send each recorded read at its recorded time",
    )
    parser.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="check every request against the request types the openai and anthropic SDKs "
        "publish (--no-strict: only the emulator's own rules; default: checked when those "
        "SDKs are installed, or as SSE_EMULATOR_STRICT=1/0 says)",
    )


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """A stand-alone parser with the emulator's options."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Serve the deterministic OpenAI-compatible gateway emulator on 127.0.0.1.",
    )
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Serve with parsed arguments until SIGINT or SIGTERM.

    Args:
        args: Arguments parsed by a parser that :func:`add_arguments` prepared.

    Returns:
        The exit status: 0 after a clean shutdown, 1 when the port cannot be bound or
        the recording became unreadable, 2 for ``--replay-timing`` without ``--replay`` or
        ``--strict`` without the SDKs.
    """
    if args.replay_timing and args.replay is None:
        print("--replay-timing needs --replay PATH", file=sys.stderr)
        return 2
    try:
        serve(
            args.port,
            dialect=args.dialect,
            api_key=args.api_key,
            on_finished=_log_line if args.log else None,
            replay=args.replay,
            replay_timing=args.replay_timing,
            strict=getattr(args, "strict", None),
        )
    except ImportError as error:  # --strict without the SDKs
        print(f"cannot check requests: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"cannot serve on 127.0.0.1:{args.port}: {error}", file=sys.stderr)
        return 1
    except RecordingError as error:
        print(f"cannot replay: {error}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and serve until interrupted (``python -m sse_emulator``).

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).

    Returns:
        The process exit status (2 for a usage error, via ``SystemExit``).
    """
    return run(build_parser().parse_args(argv))


def _log_line(record: RequestRecord) -> None:
    print(access_line(record), file=sys.stderr, flush=True)
