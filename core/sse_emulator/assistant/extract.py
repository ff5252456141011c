"""Values found in a user message: names, numbers and words, in order of appearance.

The assistant fills tool arguments and ``response_format`` schemas from these, so
"weather in Paris and Tokyo" yields the names ``Paris`` and ``Tokyo`` and
"John is 30" yields ``John`` and ``30``. The rules are plain and documented in
``docs/emulator.md``: a quoted string (in any script) is a name, and comes first; so is a
run of capitalised words that is not a common sentence word, with a trailing two-letter
region code kept ("San Francisco, CA"); a number is an optionally signed decimal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
# A string in straight or curly quotes, not an apostrophe inside a word ("what's").
_QUOTED = re.compile(
    r"(?<!\w)[\"'\u2018\u201c]([^\"'\u2018\u2019\u201c\u201d\n]{1,80})[\"'\u2019\u201d](?!\w)"
)
_REGION = re.compile(r"[A-Z]{2}")
_AFTER_PREPOSITION = re.compile(r"\b(?:in|for|at|to|from|about|of)\s+([^\W\d_][\w'\u2019-]*)", re.I)

#: Capitalised words that start sentences or commands, never names.
STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "i",
        "i'm",
        "i'd",
        "what",
        "what's",
        "whats",
        "how",
        "how's",
        "who",
        "when",
        "where",
        "why",
        "which",
        "is",
        "are",
        "was",
        "were",
        "be",
        "can",
        "could",
        "would",
        "will",
        "should",
        "may",
        "might",
        "please",
        "tell",
        "give",
        "show",
        "find",
        "get",
        "call",
        "use",
        "make",
        "let",
        "let's",
        "hello",
        "hi",
        "hey",
        "thanks",
        "thank",
        "ok",
        "okay",
        "yes",
        "no",
        "and",
        "or",
        "but",
        "in",
        "on",
        "at",
        "for",
        "to",
        "from",
        "of",
        "with",
        "by",
        "my",
        "me",
        "you",
        "your",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "do",
        "does",
        "did",
        "then",
        "also",
        "now",
        "extract",
        "return",
        "answer",
        "say",
        "echo",
        "repeat",
        "count",
        "write",
        "compute",
        "calculate",
        "convert",
        "check",
        "look",
        "search",
        "send",
        "set",
        "list",
        "run",
        "lookup",
        "fetch",
        "describe",
        "explain",
        "name",
        "summarise",
        "summarize",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Values:
    """The values of one message, in order of appearance.

    A :class:`~sse_emulator.assistant.schema_fill.SchemaFiller` consumes its own
    copy front to back, so one ``Values`` can fill several calls.

    Attributes:
        text: The whole message text (for free-text fields).
        names: Capitalised names, in order, without duplicates.
        numbers: Number literals, in order.
        words: The message's lowercase words (for enum matching).
    """

    text: str
    names: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    words: frozenset[str] = frozenset()


def extract(text: str, *, exclude: Iterable[str] = ()) -> Values:
    """Find the names, numbers and words of a message.

    Args:
        text: The message text.
        exclude: Lowercase words never to treat as names (e.g. tool keywords).

    Returns:
        The message's :class:`Values`. When it has no capitalised name, the word after
        a preposition ("weather in paris") stands in for one.
    """
    excluded = STOP_WORDS | {word.lower() for word in exclude}
    quoted = [m.group(1).strip() for m in _QUOTED.finditer(text) if m.group(1).strip()]
    names = quoted + _names(text, excluded)
    if len(names) == len(quoted):
        names += [m.group(1) for m in _AFTER_PREPOSITION.finditer(text)]
        names = [name for name in names if name.lower() not in excluded]
    words = frozenset(word.lower() for word in _WORD.findall(text))
    return Values(
        text=text,
        names=tuple(dict.fromkeys(names)),
        numbers=tuple(_NUMBER.findall(text)),
        words=words,
    )


def _names(text: str, excluded: frozenset[str]) -> list[str]:
    """Group runs of capitalised words separated only by spaces into names; a two-letter
    capital code after a comma ("San Francisco, CA") stays part of the name."""
    names: list[str] = []
    current = ""
    last_end = 0
    for match in _WORD.finditer(text):
        word = match.group()
        gap = text[last_end : match.start()]
        capital = word[0].isupper() and word.lower() not in excluded
        if current and capital and not gap.strip():
            current += " " + word
        elif current and gap.strip() == "," and _REGION.fullmatch(word):
            current += ", " + word
        else:
            if current:
                names.append(current)
            current = word if capital else ""
        last_end = match.end()
    if current:
        names.append(current)
    return names


def keywords(tool_name: str) -> frozenset[str]:
    """The words of a tool name that the user may say to ask for it.

    Args:
        tool_name: A function name such as ``get_weather`` or ``searchFlights``.

    Returns:
        Its lowercase words minus verbs and short words: ``get_weather`` gives
        ``{"weather"}``, ``searchFlights`` gives ``{"flights"}``.
    """
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool_name)
    words = {word.lower() for word in re.split(r"[\s_\-.]+", spaced) if word}
    return frozenset(word for word in words if len(word) > 2 and word not in STOP_WORDS)
