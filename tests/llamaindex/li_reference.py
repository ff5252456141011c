"""The framework's own behaviour, for ``test_li_differential.py``: a reference LLM and recorders.

:class:`ReferenceLLM` is a plain LlamaIndex ``CustomLLM`` whose ``chat``/``achat``/
``stream_chat``/``astream_chat`` are decorated with llama-index-core's own
``llm_chat_callback`` (and span-wrapped by its ``DispatcherSpanMixin``), as every LlamaIndex
LLM's are. It replays the answer an SSELLM gave (a :class:`Script`: the wire deltas in each
response's ``raw``, its ``additional_kwargs``, the error it ended with) and builds every
ChatResponse with LlamaIndex's public, validated constructors, accumulating the message the
way llama-index-llms-openai does: the running text in one TextBlock (none when it is empty
beside tool calls, as llama-index's Anthropic and OpenAI's whole answers leave it out), the
reasoning in a ThinkingBlock before it, a ToolCallBlock per call after it and the
OpenAI-shaped ``tool_calls`` in ``additional_kwargs``.

:func:`recording` puts an instrumentation event handler and span handler on the root
dispatcher and gives a CallbackManager, all writing into one :class:`Timeline`;
:func:`normal` turns what was recorded into plain values with only what must differ between
two runs replaced (ids, timestamps, the LLM's class name).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import re
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from llama_index.core.base.llms.base import BaseLLM
from llama_index.core.base.llms.generic_utils import (
    achat_to_completion_decorator,
    astream_chat_to_completion_decorator,
    chat_to_completion_decorator,
    stream_chat_to_completion_decorator,
)
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    ContentBlock,
    LLMMetadata,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.callbacks import CallbackManager, CBEventType
from llama_index.core.callbacks.base_handler import BaseCallbackHandler
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.span import SimpleSpan
from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from pydantic import BaseModel

#: The class names of the LLMs compared (they differ by construction: normalised).
LLM_CLASSES = frozenset({"SSELLM", "ReferenceLLM"})

# -- the reference LLM -------------------------------------------------------------------


@dataclass
class Script:
    """What the reference replays: each response's ``raw`` and ``additional_kwargs``, in
    order, then the error the stream (or the call) ended with, if any."""

    steps: list[tuple[dict[str, Any], dict[str, Any]]]
    error: BaseException | None = None

    @classmethod
    def of(
        cls, responses: Sequence[ChatResponse | CompletionResponse], error: BaseException | None
    ) -> Script:
        """The script of an SSELLM's answer (copies: the replay owns its dicts)."""
        return cls([_step(r) for r in responses], error)

    def fresh_error(self) -> BaseException:
        """The error, as the gateway's answer would raise it anew: without the mark that
        CallbackManager.as_trace left on it in SSELLM's run (``event_added``, after which
        it reports the exception no more). The same object: sse_core's HTTP errors take
        keyword-only arguments, so they cannot be copied."""
        assert self.error is not None
        vars(self.error).pop("event_added", None)
        return self.error


#: The keys of an assistant message's additional_kwargs (the reference builds them).
MESSAGE_KWARGS = ("tool_calls", "refusal")


def _step(response: ChatResponse | CompletionResponse) -> tuple[dict[str, Any], dict[str, Any]]:
    kwargs = copy.deepcopy(response.additional_kwargs)
    if isinstance(response, CompletionResponse):
        # LlamaIndex's chat-to-completion helpers merge the message's additional_kwargs into
        # the response's: the message's part is the reference's own to rebuild.
        for key in MESSAGE_KWARGS:
            kwargs.pop(key, None)
    return copy.deepcopy(response.raw or {}), kwargs


