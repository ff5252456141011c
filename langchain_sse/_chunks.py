"""The streamed chunks of ChatSSE, built as LangChain's validation builds them, without it.

Validating an ``AIMessageChunk`` and its ``ChatGenerationChunk`` costs several microseconds
per chunk, and a chunk with a tool-call fragment much more: ``init_tool_calls`` parses the
fragment's arguments as partial JSON (``parse_partial_json``, which retries ``json.loads``
as it trims the text), about 40 us for a 10-byte piece of a JSON string, which can never
be an object. :func:`make_chunk` builds the chunks of :mod:`langchain_sse._inbound` (text,
reasoning, refusal, tool-call fragments, a read's merged delta) directly: the instance dict
and the set of fields set that validation gives, in the same order, with ``tool_calls`` and
``invalid_tool_calls`` filled by LangChain's own rule for each fragment: empty arguments
make a call with ``{}`` arguments; arguments that cannot start a JSON object (the first
character after JSON whitespace is not ``{``) an invalid call without error; any other (the
first piece, ``{"path": ...``) is left to LangChain: the chunk is validated as usual.

This leans on pydantic internals, as :mod:`llamaindex_sse._lazy` does (the slot descriptors
of ``BaseModel``; a model reads its fields from its instance dict), and on langchain-core's
validators: it is a fast path of :mod:`sse_core.fast_paths` (:data:`CHUNKS`), on only on the
versions it was tested on, when :func:`probe` finds that chunks built here equal validated
ones on sample chunks (every value and its type, the key order, the fields set, the extra
and private slots), and unless ``SSE_CONNECTORS_FAST=0``. Otherwise :func:`make_chunk`
validates every chunk (:func:`make_validated`: LangChain's own construction).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.base import TextAccessor
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk
from pydantic import BaseModel

from sse_core._slots import missing_slots, slot_setters
from sse_core.fast_paths import FastPath, is_on, register

__all__ = ["CHUNKS", "make_chunk", "make_fragment_chunk", "make_validated", "probe", "use"]

#: The fields of an AIMessageChunk, in the order validation puts them in its dict.
MESSAGE_FIELDS = (
    "content",
    "additional_kwargs",
    "response_metadata",
    "type",
    "name",
    "id",
    "tool_calls",
    "invalid_tool_calls",
    "usage_metadata",
    "tool_call_chunks",
    "chunk_position",
)
#: The fields of a ChatGenerationChunk, likewise.
GENERATION_FIELDS = ("text", "generation_info", "type", "message")
#: The fields ``init_tool_calls`` sets when there are fragments.
_CALL_FIELDS = ("tool_calls", "invalid_tool_calls")
#: The fields set on a chunk of one fragment.
_FRAGMENT_SET = frozenset({"content", "tool_call_chunks", *_CALL_FIELDS})
#: What ``json.loads`` skips before a value.
_JSON_SPACE = " \t\n\r"

_new = object.__new__
#: pydantic's slots, written directly (an instance without validation, as model_construct).
_set_dict, _set_fields, _set_extra, _set_private = slot_setters()
_Calls = tuple[list[dict[str, Any]], list[dict[str, Any]]]


def make_validated(
    content: str,
    *,
    additional_kwargs: dict[str, Any] | None = None,
    tool_call_chunks: list[ToolCallChunk] | None = None,
    response_metadata: dict[str, Any] | None = None,
    message_id: str | None = None,
) -> ChatGenerationChunk:
    """The chunk :func:`make_chunk` builds, the ordinary (validated) way: the message made
    with the fields given, then its ``id`` set (as a run stamps its chunks)."""
    fields: dict[str, Any] = {"content": content}
    if additional_kwargs is not None:
        fields["additional_kwargs"] = additional_kwargs
    if tool_call_chunks is not None:
        fields["tool_call_chunks"] = tool_call_chunks
    if response_metadata is not None:
        fields["response_metadata"] = response_metadata
    message = AIMessageChunk(**fields)
    if message_id is not None:
        message.id = message_id
    return ChatGenerationChunk(message=message)


def _entry(name: str | None, args: str | None, call_id: str | None) -> dict[str, Any] | None:
    """What ``init_tool_calls`` makes of one fragment: a call (empty arguments), an invalid
    call (arguments that cannot start a JSON object); None where it must parse them."""
    if not args:
        return {"name": name or "", "args": {}, "id": call_id, "type": "tool_call"}
    if type(args) is str and ("{" not in args or args.lstrip(_JSON_SPACE)[:1] != "{"):
        return {
            "name": name,
            "args": args,
            "id": call_id,
            "error": None,
            "type": "invalid_tool_call",
        }
    return None


def _split_calls(fragments: list[ToolCallChunk]) -> _Calls | None:
    """The calls and invalid calls ``init_tool_calls`` makes of ``fragments``; None if one
    needs LangChain's partial-JSON parse."""
    calls: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    for fragment in fragments:
        entry = _entry(fragment["name"], fragment["args"], fragment["id"])
        if entry is None:
            return None
        (calls if entry["type"] == "tool_call" else invalid).append(entry)
    return calls, invalid


