"""The frameworks' own first-token floors: the least a LangChain chat model or a LlamaIndex LLM
can add before its first chunk, over our core's client.

Each floor is the smallest model its framework allows, streaming through the framework's own
entry point over :class:`sse_core.ChatClient` (no request mapping, no configuration, no
response mapping beyond one framework chunk per text delta):

- LangChain: a ``BaseChatModel`` whose ``_stream`` yields a ``ChatGenerationChunk`` per text
  delta (telling the run manager, as every chat model must), driven by
  ``BaseChatModel.stream``: ``ensure_config``, the invocation params, ``CallbackManager``
  configuration, ``on_chat_model_start``, the chunk's metadata and id.
- LlamaIndex: a ``CustomLLM`` whose ``stream_chat``, under ``llm_chat_callback`` (as every
  LlamaIndex LLM), yields a ``ChatResponse`` per text delta.

What ChatSSE or SSELLM add over their floor is what the adapter costs; the floor itself is the
framework's, paid by any model of it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_chat_callback
from pydantic import ConfigDict

import sse_core


def _texts(client: sse_core.ChatClient, body: dict[str, Any]) -> Iterator[str]:
    with client.stream(body) as stream:
        for event in stream:
            if type(event) is sse_core.TextDelta:
                yield event.text


class LangChainFloor(BaseChatModel):
    """The least LangChain chat model: text deltas of the core's client as chunks."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    client: sse_core.ChatClient
    body: dict[str, Any]

    @property
    def _llm_type(self) -> str:
        return "first-token-floor"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:  # fmt: skip
        raise NotImplementedError("the floor only streams")

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for text in _texts(self.client, self.body):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=text))
            if run_manager is not None:
                run_manager.on_llm_new_token(text, chunk=chunk)
            yield chunk


class LlamaIndexFloor(CustomLLM):
    """The least LlamaIndex LLM: text deltas of the core's client as chat responses."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    client: sse_core.ChatClient
    body: dict[str, Any]

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True)

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError("the floor only streams chat")

    def stream_complete(self, prompt: str, formatted: bool = False,
                        **kwargs: Any) -> CompletionResponseGen:  # fmt: skip
        raise NotImplementedError("the floor only streams chat")

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        def responses() -> ChatResponseGen:
            content = ""
            for text in _texts(self.client, self.body):
                content += text
                message = ChatMessage(role="assistant", content=content)
                yield ChatResponse(message=message, delta=text)

        return responses()
