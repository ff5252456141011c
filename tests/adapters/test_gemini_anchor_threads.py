"""A thread ChatGoogleGenerativeAI began goes on through ChatSSE(protocol="gemini"): its thought
signatures, which it keeps apart from their parts (a call's in ``additional_kwargs``, a
signed text's in the block's ``extras``), go back on their parts, so Gemini 3 takes the tool
loop (the emulator refuses a call turn without its signature, as the API does)."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_google_genai import ChatGoogleGenerativeAI

from langchain_sse import ChatSSE
from sse_emulator import Emulator

MODEL = "gemini-3-pro-preview"


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


def _anchor(emulator: Emulator) -> ChatGoogleGenerativeAI:
    return ChatGoogleGenerativeAI(model=MODEL, google_api_key="k",
                                  base_url=emulator.base_url("gemini"), max_retries=1)  # fmt: skip


def test_a_tool_loop_chatgooglegenerativeai_began_is_continued_by_chatsse(
    emulator: Emulator,
) -> None:
    call = _anchor(emulator).bind_tools([get_weather]).invoke("weather in Paris?")
    assert isinstance(call, AIMessage) and call.tool_calls
    signatures = call.additional_kwargs["__gemini_function_call_thought_signatures__"]
    ours = ChatSSE(model=MODEL, protocol="gemini", api_key="k", max_retries=0,
                   base_url=emulator.base_url("gemini"))  # fmt: skip
    thread = [
        HumanMessage("weather in Paris?"),
        call,
        ToolMessage("sunny", tool_call_id=call.tool_calls[0]["id"]),
    ]
    answer = ours.bind_tools([get_weather]).invoke(thread)
    assert answer.text
    sent = emulator.requests[-1].json()
    calls = [p for c in sent["contents"] for p in c["parts"] if "functionCall" in p]
    assert [p["thoughtSignature"] for p in calls] == list(signatures.values())


def test_a_signed_text_chatgooglegenerativeai_answered_goes_back_on_its_text(
    emulator: Emulator,
) -> None:
    answer = _anchor(emulator).invoke("hello")
    signed = [b for b in answer.content if isinstance(b, dict) and b.get("extras")]
    assert signed  # Gemini 3 signs the last text part
    ours = ChatSSE(model=MODEL, protocol="gemini", api_key="k", max_retries=0,
                   base_url=emulator.base_url("gemini"))  # fmt: skip
    ours.invoke([HumanMessage("hello"), answer, HumanMessage("and then?")])
    sent = json.dumps(emulator.requests[-1].json())
    assert signed[0]["extras"]["signature"] in sent
