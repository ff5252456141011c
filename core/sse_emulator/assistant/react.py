"""ReAct: answer in the Thought / Action / Action Input format a ReAct prompt asks for.

A ReAct agent (LlamaIndex's ``ReActAgent``, for one) describes its tools in the system
prompt as text and asks for this format instead of sending ``tools``::

    Thought: ... I need to use a tool to help me answer the question.
    Action: <tool name>
    Action Input: {"city": "Paris"}

It runs the tool and sends the result back as a message ``Observation: <result>``;
the answer then ends the loop::

    Thought: I can answer without using any more tools. ...
    Answer: <answer>

A prompt is taken for a ReAct prompt when it describes that format (``Thought:``,
``Action:`` and ``Action Input:``) and lists tools: LlamaIndex's ``> Tool Name:`` /
``Tool Description:`` / ``Tool Args: {json schema}`` blocks, or at least the names in
"one of ..." on the ``Action:`` line. Tools are chosen and their arguments filled as for
function tools (:mod:`.tools`); the calls go out one per turn, in order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sse_emulator.assistant.extract import STOP_WORDS
from sse_emulator.assistant.reply import PlannedCall
from sse_emulator.assistant.tokens import content_text
from sse_emulator.assistant.tools import plan_tool_calls

ACT_THOUGHT = (
    "Thought: The current language of the user is: English. "
    "I need to use a tool to help me answer the question."
)
ANSWER_THOUGHT = (
    "Thought: I can answer without using any more tools. I'll use the user's language to answer"
)
_FORMAT_MARKERS = (re.compile(r"^\s*Thought:", re.M), re.compile(r"^\s*Action:", re.M))
_ACTION_INPUT = re.compile(r"^\s*Action Input:", re.M)
_TOOL_BLOCK = re.compile(
    r"^> Tool Name: *(?P<name>[^\n]+?) *\nTool Description: *(?P<description>.*?)\nTool Args: *",
    re.M | re.S,
)
_ONE_OF = re.compile(r"^\s*Action:[^\n]*?\bone of\s*[\[(]?(?P<names>[^\])\n]+)", re.M)
_OBSERVATION = re.compile(r"^\s*Observation:\s?", re.S)
_ACTION = re.compile(r"^\s*Action:\s*(?P<name>[^\s(]+)", re.M)
_WORD = re.compile(r"[a-z]{4,}")
# An action line, or an observation up to the next step line.
_PAD_LINE = re.compile(
    r"^(?P<kind>Action|Observation):[ \t]*(?P<text>.*?)"
    r"(?=\n(?:Thought|Action|Observation|Final Answer)[ \w]*:|\Z)",
    re.M | re.S,
)
_QUESTION = re.compile(r"^Question:[ \t]*(\S[^\n]*)$", re.M)


#: One step of a ReAct conversation: ``("action" | "observation", tool name, text)``.
Step = tuple[str, str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReactTool:
    """A tool as a ReAct prompt describes it.

    Attributes:
        name: The name the ``Action:`` line takes.
        description: The description text (empty when the prompt gives none).
        schema: The JSON schema of its arguments (empty when the prompt gives none).
    """

    name: str
    description: str
    schema: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReactPrompt:
    """A ReAct prompt found in a request.

    Attributes:
        tools: The tools it offers, in the prompt's order.
        final: The keyword of the final answer (``Answer``, or ``Final Answer`` when the
            prompt asks for that).
        start: The index of the message after the one holding the prompt.
        question: The last ``Question:`` line of the prompt itself (a prompt sent as
            the first user message may carry the question), or ``""``.
        scratchpad: The steps written into the prompt after that question (an agent
            that keeps its scratchpad in the prompt), as ``(kind, tool, text)``.
    """

    tools: tuple[ReactTool, ...]
    final: str
    start: int
    question: str = ""
    scratchpad: tuple[Step, ...] = ()


def find_react_prompt(messages: list[Any]) -> ReactPrompt | None:
    """Find ReAct format instructions in the system prompt or, failing that, the first message.

    Args:
        messages: The request's messages.

    Returns:
        The prompt, or ``None`` when the request is not a ReAct conversation.
    """
    index = next((i for i, m in enumerate(messages) if _role(m) == "system"), 0)
    text = content_text(messages[index].get("content")) if messages else ""
    if not (all(marker.search(text) for marker in _FORMAT_MARKERS) and _ACTION_INPUT.search(text)):
        return None
    tools = _tool_blocks(text) or _named_only(text)
    if not tools:
        return None
    final = "Final Answer" if "Final Answer:" in text else "Answer"
    asked = list(_QUESTION.finditer(text))
    if not asked:
        return ReactPrompt(tools=tools, final=final, start=index + 1)
    return ReactPrompt(
        tools=tools,
        final=final,
        start=index + 1,
        question=asked[-1].group(1),
        scratchpad=_scratchpad(text[asked[-1].end() :]),
    )


def _scratchpad(text: str) -> tuple[Step, ...]:
    """The actions and observations written after the prompt's question."""
    steps: list[Step] = []
    tool = "the tool"
    for match in _PAD_LINE.finditer(text):
        if match.group("kind") == "Action":
            tool = match.group("text").split()[0] if match.group("text").split() else tool
            steps.append(("action", tool, match.group(0)))
        else:
            steps.append(("observation", tool, match.group("text").strip()))
    return tuple(steps)


