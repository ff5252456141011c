"""A conversation as OpenAILike keeps it, sent again by SSELLM in chat completions through the
core's turns (#37: one request path), to the strict emulator (every request checked against
openai-python's request types, as the API would): the assistant's tool calls as OpenAI SDK
objects in ``additional_kwargs["tool_calls"]``, the tool's result with its ``tool_call_id``
and the tool's ``name``, names and reasoning carried by the core's rules."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, TextBlock, ThinkingBlock
from llama_index.llms.openai.utils import from_openai_message
from openai.types.chat import ChatCompletionMessage

from sse_emulator import Emulator
from tests.llamaindex.li_support import LLMFactory

pytestmark = pytest.mark.timeout(60)

#: The answer that called the tool, as the API gave it and as it must go back.
CALLED: dict[str, Any] = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
        }
    ],
}


def _history() -> list[ChatMessage]:
    """OpenAILike's own messages: its answer (llama-index-llms-openai's from_openai_message)
    and the tool message its agents add."""
    answer = ChatCompletionMessage.model_validate(CALLED)
    called = from_openai_message(answer, modalities=["text"])
    called.blocks.insert(0, ThinkingBlock(content="I should add."))
    return [
        ChatMessage(role="system", content="Add.", additional_kwargs={"name": "ops"}),
        ChatMessage(role="user", content="1 + 2?", additional_kwargs={"name": "ada"}),
        ChatMessage(role="assistant", blocks=[ThinkingBlock(content="old"), TextBlock(text="?")]),
        ChatMessage(role="user", content="Add them."),
        called,
        ChatMessage(
            role="tool", content="3", additional_kwargs={"tool_call_id": "call_1", "name": "add"}
        ),
    ]


@pytest.mark.parametrize("passback", [False, True])
def test_an_openailike_history_goes_to_the_strict_emulator(
    passback: bool, make_llm: LLMFactory, emulator: Emulator
) -> None:
    llm = make_llm(reasoning_passback=passback)
    assert llm.chat(_history()).message.content
    sent = emulator.requests[-1].json()["messages"]
    assert sent[:2] == [
        {"role": "system", "content": "Add.", "name": "ops"},
        {"role": "user", "content": "1 + 2?", "name": "ada"},
    ]
    assert sent[2] == {"role": "assistant", "content": "?"}  # before the last user message
    called = dict(CALLED)
    if passback:  # only after the last user message
        called["reasoning_content"] = "I should add."
    assert sent[4] == called
    assert sent[5] == {"role": "tool", "tool_call_id": "call_1", "content": "3"}