def _generation(message: AIMessageChunk, content: str) -> ChatGenerationChunk:
    """The chunk of a message :func:`_message` built (its ``content``), as validation leaves
    it (the slots set inline: this runs for every chunk of a stream)."""
    generation = _new(ChatGenerationChunk)
    _set_dict(
        generation,
        {  # the order of GENERATION_FIELDS; the text as ``set_text`` sets it for str content
            "text": TextAccessor(content),
            "generation_info": None,
            "type": "ChatGenerationChunk",
            "message": message,
        },
    )
    _set_fields(generation, {"message", "text"})
    _set_extra(generation, None)
    _set_private(generation, None)
    return generation


def _message(
    content: str,
    additional_kwargs: dict[str, Any],
    response_metadata: dict[str, Any],
    calls: _Calls,
    tool_call_chunks: list[ToolCallChunk],
    fields_set: set[str],
    message_id: str | None,
) -> AIMessageChunk:
    """A message of these field values, as validation leaves it (the slots set inline)."""
    message = _new(AIMessageChunk)
    _set_dict(
        message,
        {  # the order of MESSAGE_FIELDS
            "content": content,
            "additional_kwargs": additional_kwargs,
            "response_metadata": response_metadata,
            "type": "AIMessageChunk",
            "name": None,
            "id": message_id,
            "tool_calls": calls[0],
            "invalid_tool_calls": calls[1],
            "usage_metadata": None,
            "tool_call_chunks": tool_call_chunks,
            "chunk_position": None,
        },
    )
    _set_fields(message, fields_set)
    _set_extra(message, {})
    _set_private(message, None)
    return message


def _build(
    content: str,
    additional_kwargs: dict[str, Any] | None,
    tool_call_chunks: list[ToolCallChunk] | None,
    response_metadata: dict[str, Any] | None,
    message_id: str | None = None,
) -> ChatGenerationChunk | None:
    """:func:`make_chunk` without validation; None where LangChain must do it.

    The fragment dicts are kept (validation would copy them): they must be made as
    ``tool_call_chunk()`` makes them and not be used elsewhere.
    """
    fields_set = {"content"} if message_id is None else {"content", "id"}
    calls: _Calls = ([], [])
    if additional_kwargs is not None:
        if "tool_calls" in additional_kwargs:
            return None  # LangChain parses legacy tool calls out of additional_kwargs
        fields_set.add("additional_kwargs")
    if response_metadata is not None:
        fields_set.add("response_metadata")
    if tool_call_chunks is not None:
        fields_set.add("tool_call_chunks")
        if tool_call_chunks:
            split = _split_calls(tool_call_chunks)
            if split is None:
                return None
            calls = split
            fields_set.update(_CALL_FIELDS)
    message = _message(
        content,
        {} if additional_kwargs is None else additional_kwargs,
        {} if response_metadata is None else response_metadata,
        calls,
        [] if tool_call_chunks is None else list(tool_call_chunks),
        fields_set,
        message_id,
    )
    return _generation(message, content)


def _make_fast(
    content: str,
    *,
    additional_kwargs: dict[str, Any] | None = None,
    tool_call_chunks: list[ToolCallChunk] | None = None,
    response_metadata: dict[str, Any] | None = None,
    message_id: str | None = None,
) -> ChatGenerationChunk:
    built = _build(content, additional_kwargs, tool_call_chunks, response_metadata, message_id)
    if built is not None:
        return built
    return make_validated(
        content,
        additional_kwargs=additional_kwargs,
        tool_call_chunks=tool_call_chunks,
        response_metadata=response_metadata,
        message_id=message_id,
    )


