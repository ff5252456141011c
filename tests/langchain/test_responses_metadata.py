"""On OpenAI's Responses API, ChatSSE's ``response_metadata`` says how the answer ended in the
API's own words, as ChatOpenAI(use_responses_api=True) does: ``id``, ``status`` and
``incomplete_details``, beside the shared ``finish_reason`` and the raw ``stop_reason``."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_sse import ChatSSE
from sse_emulator import Emulator

ENDED = ("id", "status", "incomplete_details", "finish_reason", "stop_reason")


def _ended(message: AIMessage) -> dict[str, Any]:
    return {key: message.response_metadata.get(key) for key in ENDED}


def _answer(model: ChatSSE, prompt: str, stream: bool) -> AIMessage:
    if not stream:
        return model.invoke(prompt)
    chunks = list(model.stream(prompt))
    whole = chunks[0] + chunks[1:]
    assert isinstance(whole, AIMessageChunk)
    return whole


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
def test_a_completed_and_an_incomplete_answer(emulator: Emulator, stream: bool) -> None:
    base = emulator.base_url("responses")
    model = ChatSSE(model="gpt-5-mini", base_url=base, api_key="k", protocol="responses")
    done = _ended(_answer(model, "hi", stream))
    assert str(done.pop("id")).startswith("resp_")
    assert done == {"status": "completed", "incomplete_details": None,
                    "finish_reason": "stop", "stop_reason": "completed"}  # fmt: skip
    cut = model.model_copy(update={"max_tokens": 16})
    ended = _ended(_answer(cut, "count to 200", stream))
    assert ended["status"] == "incomplete" and ended["finish_reason"] == "length"
    assert ended["incomplete_details"] == {"reason": "max_output_tokens"}
    model.close()


def test_other_protocols_have_no_status(emulator: Emulator) -> None:
    model = ChatSSE(model="m", base_url=emulator.base_url(), api_key="k")
    assert "status" not in model.invoke("hi").response_metadata
    model.close()
