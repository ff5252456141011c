"""A function call's arguments streamed in pieces (Vertex AI's ``streamFunctionCallArguments``).

Gemini sends a call whole (``functionCall: {name, args}``), except where the request asked for
its arguments streamed: then the call opens with its name and ``willContinue: true``, its
arguments follow as ``partialArgs`` (each a JSON path and one value: ``stringValue``,
``numberValue``, ``boolValue`` or ``nullValue``; a string in several pieces while the piece
says ``willContinue``), and a ``functionCall`` without ``willContinue`` closes it (real
captures: vercel/ai ``google-stream-tool-call-arguments.chunks.txt`` and its siblings).

:class:`StreamedArguments` keeps the values by path, each string as its pieces (joined once),
and writes the arguments as one JSON object when the call closes. A value that cannot be
placed (a path that is no JSON path this reads, an index past the end of its array, a path
through a value of another kind) is kept as sent, for the caller to keep as a GatewayEvent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeAlias

from pydantic_core import to_json

__all__ = ["Path", "StreamedArguments", "json_path"]

#: A parsed JSON path: object keys (str) and array indexes (int), from the root down.
Path: TypeAlias = tuple["str | int", ...]

# One step of a JSON path: ``.key``, ``[3]``, ``['key']`` or ``["key"]``. An index has at most
# 9 digits: a longer one is no array position any JSON holds (and would cost an int parse).
_STEP = re.compile(
    r"\.([^.\[\]'\"]+)|\[(\d{1,9})\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]"
)
_ESCAPE = re.compile(r"\\(.)")


def json_path(text: str) -> Path | None:
    """The steps of ``text`` (``$.recipe.items[0].name``), or None when it is no JSON path
    of that form (the root alone included: arguments are an object, never one value)."""
    if not text.startswith("$") or len(text) < 2:
        return None
    steps: list[str | int] = []
    at = 1
    while at < len(text):
        found = _STEP.match(text, at)
        if found is None:
            return None
        key, index, single, double = found.groups()
        if index is not None:
            steps.append(int(index))
        else:
            quoted = single if single is not None else double
            steps.append(key if quoted is None else _ESCAPE.sub(r"\1", quoted))
        at = found.end()
    return tuple(steps)


class StreamedArguments:
    """The arguments of one streamed call: values by path, in the order first given."""

    __slots__ = ("_base", "_open", "_paths", "_values", "unplaced")

    def __init__(self, base: Mapping[str, Any] | None = None) -> None:
        self._base = dict(base) if base else {}  # ``args`` the opening part already held
        self._values: dict[Path, Any] = {}  # a string as the list of its pieces
        self._open: set[Path] = set()  # strings whose last piece said willContinue
        self._paths: dict[str, Path | None] = {}  # each jsonPath text parsed once
        #: Partial arguments kept as sent: not understood, or not placeable.
        self.unplaced: list[Any] = []

    def take(self, partial: object) -> None:
        """Take one entry of ``partialArgs``."""
        path = self._path(partial)
        if path is None or not isinstance(partial, dict):
            self.unplaced.append(partial)
            return
        piece = partial.get("stringValue")
        if type(piece) is str:
            pieces = self._values.get(path)
            if path in self._open and type(pieces) is list:
                pieces.append(piece)
            else:
                self._values[path] = [piece]
            if partial.get("willContinue") is True:
                self._open.add(path)
            else:
                self._open.discard(path)
            return
        value = _scalar(partial)
        if value is _NOTHING:
            self.unplaced.append(partial)
            return
        self._values[path] = value
        self._open.discard(path)

    def _path(self, partial: object) -> Path | None:
        text = partial.get("jsonPath") if isinstance(partial, dict) else None
        if type(text) is not str:
            return None
        known = self._paths
        if text not in known:
            known[text] = json_path(text)
        return known[text]

    def json(self) -> str:
        """The arguments as one JSON object (``{}`` when none came); what cannot be placed
        is added to :attr:`unplaced`, with its path."""
        root: dict[str, Any] = dict(self._base)
        for path, value in self._values.items():
            whole = "".join(value) if type(value) is list else value
            if _placeable(root, path):
                _place(root, path, whole)
            else:
                self.unplaced.append({"path": list(path), "value": whole})
        return to_json(root).decode()


_NOTHING = object()


def _scalar(partial: Mapping[str, Any]) -> Any:
    """A partial argument's number, bool or null; :data:`_NOTHING` when it has none."""
    number = partial.get("numberValue")
    if type(number) in (int, float):
        return number
    flag = partial.get("boolValue")
    if type(flag) is bool:
        return flag
    if "nullValue" in partial:
        return None
    return _NOTHING


def _placeable(root: dict[str, Any], path: Path) -> bool:
    """Whether ``path`` leads to a place below ``root``: through objects by key and arrays by
    index, an array growing by one at a time (an index past its end, or a step through a
    value of another kind, leads nowhere)."""
    holder: Any = root
    fresh = False  # past the values that exist: each step makes its container
    for step in path:
        if fresh:
            if isinstance(step, int) and step != 0:
                return False
            continue
        if isinstance(step, str):
            if type(holder) is not dict:
                return False
            fresh = step not in holder
            holder = holder.get(step)
        else:
            if type(holder) is not list or step > len(holder):
                return False
            fresh = step == len(holder)
            holder = None if fresh else holder[step]
    return True


def _place(root: dict[str, Any], path: Path, value: Any) -> None:
    """Set ``value`` at ``path`` below ``root`` (:func:`_placeable`), making the objects and
    arrays on the way."""
    holder: Any = root
    for at, step in enumerate(path):
        last = at == len(path) - 1
        made: Any = value if last else ({} if isinstance(path[at + 1], str) else [])
        if isinstance(step, str):
            if last or step not in holder:
                holder[step] = made
        elif step == len(holder):
            holder.append(made)
        elif last:
            holder[step] = value
        holder = holder[step]
