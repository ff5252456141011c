"""Per-chunk ChatResponses in O(1): the running message is assembled only when read.

LlamaIndex wants every streamed ``ChatResponse`` to carry the whole message so far. Joining
the running text for every chunk costs O(length) per chunk, so a 100,000-chunk answer would
cost O(n^2). Here each chunk's :class:`StreamMessage` records only a mark (O(1)) and builds
its blocks from its source on first read; reading the chunks in order reuses the previous
join (the core's snapshots do that), so reading every message costs O(n) overall. Where
``raw`` is the protocol's own object so far (Anthropic's message, the Responses API's
response), a :class:`StreamResponse` builds it the same way, on first read of ``raw``.

:class:`StreamMessage` is a real :class:`ChatMessage` (``isinstance``, pydantic dumps,
copies, pickling and equality all see the assembled fields); it fills ``blocks`` and
``additional_kwargs`` at the first access of either, or of the instance ``__dict__`` that
pydantic's machinery reads.

This leans on pydantic internals: the slot descriptors ``BaseModel.__dict__["__dict__"]``,
``__pydantic_fields_set__``, ``__pydantic_extra__`` and ``__pydantic_private__`` (setting
them builds an instance without validation, far cheaper than ``model_construct``),
``BaseModel.__getattr__``, pydantic reading fields through the instance ``__dict__`` when it
dumps, and the field lists of LlamaIndex's ``ChatResponse`` and ``ChatMessage`` (the keys
written here) and of the blocks. It is a fast path of :mod:`sse_core.fast_paths`
(:data:`LAZY`): on only on the versions it was tested on, when :func:`probe` finds all of
that, and unless ``SSE_CONNECTORS_FAST=0``. Otherwise :func:`default_build` gives the
faithful build: ``ChatMessage(...)`` and ``ChatResponse(...)``, validated, the message
joined at once (O(length) per chunk, as LlamaIndex's own LLMs do).
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
    ThinkingBlock,
    ToolCallBlock,
)
from pydantic import BaseModel

from sse_core._slots import SLOTS, missing_slots, slot_setters
from sse_core.fast_paths import FastPath, is_on, register

__all__ = [
    "LAZY",
    "Build",
    "MessageSource",
    "RawSource",
    "StreamMessage",
    "StreamResponse",
    "default_build",
    "probe",
    "probe_fields",
    "probe_pydantic",
]

#: The pydantic slots written directly; each must be a data descriptor on BaseModel.
PYDANTIC_SLOTS = SLOTS

_LAZY_FIELDS = frozenset({"blocks", "additional_kwargs"})
_MESSAGE_FIELDS = ("role", "blocks", "additional_kwargs")
_RESPONSE_FIELDS = ("message", "raw", "delta", "additional_kwargs")
#: The field lists written here (the whole list: an instance dict holds every field).
WRITTEN_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {
    ChatResponse: ("message", "raw", "delta", "logprobs", "additional_kwargs"),
    ChatMessage: ("role", "additional_kwargs", "blocks"),
}
#: The fields of the blocks a message holds that this adapter sets (built validated).
BLOCK_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {
    TextBlock: ("block_type", "text"),
    ThinkingBlock: ("block_type", "content", "additional_information"),
    ToolCallBlock: ("block_type", "tool_call_id", "tool_name", "tool_kwargs"),
}
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
        _set_fields(message, set(_MESSAGE_FIELDS))  # every slot written inline: once per
        _set_extra(message, None)  # streamed response
        _set_private(message, None)
        _set_source(message, source)
        _set_mark(message, mark)
        return message

    def _assembled(self) -> dict[str, Any]:
        fields: dict[str, Any] = _get_dict(self)
        # A copy or an unpickled instance has no source slot: its fields are already there.
        source: MessageSource | None = getattr(self, "_source", None)
        if source is not None and "blocks" not in fields:
            blocks, fields["additional_kwargs"] = source.assemble(self._mark)
            fields["blocks"] = blocks  # after additional_kwargs: the order validation gives
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


class RawSource(Protocol):
    """What a :class:`StreamResponse`'s ``raw`` is built from."""

    def raw_at(self, at: Any) -> dict[str, Any]:
        """The ``raw`` of the response at ``at``."""


class StreamResponse(ChatResponse):
    """A ChatResponse whose ``raw`` (the protocol's object so far) is built on first read."""

    __slots__ = ("_raw_at", "_raw_source")

    def _assembled(self) -> dict[str, Any]:
        fields: dict[str, Any] = _get_dict(self)
        source: RawSource | None = getattr(self, "_raw_source", None)
        if source is not None and "raw" not in fields:
            # In the field order validation gives: pydantic dumps the instance dict in order.
            message = fields.pop("message")
            fields = {"message": message, "raw": source.raw_at(self._raw_at), **fields}
            _set_dict(self, fields)
            _set_raw_source(self, None)
        return fields

    @property
    def __dict__(self) -> dict[str, Any]:
        """The instance dict, assembled first: pydantic dumps, copies and compares it."""
        return self._assembled()

    @__dict__.setter
    def __dict__(self, value: dict[str, Any]) -> None:
        _set_dict(self, value)

    def __getattr__(self, name: str) -> Any:
        if name == "raw":
            return self._assembled()["raw"]
        base: Callable[[BaseModel, str], Any] = BaseModel.__getattr__  # type: ignore[attr-defined]
        return base(self, name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChatResponse):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _COMPARED)

    __hash__ = None  # type: ignore[assignment]


