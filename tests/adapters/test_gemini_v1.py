"""ChatSSE's v1 content on Gemini keeps a signed part's item (its thought signature) in the
reasoning block's ``extras``, and a thread of v1 messages sends it back byte-exact: the
emulator, as Gemini 3 does, refuses a function-call turn without its signature."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

from langchain_sse import ChatSSE
from sse_emulator import Emulator

MODEL = "gemini-3-pro-preview"


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


def test_a_v1_tool_loop_on_gemini_3_sends_the_signature_back(emulator: Emulator) -> None:
    model = ChatSSE(model=MODEL, protocol="gemini", base_url=emulator.base_url("gemini"),
                    api_key="k", output_version="v1", max_retries=0)  # fmt: skip
    bound = model.bind_tools([get_weather])
    call = bound.invoke("weather in Paris?")
    assert isinstance(call, AIMessage) and call.tool_calls
    items = [
        block["extras"]["item"]
        for block in call.content_blocks
        if block["type"] == "reasoning" and "item" in block.get("extras", {})
    ]
    assert any(item["kind"] == "function_call" for item in items)
    signature = next(i["part"]["thoughtSignature"] for i in items if i["kind"] == "function_call")
    thread = [
        HumanMessage("weather in Paris?"),
        call,
        ToolMessage("sunny", tool_call_id=call.tool_calls[0]["id"]),
    ]
    answer = bound.invoke(thread)
    assert answer.text
    sent = emulator.requests[-1].json()
    parts = [part for content in sent["contents"] for part in content["parts"]]
    assert any(
        "functionCall" in part and part.get("thoughtSignature") == signature for part in parts
    )
