"""A tool call whose arguments were no JSON object (cut at the token limit, or a JSON value of
another kind), answered by its tool result, goes back the same from ChatSSE and SSELLM on
every protocol, and the strict emulator takes it: as the model wrote it where the API takes a
text (chat completions' and Responses' ``arguments``), as no arguments where it takes only an
object (Anthropic's ``input``, Gemini's ``args``); never repaired into arguments the model did
not write."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock

from sse_emulator import Emulator
from tests.adapters.histories import THE_PROTOCOLS, chatsse, last_body, ssellm

pytestmark = pytest.mark.timeout(60)

#: Arguments cut inside the object, and a JSON value that is no object.
UNREADABLE = ['{"city": "Par', "[1, 2]"]
#: What a protocol that takes only an object sends for them.
OBJECT_ONLY = {"anthropic", "gemini"}
#: Plain models: no signatures asked back of a call made elsewhere.
PLAIN: dict[str, dict[str, Any]] = {
    "anthropic": {"thinking": None},
    "gemini": {"model": "gemini-2.5-flash"},
}
RESULT = "Error: the arguments were unreadable"


def _sent_arguments(protocol: str, body: dict[str, Any]) -> list[Any]:
    """The arguments of each call ``body`` sends, in the protocol's own field."""
    if protocol == "chat_completions":
        calls = [c for m in body["messages"] for c in m.get("tool_calls") or []]
        return [c["function"]["arguments"] for c in calls]
    if protocol == "anthropic":
        blocks = [
            b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
        ]
        return [b["input"] for b in blocks if b.get("type") == "tool_use"]
    if protocol == "gemini":
        parts = [p for content in body["contents"] for p in content["parts"]]
        return [p["functionCall"].get("args") for p in parts if "functionCall" in p]
    items = [i for i in body["input"] if isinstance(i, dict)]
    return [i["arguments"] for i in items if i.get("type") == "function_call"]


def _via_chatsse(emulator: Emulator, protocol: str, arguments: str) -> list[Any]:
    history: list[BaseMessage] = [
        HumanMessage("Weather in Paris?"),
        AIMessage(
            "",
            invalid_tool_calls=[
                {"name": "get_weather", "args": arguments, "id": "call_1", "error": None,
                 "type": "invalid_tool_call"}
            ],
        ),
        ToolMessage(RESULT, tool_call_id="call_1", status="error"),
    ]  # fmt: skip
    model = chatsse(emulator, protocol, **PLAIN.get(protocol, {}))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing of the history is left out
            model.invoke(history)
    finally:
        model.close()
    return _sent_arguments(protocol, last_body(emulator))


def _via_ssellm(emulator: Emulator, protocol: str, arguments: str, legacy: bool) -> list[Any]:
    if legacy:  # the call kept in additional_kwargs, OpenAI's shape
        call = {"id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": arguments}}  # fmt: skip
        asked = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [call]})
    else:
        block = ToolCallBlock(tool_call_id="call_1", tool_name="get_weather", tool_kwargs=arguments)
        asked = ChatMessage(role="assistant", blocks=[block])
    history = [
        ChatMessage(role="user", content="Weather in Paris?"),
        asked,
        ChatMessage(role="tool", content=RESULT, additional_kwargs={"tool_call_id": "call_1"}),
    ]
    llm = ssellm(emulator, protocol, **PLAIN.get(protocol, {}))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            llm.chat(history)
    finally:
        llm.close()
    return _sent_arguments(protocol, last_body(emulator))


@pytest.mark.parametrize("arguments", UNREADABLE)
@pytest.mark.parametrize("protocol", THE_PROTOCOLS)
def test_an_unreadable_call_goes_back_as_written_from_both_adapters(
    emulator: Emulator, protocol: str, arguments: str
) -> None:
    expected: list[Any] = [{}] if protocol in OBJECT_ONLY else [arguments]
    assert _via_chatsse(emulator, protocol, arguments) == expected
    assert _via_ssellm(emulator, protocol, arguments, legacy=False) == expected
    assert _via_ssellm(emulator, protocol, arguments, legacy=True) == expected


@pytest.mark.parametrize("protocol", THE_PROTOCOLS)
def test_a_readable_call_goes_back_as_its_object(emulator: Emulator, protocol: str) -> None:
    (sent,) = _via_ssellm(emulator, protocol, '{"city": "Paris"}', legacy=False)
    assert (sent if protocol in OBJECT_ONLY else json.loads(sent)) == {"city": "Paris"}
