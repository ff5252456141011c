"""Structured output where a forced tool call cannot be sent: the protocol's own.

LlamaIndex asks for a structured answer (``structured_predict`` and its async and streamed
forms, ``as_structured_llm``) with one required tool call. A protocol that refuses a forced
tool choice with the model's thinking (Anthropic Messages with thinking on: the API answers
400) would only be offered the tool, and an answer in text would then fail. There SSELLM asks
for the schema as the answer's own format instead (``response_format`` with a JSON schema,
which the protocol's module sends as its native structured output: Anthropic's
``output_config.format``, as llama-index's ``Anthropic`` LLM asks for it), and parses the
answer's text. Whether a forced choice can be sent is the core's rule of the protocol
(:attr:`sse_core.protocols.WireProtocol.forced_tools`), so nothing here names a protocol.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Generator
from typing import TYPE_CHECKING, Any, Generic

from llama_index.core.base.llms.types import ChatMessage, ChatResponse
from llama_index.core.bridge.pydantic import BaseModel, ValidationError
from llama_index.core.instrumentation.events.llm import (
    LLMStructuredPredictEndEvent,
    LLMStructuredPredictStartEvent,
)
from llama_index.core.program.streaming_utils import process_streaming_content_incremental
from llama_index.core.types import BasePydanticProgram, Model

from llamaindex_sse._events import dispatcher
from sse_core.protocols import wire_protocol

if TYPE_CHECKING:
    from llama_index.core.llms.llm import LLM
    from llama_index.core.program.utils import FlexibleModel
    from llama_index.core.prompts import BasePromptTemplate

__all__ = [
    "NativeProgram",
    "apredict_natively",
    "native_format",
    "needs_native",
    "predict_natively",
]

_dispatcher = dispatcher


def needs_native(protocol: str, thinking: Any) -> bool:
    """Whether a structured answer must use the protocol's own format: a forced tool choice
    cannot be sent with this thinking."""
    return not wire_protocol(protocol).forced_tools(thinking)


def native_format(output_cls: type[BaseModel]) -> dict[str, Any]:
    """OpenAI's ``response_format`` for ``output_cls`` (each protocol's module sends it in
    its own shape)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": output_cls.__name__, "schema": output_cls.model_json_schema()},
    }


def _parsed(output_cls: type[Model], response: ChatResponse) -> Model:
    text = response.message.content or ""
    try:
        return output_cls.model_validate_json(text)
    except (ValidationError, json.JSONDecodeError) as exc:
        raise ValueError(
            f"the answer is not a {output_cls.__name__} (structured output as the answer's "
            f"format): {exc}"
        ) from exc


class NativeProgram(BasePydanticProgram[Model], Generic[Model]):
    """A program whose answer's text is ``output_cls`` as JSON (see the module's docstring).

    Args:
        llm: The model (SSELLM).
        output_cls: The answer's class.
        prompt: The prompt, formatted with the call's arguments.
    """

    def __init__(self, llm: LLM, output_cls: type[Model], prompt: BasePromptTemplate) -> None:
        self._llm = llm
        self._output_cls = output_cls
        self._prompt = prompt

    @property
    def output_cls(self) -> type[Model]:
        """The answer's class."""
        return self._output_cls

    def _messages(self, llm_kwargs: dict[str, Any] | None, args: dict[str, Any]) -> Any:
        messages = self._prompt.format_messages(llm=self._llm, **args)
        if self._llm.system_prompt:  # as LlamaIndex's programs add it
            messages = [ChatMessage(role="system", content=self._llm.system_prompt), *messages]
        call = {**(llm_kwargs or {}), "response_format": native_format(self._output_cls)}
        return messages, call

    def __call__(
        self, *args: Any, llm_kwargs: dict[str, Any] | None = None, **kwargs: Any
    ) -> Model:
        """Ask, and parse the answer.

        Raises:
            ValueError: The answer's text is not an ``output_cls``.
        """
        messages, call = self._messages(llm_kwargs, kwargs)
        return _parsed(self._output_cls, self._llm.chat(messages, **call))

    async def acall(
        self, *args: Any, llm_kwargs: dict[str, Any] | None = None, **kwargs: Any
    ) -> Model:
        """:meth:`__call__`, async."""
        messages, call = self._messages(llm_kwargs, kwargs)
        return _parsed(self._output_cls, await self._llm.achat(messages, **call))

    def stream_call(
        self, *args: Any, llm_kwargs: dict[str, Any] | None = None, **kwargs: Any
    ) -> Generator[Model | FlexibleModel, None, None]:
        """The answer as it grows: each partial object that parses (LlamaIndex's
        incremental parsing), the whole one last."""
        messages, call = self._messages(llm_kwargs, kwargs)
        current: Model | FlexibleModel | None = None
        for response in self._llm.stream_chat(messages, **call):
            current = process_streaming_content_incremental(response, self._output_cls, current)
            yield current

    async def astream_call(
        self, *args: Any, llm_kwargs: dict[str, Any] | None = None, **kwargs: Any
    ) -> AsyncGenerator[Model | FlexibleModel, None]:
        """:meth:`stream_call`, async."""
        messages, call = self._messages(llm_kwargs, kwargs)
        responses = await self._llm.astream_chat(messages, **call)

        async def objects() -> AsyncGenerator[Model | FlexibleModel, None]:
            current: Model | FlexibleModel | None = None
            async for response in responses:
                current = process_streaming_content_incremental(response, self._output_cls, current)
                yield current

        return objects()


def predict_natively(
    llm: LLM,
    output_cls: type[Model],
    prompt: BasePromptTemplate,
    llm_kwargs: dict[str, Any] | None,
    prompt_args: dict[str, Any],
) -> Model:
    """``structured_predict`` by :class:`NativeProgram`, with LlamaIndex's start and end
    events of a structured prediction."""
    _dispatcher.event(
        LLMStructuredPredictStartEvent(
            output_cls=output_cls, template=prompt, template_args=prompt_args
        )
    )
    found = NativeProgram(llm, output_cls, prompt)(llm_kwargs=llm_kwargs, **prompt_args)
    _dispatcher.event(LLMStructuredPredictEndEvent(output=found))
    return found


async def apredict_natively(
    llm: LLM,
    output_cls: type[Model],
    prompt: BasePromptTemplate,
    llm_kwargs: dict[str, Any] | None,
    prompt_args: dict[str, Any],
) -> Model:
    """:func:`predict_natively`, async."""
    _dispatcher.event(
        LLMStructuredPredictStartEvent(
            output_cls=output_cls, template=prompt, template_args=prompt_args
        )
    )
    found = await NativeProgram(llm, output_cls, prompt).acall(llm_kwargs=llm_kwargs, **prompt_args)
    _dispatcher.event(LLMStructuredPredictEndEvent(output=found))
    return found
