"""Split a leading ``<think>...</think>`` block off a streamed text.

Gateways that serve reasoning models without a reasoning parser (vLLM without
``--reasoning-parser``, some Ollama and llama.cpp builds) put the chain of thought at the
start of ``content`` between ``<think>`` tags; groq/compound even puts the opening tag in
its ``reasoning`` field. The tags may be split across chunks (``"<th"``, ``"ink>"``), so the
splitter holds back the few characters that could still become a tag.
"""

from __future__ import annotations

__all__ = ["ThinkSplitter"]

_OPEN = "<think>"
_CLOSE = "</think>"

_START, _INSIDE_START, _INSIDE, _AFTER, _PLAIN = range(5)


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

    __slots__ = ("_buf", "_state", "passthrough")

    def __init__(self) -> None:
        self._state = _START
        self._buf = ""
        #: True once no tag can follow: every piece is plain text from here on. (A plain
        #: attribute, not a property: the decoder reads it for every text delta.)
        self.passthrough = False

    def feed(self, text: str) -> tuple[str, str]:
        """Take the next piece; return the reasoning and the text it releases."""
        state = self._state
        if state == _PLAIN:
            return "", text
        if state == _START:
            return self._start(text)
        if state == _AFTER:
            return self._after(text)
        return self._inside(text)

    def flush(self) -> tuple[str, str]:
        """End of stream: release whatever is held back."""
        held, self._buf = self._buf, ""
        if self._state in (_INSIDE, _INSIDE_START):
            return held, ""
        return "", held

    def _start(self, text: str) -> tuple[str, str]:
        buf = self._buf + text
        stripped = buf.lstrip()
        if not stripped or (len(stripped) < len(_OPEN) and _OPEN.startswith(stripped)):
            self._buf = buf
            return "", ""
        self._buf = ""
        if stripped.startswith(_OPEN):
            self._state = _INSIDE_START
            return self._inside(stripped[len(_OPEN) :])
        self._state = _PLAIN
        self.passthrough = True
        return "", buf

    def _inside(self, text: str) -> tuple[str, str]:
        data = self._buf + text
        if self._state == _INSIDE_START:
            data = data.lstrip()
            if not data:
                self._buf = ""
                return "", ""
            self._state = _INSIDE
        end = data.find(_CLOSE)
        if end >= 0:
            self._buf = ""
            self._state = _AFTER
            return data[:end], self._after(data[end + len(_CLOSE) :])[1]
        keep = _partial_suffix(data, _CLOSE)
        self._buf = data[len(data) - keep :] if keep else ""
        return data[: len(data) - keep], ""

    def _after(self, text: str) -> tuple[str, str]:
        stripped = text.lstrip()
        if stripped:
            self._state = _PLAIN
            self.passthrough = True
        return "", stripped
