"""The content blocks of one Anthropic Messages answer, keyed by ``index``: what each block
is (text, thinking, a tool call, ...), what it holds so far, and the StreamEvents its start,
deltas and stop become (the rules are listed in :mod:`.anthropic_events`, whose
:class:`~sse_core.pipeline.MessagesDecoder` hands every ``content_block_*`` event here).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from pydantic_core import to_json

from sse_core.events import (
    Citation,
    ReasoningSignature,
    RedactedReasoning,
    StreamEvent,
    _gateway_event,
    _reasoning_delta,
    _text_delta,
    _tool_call_delta,
)
from sse_core.pipeline.tool_calls import nameless_call

__all__ = ["ContentBlocks"]


class _Kind(IntEnum):
    """What a content block is, for its deltas."""

    TEXT = 0  # text (and its citations)
    THINKING = 1  # thinking: its text, and a signature sent when it closes
    TOOL = 2  # tool_use: a tool call, its arguments in pieces
    REDACTED = 3  # redacted_thinking: whole at its start, no deltas
    OTHER = 4  # a server tool's block, a type not known yet: GatewayEvents, as sent


# The kinds delta() tests on every piece, as module names: on Python 3.11 reading a member
# off its class (``_Kind.TEXT``) costs several times the test itself.
_TEXT, _THINKING, _TOOL = _Kind.TEXT, _Kind.THINKING, _Kind.TOOL

_KINDS = {
    "text": _Kind.TEXT,
    "thinking": _Kind.THINKING,
    "tool_use": _Kind.TOOL,
    "redacted_thinking": _Kind.REDACTED,
}
# The block a delta implies when its block never started (a gateway that skips the start).
_IMPLIED = {
    "text_delta": _Kind.TEXT,
    "thinking_delta": _Kind.THINKING,
    "signature_delta": _Kind.THINKING,
    "input_json_delta": _Kind.TOOL,
    "citations_delta": _Kind.TEXT,
}


class _Block:
    __slots__ = ("call", "closed", "held", "input", "kind", "pieces", "signature")

    def __init__(self, kind: _Kind, call: int = -1, start_input: object = None) -> None:
        self.kind = kind
        self.call = call  # the tool call's number (a tool_use block with a name)
        self.input = start_input  # the tool_use start's ``input``
        self.pieces = False  # an input piece arrived
        self.signature: list[str] = []
        # A tool_use block without a name: its index, id and input pieces, held until its
        # stop keeps them as no call (no tool runs without its name).
        self.held: tuple[int | None, str | None, list[str]] | None = None
        self.closed = False


class ContentBlocks:
    """The content blocks of one message, and the tool calls numbered among them."""

    __slots__ = ("_blocks", "_calls")

    def __init__(self) -> None:
        self._blocks: dict[int | None, _Block] = {}
        self._calls = 0  # tool calls started so far: the number of the next one

    def start(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``content_block_start``: a block opens at its ``index``."""
        index = _index(payload)
        known = self._blocks.get(index)
        if known is not None and not known.closed:
            self._close(known, None, events)  # the index reused before its stop
        block = payload.get("content_block")
        if type(block) is not dict:
            block = {}
        kind = _kind(block)
        if kind == _Kind.OTHER:
            self._blocks[index] = _Block(_Kind.OTHER)
            events.append(_gateway_event("content_block_start", payload))
        elif kind == _Kind.TOOL:
            call_id, name = _str(block.get("id")), _str(block.get("name"))
            at = self._number(name)
            self._blocks[index] = state = _Block(_Kind.TOOL, at, block.get("input"))
            if at >= 0:
                events.append(_tool_call_delta(at, call_id or None, name, "", 0))
            else:
                state.held = (index, call_id or None, [])
        else:
            self._blocks[index] = state = _Block(kind)
            self._opening(state, block, events, index)

    def _opening(
        self, state: _Block, block: Mapping[str, Any], events: list[StreamEvent], index: int | None
    ) -> None:
        """What a text, thinking or redacted block's start already holds."""
        if state.kind == _Kind.TEXT:
            for cited in given if type(given := block.get("citations")) is list else ():
                _cite(cited, index, events, "citation", cited)
            text = _str(block.get("text"))
            if text:
                events.append(_text_delta(text, 0))
        elif state.kind == _Kind.THINKING:
            text = _str(block.get("thinking"))
            if text:
                events.append(_reasoning_delta(text, 0))
            signature = _str(block.get("signature"))
            if signature:
                state.signature.append(signature)
        else:
            events.append(RedactedReasoning(data=_str(block.get("data")) or ""))

    def delta(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``content_block_delta``: a piece of the block at its ``index``."""
        delta = payload.get("delta")
        if type(delta) is not dict:
            delta = {}
        index = payload.get("index")
        if type(index) is not int:
            index = None
        kind = delta.get("type")
        block = self._blocks.get(index) or self._implied(index, kind)
        if block.kind == _TEXT and kind == "text_delta" and not block.closed:
            text = delta.get("text")
            if text and type(text) is str:
                events.append(_text_delta(text, 0))
        elif block.kind == _TOOL and kind == "input_json_delta" and not block.closed:
            piece = delta.get("partial_json")
            if piece and type(piece) is str:
                block.pieces = True
                if block.held is None:
                    events.append(_tool_call_delta(block.call, None, None, piece, 0))
                else:
                    block.held[2].append(piece)
        elif kind == "citations_delta" and block.kind == _TEXT and not block.closed:
            _cite(delta.get("citation"), index, events, "content_block_delta", payload)
        elif block.kind == _THINKING and not block.closed:
            self._thinking(block, kind, delta, payload, events)
        else:  # server tool input, unknown kinds, a delta after its block's stop
            events.append(_gateway_event("content_block_delta", payload))

    def _thinking(
        self,
        block: _Block,
        kind: object,
        delta: Mapping[str, Any],
        payload: Mapping[str, Any],
        events: list[StreamEvent],
    ) -> None:
        if kind == "thinking_delta":
            text = delta.get("thinking")
            if text and type(text) is str:
                events.append(_reasoning_delta(text, 0))
        elif kind == "signature_delta":
            signature = delta.get("signature")
            if signature and type(signature) is str:
                block.signature.append(signature)
        else:
            events.append(_gateway_event("content_block_delta", payload))

    def _implied(self, index: int | None, kind: object) -> _Block:
        """The block a delta implies when its ``content_block_start`` never came (a tool
        input's block has no name then: no call)."""
        implied = _IMPLIED.get(kind, _Kind.OTHER) if type(kind) is str else _Kind.OTHER
        block = self._blocks[index] = _Block(implied)
        if implied == _Kind.TOOL:
            block.held = (index, None, [])
        return block

    def _number(self, name: str | None) -> int:
        """The number of the next tool call, for a tool_use block with a name; else -1."""
        if not name:
            return -1
        self._calls += 1
        return self._calls - 1

    def _close(
        self, block: _Block, payload: Mapping[str, Any] | None, events: list[StreamEvent]
    ) -> None:
        block.closed = True
        if block.kind == _Kind.THINKING:
            if block.signature:
                events.append(ReasoningSignature(signature="".join(block.signature)))
        elif block.kind == _Kind.TOOL:
            given = block.input
            if block.held is not None:
                index, call_id, pieces = block.held
                sent = "".join(pieces) or (to_json(given).decode() if given is not None else "")
                events.append(nameless_call(index, call_id, sent))
            elif not block.pieces:
                # No input streamed: the start's input, or none ({}), never a missing value.
                arguments = to_json(given).decode() if type(given) is dict and given else "{}"
                events.append(_tool_call_delta(block.call, None, None, arguments, 0))
        elif block.kind == _Kind.OTHER and payload is not None:
            events.append(_gateway_event("content_block_stop", payload))

    def stop(self, payload: Mapping[str, Any], events: list[StreamEvent]) -> None:
        """``content_block_stop``: the block at its ``index`` closes."""
        block = self._blocks.get(_index(payload))
        if block is not None and not block.closed:
            self._close(block, payload, events)

    def close_all(self, events: list[StreamEvent]) -> None:
        """Close every block still open (a stop reason, or the end of the message)."""
        for block in self._blocks.values():
            if not block.closed:
                self._close(block, None, events)

    def whole(self, block: Mapping[str, Any], events: list[StreamEvent], index: int) -> None:
        """The ``index``-th content block, whole (prefilled in message_start, or a JSON answer)."""
        kind = _kind(block)
        if kind == _Kind.TOOL:
            given = block.get("input")
            call_id, name = _str(block.get("id")), _str(block.get("name"))
            at = self._number(name)
            if at < 0:
                sent = to_json(given).decode() if given is not None else ""
                events.append(nameless_call(index, call_id or None, sent))
                return
            arguments = to_json(given).decode() if type(given) is dict and given else "{}"
            events.append(_tool_call_delta(at, call_id or None, name, arguments, 0))
        elif kind == _Kind.OTHER:
            events.append(_gateway_event("content_block", block))
        else:
            state = _Block(kind)
            self._opening(state, block, events, index)
            if state.signature:
                events.append(ReasoningSignature(signature="".join(state.signature)))


def _cite(item: object, at: int | None, events: list[StreamEvent], name: str, sent: object) -> None:
    """A Citation of block ``at``; an ``item`` that is no object stays ``sent``, a GatewayEvent."""
    if type(item) is dict:
        events.append(Citation(citation=item, block=at))
    else:
        events.append(_gateway_event(name, sent))


def _kind(block: Mapping[str, Any]) -> _Kind:
    name = block.get("type")
    return _KINDS.get(name, _Kind.OTHER) if type(name) is str else _Kind.OTHER


def _index(payload: Mapping[str, Any]) -> int | None:
    index = payload.get("index")
    return index if type(index) is int else None


def _str(value: object) -> str | None:
    return value if type(value) is str else None
