"""The ``sse-chat chat --via llamaindex`` driver: the demo conversation through SSELLM.

Streams with ``SSELLM.stream_chat_with_tools``, renders the thinking and text deltas as they
arrive and the tool calls of the last response, runs the demo tool and streams the answer.
Named gateway events are rendered as they arrive: SSELLM dispatches each as an
``SSEGatewayEvent`` instrumentation event, in stream order, which a handler on the root
dispatcher renders for as long as the conversation runs.
The usage line is the core renderer's (:func:`sse_chat.render.usage_line`), read from the
token counts SSELLM puts in the last response's ``additional_kwargs``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.tools import FunctionTool
from pydantic_core import to_json

from llamaindex_sse import SSELLM, SSEGatewayEvent
from sse_chat.render import Renderer, usage_line
from sse_core import Timeouts, Usage
from sse_core.transport.packages import HttpClient

__all__ = ["run_llamaindex_chat", "usage_of"]

#: The token counts SSELLM puts in ``additional_kwargs`` (see ``sse_core.Usage``).
_COUNTS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


def usage_of(response: ChatResponse) -> Usage | None:
    """The token counts of a (last) SSELLM response, or None if the gateway sent none (with
    the usage as ``raw`` holds it, in the protocol's own names)."""
    kwargs = response.additional_kwargs
    if all(kwargs.get(name) is None for name in _COUNTS):
        return None
    raw = response.raw.get("usage") if isinstance(response.raw, dict) else None
    return Usage(
        raw=raw if isinstance(raw, dict) else {},  # the protocol's own names (usage_line)
        prompt_tokens=kwargs.get("prompt_tokens"),
        completion_tokens=kwargs.get("completion_tokens"),
        total_tokens=kwargs.get("total_tokens"),
        cached_tokens=kwargs.get("cached_tokens"),
        cache_write_tokens=kwargs.get("cache_write_tokens"),
        reasoning_tokens=kwargs.get("reasoning_tokens"),
    )


class _GatewayEvents(BaseEventHandler):
    """Renders each :class:`SSEGatewayEvent` as it is dispatched."""

    view: Renderer

    @classmethod
    def class_name(cls) -> str:
        """The handler's name, as instrumentation reports it."""
        return "SSEChatGatewayEvents"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if isinstance(event, SSEGatewayEvent):
            self.view.gateway_event(event.name, event.data)


@contextlib.contextmanager
def _showing_gateway_events(view: Renderer) -> Iterator[None]:
    root = get_dispatcher()
    handler = _GatewayEvents(view=view)
    root.add_event_handler(handler)
    try:
        yield
    finally:
        root.event_handlers.remove(handler)


def _turn(
    llm: SSELLM, tools: list[FunctionTool], history: list[ChatMessage], view: Renderer
) -> ChatResponse:
    last: ChatResponse | None = None
    view.wait()
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
    for citation in kwargs.get("citations") or ():
        view.citation(citation)
    view.summary(
        kwargs.get("finish_reason"),
        usage_line(usage_of(last)),
        stop_reason=kwargs.get("stop_reason"),
    )
    return last


def run_llamaindex_chat(
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
    """Run the demo conversation through SSELLM (errors propagate to the caller).

    ``http_client`` (``chat --record``'s recording client) carries every request;
    ``path`` None: the protocol's own; ``request_fields``: body fields sent as given
    (``additional_kwargs``: the Responses API's ``reasoning``); ``settings``: more SSELLM
    fields (``protocol``, ``auth``; ``max_tokens`` and ``thinking`` when asked for).
    """
    if path is not None:
        settings["path"] = path
    if request_fields:
        settings["additional_kwargs"] = dict(request_fields)
    if "thinking" in settings:  # as llama-index's Anthropic LLM names it
        settings["thinking_dict"] = settings.pop("thinking")
    llm = SSELLM(
        model=model,
        base_url=base_url,
        api_key=api_key or None,
        default_headers=dict(headers),
        http_client=http_client,
        timeout=timeout or Timeouts(),
        **settings,
    )
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
    with _showing_gateway_events(view):
        _converse(llm, tools, history, run_tool, view)


def _converse(
    llm: SSELLM,
    tools: list[FunctionTool],
    history: list[ChatMessage],
    run_tool: Callable[[str, str], Any],
    view: Renderer,
) -> None:
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
