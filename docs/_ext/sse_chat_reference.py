"""The ``sse-chat`` reference, made from the command's own argument parser at build time.

``{sse-chat-reference}`` renders the help of ``sse-chat`` and of each of its commands as
``sse_chat.cli.build_parser()`` prints it, so the page cannot drift from the code.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from docutils import nodes  # type: ignore[import-untyped]
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

#: The width help is wrapped at (argparse reads COLUMNS).
WIDTH = "100"


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each command's parser by name, in the order the parser lists them."""
    for action in parser._actions:  # argparse has no public way to list subparsers
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def help_text(parser: argparse.ArgumentParser) -> str:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return parser.format_help()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


class SSEChatReference(SphinxDirective):
    """Every command's ``--help``, each in its own section."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from sse_chat.cli import build_parser

        parser = build_parser()
        found: list[nodes.Node] = [nodes.literal_block(text=help_text(parser), language="text")]
        for name, command in commands(parser).items():
            section = nodes.section(ids=[f"sse-chat-{name}"], names=[f"sse-chat {name}"])
            section += nodes.title(text=f"sse-chat {name}")
            section += nodes.literal_block(text=help_text(command), language="text")
            self.state.document.note_implicit_target(section)
            found.append(section)
        return found


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("sse-chat-reference", SSEChatReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
