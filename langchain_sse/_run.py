"""The bookkeeping of ChatSSE's own ``stream``/``astream`` loop: LangChain's run, no chunk kept.

``BaseChatModel.stream``/``astream`` keep every chunk of an answer until it ends, only to
merge them for ``on_llm_end``: 200 concurrent 500-chunk streams hold 100,000 message
objects (about 1.8 KB each). ChatSSE's core assembles the answer anyway (the Completion),
so ChatSSE runs the loop itself and builds the ``on_llm_end`` generation from it. A
callback handler sees what the base class would show it:

- ``on_chat_model_start``: the serialized model, the messages formatted for tracing, the
  invocation params, the options (``stop``, call kwargs, ``ls_structured_output_format``),
  the run name and id, tags and metadata with the LangSmith params;
- ``on_llm_new_token`` for each chunk, after the message id (``lc_run--<run id>``) is set
  and, with ``output_version="v1"``, the content turned into indexed blocks;
- ``on_llm_end`` with the whole message, or ``on_llm_error`` with what had arrived.

Two message conversions are langchain-core's own (private) functions, so that what the
model sends and what traces show cannot drift from the base class: without them, or
without the model methods the loop calls (a langchain-core that renamed them), ChatSSE
falls back to the base class's loop.
This module is the pure part; ``ChatSSE.stream``/``astream`` are the sync/async twins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, LLMResult
from langchain_core.runnables import RunnableConfig, ensure_config
from langchain_core.utils.function_calling import convert_to_json_schema
from langchain_core.utils.utils import LC_ID_PREFIX

from sse_core import Completion

if TYPE_CHECKING:
    from langchain_sse._convert import ChunkMapper

Convert = Callable[[list[BaseMessage]], list[BaseMessage]]

try:
    from langchain_core.language_models._utils import _normalize_messages
    from langchain_core.language_models.chat_models import _format_for_tracing

    normalize: Convert | None = _normalize_messages
    format_for_tracing: Convert | None = _format_for_tracing
except ImportError:  # pragma: no cover - only on a langchain-core that moved them
    normalize = format_for_tracing = None

__all__ = ["OWN_LOOP", "RunPlan", "Stamp", "Turn", "ended", "failed", "plan_run"]

#: Whether ChatSSE can run its own loop (else it uses BaseChatModel's): the helpers above
#: and the model methods the loop calls are all there.
OWN_LOOP = (
    normalize is not None
    and format_for_tracing is not None
    and all(
        hasattr(BaseChatModel, name)
        for name in ("_convert_input", "_get_ls_params_with_defaults", "_serialized")
    )
)

#: Block types of finished tool calls, which carry no stream index.
_WHOLE_CALLS = frozenset({"tool_call", "invalid_tool_call"})

#: Invocation params left out of LangSmith's inherited metadata (large or structural).
_UNTRACED = frozenset({"tools", "functions", "messages", "response_format"})


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What one ``stream``/``astream`` call tells the callback manager, and what it sends."""

    messages: list[BaseMessage]
    """The input messages, normalized to v1 content blocks (what the request is built from)."""
    traced: list[BaseMessage]
    """The same messages formatted for tracing (``on_chat_model_start``)."""
    configure: dict[str, Any]
    """Keyword arguments of ``CallbackManager.configure``."""
    start: dict[str, Any]
    """Keyword arguments of ``on_chat_model_start`` besides the model and messages."""


def plan_run(
    model: BaseChatModel,
    input: LanguageModelInput,
    config: RunnableConfig | None,
    stop: list[str] | None,
    kwargs: dict[str, Any],
) -> RunPlan:
    """Prepare one streamed call; pops the structured-output tracing keys from ``kwargs``."""
    assert normalize is not None and format_for_tracing is not None
    config = ensure_config(config)
    messages = model._convert_input(input).to_messages()
    structured = kwargs.pop("ls_structured_output_format", None) or kwargs.pop(
        "structured_output_format", None
    )
    params = model._get_invocation_params(stop=stop, **kwargs)
    options = {
        "stop": stop,
        **{key: params[key] for key in kwargs if key in params},
        **_structured_format(structured),
    }
    metadata = {
        **(config.get("metadata") or {}),
        **model._get_ls_params_with_defaults(stop=stop, **kwargs),
    }
    return RunPlan(
        messages=normalize(messages),
        traced=format_for_tracing(messages),
        configure={
            "inheritable_callbacks": config.get("callbacks"),
            "local_callbacks": model.callbacks,
            "verbose": model.verbose,
            "inheritable_tags": config.get("tags"),
            "local_tags": model.tags,
            "inheritable_metadata": metadata,
            "local_metadata": model.metadata,
            "langsmith_inheritable_metadata": {
                key: value for key, value in params.items() if key not in _UNTRACED
            },
        },
        start={
            "invocation_params": params,
            "options": options,
            "name": config.get("run_name"),
            "run_id": config.pop("run_id", None),
            "batch_size": 1,
        },
    )


