"""Per-chunk ChatResponses in O(1): the running message is assembled only when read.

LlamaIndex wants every streamed ``ChatResponse`` to carry the whole message so far. Joining
the running text for every chunk costs O(length) per chunk, so a 100,000-chunk answer would
cost O(n^2). Here each chunk's :class:`StreamMessage` records only a mark (O(1)) and builds
its blocks from its source on first read; reading the chunks in order reuses the previous
join (the core's snapshots do that), so reading every message costs O(n) overall.

:class:`StreamMessage` is a real :class:`ChatMessage` (``isinstance``, pydantic dumps,
copies, pickling and equality all see the assembled fields); it fills ``blocks`` and
``additional_kwargs`` at the first access of either, or of the instance ``__dict__`` that
pydantic's machinery reads.

This leans on pydantic internals: the slot descriptors ``BaseModel.__dict__["__dict__"]``,
``__pydantic_fields_set__``, ``__pydantic_extra__`` and ``__pydantic_private__`` (setting
them builds an instance without validation, about 20x cheaper than ``model_construct``),
``BaseModel.__getattr__``, and pydantic reading fields through the instance ``__dict__``
when it dumps. :func:`probe_pydantic` checks all of that once, at import; if anything
changed, :data:`FALLBACK_REASON` says what, and :data:`DEFAULT_BUILD` falls back to plain
``model_construct`` instances with the message joined at once (correct, but O(length) per
chunk). The tests fail loudly on such a change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ContentBlock,
    MessageRole,
    TextBlock,
)
from pydantic import BaseModel

from sse_core._slots import SLOTS, missing_slots, slot_setters

__all__ = [
    "DEFAULT_BUILD",
    "FALLBACK_REASON",
    "Build",
    "MessageSource",
    "StreamMessage",
    "probe_pydantic",
]

#: The pydantic slots written directly; each must be a data descriptor on BaseModel.
PYDANTIC_SLOTS = SLOTS

_LAZY_FIELDS = frozenset({"blocks", "additional_kwargs"})
_MESSAGE_FIELDS = ("role", "blocks", "additional_kwargs")
_RESPONSE_FIELDS = ("message", "raw", "delta", "additional_kwargs")
_new = object.__new__


# The slots' setters, looked up once: every streamed response sets them.
_set_dict, _set_fields, _set_extra, _set_private = slot_setters()
_get_dict: Callable[[BaseModel], dict[str, Any]] = getattr(
    BaseModel.__dict__.get("__dict__"), "__get__", lambda instance: {}
)


def _find_missing_slots() -> list[str]:
    return [f"BaseModel.__dict__[{name!r}]" for name in missing_slots(PYDANTIC_SLOTS)]


class MessageSource(Protocol):
    """What a :class:`StreamMessage` is assembled from."""

    def assemble(self, mark: Any) -> tuple[list[ContentBlock], dict[str, Any]]:
        """The blocks and additional_kwargs of the message at ``mark``."""


class StreamMessage(ChatMessage):
    """An assistant ChatMessage whose blocks are assembled from a stream on first read."""

    __slots__ = ("_mark", "_source")

    @classmethod
    def at(cls, source: MessageSource, mark: Any) -> StreamMessage:
        """The message as of ``mark`` (O(1): nothing is joined yet)."""
        message: StreamMessage = _new(cls)
        _set_dict(message, {"role": MessageRole.ASSISTANT})
        _init_slots(message, _MESSAGE_FIELDS)
        _set_source(message, source)
        _set_mark(message, mark)
        return message

    def _assembled(self) -> dict[str, Any]:
        fields: dict[str, Any] = _get_dict(self)
        # A copy or an unpickled instance has no source slot: its fields are already there.
        source: MessageSource | None = getattr(self, "_source", None)
        if source is not None and "blocks" not in fields:
            fields["blocks"], fields["additional_kwargs"] = source.assemble(self._mark)
            _set_source(self, None)  # let the stream's pieces go once nothing else needs them
        return fields

    @property
    def __dict__(self) -> dict[str, Any]:
        """The instance dict, assembled first: pydantic dumps, copies and compares it."""
        return self._assembled()

    @__dict__.setter
    def __dict__(self, value: dict[str, Any]) -> None:
        _set_dict(self, value)

    def __getattr__(self, name: str) -> Any:
        if name in _LAZY_FIELDS:
            return self._assembled()[name]
        base: Callable[[BaseModel, str], Any] = BaseModel.__getattr__  # type: ignore[attr-defined]
        return base(self, name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChatMessage):
            return NotImplemented
        return (
            self.role == other.role
            and self.blocks == other.blocks
            and self.additional_kwargs == other.additional_kwargs
        )

    __hash__ = None  # type: ignore[assignment]


# Plain slot writes: pydantic's __setattr__ would treat these names as private attributes.
_set_source: Callable[[StreamMessage, Any], None] = vars(StreamMessage)["_source"].__set__
_set_mark: Callable[[StreamMessage, Any], None] = vars(StreamMessage)["_mark"].__set__


def _init_slots(instance: BaseModel, fields: tuple[str, ...]) -> None:
    _set_fields(instance, set(fields))
    _set_extra(instance, None)
    _set_private(instance, None)


class _Probe:
    def assemble(self, mark: Any) -> tuple[list[ContentBlock], dict[str, Any]]:
        return [TextBlock(text=str(mark))], {"probe": mark}


def probe_pydantic() -> str | None:
    """None if the lazy messages work with the installed pydantic, else what changed."""
    missing = _find_missing_slots()
    if missing:
        return f"pydantic no longer has the slot descriptor(s) {', '.join(missing)}"
    if not callable(getattr(BaseModel, "__getattr__", None)):
        return "pydantic's BaseModel no longer defines __getattr__"
    try:
        dumped = StreamMessage.at(_Probe(), "ok").model_dump()
    except Exception as exc:  # any failure means the internals moved: fall back
        return f"a lazy ChatMessage cannot be dumped any more ({type(exc).__name__}: {exc})"
    expected = {"role": MessageRole.ASSISTANT, "additional_kwargs": {"probe": "ok"}}
    if dumped.get("blocks") != [{"block_type": "text", "text": "ok"}] or any(
        dumped.get(key) != value for key, value in expected.items()
    ):
        return f"pydantic no longer dumps a model through its __dict__ (got {dumped!r})"
    return None


@dataclass(frozen=True, slots=True)
class Build:
    """How a stream's messages and responses are made: lazily, or the plain pydantic way."""

    lazy: bool

    def make_message(self, source: MessageSource, mark: Any) -> ChatMessage:
        """The assistant message of ``source`` as of ``mark``."""
        if self.lazy:
            return StreamMessage.at(source, mark)
        blocks, kwargs = source.assemble(mark)
        return ChatMessage.model_construct(
            role=MessageRole.ASSISTANT, blocks=blocks, additional_kwargs=kwargs
        )

    def make_response(
        self,
        message: ChatMessage,
        delta: str,
        raw: dict[str, Any],
        additional_kwargs: dict[str, Any],
    ) -> ChatResponse:
        """``ChatResponse(...)`` without validation (the caller builds the values right)."""
        if not self.lazy:
            return ChatResponse.model_construct(
                message=message, raw=raw, delta=delta, additional_kwargs=additional_kwargs
            )
        response: ChatResponse = _new(ChatResponse)
        _set_dict(
            response,
            {
                "message": message,
                "raw": raw,
                "delta": delta,
                "logprobs": None,
                "additional_kwargs": additional_kwargs,
            },
        )
        _init_slots(response, _RESPONSE_FIELDS)
        return response


#: Why the lazy path is off with the installed pydantic (None: it is on).
FALLBACK_REASON: str | None = probe_pydantic()
#: What the streams use: lazy messages unless :data:`FALLBACK_REASON` says otherwise.
DEFAULT_BUILD = Build(lazy=FALLBACK_REASON is None)
