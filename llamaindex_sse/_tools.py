"""Tools both ways, pure: LlamaIndex tools to the request, tool calls back to selections.

Outbound: LlamaIndex tools become OpenAI function tools, ``tool_choice`` names and flags
become the request's ``tool_choice`` (:func:`offer_tools` is what
``SSELLM._prepare_chat_with_tools`` returns). Inbound: the tool calls of an assistant
message (``ToolCallBlock``s first, else legacy ``additional_kwargs["tool_calls"]``) become
``ToolSelection``s; arguments still streaming parse as far as they go, so an agent that
reads every chunk never sees an exception; once the answer stopped, a call whose arguments
are not a JSON object is refused (:class:`~llamaindex_sse._errors.ToolArgumentsError`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    MessageRole,
    ToolCallBlock,
)
from llama_index.core.llms.llm import ToolSelection
from llama_index.core.llms.utils import parse_partial_json

from llamaindex_sse._errors import ToolArgumentsError
from sse_core import ToolCall

if TYPE_CHECKING:
    from llama_index.core.llms.llm import LLM
    from llama_index.core.prompts import BasePromptTemplate
    from llama_index.core.tools.types import BaseTool
    from llama_index.core.types import BasePydanticProgram, Model

__all__ = [
    "add_user_message",
    "check_tools",
    "keep_first_tool_call",
    "offer_tools",
    "parse_arguments",
    "select_tool_calls",
    "sent_arguments",
    "stop_reason_of",
    "streaming_program",
    "to_call_dict",
    "to_openai_tools",
    "to_tool_choice",
]

_CHOICES = frozenset({"auto", "none", "required"})
_ACCEPTED = (
    "LlamaIndex tools (BaseTool instances such as FunctionTool.from_defaults(fn=...) or "
    "QueryEngineTool)"
)


def check_tools(tools: object) -> list[BaseTool]:
    """``tools`` as a list, each one a LlamaIndex tool (None: no tools).

    Raises:
        TypeError: ``tools`` is no list of tools, or one entry is not a tool; the message
            says what is accepted and where the wrong one is (its type, not its value).
    """
    if tools is None:
        return []
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        hint = " (wrap one tool in a list)" if _is_tool(tools) else ""
        raise TypeError(f"tools must be a list of {_ACCEPTED}, got {type(tools).__name__}{hint}")
    checked = list(tools)
    for at, tool in enumerate(checked):
        if not _is_tool(tool):
            hint = (
                " (make a function a tool with FunctionTool.from_defaults)"
                if callable(tool)
                else ""
            )
            raise TypeError(
                f"tools must be {_ACCEPTED}, got {type(tool).__name__} at tools[{at}]{hint}"
            )
    return cast("list[BaseTool]", checked)


def _is_tool(tool: object) -> bool:
    """A BaseTool, or anything with its ``metadata.to_openai_tool`` (what a request needs)."""
    return callable(getattr(getattr(tool, "metadata", None), "to_openai_tool", None))


def to_openai_tools(
    tools: Sequence[BaseTool], *, strict: bool | None = None
) -> list[dict[str, Any]]:
    """OpenAI function tools for LlamaIndex tools."""
    specs = []
    for tool in tools:
        spec = tool.metadata.to_openai_tool(skip_length_check=True)
        if strict is not None:
            spec["function"]["strict"] = strict
        specs.append(spec)
    return specs


def to_tool_choice(tool_choice: str | dict[str, Any] | None, tool_required: bool) -> Any:
    """``tool_choice`` for the request: a tool name becomes a forced function choice;
    ``"any"`` (Anthropic's and LangChain's word) is ``"required"``, as ChatSSE sends it."""
    if tool_choice is None:
        return "required" if tool_required else "auto"
    if tool_choice == "any":
        return "required"
    if isinstance(tool_choice, str) and tool_choice not in _CHOICES:
        return {"type": "function", "function": {"name": tool_choice}}
    return tool_choice


def offer_tools(
    tools: Sequence[BaseTool],
    messages: list[ChatMessage],
    *,
    parallel: bool,
    required: bool,
    choice: str | dict[str, Any] | None,
    strict: bool | None,
) -> dict[str, Any]:
    """The ``chat`` arguments that offer ``tools`` (just the messages when there are none).

    Raises:
        TypeError: ``tools`` holds something that is not a LlamaIndex tool.
    """
    tools = check_tools(tools)
    if not tools:
        return {"messages": messages}
    return {
        "messages": messages,
        "tools": to_openai_tools(tools, strict=strict),
        "tool_choice": to_tool_choice(choice, required),
        "parallel_tool_calls": parallel,
    }


def add_user_message(
    history: Sequence[ChatMessage] | None, user_msg: str | ChatMessage | None
) -> list[ChatMessage]:
    """A copy of ``history`` with ``user_msg`` (text or a message) appended, if given."""
    messages = list(history or [])
    if isinstance(user_msg, str):
        user_msg = ChatMessage(role=MessageRole.USER, content=user_msg)
    if user_msg is not None:
        messages.append(user_msg)
    return messages


def keep_first_tool_call(message: ChatMessage) -> None:
    """Drop every tool call of ``message`` but the first (parallel calls not allowed)."""
    calls = [block for block in message.blocks if isinstance(block, ToolCallBlock)]
    if len(calls) > 1:
        message.blocks = [
            block
            for block in message.blocks
            if not isinstance(block, ToolCallBlock) or block is calls[0]
        ]
        legacy = message.additional_kwargs.get("tool_calls")
        if isinstance(legacy, list):
            message.additional_kwargs["tool_calls"] = legacy[:1]


def to_call_dict(call: Any) -> dict[str, Any]:
    """A tool call kept in ``additional_kwargs`` (a dict, or an OpenAI SDK object)."""
    if hasattr(call, "model_dump"):
        call = call.model_dump(exclude_none=True)
    return dict(call) if isinstance(call, Mapping) else {"value": call}


def stop_reason_of(response: ChatResponse) -> str | None:
    """Why the answer of ``response`` stopped, in its protocol's own word (Anthropic's
    ``stop_reason``, chat completions' ``finish_reason``); None while it is streaming."""
    for kwargs in (response.message.additional_kwargs, response.additional_kwargs):
        if reason := kwargs.get("stop_reason"):
            return str(reason)
    reason = response.additional_kwargs.get("finish_reason")
    return str(reason) if reason else None


