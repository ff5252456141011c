"""The ``sse-chat chat --via langchain`` driver: the demo conversation through ChatSSE.

Streams with ``ChatSSE.bind_tools(...).stream``, renders each AIMessageChunk as it arrives
and lets it go; named gateway events are rendered as they arrive too, from the custom
callback events ChatSSE sends for them (the final chunk's ``gateway_events`` comes after
the answer). The whole answer (tool calls, finish reason, usage) is the message ChatSSE
reports at the run's end (``on_llm_end``, built by the core), so no chunk is kept to be
merged. Runs the demo tool and streams the answer to its result. The usage line is the core
renderer's (:func:`sse_chat.render.usage_line`), read from ``usage_metadata``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGeneration, LLMResult
from pydantic import SecretStr
from pydantic_core import to_json

from langchain_sse import ChatSSE
from sse_chat.render import Renderer, usage_line
from sse_core import Timeouts, Usage
from sse_core.transport.packages import HttpClient

__all__ = ["run_langchain_chat", "usage_of"]


def usage_of(usage: UsageMetadata | None) -> Usage | None:
    """LangChain's ``usage_metadata`` in the core's words (cache and reasoning details too)."""
    if not usage:
        return None
    inputs = usage.get("input_token_details") or {}
    outputs = usage.get("output_token_details") or {}
    return Usage(
        prompt_tokens=usage["input_tokens"],
        completion_tokens=usage["output_tokens"],
        total_tokens=usage["total_tokens"],
        cached_tokens=inputs.get("cache_read"),
        cache_write_tokens=inputs.get("cache_creation"),
        reasoning_tokens=outputs.get("reasoning"),
    )


class _LastMessage(BaseCallbackHandler):
    """Keeps the whole answer of the model's run (``on_llm_end``), and renders the gateway's
    named events (``on_custom_event``) as they arrive."""

    def __init__(self, view: Renderer) -> None:
        self.message: AIMessage | None = None
        self.view = view

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.view.gateway_event(name, data)

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        generation = response.generations[0][0]
        assert isinstance(generation, ChatGeneration)
        whole = message_chunk_to_message(generation.message)
        assert isinstance(whole, AIMessage)
        self.message = whole


def _show(chunk: AIMessageChunk, view: Renderer) -> None:
    """Render one chunk as it arrives."""
    reasoning = chunk.additional_kwargs.get("reasoning_content")
    if reasoning:
        view.reasoning(reasoning)
    if isinstance(chunk.content, str) and chunk.content:
        view.text(chunk.content)
    refusal = chunk.additional_kwargs.get("refusal")
    if refusal:
        view.refusal(refusal)
    for piece in chunk.tool_call_chunks:
        view.tool_call(piece.get("name"), piece.get("args") or "", piece.get("index"))


def _turn(model: Any, messages: list[BaseMessage], view: Renderer) -> AIMessage:
    last = _LastMessage(view)
    view.wait()
    for chunk in model.stream(messages, config={"callbacks": [last]}):
        _show(chunk, view)
    assert last.message is not None  # the run ended well, or stream() raised
    meta = last.message.response_metadata
    for citation in meta.get("citations") or ():
        view.citation(citation)
    view.summary(
        meta.get("finish_reason"),
        usage_line(usage_of(last.message.usage_metadata)),
        stop_reason=meta.get("stop_reason"),
    )
    return last.message


def run_langchain_chat(
    *,
    base_url: str,
    api_key: str,
    model: str,
    path: str | None,
    headers: Mapping[str, str],
    prompt: str,
    tool: dict[str, Any] | None,
    run_tool: Callable[[str, str], Any],
    view: Renderer,
    http_client: HttpClient | None = None,
    timeout: Timeouts | None = None,
    request_fields: Mapping[str, Any] | None = None,
    **settings: Any,
) -> None:
    """Run the demo conversation through ChatSSE (errors propagate to the caller).

    ``http_client``: the httpx client to send with (``--record`` passes its recorder);
    ``path`` None: the protocol's own; ``request_fields``: body fields sent as given
    (``model_kwargs``: the Responses API's ``reasoning``); ``settings``: more ChatSSE
    fields (``protocol``, ``auth``; ``max_tokens`` and ``thinking`` when asked for).
    """
    if path is not None:
        settings["path"] = path
    if request_fields:
        settings["model_kwargs"] = dict(request_fields)
    chat = ChatSSE(
        model=model,
        base_url=base_url,
        api_key=SecretStr(api_key),
        default_headers=dict(headers),
        http_client=http_client,
        timeout=timeout or Timeouts(),
        **settings,
    )
    runnable: Any = chat.bind_tools([tool]) if tool else chat
    messages: list[BaseMessage] = [HumanMessage(prompt)]
    reply = _turn(runnable, messages, view)
    if reply.tool_calls:
        messages.append(reply)
        for call in reply.tool_calls:
            result = run_tool(call["name"], to_json(call["args"]).decode())
            messages.append(ToolMessage(to_json(result).decode(), tool_call_id=call["id"] or ""))
        view.note("ran the tool locally; sending its result back")
        _turn(runnable, messages, view)
