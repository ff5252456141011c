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
model sends and what traces show cannot drift from the base class. The loop is a fast path
of :mod:`sse_core.fast_paths` (:data:`OWN_LOOP`): on only on the langchain-core versions it
was tested on, when those functions and the model methods it calls are there (the probe,
:func:`find_missing`), and unless ``SSE_CONNECTORS_FAST=0``; otherwise ``stream``/``astream``
are ``BaseChatModel``'s own, over ``_stream``/``_astream``.

This module is the pure part: the run's plan and the stamping of its chunks. The loop is
:mod:`langchain_sse._call` (the chunks, the run's end) and ``ChatSSE.stream``/``astream``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from langchain_core.language_models import BaseChatModel, LangSmithParams, LanguageModelInput
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.runnables import RunnableConfig, ensure_config
from langchain_core.utils.function_calling import convert_to_json_schema
from langchain_core.utils.utils import LC_ID_PREFIX

from langchain_sse._blocks import citations_of
from langchain_sse._inbound import PROVIDER
from langchain_sse._turns import item_text
from sse_core.fast_paths import FastPath, register

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

Convert = Callable[[list[BaseMessage]], list[BaseMessage]]

try:
    from langchain_core.language_models._utils import _normalize_messages

    normalize: Convert | None = _normalize_messages
except ImportError:  # pragma: no cover - only on a langchain-core that moved it
    normalize = None
try:
    from langchain_core.language_models.chat_models import _format_for_tracing

    format_for_tracing: Convert | None = _format_for_tracing
except ImportError:  # pragma: no cover - only on a langchain-core that moved it
    format_for_tracing = None

__all__ = [
    "MODEL_METHODS",
    "OWN_LOOP",
    "BlockStamp",
    "RunPlan",
    "Stamp",
    "Token",
    "Unstamped",
    "find_missing",
    "ls_params_of",
    "plan_run",
]

#: The private ``BaseChatModel`` methods the loop calls (as the base class's loop does).
MODEL_METHODS = (
    "_convert_input",
    "_get_invocation_params",
    "_get_ls_params_with_defaults",
    "_serialized",
)


def find_missing() -> list[str]:
    """The langchain-core private names the own loop needs that this langchain-core lacks."""
    missing = [
        name
        for name, found in (
            ("langchain_core.language_models._utils._normalize_messages", normalize),
            ("langchain_core.language_models.chat_models._format_for_tracing", format_for_tracing),
        )
        if found is None
    ]
    missing += [
        f"BaseChatModel.{name}" for name in MODEL_METHODS if not hasattr(BaseChatModel, name)
    ]
    return missing


def _probe_loop() -> str | None:
    missing = find_missing()
    return f"langchain-core lacks {', '.join(missing)}" if missing else None


#: ChatSSE's own ``stream``/``astream`` loop (else BaseChatModel's, which keeps every chunk).
OWN_LOOP = register(
    FastPath(
        name="langchain.own_loop",
        shortcut="ChatSSE.stream/astream run LangChain's run themselves (private langchain-core "
        "helpers and BaseChatModel methods) and keep no chunk",
        tested={"langchain-core": ">=1.8,<1.9"},
        probe=_probe_loop,
        faithful="BaseChatModel.stream/astream over ChatSSE._stream/_astream",
        uses={
            "langchain_sse._run": (
                "_utils",
                "_normalize_messages",
                "_format_for_tracing",
                # MODEL_METHODS but _get_invocation_params, ChatSSE's own override (a hook)
                "_convert_input",
                "_get_ls_params_with_defaults",
                "_serialized",
            ),
            "langchain_sse._loop": ("_serialized", "_should_stream"),  # run_own, owns_loop
        },
    )
)

#: Block types of finished tool calls, which carry no stream index.
_WHOLE_CALLS = frozenset({"tool_call", "invalid_tool_call"})
#: Block types of tool-call fragments, which carry the call's index, not the stream's.
_CALL_PIECES = frozenset({"tool_call_chunk", "server_tool_call_chunk"})

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
        **_format_structured(structured),
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


def _format_structured(structured: dict[str, Any] | None) -> dict[str, Any]:
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


#: What ``on_llm_new_token`` receives: text, or (v1 output) content blocks.
Token = str | list[str | dict[str, Any]]


class Unstamped:
    """Leaves chunks as they are: the tokens of a ``_stream`` that LangChain's loop stamps."""

    __slots__ = ()

    #: No message id is given to the chunks.
    id: str | None = None

    def token(self, chunk: ChatGenerationChunk) -> Token:
        """The token of ``chunk``: its text."""
        return chunk.text

    def whole(self, message: AIMessageChunk) -> ChatGenerationChunk:
        """The generation of the whole answer, as it is."""
        return ChatGenerationChunk(message=message)


class Stamp:
    """Gives each chunk of one run its message id and, under v1 output, indexed blocks."""

    __slots__ = ("_calls", "_index", "_kind", "_opened", "id", "v1")

    def __init__(self, run_id: UUID, output_version: str | None) -> None:
        # "lc_run--<run id>", as LangChain names it
        self.id: str | None = f"{LC_ID_PREFIX}-{run_id}"
        self.v1 = output_version == "v1"
        self._index = -1
        self._kind = ""
        self._calls: dict[object, int] = {}
        # The type and number of each reasoning and text block the stream opened.
        self._opened: list[tuple[str, int]] = []

    def __call__(self, chunk: ChatGenerationChunk) -> AIMessageChunk:
        """Stamp ``chunk`` (in place, or a v1 copy of its message); return its message."""
        message = cast("AIMessageChunk", chunk.message)
        if message.id is None:
            message.id = self.id
        if self.v1:
            message, self._kind, self._index = _convert_to_blocks(
                message, self._kind, self._index, self._calls
            )
            self._sign(message)
            chunk.message = message
        return message

    def _sign(self, message: AIMessageChunk) -> None:
        """Note the number of each reasoning and text block the stream opens; at the last
        chunk, give each reasoning block its signature (kept in ``reasoning_blocks``) and the
        text its citations, as empty blocks of the same numbers, which merging folds into
        them: the merged blocks then equal ``invoke``'s."""
        blocks = cast("list[dict[str, Any]]", message.content)
        if message.chunk_position == "last":
            self._fold_items(blocks)
        for block in blocks:
            opened = (block["type"], block["index"])
            if opened[0] in ("reasoning", "text") and opened not in self._opened:
                self._opened.append(opened)
        if message.chunk_position != "last":
            return
        kept = message.additional_kwargs.get("reasoning_blocks") or ()
        signatures = [b.get("signature") for b in kept if b.get("type") == "thinking"]
        thoughts = [number for kind, number in self._opened if kind == "reasoning"]
        for number, signature in zip(thoughts, signatures, strict=False):
            if signature is not None:
                extras = {"signature": signature}
                blocks.append({"type": "reasoning", "reasoning": "", "extras": extras,
                               "index": number})  # fmt: skip
        text = next((number for kind, number in self._opened if kind == "text"), None)
        annotations = citations_of(message)
        if text is not None and annotations:  # the citations the text's deltas did not carry
            blocks.append({"type": "text", "text": "", "annotations": annotations, "index": text})

    def _fold_items(self, blocks: list[dict[str, Any]]) -> None:
        """At the last chunk, give each Responses reasoning item's block (its id and the item
        in ``extras``, no text: the deltas carried it) the number of the reasoning block its
        deltas opened, in order, so that merging folds the two into the one block ``invoke``
        gives; an item no delta carried text for keeps a number of its own."""
        thoughts = iter([number for kind, number in self._opened if kind == "reasoning"])
        for block in blocks:
            extras = block.get("extras")
            item = extras.get("item") if block["type"] == "reasoning" and extras else None
            if isinstance(item, dict) and item_text(item):
                block["index"] = next(thoughts, block["index"])

    def token(self, chunk: ChatGenerationChunk) -> Token:
        """Stamp ``chunk``; its token: the stamped content (blocks under v1)."""
        if self.v1:
            return self(chunk).content
        message = chunk.message  # __call__ without v1, inline: this runs for every chunk
        if message.id is None:
            message.id = self.id
        return message.content

    def whole(self, message: AIMessageChunk) -> ChatGenerationChunk:
        """The generation of the whole answer, with the id and output version of the run."""
        if message.id is None:
            message.id = self.id
        if self.v1:
            message = _convert_to_blocks(message, "", -1, {}, whole=True)[0]
        return ChatGenerationChunk(message=message)


class BlockStamp(Stamp):
    """:class:`Stamp`'s v1 blocks without an id: the chunks of a ``_stream`` under
    ``output_version="v1"`` that ``BaseChatModel``'s loop runs (the faithful path). Its own
    numbering (a block number per type run) would give a tool-call fragment its call's index
    and fold the first call into the answer's first block; numbered here, the blocks merge
    into the blocks ``invoke`` gives, as on the own loop. The loop then sets the run's id."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(UUID(int=0), "v1")
        self.id = None


def _convert_to_blocks(
    message: AIMessageChunk,
    kind: str,
    index: int,
    calls: dict[object, int],
    *,
    whole: bool = False,
) -> tuple[AIMessageChunk, str, int]:
    """The message with its content as standard blocks, each numbered by the run of its type.

    ``kind`` and ``index`` are the type and number of the stream's block before this one.
    A tool-call fragment carries the call's own index (0 for the first call), which would
    collide with the reasoning or text block numbered 0 and merge into it: each call gets
    its own block number instead, the first time it appears (``calls`` maps call indexes to
    block numbers, updated here). In a ``whole`` answer finished tool calls are not
    numbered: in a merged stream they replace the numbered ``tool_call_chunk`` blocks when
    the last chunk arrives.
    """
    blocks = cast("list[dict[str, Any]]", message.content_blocks)
    for block in blocks:
        if whole and block["type"] in _WHOLE_CALLS:
            continue
        if block["type"] in _CALL_PIECES:
            kind, index = block["type"], _number_call(block, index, calls)
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


def _number_call(block: dict[str, Any], index: int, calls: dict[object, int]) -> int:
    """Give a tool-call fragment block the number of its call; the stream's last number."""
    key = (block["type"], block.get("index"))
    number = calls.get(key)
    if number is None:
        index += 1
        number = calls[key] = index
    block["index"] = number
    return index


def ls_params_of(model: ChatSSE, stop: list[str] | None, kwargs: dict[str, Any]) -> LangSmithParams:
    """ChatSSE's LangSmith params (``_get_ls_params``): provider, model, type, and the
    temperature, token limit and stop sequences where set (the call's over the model's)."""
    params = LangSmithParams(
        ls_provider=PROVIDER,
        ls_model_name=kwargs.get("model", model.model_name),
        ls_model_type="chat",
    )
    temperature = kwargs.get("temperature", model.temperature)
    if temperature is not None:
        params["ls_temperature"] = temperature
    max_tokens = kwargs.get("max_tokens", model.max_tokens)
    if max_tokens is not None:
        params["ls_max_tokens"] = max_tokens
    if stop := stop or kwargs.get("stop") or model.stop:
        params["ls_stop"] = stop
    return params
