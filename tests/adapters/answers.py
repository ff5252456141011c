"""What an answer shows, in the terms both adapters share, and the turns of a conversation
in each framework's messages: the drivers of tests/adapters/conftest.py read each adapter's
answer into an :class:`Answer` here and spell neutral turns as its messages here."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)


@dataclass(frozen=True, kw_only=True)
class Usage:
    """The token counts of an answer, as the core counts them (prompt tokens include the
    cached ones, as chat completions count them)."""

    prompt: int | None = None
    completion: int | None = None
    total: int | None = None
    cached: int | None = None
    cache_write: int | None = None
    reasoning: int | None = None


@dataclass(frozen=True, kw_only=True)
class Answer:
    """What one answer shows, read where the adapter's users read it, in shared terms.

    ``reasoning`` is the reasoning text; ``reasoning_blocks`` are shaped as the Messages API
    wants them back (``thinking`` with its ``signature``, ``redacted_thinking`` with its
    ``data``); ``tool_calls`` are the usable calls (id, name, arguments); ``cut_calls`` the
    calls the adapter keeps as the model wrote them and flags as unusable (id, name, arguments
    text), and ``refused`` what it said doing so (ChatSSE: the invalid call's error, or a
    stream's ToolArgumentsError; SSELLM: the ValueError of ``get_tool_calls_from_response``).
    ``deltas``/``thought``: a stream's text and reasoning pieces joined (``None`` for a whole
    answer). ``gateway_events``: the gateway events of the call as (name, data) (ChatSSE:
    ``response_metadata["gateway_events"]``; SSELLM: the SSEGatewayEvents it dispatched).
    ``native``: the framework's own message, to pass back in a conversation.
    """

    text: str
    reasoning: str
    reasoning_blocks: list[dict[str, Any]]
    tool_calls: list[tuple[str, str, Any]]
    cut_calls: list[tuple[str, str, str]]
    refused: str
    usage: Usage | None
    finish_reason: str | None
    stop_reason: str | None
    stop_sequence: str | None
    citations: list[dict[str, Any]]
    id: str | None
    model: str | None
    deltas: str | None
    thought: str | None
    gateway_events: list[tuple[str, Any]]
    native: Any = field(repr=False)


def run_how(how: str, sync: Callable[[], Any], later: Callable[[], Any]) -> Any:
    """``sync()`` for a sync ``how``; else ``later()``'s coroutine, run to its end."""
    if how in ("ask", "stream"):
        return sync()
    return asyncio.run(asyncio.wait_for(later(), 30))


def langchain_message(turn: Any) -> Any:
    """The LangChain message of a turn (see ``Driver.messages``)."""
    if isinstance(turn, str):
        return HumanMessage(turn)
    if not isinstance(turn, dict):
        return turn  # an answer's own message
    role = turn["role"]
    if role == "system":
        cached = {"type": "text", "text": turn["text"], "cache_control": turn.get("cache")}
        return SystemMessage([cached] if "cache" in turn else turn["text"])
    if role == "tool":
        status = "error" if turn.get("error") else "success"
        return ToolMessage(turn["text"], tool_call_id=turn["id"], status=status)
    parts: list[Any] = [dict(block) for block in turn.get("thinking", ())]
    parts += [{"type": "text", "text": turn["text"]}] if turn.get("text") else []
    if role == "assistant":
        calls = [{"id": i, "name": n, "args": a} for i, n, a in turn.get("calls", ())]
        return AIMessage(content=parts, tool_calls=calls)
    for image in turn.get("images", ()):
        parts.append(
            {"type": "image", "url": image}
            if isinstance(image, str)
            else {"type": "image", "base64": image[1], "mime_type": image[0]}
        )
    return HumanMessage(parts)


def langchain_answer(message: BaseMessage, chunks: list[Any] | None, refused: str) -> Answer:
    """The Answer of a ChatSSE message (``chunks``: a stream's, ``refused``: the
    ToolArgumentsError it ended with)."""
    assert isinstance(message, AIMessage)  # an AIMessageChunk when streamed
    kwargs, meta = message.additional_kwargs, message.response_metadata
    invalid = message.invalid_tool_calls
    refused = refused or "; ".join(str(call["error"]) for call in invalid)
    return Answer(
        text=message.text,
        reasoning=kwargs.get("reasoning_content", ""),
        reasoning_blocks=[
            {k: v for k, v in block.items() if k != "index"}
            for block in kwargs.get("reasoning_blocks", [])
        ],
        tool_calls=[(call["id"], call["name"], call["args"]) for call in message.tool_calls],
        cut_calls=[(call["id"], call["name"], call["args"]) for call in invalid],  # type: ignore[misc]
        refused=refused,
        usage=_langchain_usage(message),
        finish_reason=meta.get("finish_reason"),
        stop_reason=meta.get("stop_reason"),
        stop_sequence=meta.get("stop_sequence"),
        citations=meta.get("citations", []),
        id=meta.get("id"),
        model=meta.get("model_name"),
        deltas=None if chunks is None else "".join(chunk.text for chunk in chunks),
        thought=None
        if chunks is None
        else "".join(chunk.additional_kwargs.get("reasoning_content", "") for chunk in chunks),
        gateway_events=[(e["name"], e["data"]) for e in meta.get("gateway_events", [])],
        native=message,
    )


