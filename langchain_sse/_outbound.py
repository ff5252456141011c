"""LangChain messages and call settings to the request: the pure outbound mapping.

:func:`build_outbound` makes the request body (and the call's extra headers) from the
messages, the model's settings and the call's kwargs. The messages go through our own
converter rather than ``convert_to_openai_messages``, which passes v1 ``reasoning`` blocks
through into ``content``: output-only blocks (reasoning, thinking, tool calls, which travel
as ``tool_calls``) never go back to the gateway. Standard data blocks (image, audio, file;
v0 and v1 shapes) become OpenAI parts. Reasoning is sent back only on request
(``reasoning_passback``), as ``reasoning_content`` on the assistant messages after the last
user message: DeepSeek and Qwen thinking modes want it inside a tool loop and not on
earlier turns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_openai_data_block,
    is_data_content_block,
)
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_sse._turns import to_turns
from sse_core.protocols import wire_protocol
from sse_core.protocols.history import reasoning_name, signed, warn_left_out
from sse_core.protocols.turns import ReasoningPart

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = [
    "RUN_OPTIONS",
    "Outbound",
    "build_outbound",
    "check_query",
    "convert_messages",
    "drop_disabled",
    "generic_outbound",
    "model_outbound",
    "pop_call_options",
    "turns_outbound",
]

#: Blocks a model produced that are not sent back as content.
_OUTPUT_ONLY = frozenset(
    {
        "reasoning",
        "thinking",
        "redacted_thinking",
        "tool_call",
        "tool_call_chunk",
        "invalid_tool_call",
        "tool_use",
        "server_tool_call",
        "server_tool_call_chunk",
        "server_tool_result",
        "refusal",
    }
)
#: Parts already in the OpenAI chat-completions shape (the payload sits under the type's name).
_OPENAI_PARTS = frozenset({"input_audio", "file"})

Content = str | list[dict[str, Any]] | None

#: Request keys that only make sense with tools, dropped when the tool list is empty.
_TOOL_KEYS = ("tools", "tool_choice", "parallel_tool_calls")
#: LangChain's run options: keys of the run's config, never request fields. ChatSSE's
#: entry points move them into the config; here they are dropped if any got this far.
RUN_OPTIONS = (
    "callbacks",
    "tags",
    "metadata",
    "run_name",
    "run_id",
    "configurable",
    "recursion_limit",
    "max_concurrency",
)
#: Call kwargs LangChain passes along that are not request fields.
_NOT_PAYLOAD = ("stream", "ls_structured_output_format", "structured_output_format", *RUN_OPTIONS)
#: The call options ChatSSE honours (never sent as body fields).
_CALL_OPTIONS = ("stream_usage", "extra_headers", "extra_body", "extra_query", "timeout", "strict")


@dataclass(frozen=True, slots=True, kw_only=True)
class Outbound:
    """What one call sends: the JSON body, and the call's own transport options."""

    payload: dict[str, Any]
    headers: dict[str, str] | None = None
    """The call's extra headers (``extra_headers``)."""
    include_usage: bool | None = None
    """Ask for usage or not (``stream_usage``, ``stream_options``); None: the model's."""
    whole_body: bool = False
    """The payload already holds the model's ``extra_body`` (merged under the call's)."""
    timeout: Any = None
    """This call's timeout (seconds, or ``sse_core.Timeouts``); None: the model's."""
    query: dict[str, str] | None = None
    """This call's query parameters (``extra_query``), over the model's ``default_query``."""


