"""Text chunks read without a JSON parse: a stream's chunks differ only in their text.

A gateway streams most of an answer as chunks that are byte for byte the same but for the
text, e.g. ``{"id":"chatcmpl-1",...,"choices":[{"index":0,"delta":{"content":"` + TEXT +
``"},"finish_reason":null}]}``. Once :class:`ChunkDecoder` has decoded such a chunk the usual
way, :meth:`TextTemplate.learn` keeps the bytes before and after its text; a later chunk with
the same bytes around a plain JSON string body (no quote, no backslash, no control
character, valid UTF-8) is that same chunk with another text, so :meth:`TextTemplate.text_of`
gives the text without parsing: the decoder then makes exactly the events a parse would.

Which chunks teach: one choice whose delta holds ``content`` alone, no finish reason, no
usage, error or ``x_groq``, and ``"content"`` once in the bytes with its text written
literally. Everything else in such a chunk makes no event (metadata already seen stays seen;
unknown keys are ignored), so the same bytes around another text decode to that text alone.
A stream whose chunks never repeat (a per-chunk random field, as OpenAI's ``obfuscation``)
stops teaching after a few tries and then costs one failed ``startswith`` a chunk.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["TextTemplate"]

#: Bytes a plain JSON string body cannot hold: the quote, the backslash, control characters.
_NOT_PLAIN = re.compile(rb'["\\\x00-\x1f]')
#: Chunks parsed in a row with no chunk read by the template between them, after which a
#: stream stops learning (its chunks never repeat).
_TRIES = 16
_KEY = b'"content"'


class TextTemplate:
    """The bytes around the text of one shape of text-only chunk (see the module)."""

    __slots__ = ("_prefix", "_size", "_suffix", "_tries", "index")

    def __init__(self) -> None:
        self._prefix: bytes | None = None
        self._suffix = b""
        self._size = 0
        self._tries = _TRIES
        #: The choice index of the chunks it reads.
        self.index: int = 0

    def text_of(self, data: bytes) -> str | None:
        """The text of ``data`` if it is the learned chunk around another text, else None."""
        prefix = self._prefix
        if (
            prefix is None
            or len(data) < self._size
            or not data.startswith(prefix)
            or not data.endswith(self._suffix)
        ):
            return None
        middle = data[len(prefix) : len(data) - len(self._suffix)]
        if _NOT_PLAIN.search(middle) is not None:
            return None
        try:
            text = middle.decode()
        except UnicodeDecodeError:
            return None
        self._tries = _TRIES  # it reads chunks: worth learning again when the shape changes
        return text

    def learn(self, data: bytes, chunk: Mapping[str, Any]) -> None:
        """Keep the bytes around the text of ``data`` (decoded as ``chunk``), if it teaches."""
        if self._tries <= 0:
            return
        self._tries -= 1
        if b"\\" in data:  # an escaped key could hide where the text is
            return
        found = _text_only(chunk)
        if found is None:
            return
        index, text = found
        start = _value_start(data)
        if start is None:
            return
        end = start + len(encoded := text.encode())
        if data[start:end] != encoded or data[end : end + 1] != b'"':
            return  # the text is written with escapes
        self._prefix, self._suffix = data[:start], data[end:]
        self._size = len(self._prefix) + len(self._suffix)
        self.index = index


def _text_only(chunk: Mapping[str, Any]) -> tuple[int, str] | None:
    """The choice index and text of a chunk whose only event-making part is its text."""
    if chunk.get("usage") or chunk.get("error") or "x_groq" in chunk:
        return None
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1 or type(choices[0]) is not dict:
        return None
    choice = choices[0]
    delta = choice.get("delta")
    if type(delta) is not dict or len(delta) != 1 or choice.get("finish_reason"):
        return None
    text = delta.get("content")
    if type(text) is not str:
        return None
    index = choice.get("index", 0)
    return (index if type(index) is int else 0), text


def _value_start(data: bytes) -> int | None:
    """Where the text of the one ``"content"`` key of ``data`` begins, after its quote."""
    at = data.find(_KEY)
    if at < 0 or data.find(_KEY, at + 1) >= 0:
        return None
    at += len(_KEY)
    while data[at : at + 1] in (b" ", b"\t", b"\r", b"\n"):
        at += 1
    if data[at : at + 1] != b":":
        return None
    at += 1
    while data[at : at + 1] in (b" ", b"\t", b"\r", b"\n"):
        at += 1
    return at + 1 if data[at : at + 1] == b'"' else None