def _langchain_usage(message: AIMessage) -> Usage | None:
    usage = message.usage_metadata
    if usage is None:
        return None
    inputs: Any = usage.get("input_token_details") or {}
    outputs: Any = usage.get("output_token_details") or {}
    return Usage(
        prompt=usage["input_tokens"],
        completion=usage["output_tokens"],
        total=usage["total_tokens"],
        cached=inputs.get("cache_read"),
        cache_write=inputs.get("cache_creation"),
        reasoning=outputs.get("reasoning"),
    )


def llamaindex_message(turn: Any) -> Any:
    """The LlamaIndex message of a turn (see ``Driver.messages``)."""
    if isinstance(turn, str):
        return ChatMessage(role="user", content=turn)
    if not isinstance(turn, dict):
        return turn  # an answer's own message
    role = turn["role"]
    if role == "system" and "cache" in turn:
        extra = {"cache_control": turn["cache"]}
        return ChatMessage(role=role, content=turn["text"], additional_kwargs=extra)
    if role == "tool":
        extra = {"tool_call_id": turn["id"]} | ({"is_error": True} if turn.get("error") else {})
        return ChatMessage(role="tool", content=turn["text"], additional_kwargs=extra)
    blocks: list[Any] = [_thinking_block(block) for block in turn.get("thinking", ())]
    blocks += [TextBlock(text=turn["text"])] if turn.get("text") else []
    blocks += [
        ToolCallBlock(tool_call_id=i, tool_name=n, tool_kwargs=a)
        for i, n, a in turn.get("calls", ())
    ]
    for image in turn.get("images", ()):
        blocks.append(
            ImageBlock(url=image)
            if isinstance(image, str)
            else ImageBlock(image=base64.b64decode(image[1]), image_mimetype=image[0])
        )
    return ChatMessage(role=role, blocks=blocks)


def llamaindex_answer(
    model: Any, responses: list[ChatResponse], streamed: bool, events: Sequence[Any] = ()
) -> Answer:
    """The Answer of SSELLM's responses (the last one's, with a stream's deltas joined;
    ``events``: the SSEGatewayEvents the call dispatched)."""
    last = responses[-1]
    kwargs, raw = last.additional_kwargs, last.raw
    assert isinstance(raw, dict)
    refused, calls = "", []
    try:
        selections = model.get_tool_calls_from_response(last, error_on_no_tool_call=False)
        calls = [(s.tool_id, s.tool_name, s.tool_kwargs) for s in selections]
    except ValueError as error:
        refused = str(error)
    blocks = last.message.blocks
    return Answer(
        text=str(last.message.content or ""),
        reasoning="".join(b.content or "" for b in blocks if isinstance(b, ThinkingBlock)),
        reasoning_blocks=[_anthropic_block(b) for b in blocks if isinstance(b, ThinkingBlock)],
        tool_calls=calls,
        cut_calls=[
            (b.tool_call_id or "", b.tool_name, b.tool_kwargs)
            for b in blocks
            if isinstance(b, ToolCallBlock) and refused and not _json_object(b.tool_kwargs)
        ],
        refused=refused,
        usage=None
        if kwargs.get("prompt_tokens") is None
        else Usage(
            prompt=kwargs["prompt_tokens"],
            completion=kwargs["completion_tokens"],
            total=kwargs["total_tokens"],
            cached=kwargs["cached_tokens"],
            cache_write=kwargs["cache_write_tokens"],
            reasoning=kwargs["reasoning_tokens"],
        ),
        finish_reason=kwargs.get("finish_reason"),
        stop_reason=kwargs.get("stop_reason"),
        stop_sequence=kwargs.get("stop_sequence"),
        citations=kwargs.get("citations", []),
        id=raw.get("id"),
        model=raw.get("model"),
        deltas="".join(r.delta or "" for r in responses) if streamed else None,
        thought="".join(r.additional_kwargs.get("thinking_delta", "") for r in responses)
        if streamed
        else None,
        gateway_events=[(event.name, event.data) for event in events],
        native=last.message,
    )


def _thinking_block(block: dict[str, Any]) -> ThinkingBlock:
    """A LlamaIndex ThinkingBlock of Anthropic's thinking or redacted_thinking block."""
    if block["type"] == "redacted_thinking":
        return ThinkingBlock(content="", additional_information=dict(block))
    signed = {"signature": block["signature"]} if "signature" in block else {}  # cut: none
    return ThinkingBlock(content=block["thinking"], additional_information=signed)


def _anthropic_block(block: ThinkingBlock) -> dict[str, Any]:
    """Anthropic's block of a ThinkingBlock SSELLM gave: its additional_information (the
    block's type and signature, or a redacted block's data) with its text, if any; a
    Responses reasoning item (its additional_information) as it is, to compare as sent."""
    info = dict(block.additional_information)
    if info.get("type") == "reasoning":
        return info
    if info.get("type") == "redacted_thinking" and not block.content:
        return info
    return {**info, "thinking": block.content}


def _json_object(arguments: Any) -> bool:
    """Whether tool-call arguments are (or parse to) a JSON object."""
    if not isinstance(arguments, str):
        return isinstance(arguments, dict)
    try:
        return isinstance(json.loads(arguments), dict)
    except ValueError:
        return False
