"""The output items of one Responses stream, keyed by ``output_index``: how each event
changes an item and its parts (:mod:`.responses_parts`: what they are and hold), and the
StreamEvents its deltas, its ``.done`` events and the final output become. The rules are
listed in :mod:`.responses_events`, whose :class:`~sse_core.pipeline.ResponsesDecoder` hands every
item event here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.events import (
    Citation,
    ReasoningSignature,
    RefusalDelta,
    StreamEvent,
    _gateway_event,
    _reasoning_delta,
    _text_delta,
    _tool_call_delta,
)
from sse_core.pipeline.responses_parts import (
    _ARGUMENTS,
    _FAMILY,
    _HOLDER,
    _REFUSAL,
    _TEXT,
    Piece,
    _block,
    _Item,
    _key,
    _Kind,
    _kind,
    _listed,
    _part,
    _part_type,
    _position,
    _str,
)
from sse_core.pipeline.tool_calls import nameless_call

__all__ = ["MISMATCH", "OutputItems", "Piece"]

#: The GatewayEvent that keeps a final version the deltas disagree with.
MISMATCH = "response.output_mismatch"
#: What separates two parts (summary parts) of one reasoning item in the reasoning text.
_PART_BREAK = "\n\n"


class OutputItems:
    """The output items of one response, and the function calls numbered among them."""

    __slots__ = ("_by_call", "_by_id", "_items", "_last", "_lost", "calls")

    def __init__(self) -> None:
        self._items: dict[object, _Item] = {}
        self._lost = False  # a text part's final version disagreed with its deltas
        self._by_id: dict[str, object] = {}  # item ids and call ids -> key
        self._by_call: dict[str, object] = {}
        self._last: object = None  # the key of the item opened last
        #: Function calls so far: the number of the next one.
        self.calls: int = 0

    # --- finding an item ---

    def _find(self, payload: Mapping[str, Any], kind: _Kind) -> _Item:
        """The item an event is about: by ``output_index``, else by ``item_id``, else the
        item opened last (of the event's kind); a new one when none is found (a gateway
        that skipped ``output_item.added``). Never by ``item_id`` first: some gateways
        change it on every event."""
        key = payload.get("output_index")
        if type(key) is int:
            found = self._items.get(key)
            if found is not None:
                return found
        else:
            item_id = payload.get("item_id")
            key = self._by_id.get(item_id) if type(item_id) is str else None
            if key is not None:
                return self._items[key]
            last = self._items.get(self._last)
            if last is not None and last.kind == kind and not last.closed:
                return last
            key = item_id if type(item_id) is str else f"#{len(self._items)}"
        return self._open(key, kind, None)

    def _open(self, key: object, kind: _Kind, item_id: str | None) -> _Item:
        item = self._items[key] = _Item(key, kind, item_id)
        if item_id is not None:
            self._by_id[item_id] = key
        self._last = key
        return item

    # --- streamed pieces ---

    def piece(
        self, name: str, payload: Mapping[str, Any], piece: Piece, events: list[StreamEvent]
    ) -> None:
        """A delta event (``output_text``, ``refusal``, ``reasoning_text``,
        ``reasoning_summary_text``, ``function_call_arguments``)."""
        delta = payload.get("delta")
        if type(delta) is not str or not delta:
            return
        item = self._find(payload, _HOLDER[piece])
        if item.kind != _HOLDER[piece]:
            events.append(_gateway_event(name, payload))  # a piece of no item it fits
            return
        part = _part(item, piece, payload)
        part.pieces.append(delta)
        self._say(item, piece, payload, delta, events)

    def _say(
        self,
        item: _Item,
        piece: Piece,
        payload: Mapping[str, Any],
        text: str,
        events: list[StreamEvent],
    ) -> None:
        if piece == _TEXT:
            events.append(_text_delta(text, 0))
        elif piece == _ARGUMENTS:
            if item.call >= 0:  # else held in its part until the call is named
                events.append(_tool_call_delta(item.call, None, None, text, 0))
        elif piece == _REFUSAL:
            events.append(RefusalDelta(text=text))
        else:
            where = (piece, _position(payload, piece))
            if item.said is not None and item.said != where:
                events.append(_reasoning_delta(_PART_BREAK, 0))
            item.said = where
            events.append(_reasoning_delta(text, 0))

    def finished(
        self,
        name: str,
        payload: Mapping[str, Any],
        piece: Piece,
        field: str,
        events: list[StreamEvent],
    ) -> None:
        """A ``.done`` event of a part: its whole text, compared with the deltas."""
        item = self._find(payload, _HOLDER[piece])
        if item.kind != _HOLDER[piece]:
            events.append(_gateway_event(name, payload))
            return
        if piece == Piece.ARGUMENTS:
            self._call_names(item, payload, events)
        self._compare(item, piece, payload, payload.get(field), name, events)

    def part(self, name: str, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``content_part.*`` or ``reasoning_summary_part.*``: the part as it stands."""
        part = payload.get("part")
        kind = _part_type(part)
        if kind is None or type(part) is not dict:
            events.append(_gateway_event(name, payload))  # a part type not known yet
            return
        piece, field = kind
        item = self._find(payload, _HOLDER[piece])
        if item.kind != _HOLDER[piece]:
            events.append(_gateway_event(name, payload))
            return
        self._compare(item, piece, payload, part.get(field), name, events)
        self._annotations(item, payload, part, events)

    def annotation(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``response.output_text.annotation.added``: a Citation, the annotation as sent."""
        item = self._find(payload, _Kind.MESSAGE)
        cited = payload.get("annotation")
        if type(cited) is not dict:
            events.append(_gateway_event("response.output_text.annotation.added", payload))
            return
        _part(item, Piece.TEXT, payload).cited += 1
        events.append(Citation(citation=cited, block=_block(item)))

    # --- whole items ---

    def added(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``response.output_item.added``: an item opens at its ``output_index``."""
        whole = payload.get("item")
        if type(whole) is not dict:
            events.append(_gateway_event("response.output_item.added", payload))
            return
        key = _key(payload, whole, len(self._items))
        known = self._items.get(key)
        if known is not None and not known.closed:
            self._remember(known, whole)  # the same item again
            return
        item = self._open(key, _kind(whole), _str(whole.get("id")))
        self._take(item, whole, "response.output_item.added", payload, events)

    def done(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``response.output_item.done``: the item as the gateway closed it."""
        whole = payload.get("item")
        if type(whole) is not dict:
            events.append(_gateway_event("response.output_item.done", payload))
            return
        key = _key(payload, whole, len(self._items))
        item = self._items.get(key)
        if item is None and type(whole.get("id")) is str:
            found = self._by_id.get(whole["id"])
            item = None if found is None else self._items[found]
        if item is None:
            item = self._open(key, _kind(whole), _str(whole.get("id")))
        self._close(item, whole, "response.output_item.done", payload, events)

    def final(self, output: list[Any], events: list[StreamEvent]) -> None:
        """The terminal response's ``output``: each item matched with a streamed one (by id,
        by call id, else by position when the kinds agree), compared with it and closed; an
        item nothing streamed is taken whole."""
        for position, whole in enumerate(output):
            if type(whole) is not dict:
                continue
            item = self._match(position, whole)
            if item is None:
                continue  # the final output repeats an item already matched
            item.final = True
            where = {"output_index": position, "item": whole}
            self._close(item, whole, "response.output", where, events)

    def _match(self, position: int, whole: Mapping[str, Any]) -> _Item | None:
        kind = _kind(whole)
        for ref, table in ((whole.get("id"), self._by_id), (whole.get("call_id"), self._by_call)):
            key = table.get(ref) if type(ref) is str else None
            if key is not None:
                known = self._items[key]
                return None if known.final else known
        found = self._items.get(position)
        if found is not None and found.kind == kind and not found.final:
            return found
        return self._open(("output", position), kind, _str(whole.get("id")))

    def _take(
        self,
        item: _Item,
        whole: Mapping[str, Any],
        name: str,
        payload: Mapping[str, Any],
        events: list[StreamEvent],
    ) -> None:
        """What a whole item (added, done, or in the final output) holds."""
        self._remember(item, whole)
        if item.kind == _Kind.OTHER:
            events.append(_gateway_event(name, payload))
        elif item.kind == _Kind.CALL:
            self._call_names(item, whole, events)
            self._compare(item, Piece.ARGUMENTS, whole, whole.get("arguments"), name, events)
        elif item.kind == _Kind.MESSAGE:
            for at, part in _listed(whole.get("content")):
                kind = _part_type(part)
                if kind is not None and kind[0] in (Piece.TEXT, Piece.REFUSAL):
                    where = {"content_index": at}
                    self._compare(item, kind[0], where, part.get(kind[1]), name, events)
                    self._annotations(item, where, part, events)
        else:
            for at, part in _listed(whole.get("summary")):
                where = {"summary_index": at}
                self._compare(item, Piece.SUMMARY, where, part.get("text"), name, events)
            for at, part in _listed(whole.get("content")):
                where = {"content_index": at}
                self._compare(item, Piece.REASONING, where, part.get("text"), name, events)

    def _close(
        self,
        item: _Item,
        whole: Mapping[str, Any],
        name: str,
        payload: Mapping[str, Any],
        events: list[StreamEvent],
    ) -> None:
        if item.kind == _Kind.OTHER and item.closed:
            return  # a server tool's item, said once already
        self._take(item, whole, name, payload, events)
        if item.kind == _Kind.REASONING and not item.closed:
            # The item as the gateway closed it, byte-exact: its id and encrypted_content
            # go back on the next turn (a stateless client's reasoning).
            encrypted = whole.get("encrypted_content")
            sealed = encrypted if type(encrypted) is str else ""
            events.append(ReasoningSignature(signature=sealed, item=whole))
        item.closed = True

    def _remember(self, item: _Item, whole: Mapping[str, Any]) -> None:
        for ref, table in ((whole.get("id"), self._by_id), (whole.get("call_id"), self._by_call)):
            if type(ref) is str and ref:
                table.setdefault(ref, item.key)
        if item.id is None:
            item.id = _str(whole.get("id"))

    def _call_names(self, item: _Item, given: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """The call's id and name, passed on once each, where they first arrive. An item is a
        call from its name on, numbered then, with the arguments held before it (a gateway
        that skipped ``output_item.added`` may name it only in a ``.done`` event)."""
        has_id, has_name = item.named
        call_id = given.get("call_id") if not has_id else None
        name = given.get("name") if not has_name else None
        call_id = call_id if type(call_id) is str and call_id else None
        name = name if type(name) is str and name else None
        if call_id is None and name is None:
            return
        item.named = (has_id or call_id is not None, has_name or name is not None)
        if call_id is not None:
            item.call_id = call_id
        if item.call >= 0:
            events.append(_tool_call_delta(item.call, call_id, name, "", 0))
        elif name is not None:
            item.call = self.calls
            self.calls += 1
            held = _part(item, Piece.ARGUMENTS, {}).text()
            events.append(_tool_call_delta(item.call, item.call_id, name, held, 0))

    def nameless(self, events: list[StreamEvent]) -> None:
        """The end of the answer: each function call still without a name is no call, kept
        as :func:`~sse_core.pipeline.tool_calls.nameless_call` (once)."""
        for item in self._items.values():
            if item.kind == _Kind.CALL and item.call == -1:
                item.call = -2  # said
                held = _part(item, Piece.ARGUMENTS, {}).text()
                events.append(nameless_call(_block(item), item.call_id, held))

    # --- deltas against final versions ---

    def _compare(
        self,
        item: _Item,
        piece: Piece,
        payload: Mapping[str, Any],
        final: object,
        name: str,
        events: list[StreamEvent],
    ) -> None:
        """A part's final version against its deltas: a version that extends them adds its
        tail; one that disagrees is kept as a :data:`MISMATCH` event (the deltas stay the
        answer); an empty one says nothing."""
        if type(final) is not str or not final:
            return
        part = _part(item, piece, payload)
        if part.final == final:
            return  # compared already
        part.final = final
        streamed = part.text()
        if final == streamed:
            return
        # A closed reasoning item's text is sealed in its block: no tail after it.
        if final.startswith(streamed) and not (item.closed and item.kind == _Kind.REASONING):
            tail = final[len(streamed) :]
            part.pieces.append(tail)
            self._say(item, piece, payload, tail, events)
            return
        if piece == _TEXT:
            self._lost = True
        events.append(
            _gateway_event(
                MISMATCH,
                {
                    "output_index": _block(item),
                    "item_id": item.id,
                    "part": _FAMILY.get(piece, "content"),
                    "index": _position(payload, piece),
                    "event": name,
                    "streamed": streamed,
                    "final": final,
                },
            )
        )

    def whole_text(self) -> str | None:
        """The answer's text as the final versions give it, where one of them disagreed with
        the deltas (the API's ``response.output_text``: each message's ``output_text``
        parts joined, a part with no final version as its deltas made it); None when the
        deltas are the text."""
        if not self._lost:
            return None
        return "".join(
            part.text() if part.final is None else part.final
            for item in self._items.values()
            if item.kind == _Kind.MESSAGE
            for part in item.parts.values()
            if part.text_part
        )

    def _annotations(
        self,
        item: _Item,
        payload: Mapping[str, Any],
        part: Mapping[str, Any],
        events: list[StreamEvent],
    ) -> None:
        """The annotations a whole text part holds beyond those streamed, as Citations."""
        given = part.get("annotations")
        if type(given) is not list or part.get("type") != "output_text":
            return
        state = _part(item, Piece.TEXT, payload)
        for cited in given[state.cited :]:
            if type(cited) is dict:
                events.append(Citation(citation=cited, block=_block(item)))
        state.cited = max(state.cited, len(given))
