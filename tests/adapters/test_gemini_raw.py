"""SSELLM's ``raw`` on Gemini is the API's own ``GenerateContentResponse``, built in the core
(``sse_core.protocols.gemini.response_object``), whole and while it streams."""

from __future__ import annotations

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from llamaindex_sse import SSELLM
from sse_emulator import Emulator


def test_sse_llm_raw_on_gemini_is_the_generate_content_response(emulator: Emulator) -> None:
    llm = SSELLM(model="gemini-3-pro-preview", protocol="gemini", api_key="k",
                 base_url=emulator.base_url("gemini"), max_retries=0)  # fmt: skip
    ask = [ChatMessage(role=MessageRole.USER, content="hello")]
    whole = llm.chat(ask)
    assert whole.raw["candidates"][0]["content"]["parts"][-1]["text"] == whole.message.content
    assert whole.raw["candidates"][0]["finishReason"] == "STOP"
    *_, last = llm.stream_chat(ask)
    texts = [p.get("text", "") for p in last.raw["candidates"][0]["content"]["parts"]]
    assert last.message.content in texts
