"""What of an earlier conversation a request carries: the rules every protocol applies before it
makes its body, so that any history a user holds (an anchor's messages, another protocol's
answers, the partial answer of a cut, cancelled or failed stream) is a request the API accepts.

Written once, here, for every protocol (each protocol's request module applies them to its own
shape and adds what only it refuses):

- **A tool call no tool result answers**, in an assistant turn the conversation goes on after
  (an interrupted answer, then a new question), is left out: every API refuses a call without
  its result (chat completions: "An assistant message with 'tool_calls' must be followed by
  tool messages responding to each 'tool_call_id'", aliasrobotics/cai#111; Messages:
  "`tool_use` ids were found without `tool_result` blocks immediately after"; Responses: "No
  tool output found for function call", Azure/azure-sdk-for-python#46092). A call the
  conversation ends on is the caller's to answer and stays.
- **An assistant text of whitespace alone** is left out (Messages: "text content blocks must
  contain non-whitespace text", anthropics/claude-code#23440; nothing is lost), and a turn
  left with nothing is left out whole.
- **Reasoning** goes back only to the protocol that made it, as it came: Anthropic's thinking
  with its signature (or redacted data) to Messages, Gemini's signed parts
  (``gemini_signed_part`` items, each with its ``thoughtSignature``) to Gemini, a Responses
  reasoning item with its ``encrypted_content`` to Responses, followed by the item that
  followed it (Responses: "Item 'rs_...' of type 'reasoning' was provided without its
  required following item", continuedev/continue#8933). Another protocol's signed or
  encrypted reasoning cannot be verified by the target API and is left out; unsigned
  reasoning (a thinking block cut before its signature, a gateway's plain
  ``reasoning_content``) goes back nowhere.

What is left out that the model had said (a tool call, signed reasoning, an output item another
API does not take) is named in one ``UserWarning`` per request (:func:`warn_left_out`).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence

from sse_core.protocols.turns import (
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)

__all__ = [
    "GEMINI_SIGNED_PART",
    "answered_ids",
    "reasoning_name",
    "settle",
    "signed",
    "warn_left_out",
]

#: The ``type`` of a Gemini thought signature's item (the gemini package's ``SIGNED_PART``:
#: named here too, as this module is imported by every protocol's, the gemini one's included).
GEMINI_SIGNED_PART = "gemini_signed_part"

#: A raw block that answers a tool call, and the key naming the call.
_ANSWERS = {"tool_result": "tool_use_id", "function_call_output": "call_id"}


def answered_ids(turn: Turn) -> set[str]:
    """The ids of the tool calls ``turn`` answers (its tool results, and a raw result block in
    a protocol's own shape)."""
    found: set[str] = set()
    for part in turn.parts:
        if isinstance(part, ToolResultPart):
            found.add(part.call_id)
        elif isinstance(part, RawPart) and part.block.get("type") in _ANSWERS:
            found.add(str(part.block.get(_ANSWERS[str(part.block["type"])])))
    return found


def _answers_after(turns: Sequence[Turn], at: int) -> set[str]:
    """The calls the run of tool turns right after ``turns[at]`` answers."""
    found: set[str] = set()
    for turn in turns[at + 1 :]:
        if turn.role not in ("tool", "user"):
            break
        found |= answered_ids(turn)
        if turn.role == "user":
            break
    return found


def settle(turns: Sequence[Turn]) -> tuple[list[Turn], list[str]]:
    """The turns with what no API takes back left out (see the module's docstring).

    Returns:
        The turns to send, and what was left out that the model had said, each named.
    """
    kept: list[Turn] = []
    lost: list[str] = []
    for at, turn in enumerate(turns):
        if turn.role != "assistant":
            kept.append(turn)
            continue
        last = at == len(turns) - 1
        answered = set() if last else _answers_after(turns, at)
        parts = []
        for part in turn.parts:
            if isinstance(part, TextPart) and not part.text.strip():
                continue
            if isinstance(part, ToolUsePart) and not last and part.id not in answered:
                lost.append(
                    f"the tool call {part.id!r} ({part.name}), which no tool result answers"
                )
                continue
            parts.append(part)
        if parts:
            kept.append(dataclasses.replace(turn, parts=tuple(parts)))
    return kept, lost


def signed(part: ReasoningPart) -> bool:
    """Whether reasoning carries what only its own API verifies: a signature, redacted data,
    a Responses reasoning item's ``encrypted_content``, or a Gemini thought signature (on the
    part its item holds)."""
    gemini = part.item is not None and part.item.get("type") == GEMINI_SIGNED_PART
    return bool(part.signature or part.redacted or gemini)


def reasoning_name(part: ReasoningPart) -> str:
    """Reasoning named for a warning: whose it is, and its id (or place) where it has one."""
    if part.item is not None and part.item.get("type") == GEMINI_SIGNED_PART:
        kind, position = part.item.get("kind"), part.item.get("position")
        return f"Gemini's thought signature on a {kind} part (position {position})"
    if part.item is not None:
        return f"the Responses API's encrypted reasoning item {part.item.get('id')!r}"
    if part.redacted:
        return "Anthropic's redacted thinking"
    return "Anthropic's signed thinking"


def warn_left_out(api: str, lost: Sequence[str], *, stacklevel: int = 3) -> None:
    """Say, in one ``UserWarning``, what of the conversation the ``api`` request leaves out."""
    if lost:
        warnings.warn(
            f"left out of the {api} request, which would refuse it: {'; '.join(lost)} "
            '(the migration guides, "An existing thread")',
            UserWarning,
            stacklevel=stacklevel + 1,
        )
