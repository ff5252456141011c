"""The two ChatOpenAI histories issue 35 found broken on ``protocol="responses"``, sent as the
API takes them (the strict emulator answers): a text block with ``id`` and ``annotations`` is
an assistant message's text (not a bare ``{"type": "text"}`` input item), and a
``function_call`` block beside ``tool_calls`` (``output_version="responses/v1"``) is one call."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from sse_emulator import Emulator
from tests.adapters.histories import chatsse, last_body


def _sent(emulator: Emulator, history: list[Any]) -> list[dict[str, Any]]:
    chatsse(emulator, "responses").invoke([*history, HumanMessage("And now?")])
    items: list[dict[str, Any]] = last_body(emulator)["input"]
    return items


def test_a_text_block_with_id_and_annotations_is_the_answers_text(emulator: Emulator) -> None:
    said = AIMessage(
        content=[{"type": "text", "text": "Hello there", "annotations": [], "id": "msg_1"}]
    )
    items = _sent(emulator, [HumanMessage("Hi"), said])
    assert [item.get("type") for item in items] == ["message", "message", "message"]
    assert items[1] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hello there", "annotations": []}],
    }


def test_a_function_call_block_and_its_tool_call_go_once(emulator: Emulator) -> None:
    block = {
        "type": "function_call",
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
        "call_id": "call_1",
        "id": "fc_1",
        "status": "completed",
    }
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}
    asked = AIMessage(content=[block], tool_calls=[call])
    history = [HumanMessage("Weather?"), asked, ToolMessage("Sunny", tool_call_id="call_1")]
    items = _sent(emulator, history)
    calls = [item for item in items if item.get("type") == "function_call"]
    assert calls == [
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
        }
    ]
