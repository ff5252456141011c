"""What of an earlier answer the Responses API takes back (the core's history rules,
:mod:`sse_core.protocols.history`, in this API's shape): its input items and content parts, a
reasoning item only with the item that followed it, and nothing of another protocol's it
cannot read (Anthropic's signed thinking, output items it has no item for), each left out
named.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sse_core.protocols.history import reasoning_name, signed
from sse_core.protocols.turns import Part, RawPart, ReasoningPart, Turn

__all__ = ["CONTENT_TYPES", "INPUT_ITEMS", "followed", "taken"]

Item = dict[str, Any]

#: Content part types (a RawPart of one of these joins its message; another is an item).
CONTENT_TYPES = frozenset(
    {"input_text", "input_image", "input_file", "input_audio", "output_text", "refusal"}
)
#: The input item types the API takes (openai-python's ``ResponseInputItemParam``): a block of
#: another type an earlier answer holds (another protocol's output) is left out.
INPUT_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "mcp_call",
        "custom_tool_call",
        "custom_tool_call_output",
        "tool_search_call",
        "tool_search_output",
        "compaction",
        "item_reference",
    }
)
#: What follows a reasoning item the model output: its answer (an assistant message) or an
#: output item (a call); anything else leaves the item without its following one.
_FOLLOWERS = INPUT_ITEMS - {
    "message",
    "function_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
    "custom_tool_call_output",
    "mcp_approval_response",
    "item_reference",
}


def taken(turns: Sequence[Turn], lost: list[str]) -> list[Turn]:
    """An earlier answer as the Responses API takes it back: another protocol's signed
    reasoning (Anthropic's thinking, Gemini's signed parts: no reasoning item) and blocks that
    are no input item nor content part are left out, and named in ``lost``
    (:mod:`sse_core.protocols.history`)."""
    taken: list[Turn] = []
    for turn in turns:
        if turn.role != "assistant":
            taken.append(turn)
            continue
        parts: list[Part] = []
        for part in turn.parts:
            kind = part.block.get("type") if isinstance(part, RawPart) else None
            if isinstance(part, ReasoningPart) and _not_an_item(part):
                lost += [reasoning_name(part)] if signed(part) else []
            elif kind is not None and kind not in INPUT_ITEMS | CONTENT_TYPES:
                lost.append(f"a {kind!r} block, which the Responses API has no item for")
            else:
                parts.append(part)
        taken.append(Turn(role=turn.role, parts=tuple(parts)))
    return taken


def _not_an_item(part: ReasoningPart) -> bool:
    """Reasoning that is no Responses reasoning item: Anthropic's thinking (no item), a Gemini
    signed part (an item of its own type)."""
    return part.item is None or part.item.get("type") != "reasoning"


def followed(items: Sequence[Item], lost: list[str] | None = None) -> list[Item]:
    """``items`` without a reasoning item that nothing the model output follows (an answer
    cut after its reasoning): the API refuses one ("Item 'rs_...' of type 'reasoning' was
    provided without its required following item", continuedev/continue#8933). Each one left
    out is named in ``lost``."""
    kept: list[Item] = []  # from the last: what follows an item is known when it is read
    for item in reversed(items):
        after = kept[-1] if kept else {}
        answer = after.get("type") == "message" and after.get("role") == "assistant"
        if item.get("type") == "reasoning" and not (answer or after.get("type") in _FOLLOWERS):
            if lost is not None:
                lost.append(
                    f"the reasoning item {item.get('id')!r}, without the answer that followed it"
                )
            continue
        kept.append(item)
    return kept[::-1]
