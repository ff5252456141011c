"""The tool-call rules, in one place: which call a fragment belongs to, and how calls grow.

On the wire (:class:`ToolIndexer`, one per choice) gateways stream a call by ``index`` with
its arguments in pieces; or deliver it whole in one delta; or send no ``index`` at all
(Mistral, Ollama, Gemini: join by ``id``, else continue the open call); some reuse an index
for a new id, number from 1, or repeat ``""`` ids on continuations. The indexer gives each
fragment our index (the wire index where there is one) and passes each call's ``id`` and
``name`` on once, on the first fragment that carries them. A call is passed on from its name:
a call that never gets one is no call on any protocol (:func:`nameless_call`).

Assembling (:class:`CallParts`): ``id`` and ``name`` are set once and never concatenated,
``arguments`` pieces are appended and joined once. The accumulator and the per-read merge
both grow calls with it, so the rule cannot differ between them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

from pydantic_core import to_json

from sse_core.completion import ToolCall
from sse_core.events import (
    GatewayEvent,
    StreamEvent,
    ToolCallDelta,
    _gateway_event,
    _tool_call_delta,
)
from sse_core.pipeline.pieces import Pieces

__all__ = ["NAMELESS_CALL", "CallParts", "ToolIndexer", "nameless_call"]

#: The GatewayEvent that keeps a tool call which ended without a name (every protocol).
NAMELESS_CALL = "tool_call.nameless"

# ToolCall built without its frozen __init__ (a completion of 10,000 calls builds 10,000).
_new = object.__new__
_set_index, _set_id, _set_name, _set_arguments, _set_type = (
    ToolCall.__dict__[field].__set__ for field in ("index", "id", "name", "arguments", "type")
)


def _tool_call(index: int, call_id: str | None, name: str | None, arguments: str) -> ToolCall:
    """``ToolCall(index=index, id=call_id, name=name, arguments=arguments)``."""
    call: ToolCall = _new(ToolCall)
    _set_index(call, index)
    _set_id(call, call_id)
    _set_name(call, name)
    _set_arguments(call, arguments)
    _set_type(call, "function")
    return call


def nameless_call(index: object, call_id: str | None, arguments: str) -> GatewayEvent:
    """The GatewayEvent of a call that ended without a name: never a call (no tool can be
    run without its name), kept as sent: where it was (``index``: the wire's tool-call
    index, Responses' ``output_index``, Anthropic's block index), its id, its arguments."""
    return _gateway_event(NAMELESS_CALL, {"index": index, "id": call_id, "arguments": arguments})


class ToolIndexer:
    """Per-choice wire bookkeeping: wire index -> our index, ids and names already passed on.

    A call is passed on from the fragment that names it: the fragments before its name are
    held (a gateway may name a call late), and a call the stream ends without naming is
    :func:`nameless_call` (:meth:`flush`). Every step is O(1): the next free index is the
    largest index used so far, plus one.
    """

    __slots__ = ("_alias", "_by_id", "_held", "_ids", "_last", "_named", "_route", "_top")

    def __init__(self) -> None:
        self._alias: dict[int, int] = {}  # a wire index reused for a new call -> our index
        self._route: dict[int, int] = {}  # a wire index -> its named call (continuations)
        self._by_id: dict[str, int] = {}
        self._ids: dict[int, str] = {}
        self._named: set[int] = set()
        self._held: dict[int, list[str]] = {}  # a call not named yet -> its argument pieces
        self._last: int | None = None
        self._top = -1

    def extend(self, calls: object, choice: int, events: list[StreamEvent]) -> None:
        """Append the events of a delta's ``tool_calls`` (a list of entries) to ``events``."""
        if calls and type(calls) is list:
            for call in calls:
                if type(call) is dict and (event := self.fragment(call, choice)) is not None:
                    events.append(event)

    def fragment(self, call: Mapping[str, Any], choice: int) -> ToolCallDelta | None:
        """The event for one ``tool_calls`` entry of a delta (None if it carries nothing)."""
        function = call.get("function")
        if type(function) is not dict:
            function = {}
        wire_index = call.get("index")
        call_id = call.get("id") or None
        name = function.get("name") or None
        arguments = function.get("arguments")
        if type(arguments) is str and call_id is None and name is None and type(wire_index) is int:
            # The common continuation (the next piece of a named call's arguments, by
            # index), inline: what _take and _resolve do for it without an id or name.
            at = self._route.get(wire_index)
            if at is not None:
                self._last = at
                return _tool_call_delta(at, None, None, arguments, choice) if arguments else None
        return self._take(wire_index, call_id, name, arguments, choice)

    def _take(
        self, wire_index: object, call_id: object, name: object, arguments: object, choice: int
    ) -> ToolCallDelta | None:
        """:meth:`fragment` of the entry's values (a falsy id or name given as None)."""
        if not isinstance(arguments, str):
            # Some gateways send the arguments as an object instead of a JSON string.
            # ({} is an explicit empty object: "{}"; null or absent is no piece at all.)
            arguments = "" if arguments is None else to_json(arguments).decode()
        if not isinstance(call_id, str):
            call_id = None
        if not isinstance(name, str):
            name = None
        at = self._resolve(wire_index, call_id, name)
        call_id = self._first_id(at, call_id)
        if at not in self._named:
            if name is None:
                self._hold(at, wire_index, arguments)
                return None
            self._named.add(at)
            held = self._held.pop(at, None)
            if held is not None:  # the pieces before the name, and the id they came with
                call_id, arguments = self._ids.get(at), "".join(held) + arguments
        else:
            name = None
        if type(wire_index) is int:
            self._route[wire_index] = at
        if call_id or name or arguments:
            return _tool_call_delta(at, call_id, name, arguments, choice)
        return None

    def _hold(self, at: int, wire_index: object, arguments: str) -> None:
        """Keep a piece of a call not named yet: no tool is run without its name."""
        self._held.setdefault(at, []).append(arguments)
        if type(wire_index) is int:
            self._route.pop(wire_index, None)  # its continuations come here too

    def flush(self, events: list[StreamEvent]) -> None:
        """The end of the choice: each call still without a name, as :func:`nameless_call`."""
        held, self._held = self._held, {}
        for at, pieces in held.items():
            events.append(nameless_call(at, self._ids.get(at), "".join(pieces)))

    def _first_id(self, at: int, call_id: str | None) -> str | None:
        if call_id is None or at in self._ids:
            return None
        self._ids[at] = call_id
        self._by_id[call_id] = at
        return call_id

    def _next(self) -> int:
        return self._top + 1

    def _resolve(self, wire_index: object, call_id: str | None, name: str | None) -> int:
        if type(wire_index) is int:
            index = self._alias.get(wire_index, wire_index)
            known = self._ids.get(index)
            if call_id and known and call_id != known:
                # The same wire index reused for a different call id: a new call.
                index = self._alias[wire_index] = self._next()
        elif call_id:
            # No index (Mistral, Ollama, Gemini): join by id.
            found = self._by_id.get(call_id)
            index = self._next() if found is None else found
        elif name or self._last is None:
            index = self._next()  # a whole call without index or id
        else:
            index = self._last  # a continuation without index or id
        self._last = index
        self._top = max(self._top, index)
        return index