def _structured_format(structured: dict[str, Any] | None) -> dict[str, Any]:
    """The ``ls_structured_output_format`` option as traces show it (schema as JSON schema)."""
    if not structured:
        return {}
    try:
        schema = convert_to_json_schema(structured["schema"])
    except ValueError:
        return {}
    return {
        "ls_structured_output_format": {"kwargs": structured.get("kwargs", {}), "schema": schema}
    }


class Stamp:
    """Gives each chunk of one run its message id and, under v1 output, indexed blocks."""

    __slots__ = ("_index", "_kind", "id", "v1")

    def __init__(self, run_id: UUID, output_version: str | None) -> None:
        self.id = f"{LC_ID_PREFIX}-{run_id}"  # "lc_run--<run id>", as the base class names it
        self.v1 = output_version == "v1"
        self._index = -1
        self._kind = ""

    def __call__(self, chunk: ChatGenerationChunk) -> AIMessageChunk:
        """Stamp ``chunk`` (in place, or a v1 copy of its message); return its message."""
        message = cast("AIMessageChunk", chunk.message)
        if message.id is None:
            message.id = self.id
        if self.v1:
            message, self._kind, self._index = _as_blocks(message, self._kind, self._index)
            chunk.message = message
        return message

    def whole(self, message: AIMessageChunk) -> ChatGenerationChunk:
        """The generation of the whole answer, with the id and output version of the run."""
        if message.id is None:
            message.id = self.id
        if self.v1:
            message = _as_blocks(message, "", -1, whole=True)[0]
        return ChatGenerationChunk(message=message)


def _as_blocks(
    message: AIMessageChunk, kind: str, index: int, *, whole: bool = False
) -> tuple[AIMessageChunk, str, int]:
    """The message with its content as standard blocks, each numbered by the run of its type.

    ``kind`` and ``index`` are the type and number of the stream's block before this one.
    In a ``whole`` answer finished tool calls are not numbered: in a merged stream they
    replace the numbered ``tool_call_chunk`` blocks when the last chunk arrives.
    """
    blocks = cast("list[dict[str, Any]]", message.content_blocks)
    for block in blocks:
        if whole and block["type"] in _WHOLE_CALLS:
            continue
        if block["type"] != kind:
            kind = block["type"]
            index += 1
        block.setdefault("index", index)
    copy = message.model_copy(
        update={
            "content": blocks,
            "response_metadata": {**message.response_metadata, "output_version": "v1"},
        }
    )
    return copy, kind, index


class Turn:
    """What ChatSSE's chunk generator leaves for the loop: its mapper and its stream."""

    __slots__ = ("mapper", "received")

    def __init__(self) -> None:
        self.mapper: ChunkMapper | None = None
        self.received: Callable[[], Completion] | None = None

    def whole(self, *, last: bool = True) -> AIMessageChunk | None:
        """The answer as one chunk (what arrived so far if the stream did not finish)."""
        if self.mapper is None or self.received is None:
            return None
        return self.mapper.whole(self.received(), last=last)


def ended(turn: Turn, stamp: Stamp) -> LLMResult:
    """The ``on_llm_end`` result: the whole answer, built from the Completion."""
    whole = turn.whole()
    assert whole is not None  # the loop ended normally, so the stream was opened
    return LLMResult(generations=[[stamp.whole(whole)]])


def failed(turn: Turn, stamp: Stamp) -> LLMResult:
    """The ``on_llm_error`` response: what had arrived, if anything.

    Shaped as the base class shapes it: the partial answer as the first prompt's
    generation, then the error's own generations (none: sse_core errors carry no
    ``response`` object; their status, body and partial answer are on the error).
    """
    whole = turn.whole(last=False)
    if whole is None or not _has_output(whole):
        return LLMResult(generations=[[]])
    return LLMResult(generations=[[stamp.whole(whole)], []])


def _has_output(message: AIMessageChunk) -> bool:
    return bool(message.content or message.additional_kwargs or message.tool_call_chunks)