def react_text(
    prompt: ReactPrompt, messages: list[Any], digest: str, answer: Callable[[str], str]
) -> str:
    """The next ReAct step: the next tool call, or the answer.

    Args:
        prompt: The ReAct prompt of the request.
        messages: The request's messages.
        digest: The request digest (for stable call planning).
        answer: The plain answer to a question, used when no tool fits it.

    Returns:
        ``Thought/Action/Action Input`` text while a planned call has not been made,
        else ``Thought/Answer`` text built from the observations.
    """
    question, steps = _conversation(messages[prompt.start :], prompt)
    calls = _plan(prompt, question, digest)
    actions = [step for step in steps if step[0] == "action"]
    if len(actions) < len(calls):
        call = calls[len(actions)]
        return f"{ACT_THOUGHT}\nAction: {call.name}\nAction Input: {call.arguments}"
    observations = [(name, text) for kind, name, text in steps if kind == "observation"]
    if not observations:
        return f"{ANSWER_THOUGHT}\n{prompt.final}: {answer(question)}"
    found = "; ".join(f"{name} returned {text}" for name, text in observations)
    return f"{ANSWER_THOUGHT}\n{prompt.final}: Based on the tool results: {found}."


def react_question(prompt: ReactPrompt, messages: list[Any]) -> str:
    """The question the ReAct conversation is about: the last user message that is not an
    observation."""
    question, _ = _conversation(messages[prompt.start :], prompt)
    return question


def _role(message: Any) -> str:
    return str(message.get("role")) if isinstance(message, dict) else ""


def _tool_blocks(text: str) -> tuple[ReactTool, ...]:
    """LlamaIndex's tool blocks, each with its JSON schema on the ``Tool Args:`` line."""
    tools = []
    for match in _TOOL_BLOCK.finditer(text):
        try:
            schema, _ = json.JSONDecoder().raw_decode(text, match.end())
        except ValueError:
            schema = {}
        tools.append(
            ReactTool(
                name=match.group("name"),
                description=match.group("description").strip(),
                schema=schema if isinstance(schema, dict) else {},
            )
        )
    return tuple(tools)


def _named_only(text: str) -> tuple[ReactTool, ...]:
    """Tool names from "Action: ... one of [a, b]" when the prompt has no tool blocks."""
    match = _ONE_OF.search(text)
    if match is None:
        return ()
    names = [name.strip(" '\"`.") for name in match.group("names").split(",")]
    # "(one of {tool_names}) if using a tool": the names end where the prose starts.
    names = [name.split()[0] for name in names if name.split()]
    return tuple(ReactTool(name=name, description="", schema={}) for name in names)


def _conversation(messages: list[Any], prompt: ReactPrompt) -> tuple[str, list[Step]]:
    """The question (the last user message that is not an observation, else the prompt's
    own), and the steps taken since: ``(kind, tool, text)`` for each action (an assistant
    message with ``Action:``) and each observation."""
    question, steps = prompt.question, list(prompt.scratchpad)
    last_tool = "the tool"
    for message in messages:
        text = content_text(message.get("content")) if isinstance(message, dict) else ""
        role = _role(message)
        action = _ACTION.search(text) if role == "assistant" else None
        if action is not None:
            last_tool = action.group("name")
            steps.append(("action", last_tool, text))
        elif role in ("user", "tool") and _OBSERVATION.match(text):
            steps.append(("observation", last_tool, _OBSERVATION.sub("", text, 1).strip()))
        elif role == "user":
            question, steps = text, []
    return question, steps


def _plan(prompt: ReactPrompt, question: str, digest: str) -> tuple[PlannedCall, ...]:
    """The calls for the question: the tools it names, else the one its words fit best."""
    functions = [_function(tool) for tool in prompt.tools]
    calls = plan_tool_calls({"tools": functions}, question, digest)
    if calls:
        return calls
    fitting = _best_fit(prompt.tools, question)
    if fitting is None:
        return ()
    choice = {"type": "function", "function": {"name": fitting.name}}
    return plan_tool_calls({"tools": functions, "tool_choice": choice}, question, digest)


def _function(tool: ReactTool) -> dict[str, Any]:
    """A ReAct tool as an OpenAI function tool; a tool with no schema takes ``input``."""
    schema = tool.schema or {
        "type": "object",
        "properties": {"input": {"type": "string"}},
        "required": ["input"],
    }
    return {"type": "function", "function": {"name": tool.name, "parameters": schema}}


def _best_fit(tools: tuple[ReactTool, ...], question: str) -> ReactTool | None:
    """The tool whose description shares the most words with the question, if any does."""
    asked = _words(question)
    scored = [(len(asked & _words(tool.description)), tool) for tool in tools]
    best = max((score for score, _ in scored), default=0)
    return next((tool for score, tool in scored if score == best), None) if best else None


def _words(text: str) -> set[str]:
    """Content words (four letters or more, no sentence words), without a plural ``s``."""
    found = _WORD.findall(text.lower())
    return {word.rstrip("s") for word in found if word not in STOP_WORDS}
