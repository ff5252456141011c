"""A whole :class:`~sse_core.Completion` to a ChatResponse, and the OpenAI shapes shared
with the streaming mapping (tool-call dicts and blocks, usage)."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ContentBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from sse_core import Completion, Usage

__all__ = ["chat_response", "tool_block", "tool_call_dict", "usage_kwargs", "usage_payload"]


def _call_id(index: int, call_id: str | None) -> str:
    # Some gateways send no id; the tool result must still name the call it answers.
    return call_id or f"call_{index}"


def tool_block(index: int, call_id: str | None, name: str | None, arguments: str) -> ToolCallBlock:
    """A ToolCallBlock with the arguments as the JSON text the model wrote."""
    return ToolCallBlock(
        tool_call_id=_call_id(index, call_id), tool_name=name or "", tool_kwargs=arguments
    )


def tool_call_dict(
    index: int, call_id: str | None, name: str | None, arguments: str
) -> dict[str, Any]:
    """An OpenAI-shaped ``tool_calls`` entry."""
    return {
        "id": _call_id(index, call_id),
        "type": "function",
        "function": {"name": name or "", "arguments": arguments},
    }


def usage_payload(usage: Usage) -> dict[str, Any]:
    """The usage as an OpenAI-shaped dict: the gateway's own, with the standard counts set."""
    payload = dict(usage.raw)
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(usage, key)
        if value is not None:
            payload[key] = value
    for details, key, value in (
        ("prompt_tokens_details", "cached_tokens", usage.cached_tokens),
        ("prompt_tokens_details", "cache_write_tokens", usage.cache_write_tokens),
        ("completion_tokens_details", "reasoning_tokens", usage.reasoning_tokens),
    ):
        if value is not None:
            known = payload.get(details)
            payload[details] = {**(known if isinstance(known, dict) else {}), key: value}
    return payload


def usage_kwargs(usage: Usage) -> dict[str, int | None]:
    """The token counts LlamaIndex reads from ``additional_kwargs``."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
        "cached_tokens": usage.cached_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
    }


def chat_response(completion: Completion) -> ChatResponse:
    """The ChatResponse for a whole answer (``chat``/``achat``)."""
    blocks: list[ContentBlock] = []
    message: dict[str, Any] = {"role": "assistant", "content": completion.content or None}
    if completion.reasoning:
        blocks.append(ThinkingBlock(content=completion.reasoning))
        message["reasoning_content"] = completion.reasoning
    blocks.append(TextBlock(text=completion.content))
    kwargs: dict[str, Any] = {}
    if completion.tool_calls:
        dicts = [
            tool_call_dict(call.index, call.id, call.name, call.arguments)
            for call in completion.tool_calls
        ]
        blocks.extend(
            tool_block(call.index, call.id, call.name, call.arguments)
            for call in completion.tool_calls
        )
        kwargs["tool_calls"] = message["tool_calls"] = dicts
    if completion.refusal:
        kwargs["refusal"] = message["refusal"] = completion.refusal
    usage = None if completion.usage is None else usage_payload(completion.usage)
    extra: dict[str, Any] = {} if completion.usage is None else usage_kwargs(completion.usage)
    if completion.finish_reason is not None:
        extra["finish_reason"] = completion.finish_reason
    raw = {
        "id": completion.id,
        "object": "chat.completion",
        "created": completion.created,
        "model": completion.model,
        "choices": [{"index": 0, "message": message, "finish_reason": completion.finish_reason}],
        "usage": usage,
    }
    return ChatResponse(
        message=ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks, additional_kwargs=kwargs),
        raw=raw,
        delta=None,
        additional_kwargs=extra,
    )
