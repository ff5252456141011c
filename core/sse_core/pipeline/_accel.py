"""The optional msgspec accelerator: common chat chunks decoded into typed structs.

Opt-in (``StreamDecoder(accelerator="msgspec")`` hands it to its ChunkDecoder: it is part of
the chat-completions payload decoder and shares that decoder's state); the pure path stays
the default and the reference. A chunk is taken here only when msgspec decodes it, in full,
into the structs below: every key of the chunk, its choices and their deltas is one the
structs name (any other key, as well as a wrong type, a content list, invalid UTF-8 or a
number JSON cannot hold, makes msgspec refuse it), so nothing the pure path would read can be
missed. A chunk msgspec refuses is decoded by the pure path, from the same bytes, with the
same result. The structs hold values exactly as the pure path's JSON parser would (strings,
ints, None), and the events are made by the same ChunkDecoder state (think splitters, tool
indexers, usage).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sse_core.errors import ConfigurationError
from sse_core.events import RefusalDelta, StreamEvent, _finish, _text_delta, _usage_update

if TYPE_CHECKING:
    from sse_core.pipeline.chunks import ChunkDecoder, _ChoiceState

__all__ = ["ACCELERATORS", "Accelerator", "accelerated", "check_accelerator"]

#: The accelerators :func:`accelerator` knows.
ACCELERATORS = ("msgspec",)

#: Decode one ``{...}`` payload into events; False when the pure path must take it.
Accelerator = Callable[[bytes, list[StreamEvent]], bool]


def accelerated(name: str | None, chunks: ChunkDecoder) -> Accelerator | None:
    """The accelerated payload decoder named ``name`` for ``chunks`` (None: the pure path).

    Raises:
        ConfigurationError: ``name`` is unknown, or its package is not installed.
    """
    if name is None:
        return None
    return _MsgspecChunks(check_accelerator(name), chunks).decode


def check_accelerator(name: str) -> Any:
    """The structs of accelerator ``name``, or a ConfigurationError saying what is wrong.

    Raises:
        ConfigurationError: ``name`` is unknown, or its package is not installed.
    """
    if name != "msgspec":
        raise ConfigurationError(f"accelerator must be one of {ACCELERATORS} or None, got {name!r}")
    try:
        return _structs()
    except ImportError:
        raise ConfigurationError(
            "accelerator='msgspec' needs the msgspec package: pip install 'sse-connectors[fast]'"
        ) from None


_UNSET: Any = None
_ERRORS: tuple[type[Exception], ...] = (ValueError,)


def _structs() -> Any:
    """The msgspec decoder of the chunk struct (imported on first use: msgspec is optional)."""
    global _UNSET, _ERRORS  # noqa: PLW0603 - set once, on first use
    from sse_core.pipeline import _accel_structs

    _UNSET = _accel_structs.UNSET
    _ERRORS = _accel_structs.ERRORS
    return _accel_structs.DECODER


class _MsgspecChunks:
    __slots__ = ("_chunks", "_decoder")

    def __init__(self, decoder: Any, chunks: ChunkDecoder) -> None:
        self._decoder = decoder
        self._chunks = chunks

    def decode(self, payload: bytes, events: list[StreamEvent]) -> bool:
        """Decode ``payload`` into ``events`` as the pure path would; False if msgspec cannot."""
        try:
            chunk = self._decoder.decode(payload)
        except _ERRORS:  # msgspec's DecodeError/ValidationError, UnicodeDecodeError
            return False
        chunks = self._chunks
        if chunks._missing:
            metadata = {
                "id": chunk.id,
                "model": chunk.model,
                "system_fingerprint": chunk.system_fingerprint,
                "created": chunk.created,
            }
            chunks._metadata(metadata, events)
        if chunk.choices:
            for choice in chunk.choices:
                _choice(chunks, choice, events)
        if chunk.usage:
            events.append(_usage_update(chunks._usage_of(chunk.usage)))
        return True


def _choice(chunks: ChunkDecoder, choice: Any, events: list[StreamEvent]) -> None:
    """:meth:`ChunkDecoder._choice` of a decoded choice struct."""
    index = choice.index
    if index is None:
        index = 0
    delta = choice.delta
    if delta is not None:
        state = chunks._choices.get(index)
        if state is None and _has_key(delta):
            state = chunks._state(index)  # as the pure path: on the first non-empty delta
        if state is not None:
            content = delta.content
            if (
                content
                and state.content.passthrough
                and not (delta.reasoning_content or delta.reasoning)
            ):
                events.append(_text_delta(content, index))  # the common case, inline
                if delta.reasoning or delta.refusal or delta.tool_calls:
                    _rest(chunks, index, state, delta, events)
            else:
                _delta(chunks, index, state, delta, events)
    if choice.finish_reason:
        events.append(_finish(choice.finish_reason, index))


def _delta(
    chunks: ChunkDecoder, index: int, state: _ChoiceState, delta: Any, events: list[StreamEvent]
) -> None:
    """:meth:`ChunkDecoder._delta` of a decoded delta struct."""
    reasoning = delta.reasoning_content or delta.reasoning
    if reasoning:
        chunks.traits.add("reasoning_content" if delta.reasoning_content else "reasoning")
        chunks._reasoning(index, state, reasoning, events)
    if delta.content:
        chunks._text(index, state, delta.content, events)
    if delta.refusal or delta.tool_calls:
        _rest(chunks, index, state, delta, events)


def _rest(
    chunks: ChunkDecoder, index: int, state: _ChoiceState, delta: Any, events: list[StreamEvent]
) -> None:
    """The refusal and tool calls of a delta (after its reasoning and text)."""
    if delta.refusal:
        events.append(RefusalDelta(text=delta.refusal, choice=index))
    if delta.tool_calls:
        take = state.tools._take
        for call in delta.tool_calls:
            function = call.function  # UNSET (absent) and None read as the pure path's {}
            name = function.name if function else None
            arguments = function.arguments if function else None
            # An absent index (UNSET) is no int, as the pure path's None is not.
            event = take(call.index, call.id or None, name or None, arguments, index)
            if event is not None:
                events.append(event)


def _has_key(delta: Any) -> bool:
    """Whether the delta had any key (an absent key is ``UNSET``, a null one None)."""
    from sse_core.pipeline._accel_structs import DELTA_FIELDS

    return any(getattr(delta, name) is not _UNSET for name in DELTA_FIELDS)
