"""Structured output as the answer's own format: where the protocol's llama-index LLM asks
so, and where a forced tool call cannot be sent.

Where the protocol's table entry says so (``structured_format``), a whole structured answer is
asked for as the answer's format, strict (constrained decoding), as that protocol's llama-index
LLM asks: the schema made strict as openai-python makes a Pydantic class's
(:func:`strict_schema`), and ``tool_choice`` "none" (which the core leaves out when no tools
go). Else LlamaIndex asks for a structured answer (``structured_predict`` and its async and
streamed forms, ``as_structured_llm``) with one required tool call. A protocol that refuses a
forced tool choice with the model's thinking (Anthropic Messages with thinking on: the API
answers 400) would only be offered the tool, and an answer in text would then fail. There
SSELLM asks for the schema as the answer's own format instead (``response_format`` with a
JSON schema, which the protocol's module sends as its native structured output: Anthropic's
``output_config.format``, as llama-index's ``Anthropic`` LLM asks for it), and parses the
answer's text. Whether a forced choice can be sent is the core's rule of the protocol
(:attr:`sse_core.protocols.WireProtocol.forced_tools`), so nothing here names a protocol.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncGenerator, Generator, Mapping
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
    "strict_schema",
]

_dispatcher = dispatcher


def needs_native(protocol: str, thinking: Any) -> bool:
    """Whether a structured answer must use the protocol's own format: a forced tool choice
    cannot be sent with this thinking."""
    return not wire_protocol(protocol).forced_tools(thinking)


def native_format(output_cls: type[BaseModel], *, strict: bool = False) -> dict[str, Any]:
    """OpenAI's ``response_format`` for ``output_cls`` (each protocol's module sends it in
    its own shape); ``strict``: its schema made strict (:func:`strict_schema`), ``strict``
    true."""
    schema = output_cls.model_json_schema()
    spec: dict[str, Any] = {"name": output_cls.__name__, "schema": schema}
    if strict:
        spec.update(schema=strict_schema(schema), strict=True)
    return {"type": "json_schema", "json_schema": spec}


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` as OpenAI's strict mode takes it, as openai-python's ``to_strict_json_schema``
    makes a Pydantic class's: every object closed (``additionalProperties`` false) with every
    property required (an optional one stays nullable), ``None`` defaults left out, a one-entry
    ``allOf`` merged, and a ``$ref`` beside other keys inlined (strict mode takes no siblings)."""
    root = copy.deepcopy(dict(schema))
    made: dict[str, Any] = _strict(root, root)
    return made


def _strict(node: Any, root: dict[str, Any]) -> Any:
    if not isinstance(node, dict):
        return node
    for key in ("$defs", "definitions"):  # first: an inlined $ref takes them strict
        if isinstance(node.get(key), dict):
            node[key] = {name: _strict(sub, root) for name, sub in node[key].items()}
    if node.get("type") == "object":
        node.setdefault("additionalProperties", False)
    _strict_children(node, root)
    if "default" in node and node["default"] is None:
        del node["default"]
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) > 1:
        del node["$ref"]
        return _strict({**_resolve(root, ref), **node}, root)
    return node


def _strict_children(node: dict[str, Any], root: dict[str, Any]) -> None:
    properties = node.get("properties")
    if isinstance(properties, dict):
        node["required"] = list(properties)
        node["properties"] = {name: _strict(sub, root) for name, sub in properties.items()}
    if isinstance(node.get("items"), dict):
        node["items"] = _strict(node["items"], root)
    for key in ("anyOf", "allOf"):
        if isinstance(node.get(key), list):
            node[key] = [_strict(sub, root) for sub in node[key]]
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        del node["allOf"]
        node.update(all_of[0])


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    """The definition ``ref`` (``#/$defs/Name``) points at, copied."""
    found: Any = root
    for key in ref.removeprefix("#/").split("/"):
        found = found.get(key) if isinstance(found, dict) else None
    if not ref.startswith("#/") or not isinstance(found, dict):
        raise ValueError(f"a schema's $ref must point into the schema, got {ref!r}")
    return copy.deepcopy(found)


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
        strict: Ask with the schema strict and ``tool_choice`` "none" (unless the call's
            kwargs name a choice), as ``OpenAIResponses.structured_predict`` asks.
    """

    def __init__(
        self, llm: LLM, output_cls: type[Model], prompt: BasePromptTemplate, strict: bool = False
    ) -> None:
        self._llm = llm
        self._output_cls = output_cls
        self._prompt = prompt
        self._strict = strict

    @property
    def output_cls(self) -> type[Model]:
        """The answer's class."""
        return self._output_cls

    def _messages(self, llm_kwargs: dict[str, Any] | None, args: dict[str, Any]) -> Any:
        messages = self._prompt.format_messages(llm=self._llm, **args)
        if self._llm.system_prompt:  # as LlamaIndex's programs add it
            messages = [ChatMessage(role="system", content=self._llm.system_prompt), *messages]
        call = {**(llm_kwargs or {})}
        call["response_format"] = native_format(self._output_cls, strict=self._strict)
        if self._strict:  # no tool call instead of the answer, as OpenAIResponses asks
            call.setdefault("tool_choice", "none")
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
    strict: bool = False,
) -> Model:
    """``structured_predict`` by :class:`NativeProgram` (``strict``: see there), with
    LlamaIndex's start and end events of a structured prediction."""
    _dispatcher.event(
        LLMStructuredPredictStartEvent(
            output_cls=output_cls, template=prompt, template_args=prompt_args
        )
    )
    program = NativeProgram(llm, output_cls, prompt, strict)
    found = program(llm_kwargs=llm_kwargs, **prompt_args)
    _dispatcher.event(LLMStructuredPredictEndEvent(output=found))
    return found


async def apredict_natively(
    llm: LLM,
    output_cls: type[Model],
    prompt: BasePromptTemplate,
    llm_kwargs: dict[str, Any] | None,
    prompt_args: dict[str, Any],
    strict: bool = False,
) -> Model:
    """:func:`predict_natively`, async."""
    _dispatcher.event(
        LLMStructuredPredictStartEvent(
            output_cls=output_cls, template=prompt, template_args=prompt_args
        )
    )
    program = NativeProgram(llm, output_cls, prompt, strict)
    found = await program.acall(llm_kwargs=llm_kwargs, **prompt_args)
    _dispatcher.event(LLMStructuredPredictEndEvent(output=found))
    return found
