"""What an output item of a Responses stream is, and what its parts hold: the kinds of
items and parts, the tables that tell them from the wire (part types, the item each piece
belongs in, a part's position field), the state of an item and of each of its parts (the
text decoded so far, the last final version compared with it), and the small readers of
payloads both need. :mod:`.responses_items` changes them as the events arrive.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

__all__ = ["Piece"]


class _Kind(IntEnum):
    """What an output item is."""

    MESSAGE = 0  # output_text and refusal parts
    REASONING = 1  # summary parts, reasoning_text parts, encrypted_content
    CALL = 2  # a function call: its arguments in pieces
    OTHER = 3  # a server tool's item, a type not known yet: GatewayEvents, as sent


class Piece(IntEnum):
    """What a part's text is, and where the part sits in its item."""

    TEXT = 0  # an output_text part (content_index)
    REFUSAL = 1  # a refusal part (content_index)
    REASONING = 2  # a reasoning_text part (content_index)
    SUMMARY = 3  # a summary_text part (summary_index)
    ARGUMENTS = 4  # a function call's arguments


# The pieces OutputItems._say() tests on every delta, as module names: on Python 3.11
# reading a member off its class (``Piece.TEXT``) costs several times the test itself.
_TEXT, _REFUSAL, _ARGUMENTS = Piece.TEXT, Piece.REFUSAL, Piece.ARGUMENTS

_KINDS = {"message": _Kind.MESSAGE, "reasoning": _Kind.REASONING, "function_call": _Kind.CALL}
#: The item each piece belongs in (also the item a piece implies when none was added).
_HOLDER = {
    Piece.TEXT: _Kind.MESSAGE,
    Piece.REFUSAL: _Kind.MESSAGE,
    Piece.REASONING: _Kind.REASONING,
    Piece.SUMMARY: _Kind.REASONING,
    Piece.ARGUMENTS: _Kind.CALL,
}
#: A part's position field in its events.
_INDEX = {Piece.SUMMARY: "summary_index", Piece.ARGUMENTS: ""}
#: Content part types, and the piece each holds and the field with its text.
_PART_TYPES: dict[Any, tuple[Piece, str]] = {
    "output_text": (Piece.TEXT, "text"),
    "refusal": (Piece.REFUSAL, "refusal"),
    "reasoning_text": (Piece.REASONING, "text"),
    "summary_text": (Piece.SUMMARY, "text"),
}
_FAMILY = {Piece.SUMMARY: "summary", Piece.ARGUMENTS: "arguments"}


class _Part:
    __slots__ = ("cited", "final", "pieces", "text_part")

    def __init__(self, text_part: bool) -> None:
        self.pieces: list[str] = []  # the text as it was decoded (deltas, tails)
        self.final: str | None = None  # the last final version compared with it
        self.cited = 0  # annotations taken so far
        self.text_part = text_part  # an output_text part (of the answer's text)

    def text(self) -> str:
        joined = "".join(self.pieces)
        if len(self.pieces) > 1:
            self.pieces[:] = [joined]  # joined once: a later compare starts from it
        return joined


class _Item:
    __slots__ = (
        "call", "call_id", "closed", "final", "id", "key", "kind", "named", "parts", "said"
    )  # fmt: skip

    def __init__(self, key: object, kind: _Kind, item_id: str | None) -> None:
        self.key = key
        self.kind = kind
        self.id = item_id
        # The tool call's number (a function_call item), from its name on: -1 before it.
        self.call = -1
        self.call_id: str | None = None
        self.named = (False, False)  # the call's id, its name arrived
        self.parts: dict[tuple[Piece, int], _Part] = {}
        self.said: tuple[Piece, int] | None = None  # the reasoning part that spoke last
        self.closed = False  # output_item.done (or the final output) closed it
        self.final = False  # an item of the final output was matched with it


def _part(item: _Item, piece: Piece, payload: Mapping[str, Any]) -> _Part:
    # One content part holds text or a refusal: both are kept under TEXT.
    where = (_TEXT if piece == _REFUSAL else piece, _position(payload, piece))
    found = item.parts.get(where)
    if found is None:
        found = item.parts[where] = _Part(piece == _TEXT and item.kind == _Kind.MESSAGE)
    return found


def _part_type(part: object) -> tuple[Piece, str] | None:
    kind = part.get("type") if type(part) is dict else None
    return _PART_TYPES.get(kind) if type(kind) is str else None


def _position(payload: Mapping[str, Any], piece: Piece) -> int:
    field = _INDEX.get(piece, "content_index")
    index = payload.get(field) if field else 0
    return index if type(index) is int else 0


def _key(payload: Mapping[str, Any], whole: Mapping[str, Any], count: int) -> object:
    index = payload.get("output_index")
    if type(index) is int:
        return index
    item_id = whole.get("id")
    return item_id if type(item_id) is str and item_id else f"#{count}"


def _kind(whole: Mapping[str, Any]) -> _Kind:
    name = whole.get("type")
    return _KINDS.get(name, _Kind.OTHER) if type(name) is str else _Kind.OTHER


def _listed(parts: object) -> list[tuple[int, dict[str, Any]]]:
    if type(parts) is not list:
        return []
    return [(at, part) for at, part in enumerate(parts) if type(part) is dict]


def _block(item: _Item) -> int | None:
    return item.key if type(item.key) is int else None


def _str(value: object) -> str | None:
    return value if type(value) is str else None