def _text_fast(content: str, message_id: str | None = None) -> ChatGenerationChunk:
    """:func:`_make_fast` of a text delta alone (most chunks of a stream): no field to check."""
    return _generation(_text_message_fast(content, message_id), content)


def _text_validated(content: str, message_id: str | None = None) -> ChatGenerationChunk:
    return make_validated(content, message_id=message_id)


def _text_message_fast(content: str, message_id: str | None = None) -> AIMessageChunk:
    """The message of :func:`_text_fast`'s chunk, for a caller that needs no generation."""
    fields_set = {"content"} if message_id is None else {"content", "id"}
    return _message(content, {}, {}, ([], []), [], fields_set, message_id)


def _text_message_validated(content: str, message_id: str | None = None) -> AIMessageChunk:
    message = AIMessageChunk(content=content)
    if message_id is not None:
        message.id = message_id
    return message


def _fragment_fast(
    name: str | None,
    args: str,
    call_id: str | None,
    index: int | None,
    message_id: str | None = None,
) -> ChatGenerationChunk:
    fragment = _fragment(name, args, call_id, index)
    entry = _entry(name, args, call_id)
    if entry is None:
        return make_validated("", tool_call_chunks=[fragment], message_id=message_id)
    calls: _Calls = ([entry], []) if entry["type"] == "tool_call" else ([], [entry])
    fields_set = set(_FRAGMENT_SET) if message_id is None else {*_FRAGMENT_SET, "id"}
    return _generation(_message("", {}, {}, calls, [fragment], fields_set, message_id), "")


def _fragment_validated(
    name: str | None,
    args: str,
    call_id: str | None,
    index: int | None,
    message_id: str | None = None,
) -> ChatGenerationChunk:
    fragment = _fragment(name, args, call_id, index)
    return make_validated("", tool_call_chunks=[fragment], message_id=message_id)


def _fragment(name: str | None, args: str, call_id: str | None, index: int | None) -> ToolCallChunk:
    """``tool_call_chunk(name=name, args=args, id=call_id, index=index)``."""
    return {"name": name, "args": args, "id": call_id, "index": index, "type": "tool_call_chunk"}


# --- the probe ------------------------------------------------------------------------------


def _same(built: object, validated: object) -> bool:
    """Equal values of the same types, dicts with the same key order, models slot by slot."""
    if type(built) is not type(validated):
        return False
    if isinstance(built, BaseModel):
        assert isinstance(validated, BaseModel)
        return (
            _same(_slot(built, "__dict__"), _slot(validated, "__dict__"))
            and built.__pydantic_fields_set__ == validated.__pydantic_fields_set__
            and _same(built.__pydantic_extra__, validated.__pydantic_extra__)
            and _same(built.__pydantic_private__, validated.__pydantic_private__)
        )
    if isinstance(built, dict):
        assert isinstance(validated, dict)
        return list(built) == list(validated) and all(
            _same(built[key], validated[key]) for key in built
        )
    if isinstance(built, list):
        assert isinstance(validated, list)
        return len(built) == len(validated) and all(map(_same, built, validated))
    return built == validated


def _slot(model: BaseModel, name: str) -> Any:
    return BaseModel.__dict__[name].__get__(model)


def _samples() -> list[dict[str, Any]]:
    def piece(args: str, name: str | None = None, call_id: str | None = None) -> ToolCallChunk:
        return tool_call_chunk(name=name, args=args, id=call_id, index=0)

    return [
        {"content": "hi"},
        {"content": "hi", "message_id": "lc_run--probe"},
        {"content": "", "additional_kwargs": {"reasoning_content": "r"}},
        {"content": "", "additional_kwargs": {"refusal": "no"}, "response_metadata": {"m": "s"}},
        {"content": "", "tool_call_chunks": [piece("m ipsum do")]},
        {"content": "", "tool_call_chunks": [piece("", "write", "call_1")]},
        {"content": "", "tool_call_chunks": [piece(" \n5, ")]},
        {"content": "", "tool_call_chunks": []},
        {
            "content": "x",
            "additional_kwargs": {},
            "tool_call_chunks": [piece("", "f", "c1"), piece('"a": 1}'), piece("]")],
            "response_metadata": {"model_provider": "sse"},
            "message_id": "lc_run--probe",
        },
    ]


