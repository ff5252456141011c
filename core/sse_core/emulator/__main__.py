"""``python -m sse_core.emulator``: an alias of ``python -m sse_emulator``."""

from __future__ import annotations

import sys

from sse_emulator.cli import build_parser, run

if __name__ == "__main__":
    # Usage errors name the command that was typed.
    sys.exit(run(build_parser("python -m sse_core.emulator").parse_args()))