def select_tool_calls(message: ChatMessage, stopped: str | None = None) -> list[ToolSelection]:
    """The tool calls of an assistant message; arguments still streaming parse as far as
    they go (an unparsable prefix gives ``{}``), so this never raises on a partial call.

    Args:
        message: The assistant message.
        stopped: Why the answer stopped (:func:`stop_reason_of`); an Anthropic message's
            own ``stop_reason`` counts too.

    Raises:
        ToolArgumentsError: The answer stopped with a call whose arguments are not a JSON
            object, as when it was cut at ``max_tokens``: such arguments are never
            repaired into usable-looking ones (also a ValueError).
    """
    calls: list[tuple[str, str, Any]] = [
        (block.tool_call_id or "", block.tool_name, block.tool_kwargs)
        for block in message.blocks
        if isinstance(block, ToolCallBlock)
    ]
    if not calls:
        for call in message.additional_kwargs.get("tool_calls") or []:
            data = to_call_dict(call)
            function = data.get("function") or {}
            calls.append(
                (str(data.get("id") or ""), function.get("name") or "", function.get("arguments"))
            )
    stop_reason = message.additional_kwargs.get("stop_reason") or stopped
    if stop_reason:
        for at, (call_id, name, arguments) in enumerate(calls):
            _refuse_cut(at, call_id, name, arguments, str(stop_reason))
    return [
        ToolSelection(tool_id=call_id, tool_name=name, tool_kwargs=parse_arguments(arguments))
        for call_id, name, arguments in calls
    ]


def _refuse_cut(at: int, call_id: str, name: str, arguments: Any, stop_reason: str) -> None:
    if not isinstance(arguments, str) or not arguments.strip():
        return
    call = ToolCall(index=at, id=call_id or None, name=name, arguments=arguments)
    error = call.arguments_error
    if error is not None:
        raise ToolArgumentsError(
            f"the tool call {name!r} ({call_id}) of an answer that stopped with "
            f"{stop_reason!r} has arguments that cannot be used: {error}. They are kept as "
            "written in the response's ToolCallBlock, never repaired (if the answer ran out "
            "of tokens, raise max_tokens)",
            call=call,
        )


def sent_arguments(arguments: Any) -> Any:
    """A call's arguments as they go back in a history: a mapping, or a JSON object's text,
    as the object; any other text as the model wrote it, never repaired (each protocol sends
    such a text as it can, as ChatSSE sends an invalid call's: chat completions and Responses
    as given, Anthropic and Gemini as no arguments); nothing as no arguments."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return arguments
    return parsed if isinstance(parsed, dict) else arguments


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict: a JSON object, or as much of one as has arrived."""
    if isinstance(arguments, dict):
        return arguments
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        parsed = parse_partial_json(arguments)
    except (ValueError, TypeError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def streaming_program(
    llm: LLM, output_cls: type[Model], prompt: BasePromptTemplate
) -> BasePydanticProgram[Model]:
    """The program that streams ``output_cls`` for ``stream_structured_predict`` (and a
    structured LLM's ``stream_chat``).

    LlamaIndex's function-calling program asks for its one tool as ``required`` when called
    whole, but its ``stream_call`` drops ``tool_required`` and sends ``auto``: a model free to
    answer in text then streams no arguments, and every object is empty. Naming ``required``
    as the program's ``tool_choice`` (which ``stream_call`` does send) makes a streamed
    structured answer the same tool call as a whole one. Other program modes are LlamaIndex's.
    """
    from llama_index.core.program.function_program import FunctionCallingProgram
    from llama_index.core.program.utils import get_program_for_llm
    from llama_index.core.types import PydanticProgramMode

    mode = llm.pydantic_program_mode
    if mode != PydanticProgramMode.DEFAULT or not llm.metadata.is_function_calling_model:
        return get_program_for_llm(output_cls, prompt, llm, pydantic_program_mode=mode)
    return FunctionCallingProgram.from_defaults(
        output_cls=output_cls, llm=llm, prompt=prompt, tool_choice="required"
    )