def build_outbound(
    messages: Sequence[BaseMessage],
    *,
    model: str,
    settings: Mapping[str, Any],
    model_kwargs: Mapping[str, Any],
    call_kwargs: dict[str, Any],
    disabled_params: Mapping[str, Any] | None,
    reasoning_passback: bool,
    extra_body: Mapping[str, Any] | None = None,
) -> Outbound:
    """The request body, and this call's transport options.

    Precedence, lowest first: ``model`` and ``settings`` (None and ``[]`` are not sent),
    ``model_kwargs``, the call's kwargs (bound tools, ``response_format``, overrides).
    Tool fields are dropped with an empty tool list; ``disabled_params`` last. The keys
    that are not request fields are popped from ``call_kwargs``: LangChain's own (run
    options, ``stream``), and the call options ChatOpenAI takes as such: ``stream_usage``,
    ``extra_headers``, ``extra_body`` (merged over the model's ``extra_body``),
    ``extra_query`` (over the model's ``default_query``), ``timeout``, and ``strict``
    (applied to the bound tools and JSON schema).

    Raises:
        ValueError: For an ``extra_query`` that is not a mapping of names to strings.
    """
    options = pop_call_options(call_kwargs)
    payload: dict[str, Any] = {
        "model": model,
        "messages": convert_messages(messages, reasoning_passback=reasoning_passback),
    }
    if not reasoning_passback:
        warn_left_out("chat completions", _signed_left_out(messages))
    payload.update((key, value) for key, value in settings.items() if value not in (None, []))
    payload.update(model_kwargs)
    payload.update(call_kwargs)
    if not payload.get("tools"):
        for key in _TOOL_KEYS:
            payload.pop(key, None)
    if options["strict"] is not None:
        _apply_strict(payload, options["strict"])
    drop_disabled(payload, disabled_params)
    call_body = options["extra_body"]
    if call_body:
        payload.update({**(extra_body or {}), **call_body})
    return Outbound(
        payload=payload,
        headers=options["extra_headers"],
        include_usage=_resolve_usage(options["stream_usage"], payload.get("stream_options")),
        whole_body=bool(call_body),
        timeout=options["timeout"],
        query=check_query(options["extra_query"]),
    )


def pop_call_options(call_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop what is not a request field; the call options ChatSSE honours, by name."""
    if not call_kwargs:
        return dict.fromkeys(_CALL_OPTIONS)
    for key in _NOT_PAYLOAD:
        call_kwargs.pop(key, None)
    return {name: call_kwargs.pop(name, None) for name in _CALL_OPTIONS}


def drop_disabled(payload: dict[str, Any], disabled_params: Mapping[str, Any] | None) -> None:
    """Drop the fields (or only the values) ``disabled_params`` names."""
    for key, values in (disabled_params or {}).items():
        if key in payload and (values is None or payload[key] in values):
            del payload[key]


def turns_outbound(model: ChatSSE, payload: dict[str, Any], options: Mapping[str, Any]) -> Outbound:
    """The call of a protocol whose module built ``payload`` from the core's turns (Anthropic
    Messages, Responses), finished as every ChatSSE call is: ``strict`` on each tool that
    does not say it (a custom or function tool; a server tool takes none),
    ``disabled_params``, the call's ``extra_body`` over the model's, the call's options.

    Raises:
        ValueError: An ``extra_query`` that is not a mapping of names to strings.
    """
    strict = options["strict"]
    if strict is not None and payload.get("tools"):
        payload["tools"] = [
            {"strict": strict, **tool} if tool.get("type") in _STRICT_TAKERS else tool
            for tool in payload["tools"]
        ]
    drop_disabled(payload, model.disabled_params)
    call_body = options["extra_body"]
    if call_body:
        payload.update({**(model.extra_body or {}), **call_body})
    return Outbound(
        payload=payload,
        headers=options["extra_headers"],
        whole_body=bool(call_body),
        timeout=options["timeout"],
        query=check_query(options["extra_query"]),
    )


#: Tool types that take ``strict``: Anthropic's custom tools (no type, or ``custom``) and
#: OpenAI's function tools.
_STRICT_TAKERS = frozenset({None, "custom", "function"})


def _tool(tool: Any) -> Any:
    """A tool as the core takes it: a dict as given (an OpenAI function tool, a protocol's
    own tool such as a server tool), anything else as ``convert_to_openai_tool`` makes it."""
    return tool if isinstance(tool, dict) else convert_to_openai_tool(tool)


def generic_outbound(
    model: ChatSSE, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The request of one call of ``model`` in a protocol whose body the core makes of turns
    (:attr:`sse_core.protocols.WireProtocol.turns_body`: the Responses API, Gemini, any
    protocol registered in the core); pops what is not a request field from ``kwargs``, as
    :func:`build_outbound` does.

    Precedence, lowest first: ChatSSE's fields, ``model_kwargs`` (the protocol's own fields),
    the call's kwargs (bound tools and choice), then ``strict`` on each function tool,
    ``disabled_params``, the call's ``extra_body``.

    Raises:
        ConfigurationError: A message the protocol cannot carry, a setting it does not take,
            or a rule of the API broken.
        ValueError: An ``extra_query`` that is not a mapping of names to strings.
    """
    options = pop_call_options(kwargs)
    params: dict[str, Any] = {
        "max_tokens": model.max_tokens,
        "stop": (stop if stop is not None else model.stop) or None,
        "temperature": model.temperature,
        "reasoning_effort": model.reasoning_effort,
        **model.model_kwargs,
        **kwargs,
    }
    if params.get("tools"):
        params["tools"] = [_tool(tool) for tool in params["tools"]]
    # Dropped by their common names before the protocol places them (Gemini's temperature
    # goes in generationConfig), and again from the body's top level after.
    drop_disabled(params, model.disabled_params)
    body = wire_protocol(model.protocol).turns_body
    assert body is not None  # mapping_of refused a protocol without one at construction
    payload = body(model.model_name, to_turns(messages), params)
    return turns_outbound(model, payload, options)


