"""The chat's requests: the first question, the demo tool, and the request that carries the
tool results back, in any protocol, from the core's turns.

The conversation is kept as the core's neutral turns (:mod:`sse_core.protocols.turns`), and
every request is the protocol's own body made of them by the core
(:attr:`~sse_core.protocols.WireProtocol.turns_body`), with the protocol's rules: after an
answer with tool calls, the answer as it came (its reasoning signed or whole, as its API
requires it back, byte-exact; its text; its calls, the arguments as they came) and one tool
turn of the results. So the chat's tool loop is the one both adapters send, in every
protocol, and a protocol registered in the core needs no code here.

What the app's table says of a protocol (:mod:`sse_chat.protocols`) is only how the chat's
options read in it: the reasoning effort's fields, and Anthropic's ``max_tokens`` default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_core import from_json, to_json

from sse_core import Completion, ConfigurationError, ToolCall
from sse_core.protocols import wire_protocol
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
    "Conversation",
    "Question",
    "RunTool",
    "answer_and_results",
    "default_max_tokens",
    "first_body",
    "first_turns",
    "question_params",
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
    """

    model: str
    prompt: str
    tool: dict[str, Any] | None = None
    max_tokens: int | None = None
    thinking: int | None = None


def first_turns(question: Question) -> list[Turn]:
    """The conversation of the first request: the question."""
    return [Turn(role="user", parts=(TextPart(text=question.prompt),))]


def question_params(question: Question, effort: dict[str, Any] | None) -> dict[str, Any]:
    """The request's settings, by the core's common names (``max_tokens``, ``thinking``,
    ``tools``) and ``effort``: the protocol's fields for the reasoning effort."""
    params: dict[str, Any] = {"max_tokens": question.max_tokens, **(effort or {})}
    if question.thinking is not None:
        params["thinking"] = thinking_of(question.thinking)
    if question.tool is not None:
        params["tools"] = [question.tool]
    return params


@dataclass(slots=True)
class Conversation:
    """The chat's conversation in one protocol: its turns and settings, made into each
    request's body by the core."""

    protocol: str
    model: str
    params: dict[str, Any]
    turns: list[Turn]

    def body(self) -> dict[str, Any]:
        """The request of the conversation so far.

        Raises:
            ConfigurationError: A rule of the API broken, or a protocol that makes no body
                of turns.
        """
        made = wire_protocol(self.protocol).turns_body
        if made is None:
            raise ConfigurationError(f"protocol {self.protocol!r} makes no request of turns")
        return made(self.model, self.turns, self.params)

    def after(self, completion: Completion, run_tool: RunTool) -> dict[str, Any]:
        """The request after an answer with tool calls: the answer and the tools' results
        added to the conversation."""
        self.turns += answer_and_results(completion, run_tool)
        return self.body()


def first_body(
    protocol: str, question: Question, effort: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The first request of ``question`` in ``protocol`` (``effort``: its effort fields)."""
    params = question_params(question, effort)
    return Conversation(protocol, question.model, params, first_turns(question)).body()


def responses_reasoning(effort: str) -> dict[str, Any]:
    """The Responses API's ``reasoning`` for an effort, with a summary to show (the API
    streams reasoning only as a summary, and only when one is asked for)."""
    return {"effort": effort, "summary": "auto"}


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


def _input(call: ToolCall) -> Any:
    """The call's arguments as a JSON value; a text that is no JSON as it came."""
    try:
        return from_json(call.arguments or "{}")
    except ValueError:
        return call.arguments


def answer_and_results(completion: Completion, run_tool: RunTool) -> list[Turn]:
    """An answer with tool calls as the core's turns (its reasoning as it came, signed or
    with its item; its text; its calls, the arguments as they came), then one tool turn of
    the results: what a protocol whose body the core makes of turns sends next."""
    calls = completion.tool_calls
    answer: list[Part] = [
        ReasoningPart(
            text=block.text,
            signature=block.signature or "",
            redacted=block.redacted or "",
            item=block.item,
        )
        for block in completion.reasoning_blocks
    ]
    if completion.content:
        answer.append(TextPart(text=completion.content))
    answer += [ToolUsePart(id=c.id or "", name=c.name or "", input=_input(c)) for c in calls]
    results = tuple(
        ToolResultPart(call_id=call.id or "", content=_result(call, run_tool)) for call in calls
    )
    return [Turn(role="assistant", parts=tuple(answer)), Turn(role="tool", parts=results)]
