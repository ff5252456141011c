"""``Pieces``: append-only text kept as a list of pieces, joined once, read at any length.

A streamed text grows a piece at a time; joining it for every piece would cost O(length) per
piece. :meth:`Pieces.upto` joins a prefix and remembers it, so reading the text as it grew
(each streamed message of a LlamaIndex stream reads the text up to its own piece) reuses the
previous join: linear in the whole, whatever the number of reads.
"""

from __future__ import annotations

__all__ = ["Pieces"]


class Pieces(list[str]):
    """A list of text pieces (``append`` is the list's own) that joins prefixes cheaply."""

    __slots__ = ("_count", "_text")

    def __init__(self) -> None:
        super().__init__()
        self._count = 0  # the prefix joined last, and its text
        self._text = ""

    def upto(self, count: int | None = None) -> str:
        """The text of the first ``count`` pieces (all of them by default)."""
        if count is None:
            count = len(self)
        done = self._count
        if count == done:
            return self._text
        if count < done:  # an older prefix read after a newer one: join it afresh
            return "".join(self[:count])
        text = self._text + "".join(self[done:count]) if done else "".join(self[:count])
        self._count = count
        self._text = text
        return text
