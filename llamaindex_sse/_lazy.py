"""The running message of a stream, assembled only when someone reads it.

LlamaIndex wants every streamed ``ChatResponse`` to carry the whole message so far. Joining
the running text for every chunk costs O(length) per chunk, so a 100,000-chunk answer would
cost O(n^2). Here each chunk's message records only *how many* pieces it covers (O(1)) and
builds its blocks on first read. Pieces are only ever appended, so a mark stays valid after
the stream moves on, and reading the chunks in order reuses the previous join.

:class:`StreamMessage` is a real :class:`ChatMessage` (``isinstance``, pydantic dumps,
copies, pickling and equality all see the assembled fields); it fills ``blocks`` and
``additional_kwargs`` at the first access of either, or of the instance ``__dict__``
that pydantic's machinery reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, ContentBlock, MessageRole
from pydantic import BaseModel

__all__ = ["MessageSource", "RunningText", "StreamMessage", "fast_response"]

# The slots pydantic keeps on every model instance. Setting them through their descriptors
# builds an instance without validation, about 20x cheaper than ``model_construct``.
_instance_dict = BaseModel.__dict__["__dict__"]
_get_dict: Callable[[BaseModel], dict[str, Any]] = _instance_dict.__get__
_set_dict: Callable[[BaseModel, dict[str, Any]], None] = _instance_dict.__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_base_getattr: Callable[[BaseModel, str], Any] = BaseModel.__getattr__  # type: ignore[attr-defined]
_new = object.__new__

_LAZY_FIELDS = frozenset({"blocks", "additional_kwargs"})
_MESSAGE_FIELDS = ("role", "blocks", "additional_kwargs")
_RESPONSE_FIELDS = ("message", "raw", "delta", "additional_kwargs")


class RunningText:
    """Append-only text kept as pieces; :meth:`upto` joins a prefix, reusing the last join."""

    __slots__ = ("_last", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self._last: tuple[int, str] = (0, "")

    def upto(self, count: int) -> str:
        """The text of the first ``count`` pieces."""
        done, text = self._last
        if count == done:
            return text
        if count < done:  # an older chunk read after a newer one: join it afresh
            return "".join(self.parts[:count])
        text += "".join(self.parts[done:count])
        self._last = (count, text)
        return text


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
        _set_fields_set(message, set(_MESSAGE_FIELDS))
        _set_extra(message, None)
        _set_private(message, None)
        _set_source(message, source)
        _set_mark(message, mark)
        return message

    def _assembled(self) -> dict[str, Any]:
        fields = _get_dict(self)
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
        return _base_getattr(self, name)

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


def fast_response(
    message: ChatMessage, delta: str, raw: dict[str, Any], additional_kwargs: dict[str, Any]
) -> ChatResponse:
    """``ChatResponse(...)`` without validation (the values are built right by the caller)."""
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
    _set_fields_set(response, set(_RESPONSE_FIELDS))
    _set_extra(response, None)
    _set_private(response, None)
    return response
