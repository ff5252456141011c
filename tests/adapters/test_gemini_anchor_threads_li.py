"""A thread llama-index's GoogleGenAI began goes on through SSELLM(protocol="gemini"): its
thought signatures, which it keeps apart from its blocks (``additional_kwargs
["thought_signatures"]``, one per block, bytes), go back on their parts, so Gemini 3 takes the
tool loop (the emulator refuses a call turn without its signature, as the API does)."""

from __future__ import annotations

import base64

from google.genai import types
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.tools import FunctionTool
from llama_index.llms.google_genai import GoogleGenAI

from llamaindex_sse import SSELLM
from sse_emulator import Emulator

MODEL = "gemini-3-pro-preview"


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


def test_a_tool_loop_googlegenai_began_is_continued_by_ssellm(emulator: Emulator) -> None:
    tool = FunctionTool.from_defaults(get_weather)
    options = types.HttpOptions(base_url=emulator.base_url("gemini"))
    anchor = GoogleGenAI(model=MODEL, api_key="k", max_retries=0, context_window=100_000,
                         max_tokens=1024, http_options=options)  # fmt: skip
    response = anchor.chat_with_tools([tool], user_msg="weather in Paris?")
    (call,) = anchor.get_tool_calls_from_response(response)
    signatures = [s for s in response.message.additional_kwargs["thought_signatures"] if s]
    assert signatures  # Gemini 3 signs the call
    ours = SSELLM(model=MODEL, protocol="gemini", api_key="k", max_retries=0,
                  base_url=emulator.base_url("gemini"))  # fmt: skip
    thread = [
        ChatMessage(role=MessageRole.USER, content="weather in Paris?"),
        response.message,
        ChatMessage(role=MessageRole.TOOL, content="sunny",
                    additional_kwargs={"tool_call_id": call.tool_id, "name": call.tool_name}),
    ]  # fmt: skip
    answer = ours.chat_with_tools([tool], chat_history=thread)
    assert answer.message.content
    sent = emulator.requests[-1].json()
    calls = [p for c in sent["contents"] for p in c["parts"] if "functionCall" in p]
    expected = [base64.b64encode(s).decode() if isinstance(s, bytes) else s for s in signatures]
    assert [p["thoughtSignature"] for p in calls] == expected
