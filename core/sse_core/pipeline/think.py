"""Split a leading ``<think>...</think>`` block off a streamed text.

Gateways that serve reasoning models without a reasoning parser (vLLM without
``--reasoning-parser``, some Ollama and llama.cpp builds) put the chain of thought at the
start of ``content`` between ``<think>`` tags; groq/compound even puts the opening tag in
its ``reasoning`` field. The tags may be split across chunks (``"<th"``, ``"ink>"``), so the
splitter holds back the few characters that could still become a tag.

Reasoning split off the answer carries no edge whitespace: what precedes the block, what
follows the opening tag and what precedes the closing tag is dropped, as is the whitespace
between the block and the answer. Whitespace that might be such an edge is held (as a list
of pieces, joined once when released), so a stream of whitespace-only pieces costs the same
per piece as any other. In a reasoning field (``trim=False``) the text on both sides of a
closing tag is reasoning, so the whitespace before the closing tag is kept; as everywhere,
the whitespace right after an opening tag and right after a closing tag is dropped.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ThinkSplitter"]

_OPEN = "<think>"
_CLOSE = "</think>"


class _State(IntEnum):
    START = 0  # nothing but whitespace (and maybe the start of "<think>") so far
    INSIDE_START = 1  # just after "<think>": leading whitespace is dropped
    INSIDE = 2  # in the reasoning
    AFTER = 3  # after "</think>": leading whitespace of the answer is dropped
    PLAIN = 4  # no tag can follow: every piece is plain text


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    if "<" not in text[-len(tag) :]:
        return 0
    for k in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:k]):
            return k
    return 0


class ThinkSplitter:
    """Feed text pieces; get ``(reasoning, text)`` pairs back.

    Only a block at the very start (after whitespace) counts: ``<think>`` later in an answer
    is ordinary text.
    """

    __slots__ = ("_buf", "_held", "_state", "_trim", "passthrough")

    def __init__(self, *, trim: bool = True) -> None:
        self._trim = trim
        self._state = _State.START
        self._held: list[str] = []  # whitespace held back (see the module docstring)
        self._buf = ""  # the start of a tag, at most a few characters
        #: True once no tag can follow: every piece is plain text from here on. (A plain
        #: attribute, not a property: the decoder reads it for every text delta.)
        self.passthrough: bool = False

    def feed(self, text: str) -> tuple[str, str]:
        """Take the next piece; return the reasoning and the text it releases."""
        state = self._state
        if state == _State.PLAIN:
            return "", text
        if state == _State.START:
            return self._start(text)
        if state == _State.AFTER:
            return "", self._after(text)
        return self._inside(text)

    def flush(self) -> tuple[str, str]:
        """End of stream: release whatever is held back."""
        held = "".join(self._held) + self._buf
        self._held.clear()
        self._buf = ""
        if self._state in (_State.INSIDE, _State.INSIDE_START):
            return held.rstrip(), ""
        if self._state == _State.AFTER:
            return "", ""
        return "", held

    def _start(self, text: str) -> tuple[str, str]:
        candidate = self._buf + text
        stripped = candidate.lstrip()
        if not stripped:
            self._held.append(candidate)
            self._buf = ""
            return "", ""
        if len(stripped) < len(_OPEN) and _OPEN.startswith(stripped):
            if len(stripped) < len(candidate):
                self._held.append(candidate[: len(candidate) - len(stripped)])
            self._buf = stripped
            return "", ""
        if stripped.startswith(_OPEN):
            self._held.clear()
            self._buf = ""
            self._state = _State.INSIDE_START
            return self._inside(stripped[len(_OPEN) :])
        held = "".join(self._held)
        self._held.clear()
        self._buf = ""
        self._state = _State.PLAIN
        self.passthrough = True
        return "", held + candidate

    def _inside(self, text: str) -> tuple[str, str]:
        data = self._buf + text
        self._buf = ""
        if self._state == _State.INSIDE_START:
            data = data.lstrip()
            if not data:
                return "", ""
            self._state = _State.INSIDE
        end = data.find(_CLOSE)
        if end >= 0:
            reasoning = self._release(data[:end], final=True)
            self._state = _State.AFTER
            return reasoning, self._after(data[end + len(_CLOSE) :])
        keep = _partial_suffix(data, _CLOSE)
        if keep:
            self._buf = data[len(data) - keep :]
            data = data[: len(data) - keep]
        return self._release(data, final=False), ""

    def _release(self, data: str, *, final: bool) -> str:
        """``data`` after the held whitespace, holding its own trailing whitespace back.

        ``final``: the closing tag follows, so trailing whitespace is dropped for good.
        """
        if not self._trim:
            return data
        body = data.rstrip()
        if not body:
            if final:
                self._held.clear()
            elif data:
                self._held.append(data)
            return ""
        out = "".join(self._held) + body if self._held else body
        self._held.clear()
        if not final and len(body) < len(data):
            self._held.append(data[len(body) :])
        return out

    def _after(self, text: str) -> str:
        stripped = text.lstrip()
        if stripped:
            self._state = _State.PLAIN
            self.passthrough = True
        return stripped
