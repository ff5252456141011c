"""On Anthropic Messages, ``ChatResponse.raw`` is the protocol's own message, as llama-index's
``Anthropic`` LLM gives it: content blocks, stop reason and the usage in Anthropic's names,
with no OpenAI keys mixed in (chat completions keeps its chunk shape)."""

from __future__ import annotations

import asyncio
import json

from llama_index.core.base.llms.types import ChatMessage

from llamaindex_sse import SSELLM
from sse_emulator import Emulator

THINK = {"type": "enabled", "budget_tokens": 1024}
OPENAI_KEYS = {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details"}


def _llm(emulator: Emulator, **fields: object) -> SSELLM:
    return SSELLM(model="claude-emulated", base_url=emulator.base_url("anthropic"),
                  api_key="sk-ant-x", protocol="anthropic", max_retries=0, **fields)  # type: ignore[arg-type]  # fmt: skip


def test_a_whole_answers_raw_is_the_messages_api_message(emulator: Emulator) -> None:
    llm = _llm(emulator, thinking_dict=THINK)
    response = llm.chat([ChatMessage(role="user", content="What is 2+2?")])
    llm.close()
    raw = response.raw
    assert raw is not None
    assert raw["type"] == "message" and raw["role"] == "assistant"
    kinds = [block["type"] for block in raw["content"]]
    assert kinds[0] == "thinking" and "text" in kinds
    thinking = raw["content"][0]
    assert thinking["signature"] and thinking["thinking"]
    assert raw["stop_reason"] == "end_turn"
    usage = raw["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert not OPENAI_KEYS & set(usage)
    sent = emulator.last_request
    assert sent is not None and sent.status == 200


def test_tool_use_blocks_carry_their_input(emulator: Emulator) -> None:
    from llama_index.core.tools import FunctionTool

    def get_weather(city: str) -> str:
        """Get the weather for a city."""
        return city

    llm = _llm(emulator)
    tool = FunctionTool.from_defaults(get_weather)
    response = llm.chat_with_tools([tool], user_msg="What is the weather in Paris?")
    llm.close()
    assert response.raw is not None
    (use,) = [b for b in response.raw["content"] if b["type"] == "tool_use"]
    assert use["name"] == "get_weather" and use["input"] == {"city": "Paris"}
    assert response.raw["stop_reason"] == "tool_use"
    json.dumps(response.raw)  # plain JSON, as the API's message is


def test_streamed_raws_are_the_message_so_far_in_anthropics_names(emulator: Emulator) -> None:
    llm = _llm(emulator)

    async def streamed() -> list[object]:
        gen = await llm.astream_chat([ChatMessage(role="user", content="count to 5")])
        return [response.raw async for response in gen]

    raws = asyncio.run(streamed())
    llm.close()
    last = raws[-1]
    assert isinstance(last, dict) and last["type"] == "message"
    assert last["stop_reason"] == "end_turn" and last["usage"]["output_tokens"] > 0
    assert not OPENAI_KEYS & set(last["usage"])
    assert all("choices" not in raw for raw in raws if isinstance(raw, dict))
