"""OpenAI's documented rules on a Responses request's ``input`` items (R13-R16, R19 of
docs/emulator.md's table), worded as the API words them: calls and their outputs, reasoning
items sent back, and what must follow a reasoning item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sse_emulator.assistant.conversations import ResponseStore, StoredResponse
from sse_emulator.assistant.responses import input_call_ids
from sse_emulator.assistant.sealing import shown, unseal

__all__ = ["Refusal", "check_input_items"]

#: The items a model outputs, one of which follows a reasoning item it output (its answer, a
#: call); an input of the user's (a message of another role, a tool's output) never does.
OUTPUT_ITEMS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "tool_search_call",
    }
)


@dataclass(frozen=True, slots=True)
class Refusal:
    """What the API answers a request that breaks a rule.

    Attributes:
        message: The error's ``message``.
        param: The error's ``param`` (the field at fault).
        code: The error's ``code``.
        status: The HTTP status.
    """

    message: str
    param: str | None = None
    code: str | None = None
    status: int = 400


def check_input_items(
    body: dict[str, Any], history: StoredResponse | None, store: ResponseStore
) -> Refusal | None:
    """The first rule the ``input`` items break, or None.

    Args:
        body: The decoded JSON object.
        history: The stored response ``previous_response_id`` continues, if any.
        store: The stored responses (items sent by id).
    """
    return (
        _check_outputs(body, history)
        or _check_calls(body)
        or _check_reasoning_items(body, store)
        or _check_reasoning_followed(body)
    )


def _check_reasoning_followed(body: dict[str, Any]) -> Refusal | None:
    """A reasoning item is followed by what the model output after it: its message or a call
    (R19; the API's answer quoted in continuedev/continue#8933)."""
    items = _items(body)
    for at, item in enumerate(items):
        if item.get("type") != "reasoning":
            continue
        after = items[at + 1] if at + 1 < len(items) else {}
        kind = after.get("type", "message" if "role" in after else None)
        if kind in OUTPUT_ITEMS or kind == "reasoning":
            continue
        if kind == "message" and after.get("role") == "assistant":
            continue
        return Refusal(
            f"Item '{item.get('id')}' of type 'reasoning' was provided without its required "
            "following item.",
            "input",
        )
    return None


def _items(body: dict[str, Any]) -> list[dict[str, Any]]:
    items = body.get("input")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _check_outputs(body: dict[str, Any], history: StoredResponse | None) -> Refusal | None:
    """Every ``function_call_output`` answers a ``function_call`` of the conversation."""
    asked = input_call_ids(body) | (set(history.call_ids) if history else set())
    for item in _items(body):
        if item.get("type") == "function_call_output" and item.get("call_id") not in asked:
            return Refusal(
                f"No tool call found for function call output with call_id {item.get('call_id')}.",
                "input",
            )
    return None


def _check_calls(body: dict[str, Any]) -> Refusal | None:
    """Every ``function_call`` in ``input`` is answered by a later ``function_call_output``."""
    items = _items(body)
    for i, item in enumerate(items):
        if item.get("type") != "function_call":
            continue
        later = items[i + 1 :]
        if not any(
            o.get("type") == "function_call_output" and o.get("call_id") == item.get("call_id")
            for o in later
        ):
            return Refusal(
                f"No tool output found for function call {item.get('call_id')}.", "input"
            )
    return None


def _check_reasoning_items(body: dict[str, Any], store: ResponseStore) -> Refusal | None:
    """A reasoning item sent back verifies (its ``encrypted_content``) or was stored."""
    for item in _items(body):
        if item.get("type") != "reasoning":
            continue
        content = item.get("encrypted_content")
        if content is not None:
            if unseal(content) is None:
                return Refusal(
                    f"The encrypted content {shown(str(content))} could not be verified.",
                    None,
                    "invalid_encrypted_content",
                )
        elif not store.has_item(item.get("id")):
            return Refusal(
                f"Item with id '{item.get('id')}' not found. Items are not persisted when "
                "`store` is set to false. Try again with `store` set to true, or remove this "
                "item from your input.",
                "input",
                status=404,
            )
    return None
