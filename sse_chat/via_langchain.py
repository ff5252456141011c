"""The ``sse-chat chat --via langchain`` driver: the demo conversation through ChatSSE.

Streams with ``ChatSSE.bind_tools(...).stream``, renders each AIMessageChunk as it arrives,
runs the demo tool and streams the answer to its result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from pydantic import SecretStr
from pydantic_core import to_json

from langchain_sse import ChatSSE
from sse_chat.render import Renderer

__all__ = ["run_langchain_chat"]


def _turn(model: Any, messages: list[BaseMessage], view: Renderer) -> AIMessageChunk:
    chunks: list[AIMessageChunk] = []
    for chunk in model.stream(messages):
        chunks.append(chunk)
        reasoning = chunk.additional_kwargs.get("reasoning_content")
        if reasoning:
            view.reasoning(reasoning)
        if isinstance(chunk.content, str) and chunk.content:
            view.text(chunk.content)
        for piece in chunk.tool_call_chunks:
            view.tool_call(piece.get("name"), piece.get("args") or "")
        for event in chunk.response_metadata.get("gateway_events", ()):
            view.gateway_event(event["name"], event["data"])
    whole = chunks[0] + chunks[1:] if chunks else AIMessageChunk(content="")
    assert isinstance(whole, AIMessageChunk)
    usage = whole.usage_metadata
    line = "usage: not reported"
    if usage:
        line = (
            f"usage_metadata: input={usage['input_tokens']} output={usage['output_tokens']} "
            f"total={usage['total_tokens']}"
        )
    view.summary(whole.response_metadata.get("finish_reason"), line)
    return whole


def run_langchain_chat(
    *,
    base_url: str,
    api_key: str,
    model: str,
    path: str,
    headers: Mapping[str, str],
    prompt: str,
    tool: dict[str, Any] | None,
    run_tool: Callable[[str, str], Any],
    view: Renderer,
) -> None:
    """Run the demo conversation through ChatSSE (errors propagate to the caller)."""
    chat = ChatSSE(
        model=model,
        base_url=base_url,
        api_key=SecretStr(api_key),
        path=path,
        default_headers=dict(headers),
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