def _changed_shapes() -> str | None:
    """What changed in the classes' slots and fields, if anything."""
    missing = missing_slots()
    if missing:
        return f"pydantic's BaseModel no longer has the slot descriptor(s) {sorted(missing)}"
    for cls, fields in ((AIMessageChunk, MESSAGE_FIELDS), (ChatGenerationChunk, GENERATION_FIELDS)):
        if tuple(cls.model_fields) != fields:
            return f"{cls.__name__}'s fields changed: {tuple(cls.model_fields)}"
    return None


def _build_sample(sample: dict[str, Any]) -> ChatGenerationChunk | None:
    return _build(
        sample["content"],
        sample.get("additional_kwargs"),
        sample.get("tool_call_chunks"),
        sample.get("response_metadata"),
        sample.get("message_id"),
    )


def _pairs() -> list[tuple[str, Callable[[], object], Callable[[], object]]]:
    """(what, build it here, build it validated) for every sample chunk."""
    pairs: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        (repr(sample), partial(_build_sample, sample), partial(make_validated, **sample))
        for sample in _samples()
    ]
    pairs += [
        (
            f"the fragment {args!r}",
            partial(_fragment_fast, name, args, call_id, 0, message_id),
            partial(_fragment_validated, name, args, call_id, 0, message_id),
        )
        for args, name, call_id in (("m ipsum", None, None), ("", "write", "c1"), ("5", "f", None))
        for message_id in (None, "lc_run--probe")
    ]
    return pairs


def probe() -> str | None:
    """None if chunks built without validation equal validated ones, else what differs."""
    changed = _changed_shapes()
    if changed is not None:
        return changed
    for what, build, validate in _pairs():
        try:
            built = build()
        except Exception as exc:  # any failure means the internals moved: fall back
            return f"building {what} failed ({type(exc).__name__}: {exc})"
        if built is None or not _same(built, validate()):
            return f"{what} built without validation differs from the validated chunk"
    return None


#: Chunks built without validation (else LangChain's validated construction).
CHUNKS = register(
    FastPath(
        name="langchain.chunks",
        shortcut="AIMessageChunk and ChatGenerationChunk built by writing pydantic's slots, "
        "without validation",
        tested={"langchain-core": ">=1.8,<1.9", "pydantic": ">=2.11,<2.15"},
        probe=probe,
        faithful="AIMessageChunk(...) and ChatGenerationChunk(message=...), validated",
        uses={
            module: ("__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_private__")
            for module in ("langchain_sse._chunks", "sse_core._slots")
        },
    )
)

#: ``make_chunk(content, *, additional_kwargs=None, tool_call_chunks=None,
#: response_metadata=None, message_id=None)``: the same as :func:`make_validated` (its fields
#: given as keywords, the others left to their defaults, the id as a run's stamp sets it),
#: built without validation where that is exact and :data:`CHUNKS` is on.
make_chunk: Callable[..., ChatGenerationChunk] = make_validated
#: ``make_text_chunk(content, message_id=None)``: ``make_chunk(content, message_id=...)``.
make_text_chunk: Callable[[str, str | None], ChatGenerationChunk] = _text_validated
#: ``make_text_message(content, message_id=None)``: ``make_text_chunk(...).message``, with no
#: generation made (the own stream loop yields messages, and with no handler, tells no token).
make_text_message: Callable[[str, str | None], AIMessageChunk] = _text_message_validated
#: ``make_fragment_chunk(name, args, call_id, index, message_id=None)``: the chunk of one
#: tool-call fragment, ``make_chunk("", tool_call_chunks=[tool_call_chunk(name=..., args=...,
#: id=..., index=...)], message_id=message_id)``.
make_fragment_chunk: Callable[..., ChatGenerationChunk] = _fragment_validated


def use(fast: bool) -> None:
    """Build chunks without validation (``fast``) or validated; decided once, at import."""
    global make_chunk, make_text_chunk, make_text_message, make_fragment_chunk  # noqa: PLW0603
    make_chunk = _make_fast if fast else make_validated
    make_text_chunk = _text_fast if fast else _text_validated
    make_text_message = _text_message_fast if fast else _text_message_validated
    make_fragment_chunk = _fragment_fast if fast else _fragment_validated


use(is_on(CHUNKS.name))