def check_query(query: object) -> dict[str, str] | None:
    """An ``extra_query`` call option: names to string values (as ``default_query``)."""
    if not query:
        return None
    if not isinstance(query, Mapping) or not all(
        isinstance(name, str) and isinstance(value, str) for name, value in query.items()
    ):
        raise ValueError("extra_query must be a mapping of parameter names to string values")
    return dict(query)


def _resolve_usage(stream_usage: object, stream_options: object) -> bool | None:
    """ChatOpenAI's order: a ``stream_usage`` call option, then ``include_usage`` in the
    ``stream_options`` sent (the call's, else ``model_kwargs``'); None: the model's."""
    if isinstance(stream_usage, bool):
        return stream_usage
    if isinstance(stream_options, Mapping):
        found = stream_options.get("include_usage")
        if isinstance(found, bool):
            return found
    return None


def _apply_strict(payload: dict[str, Any], strict: bool) -> None:
    """A ``strict`` call option on each bound tool and on a JSON-schema response format
    (it is a field of those, not of the request), where they do not say otherwise. Copies:
    the bound dicts are shared by every call."""
    if tools := payload.get("tools"):
        payload["tools"] = [
            {**tool, "function": {"strict": strict, **tool["function"]}}
            if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
            else tool
            for tool in tools
        ]
    response_format = payload.get("response_format")
    if isinstance(response_format, dict) and isinstance(response_format.get("json_schema"), dict):
        schema = {"strict": strict, **response_format["json_schema"]}
        payload["response_format"] = {**response_format, "json_schema": schema}


def convert_messages(
    messages: Sequence[BaseMessage], *, reasoning_passback: bool = False
) -> list[dict[str, Any]]:
    """Convert a conversation to the ``messages`` of a chat-completions request.

    Args:
        messages: The LangChain messages.
        reasoning_passback: Send ``reasoning_content`` on the assistant messages that follow
            the last user message.

    Raises:
        ValueError: For a message type chat completions cannot express.
    """
    last_user = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    return [
        _convert_message(message, passback=reasoning_passback and at > last_user)
        for at, message in enumerate(messages)
    ]


def _convert_message(message: BaseMessage, *, passback: bool) -> dict[str, Any]:
    if isinstance(message, AIMessage):
        return _convert_assistant(message, passback=passback)
    if isinstance(message, HumanMessage):
        out = {"role": "user", "content": _convert_content(message.content, keep_parts=True)}
    elif isinstance(message, SystemMessage):
        out = {"role": "system", "content": _convert_content(message.content)}
    elif isinstance(message, ToolMessage):
        out = {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": _convert_content(message.content) or "",
        }
    elif isinstance(message, FunctionMessage):
        out = {"role": "function", "content": _convert_content(message.content) or ""}
    elif isinstance(message, ChatMessage):
        out = {"role": message.role, "content": _convert_content(message.content, keep_parts=True)}
    else:
        raise ValueError(
            f"ChatSSE cannot send a {type(message).__name__} to a chat-completions gateway; "
            "expected a system, human, AI, tool, function or chat message"
        )
    if message.name and not isinstance(message, ToolMessage):
        out["name"] = message.name
    return out


