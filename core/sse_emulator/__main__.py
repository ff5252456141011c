"""``python -m sse_emulator --port N``: serve the gateway emulator on 127.0.0.1."""

from __future__ import annotations

import sys

from sse_emulator.cli import build_parser, main

__all__ = ["build_parser", "main"]

if __name__ == "__main__":
    sys.exit(main())
