"""No page or docstring lists the protocols by hand and names fewer than the registry has.

A sentence that names two protocols or more (a list of them, "chat completions or Anthropic
Messages") goes stale when a protocol is added: where a text speaks of every protocol it
says so ("every protocol", ``sse_core.protocol_names()``), or names them all. What a
protocol's own page or module says of itself and of another (a comparison) is its own;
the migration guides compare one protocol pair each; the CHANGELOG is history; the emulator
(and its page) serves its own dialects, registry or not; the probe's plans are per protocol.
A sentence that gives examples ("e.g.", "such as") lists no protocols.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from sse_core.protocols import protocol_names

ROOT = Path(__file__).parents[2]
#: How each registered protocol is named in prose and code (a new protocol fails
#: :func:`test_every_protocol_has_its_spellings` until it is given its own).
SPELLINGS = {
    "chat_completions": r"chat[ _-]completions?\b",
    "anthropic": r"Anthropic Messages|Messages API|[\"'`]anthropic[\"'`]",
    "responses": r"Responses API|OpenAI Responses|OpenAI's Responses|[\"'`]responses[\"'`]",
    "gemini": r"Gemini API|Google's Gemini|[\"'`]gemini[\"'`]",
}
#: Pages and folders whose texts are their protocol's own (or history, or the emulator's).
OWN = (
    "docs/protocols/",
    "docs/migration/",
    "docs/emulator.md",
    "sse_chat/probe/",
    "core/sse_core/protocols/",
    "core/sse_core/pipeline/anthropic_",
    "core/sse_core/pipeline/responses_",
    "core/sse_core/pipeline/chunks.py",
)
PACKAGES = ("core/sse_core", "langchain_sse", "llamaindex_sse", "sse_chat")
EXAMPLES = re.compile(r"\be\.g\.|\bsuch as\b")


def _sentences(text: str) -> Iterator[str]:
    for paragraph in re.split(r"\n\s*\n", text):
        flat = " ".join(paragraph.split())
        yield from re.split(r"(?<=[.;])\s+(?=[A-Z(`*-])", flat)


def _texts() -> Iterator[tuple[str, str]]:
    """(where, text) of every page and every docstring outside :data:`OWN`."""
    pages = [*sorted(ROOT.glob("docs/**/*.md")), ROOT / "README.md"]
    for page in pages:
        where = str(page.relative_to(ROOT))
        if not where.startswith(OWN):
            yield where, page.read_text()
    for package in PACKAGES:
        for module in sorted((ROOT / package).rglob("*.py")):
            where = str(module.relative_to(ROOT))
            if where.startswith(OWN):
                continue
            for node in ast.walk(ast.parse(module.read_text())):
                value = node.value if isinstance(node, ast.Expr) else None
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    yield f"{where}:{node.lineno}", value.value


def test_every_protocol_has_its_spellings() -> None:
    assert set(protocol_names()) <= set(SPELLINGS)


def test_no_text_names_some_protocols_and_not_the_others() -> None:
    names = {name: re.compile(SPELLINGS[name]) for name in protocol_names()}
    found = []
    for where, text in _texts():
        for sentence in _sentences(text):
            named = {name for name, pattern in names.items() if pattern.search(sentence)}
            if 2 <= len(named) < len(names) and not EXAMPLES.search(sentence):
                found.append(f"{where}: {sorted(named)}: {sentence[:140]}")
    assert not found, "texts that list protocols by hand:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("text", "stale"),
    [
        ('protocol: chat completions, or Anthropic Messages (``"anthropic"``).', True),
        ("every protocol (``sse_core.protocol_names()``) takes it.", False),
        ("chat completions, the Messages API, the Responses API and the Gemini API alike.", False),
    ],
)
def test_the_rule_reads_a_sentence_as_meant(text: str, stale: bool) -> None:
    names = {name: re.compile(SPELLINGS[name]) for name in protocol_names()}
    named = {name for name, pattern in names.items() if pattern.search(text)}
    assert (2 <= len(named) < len(names)) is stale
