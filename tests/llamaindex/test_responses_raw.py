"""On OpenAI's Responses API, SSELLM's ``ChatResponse.raw`` is the API's response object, as
llama-index's ``OpenAIResponses`` gives it: output items, status, usage in the API's names."""

from __future__ import annotations

import asyncio

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.tools import FunctionTool

from llamaindex_sse import SSELLM
from sse_emulator import Emulator

REASON = {"reasoning": {"effort": "low", "summary": "auto"}}
CHAT_KEYS = {"prompt_tokens", "completion_tokens", "prompt_tokens_details"}


def _llm(emulator: Emulator, **fields: object) -> SSELLM:
    return SSELLM(model="gpt-5-mini", base_url=emulator.base_url("responses"), api_key="sk-x",
                  protocol="responses", max_retries=0, **fields)  # type: ignore[arg-type]  # fmt: skip


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


def test_a_whole_answers_raw_is_the_response_object(emulator: Emulator) -> None:
    llm = _llm(emulator, additional_kwargs=REASON)
    response = llm.chat_with_tools(
        [FunctionTool.from_defaults(get_weather)], user_msg="What is the weather in Paris?"
    )
    llm.close()
    raw = response.raw
    assert raw is not None and raw["object"] == "response" and raw["status"] == "completed"
    kinds = [item["type"] for item in raw["output"]]
    assert kinds[0] == "reasoning" and "function_call" in kinds
    reasoning = raw["output"][0]
    assert reasoning["id"] and reasoning["encrypted_content"]
    (call,) = [item for item in raw["output"] if item["type"] == "function_call"]
    assert call["name"] == "get_weather" and call["arguments"] == '{"city":"Paris"}'
    usage = raw["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens_details"]["reasoning_tokens"] > 0
    assert not CHAT_KEYS & set(usage)


def test_a_cut_answer_says_incomplete(emulator: Emulator) -> None:
    llm = _llm(emulator, max_tokens=16)
    response = llm.chat([ChatMessage(role="user", content="count to 200")])
    llm.close()
    assert response.raw is not None and response.raw["status"] == "incomplete"
    assert response.raw["incomplete_details"] == {"reason": "max_output_tokens"}


def test_streamed_raws_are_the_response_so_far(emulator: Emulator) -> None:
    llm = _llm(emulator)

    async def streamed() -> list[object]:
        gen = await llm.astream_chat([ChatMessage(role="user", content="count to 5")])
        return [response.raw async for response in gen]

    raws = asyncio.run(streamed())
    llm.close()
    last = raws[-1]
    assert isinstance(last, dict) and last["object"] == "response"
    assert last["status"] == "completed" and last["usage"]["output_tokens"] > 0
    assert not CHAT_KEYS & set(last["usage"])
    assert all("choices" not in raw for raw in raws if isinstance(raw, dict))
