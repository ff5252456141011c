"""The chat's requests in each protocol's words: the first question, the demo tool, and the
request that carries the tool results back.

Chat completions take OpenAI's shapes (``tools`` with ``function``, an assistant message
with ``tool_calls``, then one ``tool`` message per result). Anthropic's Messages API wants
``max_tokens``, tools with ``input_schema``, an assistant turn of content blocks (its
thinking passed back with its signature, byte-exact, as the API requires for a tool loop),
and one user turn of ``tool_result`` blocks. The other protocols get their bodies from the
core (:func:`sse_core.protocols.responses.responses_body`,
:func:`sse_core.protocols.gemini.contents_body`, from the core's turns). Responses: ``input``
items, flat tools, ``max_output_tokens``, ``reasoning``, ``store`` false; the tool results go
back after the answer's own items, its reasoning items whole (with their
``encrypted_content``: the stateless loop), its ``function_call`` items with the arguments
as they came. Gemini: ``contents``, the answer's signed parts back with their
``thoughtSignature`` byte-exact, then a user content of ``functionResponse`` parts.

Which builder a protocol uses is the app's table's business (:mod:`sse_chat.protocols`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_core import from_json, to_json

from sse_core import Completion, ReasoningBlock, ToolCall
from sse_core.protocols import gemini, responses
from sse_core.protocols.turns import (
    Part,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "Question",
    "RunTool",
    "anthropic_first",
    "anthropic_next",
    "anthropic_tool",
    "chat_first",
    "chat_next",
    "default_max_tokens",
    "gemini_first",
    "gemini_next",
    "responses_first",
    "responses_next",
    "responses_reasoning",
    "thinking_of",
]

#: Anthropic's API requires ``max_tokens``: the chat's default when --max-tokens is not given
#: (room for a reasoning model's thinking and its answer).
DEFAULT_MAX_TOKENS = 4096

RunTool = Callable[[str, str], Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Question:
    """What the first request asks, in no protocol's words.

    Attributes:
        model: The model to ask.
        prompt: The user's question.
        tool: The demo tool (an OpenAI function tool), or None when not offered.
        max_tokens: The most tokens to generate, or None for the protocol's default.
        thinking: Anthropic's thinking budget, or None.
        effort: A reasoning effort (``low``, ``medium``, ...), or None.
    """

    model: str
    prompt: str
    tool: dict[str, Any] | None = None
    max_tokens: int | None = None
    thinking: int | None = None
    effort: str | None = None


def anthropic_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style function tool as Anthropic's ``{name, description, input_schema}``."""
    spec = tool["function"]
    return {
        "name": spec["name"],
        "description": spec.get("description", ""),
        "input_schema": spec.get("parameters") or {"type": "object", "properties": {}},
    }


def chat_first(question: Question) -> dict[str, Any]:
    """Chat completions: the question, ``max_tokens``, ``reasoning_effort``, the tool."""
    payload: dict[str, Any] = {
        "model": question.model,
        "messages": [{"role": "user", "content": question.prompt}],
    }
    if question.max_tokens is not None:
        payload["max_tokens"] = question.max_tokens
    if question.effort is not None:
        payload["reasoning_effort"] = question.effort
    if question.tool is not None:
        payload["tools"] = [question.tool]
    return payload


def anthropic_first(question: Question) -> dict[str, Any]:
    """Anthropic's Messages API: ``max_tokens`` always, ``thinking`` with a budget when
    asked, the tool with ``input_schema``."""
    payload: dict[str, Any] = {
        "model": question.model,
        "messages": [{"role": "user", "content": question.prompt}],
        "max_tokens": question.max_tokens or default_max_tokens(question.thinking),
    }
    if question.thinking is not None:
        payload["thinking"] = thinking_of(question.thinking)
    if question.tool is not None:
        payload["tools"] = [anthropic_tool(question.tool)]
    return payload


def responses_reasoning(effort: str) -> dict[str, Any]:
    """The Responses API's ``reasoning`` for an effort, with a summary to show (the API
    streams reasoning only as a summary, and only when one is asked for)."""
    return {"effort": effort, "summary": "auto"}


def responses_first(question: Question) -> dict[str, Any]:
    """OpenAI's Responses API: the core's body from one user turn (``store`` false; with
    ``reasoning``, the encrypted reasoning asked for, to send back)."""
    params: dict[str, Any] = {"max_output_tokens": question.max_tokens}
    if question.effort is not None:
        params["reasoning"] = responses_reasoning(question.effort)
    if question.tool is not None:
        params["tools"] = [question.tool]
    ask = Turn(role="user", parts=(TextPart(text=question.prompt),))
    return responses.responses_body(question.model, [ask], params)


