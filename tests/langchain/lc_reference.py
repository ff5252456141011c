"""The reference of the differential tests: LangChain's own machinery over ChatSSE's outputs.

:class:`ReplayModel` is the smallest ``BaseChatModel`` a provider could write: ``_stream`` and
``_astream`` yield ready-made ``ChatGenerationChunk``s, ``_generate``/``_agenerate`` return a
ready-made ``ChatResult``, and everything else (``stream``, ``astream``, ``invoke``, the
cache, the rate limiter, callbacks, tracers, ``astream_events``, ``output_version``,
``disable_streaming``) is langchain-core's. What it replays is a :class:`Recording` of the
faithful ChatSSE on the same request: the chunks its ``_stream`` yielded (and the error it
raised), the result its ``_generate`` returned. Its identity in traces (``_llm_type``, the
identifying params, the LangSmith params) is the recorded ChatSSE's, so that what differs
between them is only what LangChain's own machinery does differently from ChatSSE's.

Also here: :func:`dump`, which turns callback arguments, chunks and runs into plain data
(every field of every pydantic model, as its own class declares them), and :class:`Ids`,
which replaces run ids by their order of first appearance, so that two runs compare by the
structure of their parent/child links.
"""

from __future__ import annotations

import copy
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LangSmithParams, LanguageModelInput
from langchain_core.language_models._utils import _normalize_messages
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import BaseModel, PrivateAttr
from typing_extensions import override

from langchain_sse import ChatSSE

__all__ = ["Ids", "Recording", "ReplayModel", "dump", "record"]

#: The fields of ``BaseChatModel`` (and its bases) a replay copies from the recorded model.
_SHARED_FIELDS = (
    "cache",
    "callbacks",
    "disable_streaming",
    "metadata",
    "output_version",
    "rate_limiter",
    "tags",
    "verbose",
)


@dataclass
class Recording:
    """What the faithful ChatSSE produced for one request."""

    chunks: list[ChatGenerationChunk] = field(default_factory=list)
    """Every chunk its ``_stream`` yielded, copied as it was yielded."""
    stream_error: BaseException | None = None
    """What its ``_stream`` raised after those chunks, if anything."""
    result: ChatResult | None = None
    """What its ``_generate`` returned."""
    generate_error: BaseException | None = None
    """What its ``_generate`` raised, if anything."""


def record(
    model: ChatSSE, prompt: LanguageModelInput, stop: list[str] | None = None, **kwargs: Any
) -> Recording:
    """Ask the (faithful) ``model`` once through ``_stream`` and once through ``_generate``,
    with the messages and kwargs LangChain's own loops pass them, and keep what came back."""
    messages = _normalize_messages(model._convert_input(prompt).to_messages())
    recording = Recording()
    try:
        for chunk in model._stream(messages, stop=stop, **dict(kwargs)):
            recording.chunks.append(chunk.model_copy(deep=True))
    except Exception as exc:  # replayed as it was raised
        recording.stream_error = exc
    try:
        recording.result = model._generate(messages, stop=stop, **dict(kwargs))
    except Exception as exc:
        recording.generate_error = exc
    return recording


class ReplayModel(BaseChatModel):
    """A ``BaseChatModel`` that replays a :class:`Recording` under the recorded model's name."""

    streaming: bool = False
    """As ChatSSE's field: LangChain reads it when it is set."""
    _identity: ChatSSE = PrivateAttr()
    _recording: Recording = PrivateAttr()
    _asked: list[str] = PrivateAttr(default_factory=list)

    @classmethod
    def of(cls, model: ChatSSE, recording: Recording) -> ReplayModel:
        """A replay of ``recording`` that LangChain configures as it configures ``model``."""
        shared = {name: getattr(model, name) for name in _SHARED_FIELDS}
        if "streaming" in model.model_fields_set:
            shared["streaming"] = model.streaming
        replay = cls(**shared)
        replay._identity = model
        replay._recording = recording
        return replay

    @property
    def asked(self) -> list[str]:
        """The model methods LangChain called (``_stream``, ``_agenerate``, ...), in order."""
        return self._asked

    @property
    @override
    def _llm_type(self) -> str:
        return self._identity._llm_type

    @property
    @override
    def _identifying_params(self) -> dict[str, Any]:
        return self._identity._identifying_params

    @override
    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        return self._identity._get_ls_params(stop=stop, **kwargs)

    def _replay_chunks(self) -> Iterator[ChatGenerationChunk]:
        for chunk in self._recording.chunks:
            yield chunk.model_copy(deep=True)  # LangChain stamps the chunks it gets in place
        if self._recording.stream_error is not None:
            raise self._recording.stream_error

    def _replay_result(self) -> ChatResult:
        if self._recording.generate_error is not None:
            raise self._recording.generate_error
        assert self._recording.result is not None
        return copy.deepcopy(self._recording.result)

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self._asked.append("_stream")
        yield from self._replay_chunks()

    @override
    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        self._asked.append("_astream")
        for chunk in self._replay_chunks():
            yield chunk

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._asked.append("_generate")
        return self._replay_result()

    @override
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._asked.append("_agenerate")
        return self._replay_result()


def dump(value: Any) -> Any:
    """``value`` as plain data: every field of a pydantic model as its own class declares
    them (pydantic's ``model_dump`` dumps a message held as ``BaseMessage`` by that class's
    fields only), an exception as its type and text, containers element by element."""
    if isinstance(value, BaseModel):
        fields = type(value).model_fields
        data = {name: dump(getattr(value, name)) for name in fields}
        return {"__class__": type(value).__name__, **data}
    if isinstance(value, BaseException):
        return {"__error__": type(value).__name__, "text": str(value)}
    if isinstance(value, dict):
        return {key: dump(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [dump(item) for item in value]
    return value


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Ids:
    """Replaces run ids (UUIDs, or inside strings: ``lc_run--<id>``) by ``<id N>``, N their
    order of first appearance: two event lists then compare by the structure of their links."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def _name(self, text: str) -> str:
        return self._names.setdefault(text, f"<id {len(self._names)}>")

    def __call__(self, value: Any) -> Any:
        """``value`` (plain data) with every run id replaced."""
        if isinstance(value, UUID):
            return self._name(str(value))
        if isinstance(value, str):
            return _UUID.sub(lambda found: self._name(found.group()), value)
        if isinstance(value, dict):
            return {self(key): self(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self(item) for item in value]
        return value