@dataclass
class _Running:
    """The message so far, accumulated from OpenAI chunk deltas."""

    content: str = ""
    reasoning: str = ""
    refusal: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)

    def add(self, delta: dict[str, Any]) -> str:
        """Add one ``choices[0].delta``; the new text."""
        text: str = delta.get("content") or ""
        self.content += text
        self.reasoning += delta.get("reasoning_content") or ""
        self.refusal += delta.get("refusal") or ""
        for fragment in delta.get("tool_calls") or ():
            index = fragment["index"]
            while len(self.calls) <= index:
                self.calls.append(
                    {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
                )
            call = self.calls[index]
            if fragment.get("id"):
                call["id"] = fragment["id"]
            function = fragment.get("function") or {}
            if function.get("name"):
                call["function"]["name"] = function["name"]
            call["function"]["arguments"] += function.get("arguments") or ""
        return text

    def message(self) -> ChatMessage:
        """The assistant message so far, built with LlamaIndex's public constructors."""
        blocks: list[ContentBlock] = []
        if self.reasoning:
            blocks.append(ThinkingBlock(content=self.reasoning))
        if self.content or not self.calls:
            blocks.append(TextBlock(text=self.content))
        kwargs: dict[str, Any] = {}
        if self.calls:
            blocks.extend(
                ToolCallBlock(
                    tool_call_id=call["id"],
                    tool_name=call["function"]["name"],
                    tool_kwargs=call["function"]["arguments"],
                )
                for call in self.calls
            )
            kwargs["tool_calls"] = copy.deepcopy(self.calls)
        if self.refusal:
            kwargs["refusal"] = self.refusal
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks, additional_kwargs=kwargs)


def replay(script: Script) -> Iterator[ChatResponse]:
    """The script's responses, each built when it is reached, then its error."""
    running = _Running()
    for raw, additional_kwargs in script.steps:
        text = running.add(raw["choices"][0]["delta"])
        yield ChatResponse(
            message=running.message(), delta=text, raw=raw, additional_kwargs=additional_kwargs
        )
    if script.error is not None:
        raise script.fresh_error()


def whole(script: Script) -> ChatResponse:
    """The one response of a whole answer (``chat``), from its ``chat.completion`` raw."""
    if script.error is not None:
        raise script.fresh_error()
    ((raw, additional_kwargs),) = script.steps
    answer = raw["choices"][0]["message"]
    running = _Running()
    running.add({key: answer.get(key) for key in ("content", "reasoning_content", "refusal")})
    for index, call in enumerate(answer.get("tool_calls") or ()):
        running.add({"tool_calls": [{**call, "index": index}]})
    return ChatResponse(
        message=running.message(), delta=None, raw=raw, additional_kwargs=additional_kwargs
    )