class CallParts:
    """One call as it grows: ``id``/``name`` set once, argument pieces appended.

    Each change is stamped with the sequence number of the fragment that made it, so the
    call can be read back as it stood after any earlier fragment (:meth:`at`).
    """

    __slots__ = ("args", "first", "id", "id_seq", "name", "name_seq", "seqs")

    def __init__(self, first: int) -> None:
        self.first: int = first  # the sequence number of the call's first fragment
        self.id: str | None = None
        self.name: str | None = None
        self.id_seq: int = 0
        self.name_seq: int = 0
        self.args: Pieces = Pieces()
        self.seqs: list[int] = []

    def add(self, event: ToolCallDelta, seq: int) -> None:
        """Take the fragment numbered ``seq`` (numbers grow along the stream)."""
        if event.id is not None and self.id is None:
            self.id = event.id
            self.id_seq = seq
        if event.name is not None and self.name is None:
            self.name = event.name
            self.name_seq = seq
        if event.arguments:
            self.args.append(event.arguments)
            self.seqs.append(seq)

    def build(self, index: int) -> ToolCall:
        """The whole call."""
        return _tool_call(index, self.id, self.name, self.args.upto())

    def at(self, index: int, count: int) -> ToolCall:
        """The call as it stood once the first ``count`` fragments had arrived."""
        pieces = len(self.seqs) if not self.seqs or self.seqs[-1] < count else None
        if pieces is None:
            pieces = bisect_left(self.seqs, count)
        return _tool_call(
            index,
            self.id if self.id is not None and self.id_seq < count else None,
            self.name if self.name is not None and self.name_seq < count else None,
            self.args.upto(pieces),
        )