_COMPARED = WRITTEN_FIELDS[ChatResponse]
_set_raw_source: Callable[[StreamResponse, Any], None] = vars(StreamResponse)["_raw_source"].__set__
_set_raw_at: Callable[[StreamResponse, Any], None] = vars(StreamResponse)["_raw_at"].__set__


class _Probe:
    def assemble(self, mark: Any) -> tuple[list[ContentBlock], dict[str, Any]]:
        return [TextBlock(text=str(mark))], {"probe": mark}

    def raw_at(self, at: Any) -> dict[str, Any]:
        return {"probe": at}


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
    return _probe_response()


def _probe_response() -> str | None:
    """None if a lazy ``raw`` is dumped and read as a built one is."""
    try:
        response = Build(lazy=True).make_response_later(ChatMessage(), "", _Probe(), "ok", {})
        dumped = response.model_dump()
    except Exception as exc:  # any failure means the internals moved: fall back
        return f"a lazy ChatResponse cannot be dumped any more ({type(exc).__name__}: {exc})"
    if list(dumped) != list(WRITTEN_FIELDS[ChatResponse]) or dumped["raw"] != {"probe": "ok"}:
        return f"pydantic no longer dumps a response through its __dict__ (got {dumped!r})"
    return None


@dataclass(frozen=True, slots=True)
class Build:
    """How a stream's messages and responses are made: lazily without validation, or
    validated (LlamaIndex's own construction)."""

    lazy: bool

    def make_message(self, source: MessageSource, mark: Any) -> ChatMessage:
        """The assistant message of ``source`` as of ``mark``."""
        if self.lazy:
            return StreamMessage.at(source, mark)
        blocks, kwargs = source.assemble(mark)
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks, additional_kwargs=kwargs)

    def make_response(
        self,
        message: ChatMessage,
        delta: str,
        raw: dict[str, Any],
        additional_kwargs: dict[str, Any],
    ) -> ChatResponse:
        """``ChatResponse(...)``: lazily without validation (the caller builds the values
        right), or validated."""
        if not self.lazy:
            return ChatResponse(
                message=message, raw=raw, delta=delta, additional_kwargs=additional_kwargs
            )
        response: ChatResponse = _new(ChatResponse)
        _fill(response, {"message": message, "raw": raw, "delta": delta, "logprobs": None,
                         "additional_kwargs": additional_kwargs})  # fmt: skip
        return response

    def make_response_later(
        self,
        message: ChatMessage,
        delta: str,
        source: RawSource,
        at: Any,
        additional_kwargs: dict[str, Any],
    ) -> ChatResponse:
        """:meth:`make_response` whose ``raw`` is ``source``'s as of ``at``: built on first
        read (lazy: the protocol's object so far would cost O(length) per chunk), or at once."""
        if not self.lazy:
            return self.make_response(message, delta, source.raw_at(at), additional_kwargs)
        response: StreamResponse = _new(StreamResponse)
        _fill(response, {"message": message, "delta": delta, "logprobs": None,
                         "additional_kwargs": additional_kwargs})  # fmt: skip
        _set_raw_source(response, source)
        _set_raw_at(response, at)
        return response


def _fill(response: ChatResponse, fields: dict[str, Any]) -> None:
    """Write a response's slots as validation would (every slot, once per response)."""
    _set_dict(response, fields)
    _set_fields(response, set(_RESPONSE_FIELDS))
    _set_extra(response, None)
    _set_private(response, None)


def probe_fields() -> str | None:
    """None if ChatResponse, ChatMessage and the blocks have the fields written here."""
    for cls, fields in WRITTEN_FIELDS.items():
        found = tuple(cls.model_fields)
        new = [name for name in found if name not in fields]
        if new:
            return f"{cls.__name__} has a new field {new[0]!r}"
        if found != fields:
            return f"{cls.__name__}'s fields changed: {found}"
    for cls, fields in BLOCK_FIELDS.items():
        lost = [name for name in fields if name not in cls.model_fields]
        if lost:
            return f"{cls.__name__} lost the field {lost[0]!r}"
    return None


def probe() -> str | None:
    """None if lazy messages and unvalidated responses are exact here, else what differs."""
    return probe_fields() or probe_pydantic()


#: Lazy messages and responses built without validation.
LAZY = register(
    FastPath(
        name="llamaindex.lazy_responses",
        shortcut="streamed ChatResponses built by writing pydantic's slots, without validation, "
        "their message (and a protocol's own raw object) assembled on first read",
        tested={"llama-index-core": ">=0.14.16,<0.15", "pydantic": ">=2.11,<2.15"},
        probe=probe,
        faithful="ChatMessage(...) and ChatResponse(...), validated, the message and raw "
        "built at once",
        uses={"sse_core._slots": PYDANTIC_SLOTS[1:]},  # the slot setters (__dict__ is public)
    )
)
_LAZY_BUILD = Build(lazy=True)
_FAITHFUL_BUILD = Build(lazy=False)


def default_build() -> Build:
    """The build of a stream: lazy where :data:`LAZY` is on, else faithful (once per call)."""
    return _LAZY_BUILD if is_on(LAZY.name) else _FAITHFUL_BUILD