def _convert_assistant(message: AIMessage, *, passback: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": _answer_text(message.content)}
    calls = [
        _format_call(call["id"], call["name"], json.dumps(call["args"], ensure_ascii=False))
        for call in message.tool_calls
    ]
    calls.extend(
        _format_call(call.get("id"), call.get("name"), call.get("args") or "")
        for call in message.invalid_tool_calls
    )
    if calls:
        out["tool_calls"] = calls
        out["content"] = out["content"] or None  # OpenAI: null content beside tool calls
    if message.name:
        out["name"] = message.name
    if passback and (reasoning := _find_reasoning(message)):
        out["reasoning_content"] = reasoning
    return out


def _answer_text(content: str | list[str | dict[str, Any]]) -> str:
    """An earlier answer's text, which is what chat completions takes of it: its other blocks
    (reasoning, tool calls, which go as ``tool_calls``, server tools' calls and results,
    another protocol's output items) are the answer's, not content the API takes back."""
    if isinstance(content, str):
        return content
    texts = []
    for item in content:
        block = (
            item.get("value")
            if isinstance(item, dict) and item.get("type") == "non_standard"
            else item
        )
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") in ("text", "output_text"):
            texts.append(str(block.get("text") or ""))
    return "".join(texts)


def _signed_left_out(messages: Sequence[BaseMessage]) -> list[str]:
    """The signed or encrypted reasoning of the AI messages, which chat completions takes none
    of back (another protocol's: Anthropic's thinking, a Responses reasoning item)."""
    lost: list[str] = []
    for message in messages:
        if isinstance(message, AIMessage):
            (turn,) = to_turns([message])
            lost += [
                reasoning_name(p) for p in turn.parts if isinstance(p, ReasoningPart) and signed(p)
            ]
    return lost


def _format_call(call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _find_reasoning(message: AIMessage) -> str:
    """The message's reasoning: ``reasoning_content``, else v1 reasoning blocks."""
    text = message.additional_kwargs.get("reasoning_content")
    if isinstance(text, str) and text:
        return text
    if isinstance(message.content, list):
        return "".join(
            str(block.get("reasoning") or "")
            for block in message.content
            if isinstance(block, dict) and block.get("type") == "reasoning"
        )
    return ""


def _convert_content(
    content: str | list[str | dict[str, Any]], *, keep_parts: bool = False
) -> Content:
    """Message content as a string, or as OpenAI parts when there is more than text.

    Args:
        content: The LangChain content.
        keep_parts: Keep a list of text parts as a list (user messages); otherwise text-only
            content is joined into one string, which every gateway accepts.
    """
    if isinstance(content, str):
        return content
    parts = [part for item in content if (part := _convert_part(item)) is not None]
    if not keep_parts and all(part.get("type") == "text" for part in parts):
        return "".join(str(part["text"]) for part in parts)
    return parts


def _convert_part(item: str | dict[str, Any]) -> dict[str, Any] | None:
    """One content item as an OpenAI part, or None for output-only blocks."""
    if isinstance(item, str):
        return {"type": "text", "text": item}
    kind = item.get("type")
    if kind in _OUTPUT_ONLY:
        return None
    if kind == "non_standard":
        value = item.get("value")
        return _convert_part(value) if isinstance(value, dict) else None
    return _convert_block(item, kind)


def _convert_block(item: dict[str, Any], kind: object) -> dict[str, Any]:
    """A block that is sent: OpenAI parts as they are, standard data blocks converted."""
    if kind == "text" and "source_type" not in item:
        return {"type": "text", "text": item.get("text", "")}
    if kind == "image_url":
        url = item.get("image_url")
        return {"type": "image_url", "image_url": {"url": url} if isinstance(url, str) else url}
    already_openai = kind in _OPENAI_PARTS and kind in item  # {"type": "file", "file": {...}}
    if not already_openai and is_data_content_block(item):
        return convert_to_openai_data_block(item)
    return dict(item)  # an OpenAI part, or one this converter does not know: the gateway may


def model_outbound(
    model: ChatSSE, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
) -> Outbound:
    """The request of one call of ``model`` (pops what is not a request field from ``kwargs``)."""
    return build_outbound(
        messages,
        model=model.model_name,
        settings={
            "temperature": model.temperature,
            "max_tokens": model.max_tokens,
            "reasoning_effort": model.reasoning_effort,
            "stop": stop if stop is not None else model.stop,
        },
        model_kwargs=model.model_kwargs,
        call_kwargs=kwargs,
        disabled_params=model.disabled_params,
        reasoning_passback=model.reasoning_passback,
        extra_body=model.extra_body,
    )