class ReferenceLLM(CustomLLM):
    """A LlamaIndex LLM as the framework means it: decorated endpoints, validated responses."""

    _script: Script = PrivateAttr()
    _metadata: LLMMetadata = PrivateAttr()

    def __init__(
        self, script: Script, metadata: LLMMetadata, callback_manager: CallbackManager
    ) -> None:
        super().__init__(callback_manager=callback_manager)
        self._script = script
        self._metadata = metadata

    @classmethod
    def class_name(cls) -> str:
        return "ReferenceLLM"

    @property
    def metadata(self) -> LLMMetadata:
        return self._metadata

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return whole(self._script)

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return whole(self._script)

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        return self._stream(messages, **kwargs)

    @llm_chat_callback()
    async def astream_chat(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseAsyncGen:
        return await self._astream(messages, **kwargs)

    def _stream(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        yield from replay(self._script)

    async def _astream(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseAsyncGen:
        async def gen() -> AsyncGenerator[ChatResponse, None]:
            for response in replay(self._script):
                await asyncio.sleep(0)  # where a real LLM awaits its I/O: a cancel lands here
                yield response

        return gen()

    # Completions as LlamaIndex's chat LLMs make them (llama-index-llms-openai does so):
    # the chat answer through generic_utils' *_to_completion_decorator helpers.

    def _chat_answer(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return whole(self._script)

    async def _achat_answer(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return whole(self._script)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return chat_to_completion_decorator(self._chat_answer)(prompt, **kwargs)

    @llm_completion_callback()
    async def acomplete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponse:
        return await achat_to_completion_decorator(self._achat_answer)(prompt, **kwargs)

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        return stream_chat_to_completion_decorator(self._stream)(prompt, **kwargs)

    @llm_completion_callback()
    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        return await astream_chat_to_completion_decorator(self._astream)(prompt, **kwargs)


# -- recording ---------------------------------------------------------------------------


class Timeline:
    """Everything that happened in one run, in order: instrumentation events, span
    enter/exit/drop, callback-manager events and traces, and the caller's own marks."""

    def __init__(self, serialize: bool = True) -> None:
        self.entries: list[tuple[Any, ...]] = []
        self.handler = _Callbacks(self)
        #: Whether the event handler dumps each event when it is sent, as tracing
        #: exporters do (which reads each streamed message at once, in order).
        self.serialize = serialize

    def mark(self, *what: Any) -> None:
        """A mark of the caller's (``("got", 3)``), to order the rest against."""
        self.entries.append(("mark", *what))

    def callback_manager(self) -> CallbackManager:
        """A CallbackManager whose one handler records here."""
        return CallbackManager([self.handler])


class _Events(BaseEventHandler):
    timeline: Any = None

    @classmethod
    def class_name(cls) -> str:
        return "DifferentialEvents"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        # What a handler that serializes at once (tracing exporters do) sees, and the event
        # itself, read again when the run is over.
        dumped = event.model_dump() if self.timeline.serialize else None
        self.timeline.entries.append(("event", event, dumped))


class _Spans(BaseSpanHandler[SimpleSpan]):
    timeline: Any = None

    @classmethod
    def class_name(cls) -> str:
        return "DifferentialSpans"

    def span_enter(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        parent_id: str | None = None,
        tags: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        arguments = dict(bound_args.arguments)
        self.timeline.entries.append(("span_enter", id_, parent_id, arguments, tags))

    def span_exit(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        result: Any | None = None,
        **kwargs: Any,
    ) -> None:
        if inspect.isgenerator(result) or inspect.isasyncgen(result):
            result = type(result).__name__  # holding it would keep it from being finalized
        self.timeline.entries.append(("span_exit", id_, result))

    def span_drop(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        err: BaseException | None = None,
        **kwargs: Any,
    ) -> None:
        self.timeline.entries.append(("span_drop", id_, err))

    def new_span(self, *args: Any, **kwargs: Any) -> SimpleSpan | None:
        return None  # span_enter is overridden: never called

    def prepare_to_exit_span(self, *args: Any, **kwargs: Any) -> SimpleSpan | None:
        return None

    def prepare_to_drop_span(self, *args: Any, **kwargs: Any) -> SimpleSpan | None:
        return None


class _Callbacks(BaseCallbackHandler):
    def __init__(self, timeline: Timeline) -> None:
        super().__init__(event_starts_to_ignore=[], event_ends_to_ignore=[])
        self.timeline = timeline

    def on_event_start(
        self,
        event_type: CBEventType,
        payload: dict[str, Any] | None = None,
        event_id: str = "",
        parent_id: str = "",
        **kwargs: Any,
    ) -> str:
        self.timeline.entries.append(("cb_start", event_type, payload, event_id, parent_id))
        return event_id

    def on_event_end(
        self,
        event_type: CBEventType,
        payload: dict[str, Any] | None = None,
        event_id: str = "",
        **kwargs: Any,
    ) -> None:
        self.timeline.entries.append(("cb_end", event_type, payload, event_id))

    def start_trace(self, trace_id: str | None = None) -> None:
        self.timeline.entries.append(("trace_start", trace_id))

    def end_trace(
        self, trace_id: str | None = None, trace_map: dict[str, list[str]] | None = None
    ) -> None:
        self.timeline.entries.append(("trace_end", trace_id, trace_map))


@contextmanager
def recording(timeline: Timeline) -> Iterator[Timeline]:
    """``timeline`` fed by handlers on the root dispatcher for the block."""
    root = get_dispatcher()
    events, spans = _Events(timeline=timeline), _Spans()
    spans.timeline = timeline  # BaseSpanHandler's __init__ takes only its own fields
    root.add_event_handler(events)
    root.add_span_handler(spans)
    try:
        yield timeline
    finally:
        root.event_handlers.remove(events)
        root.span_handlers.remove(spans)


# -- normalising -------------------------------------------------------------------------

_SPAN_ID = re.compile(
    r"^(?P<name>.+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
)
#: Event fields that differ between any two runs.
_VOLATILE = frozenset({"id_", "timestamp"})


class Ids:
    """Span and callback-event ids as labels in order of first appearance: a uuid differs
    between runs, the structure (which id is which, who is whose parent) must not."""

    def __init__(self, serialized: dict[str, Any] | None = None) -> None:
        self.labels: dict[str, str] = {}
        #: The LLM's whole serialization, where events carry it (see :func:`serialized`).
        self.serialized = serialized

    def span(self, span_id: str | None) -> str | None:
        if span_id is None:
            return None
        if span_id not in self.labels:
            match = _SPAN_ID.match(span_id)
            assert match is not None, f"not a span id: {span_id!r}"
            owner, _, method = match["name"].rpartition(".")
            # The span is named after the LLM's class, which differs by construction.
            name = f"LLM.{method}" if owner in LLM_CLASSES else match["name"]
            self.labels[span_id] = f"{name}#{len(self.labels)}"
        return self.labels[span_id]

    def event(self, event_id: str) -> str:
        if event_id not in self.labels:
            self.labels[event_id] = f"cb#{len(self.labels)}"
        return self.labels[event_id]


def _public_type(value: BaseModel) -> str:
    # The fast path's StreamMessage is a ChatMessage subclass by design (assembled on first
    # read); what a reader sees of it is compared through its fields, which must be equal.
    for cls in type(value).__mro__:
        if cls.__module__.startswith("llama_index"):
            return cls.__name__
    return type(value).__name__


def _normal_event(event: BaseEvent, ids: Ids) -> dict[str, Any]:
    fields = {
        name: normal(getattr(event, name), ids)
        for name in type(event).model_fields
        if name not in _VOLATILE
    }
    fields["span_id"] = ids.span(event.span_id)
    return {"event": event.class_name(), **fields}


def serialized(llm: BaseLLM) -> dict[str, Any] | None:
    """The LLM's ``to_dict()`` where llama-index-core's callbacks send it as the model_dict.

    Without ``BaseLLM.to_payload`` (llama-index-core 0.14.16 has none) the events and callback
    payloads carry the LLM's whole serialization: its own fields, which differ between two
    LLM classes by construction. There it is checked to be the LLM's own and compared no
    further; where ``to_payload`` exists (class name and metadata) it is compared.
    """
    return None if hasattr(llm, "to_payload") else llm.to_dict()


def _normal_dict(value: dict[Any, Any], ids: Ids) -> Any:
    if ids.serialized is not None and value == ids.serialized:
        return "<the LLM's to_dict()>"
    return {
        normal(k, ids): "<LLM>" if k == "class_name" and v in LLM_CLASSES else normal(v, ids)
        for k, v in value.items()
    }


def _normal_dataclass(value: Any, ids: Ids) -> dict[str, Any]:
    return {f.name: normal(getattr(value, f.name), ids) for f in dataclasses.fields(value)}


#: (does it match, its plain form), the first match wins; anything else is kept as it is.
_CASES: list[tuple[Callable[[Any], bool], Callable[[Any, Ids], Any]]] = [
    (lambda v: isinstance(v, BaseEvent), _normal_event),
    (
        lambda v: isinstance(v, BaseModel),
        lambda v, ids: (_public_type(v), normal(v.model_dump(), ids)),
    ),
    (
        lambda v: isinstance(v, BaseException),
        lambda v, ids: ("exception", type(v).__name__, str(v)),
    ),
    (lambda v: isinstance(v, Enum), lambda v, ids: v.value),
    (lambda v: isinstance(v, dict), _normal_dict),
    (lambda v: isinstance(v, list | tuple), lambda v, ids: [normal(item, ids) for item in v]),
    (
        lambda v: inspect.isgenerator(v) or inspect.isasyncgen(v),
        lambda v, ids: type(v).__name__,
    ),
    (lambda v: dataclasses.is_dataclass(v) and not isinstance(v, type), _normal_dataclass),
    (inspect.isfunction, lambda v, ids: v.__qualname__),
]


def normal(value: Any, ids: Ids) -> Any:
    """``value`` as plain data with ids, timestamps and the LLM class name normalised."""
    for matches, convert in _CASES:
        if matches(value):
            return convert(value, ids)
    return value


def _event_entry(entry: tuple[Any, ...], ids: Ids) -> tuple[Any, ...]:
    _, event, dumped = entry
    if dumped is None:
        return ("event", _normal_event(event, ids))
    snapshot = {k: v for k, v in dumped.items() if k not in _VOLATILE}
    snapshot["span_id"] = ids.span(snapshot["span_id"])
    return ("event", _normal_event(event, ids), normal(snapshot, ids))


def _declared(arguments: dict[str, Any]) -> dict[str, Any]:
    """A completion span's arguments under the names BaseLLM declares.

    llm_completion_callback's wrapper takes ``(_self, *args, **kwargs)`` and hides the
    method's signature, so the span of a decorated ``stream_complete`` binds the prompt
    positionally (``args``). SSELLM's public stream methods are undecorated (the closing
    layer, :mod:`llamaindex_sse._closing`, under BaseLLM's declared signature), so theirs
    bind it as ``prompt``: the same values under other names, compared by BaseLLM's names.
    """
    if "args" not in arguments:
        return arguments
    bound = inspect.signature(BaseLLM.stream_complete).bind(
        None, *arguments["args"], **arguments.get("kwargs", {})
    )
    return {name: value for name, value in bound.arguments.items() if name != "self"}


def _span_enter_entry(entry: tuple[Any, ...], ids: Ids) -> tuple[Any, ...]:
    kind, span_id, parent_id, arguments, tags = entry
    named = normal(_declared(arguments), ids)
    return (kind, ids.span(span_id), ids.span(parent_id), named, tags)


def _span_end_entry(entry: tuple[Any, ...], ids: Ids) -> tuple[Any, ...]:
    kind, span_id, result_or_error = entry
    return (kind, ids.span(span_id), normal(result_or_error, ids))


def _cb_start_entry(entry: tuple[Any, ...], ids: Ids) -> tuple[Any, ...]:
    kind, event_type, payload, event_id, parent_id = entry
    labels = (ids.event(event_id), ids.event(parent_id))
    return (kind, event_type.value, normal(payload, ids), *labels)


def _cb_end_entry(entry: tuple[Any, ...], ids: Ids) -> tuple[Any, ...]:
    kind, event_type, payload, event_id = entry
    return (kind, event_type.value, normal(payload, ids), ids.event(event_id))


def _trace_end_entry(entry: tuple[Any, ...], ids: Ids) -> tuple[Any, ...]:
    kind, trace_id, trace_map = entry
    tree = {ids.event(k): [ids.event(c) for c in v] for k, v in (trace_map or {}).items()}
    return (kind, trace_id, tree)


_ENTRIES: dict[str, Callable[[tuple[Any, ...], Ids], tuple[Any, ...]]] = {
    "event": _event_entry,
    "span_enter": _span_enter_entry,
    "span_exit": _span_end_entry,
    "span_drop": _span_end_entry,
    "cb_start": _cb_start_entry,
    "cb_end": _cb_end_entry,
    "trace_end": _trace_end_entry,
}


def normal_entry(entry: tuple[Any, ...], ids: Ids) -> tuple[Any, ...]:
    """One timeline entry, normalised."""
    convert = _ENTRIES.get(entry[0])
    return convert(entry, ids) if convert else tuple(normal(part, ids) for part in entry)
