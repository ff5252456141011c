"""The ``sse-chat chat --via llamaindex`` driver: the demo conversation through SSELLM.

Streams with ``SSELLM.stream_chat_with_tools``, renders the thinking and text deltas as they
arrive and the tool calls of the last response, runs the demo tool and streams the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse
from llama_index.core.tools import FunctionTool
from pydantic_core import to_json

from llamaindex_sse import SSELLM
from sse_chat.render import Renderer

__all__ = ["run_llamaindex_chat"]


def _turn(
    llm: SSELLM, tools: list[FunctionTool], history: list[ChatMessage], view: Renderer
) -> ChatResponse:
    last: ChatResponse | None = None
    stream = (
        llm.stream_chat_with_tools(tools, chat_history=history, allow_parallel_tool_calls=True)
        if tools
        else llm.stream_chat(history)
    )
    for response in stream:
        last = response
        thinking = response.additional_kwargs.get("thinking_delta")
        if thinking:
            view.reasoning(thinking)
        if response.delta:
            view.text(response.delta)
    assert last is not None  # SSELLM always yields at least one response
    for call in llm.get_tool_calls_from_response(last, error_on_no_tool_call=False):
        view.tool_call(call.tool_name, to_json(call.tool_kwargs).decode())
    kwargs = last.additional_kwargs
    line = (
        f"usage: prompt={kwargs.get('prompt_tokens')} completion={kwargs.get('completion_tokens')} "
        f"total={kwargs.get('total_tokens')}"
    )
    view.summary(kwargs.get("finish_reason"), line)
    return last


def run_llamaindex_chat(
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
    """Run the demo conversation through SSELLM (errors propagate to the caller)."""
    llm = SSELLM(model=model, base_url=base_url, api_key=api_key, path=path,
                 default_headers=dict(headers))  # fmt: skip
    tools = []
    if tool:
        spec = tool["function"]

        def weather(city: str) -> str:
            return to_json(run_tool(spec["name"], to_json({"city": city}).decode())).decode()

        tools = [
            FunctionTool.from_defaults(
                fn=weather, name=spec["name"], description=spec["description"]
            )
        ]
    history = [ChatMessage(role="user", content=prompt)]
    reply = _turn(llm, tools, history, view)
    calls = llm.get_tool_calls_from_response(reply, error_on_no_tool_call=False)
    if calls:
        history.append(reply.message)
        for call in calls:
            result = run_tool(call.tool_name, to_json(call.tool_kwargs).decode())
            message = ChatMessage(role="tool", content=to_json(result).decode())
            message.additional_kwargs["tool_call_id"] = call.tool_id
            history.append(message)
        view.note("ran the tool locally; sending its result back")
        _turn(llm, tools, history, view)