def thinking_of(budget: int) -> dict[str, Any]:
    """Anthropic's ``thinking`` setting for a budget of tokens."""
    return {"type": "enabled", "budget_tokens": budget}


def default_max_tokens(thinking: int | None) -> int:
    """``max_tokens`` when none is given: the API wants it above the thinking budget."""
    if thinking is None or thinking < DEFAULT_MAX_TOKENS:
        return DEFAULT_MAX_TOKENS
    return thinking + DEFAULT_MAX_TOKENS


def _result(call: ToolCall, run_tool: RunTool) -> str:
    return to_json(run_tool(call.name or "", call.arguments)).decode()


def chat_next(payload: dict[str, Any], completion: Completion, run_tool: RunTool) -> dict[str, Any]:
    """The request after an answer with tool calls: the answer (its ``tool_calls``) and one
    ``tool`` message per result."""
    calls = completion.tool_calls
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": call.id, "content": _result(call, run_tool)}
        for call in calls
    ]
    return {**payload, "messages": [*payload["messages"], assistant, *results]}


def _thinking(block: ReasoningBlock) -> dict[str, Any]:
    if block.redacted is not None:
        return {"type": "redacted_thinking", "data": block.redacted}
    return {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}


def _input(call: ToolCall) -> dict[str, Any]:
    """The call's input as an object (the API takes no other); ``{}`` for arguments that are
    not one (the tool then says the arguments are bad)."""
    try:
        parsed = from_json(call.arguments or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def anthropic_next(
    payload: dict[str, Any], completion: Completion, run_tool: RunTool
) -> dict[str, Any]:
    """The request after an answer with tool calls: the answer as content blocks (thinking
    first, signed), then one user turn of ``tool_result`` blocks."""
    calls = completion.tool_calls
    blocks = [_thinking(block) for block in completion.reasoning_blocks]
    if completion.content:
        blocks.append({"type": "text", "text": completion.content})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c)} for c in calls]
    results = [
        {"type": "tool_result", "tool_use_id": call.id, "content": _result(call, run_tool)}
        for call in calls
    ]
    turn = [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]
    return {**payload, "messages": [*payload["messages"], *turn]}


def responses_next(
    payload: dict[str, Any], completion: Completion, run_tool: RunTool
) -> dict[str, Any]:
    """The request after an answer with tool calls: the input so far, the answer's items as
    the core's rules send them back (reasoning items whole, text, ``function_call`` items
    with the arguments as they came), then one ``function_call_output`` per result.

    Raises:
        ConfigurationError: A rule of the API broken (checked as for the first request).
    """
    turns = _answer_and_results(completion, run_tool)
    _, items = responses.input_items(
        turns,
        store=bool(payload.get("store")),
        continued=bool(payload.get("previous_response_id")),
    )
    body = {**payload, "input": [*payload["input"], *items]}
    responses.check_request(body)
    return body


def _answer_and_results(completion: Completion, run_tool: RunTool) -> list[Turn]:
    """An answer with tool calls as the core's turns (its reasoning as it came, signed or
    with its item; its text; its calls, the arguments as they came), then one tool turn of
    the results: what a protocol whose body the core makes of turns sends next."""
    calls = completion.tool_calls
    answer: list[Part] = [
        ReasoningPart(text=block.text, signature=block.signature or "", item=block.item)
        for block in completion.reasoning_blocks
    ]
    if completion.content:
        answer.append(TextPart(text=completion.content))
    answer += [ToolUsePart(id=c.id or "", name=c.name or "", input=c.arguments) for c in calls]
    results = tuple(
        ToolResultPart(call_id=call.id or "", content=_result(call, run_tool)) for call in calls
    )
    return [Turn(role="assistant", parts=tuple(answer)), Turn(role="tool", parts=results)]


def gemini_first(question: Question) -> dict[str, Any]:
    """Google's Gemini API: the core's body from one user turn (``maxOutputTokens``,
    ``thinkingConfig`` from the effort, the tool as a function declaration)."""
    params: dict[str, Any] = {"max_tokens": question.max_tokens}
    params["reasoning_effort"] = question.effort
    if question.tool is not None:
        params["tools"] = [question.tool]
    ask = Turn(role="user", parts=(TextPart(text=question.prompt),))
    return gemini.contents_body(question.model, [ask], params)


def gemini_next(
    payload: dict[str, Any], completion: Completion, run_tool: RunTool
) -> dict[str, Any]:
    """The request after an answer with tool calls: the contents so far, the answer as the
    core sends it back (its signed parts with their signatures, byte-exact), then a user
    content of one ``functionResponse`` per result."""
    turns = _answer_and_results(completion, run_tool)
    _, made = gemini.contents(turns, [])
    return {**payload, "contents": [*payload["contents"], *made]}
