"""OpenAI's documented request rules, applied by the core to every chat-completions body
before it is sent (the emulator refuses the same requests: tests/emulator/test_chat_rules.py)."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core import ConfigurationError
from sse_core.protocols.chat_completions import EFFORTS, chat_body, reasoning_model

ASK = [{"role": "user", "content": "hi"}]
CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def body(extra_body: dict[str, Any] | None = None, **payload: Any) -> dict[str, Any]:
    return chat_body(
        {"model": "gpt-4o", "messages": ASK, **payload},
        extra_body,
        streaming=True,
        include_usage=False,
    )


@pytest.mark.parametrize("effort", EFFORTS)
def test_every_documented_effort_is_sent(effort: str) -> None:
    assert body(model="gpt-5", reasoning_effort=effort)["reasoning_effort"] == effort


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4.1-mini", "openai/gpt-4o", "gpt-5-chat-latest"])
def test_an_effort_for_a_model_that_does_not_reason_is_not_sent(model: str) -> None:
    """The API refuses it ("Unrecognized request argument supplied: reasoning_effort",
    coroot/coroot#698): not sent, with a warning; in extra_body, sent as given."""
    with pytest.warns(UserWarning, match=f"reasoning_effort 'low' is not sent: {model}"):
        assert "reasoning_effort" not in body(model=model, reasoning_effort="low")
    assert body({"reasoning_effort": "low"}, model=model)["reasoning_effort"] == "low"
    assert body(model="emulator", reasoning_effort="low")["reasoning_effort"] == "low"


def test_an_unknown_effort_is_refused_by_name_unless_given_as_extra_body() -> None:
    with pytest.raises(ConfigurationError, match=r"reasoning_effort must be one of .* 'maximum'"):
        body(reasoning_effort="maximum")
    assert body({"reasoning_effort": "maximum"})["reasoning_effort"] == "maximum"


@pytest.mark.parametrize(
    ("model", "reasoning"),
    [("o1", True), ("o3-mini", True), ("o4-mini-2025-04-16", True), ("gpt-5", True),
     ("openai/gpt-5-mini", True), ("gpt-5.1", True), ("gpt-4o", False), ("gpt-4.1", False),
     ("qwen3-o1-like", False), ("gpt-50", False)],
)  # fmt: skip
def test_max_tokens_goes_as_max_completion_tokens_to_reasoning_models(
    model: str, reasoning: bool
) -> None:
    assert reasoning_model(model) is reasoning
    sent = body(model=model, max_tokens=100)
    assert sent.get("max_completion_tokens" if reasoning else "max_tokens") == 100
    assert ("max_tokens" in sent) is not reasoning


def test_max_tokens_given_as_extra_body_is_sent_as_given() -> None:
    assert body({"max_tokens": 5}, model="o3")["max_tokens"] == 5


def test_a_tool_message_must_answer_a_call_of_the_assistant_message_before_it() -> None:
    loop = [*ASK, {"role": "assistant", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "1"}]  # fmt: skip
    assert body(messages=loop)["messages"] == loop
    with pytest.raises(ConfigurationError, match=r"messages\[1\] is a tool result for call 'x'"):
        body(messages=[*ASK, {"role": "tool", "tool_call_id": "x", "content": "1"}])
    wrong = [*loop[:2], {"role": "tool", "tool_call_id": "call_2", "content": "1"}]
    with pytest.raises(ConfigurationError, match="call 'call_2'"):
        body(messages=wrong)
    late = [*loop, {"role": "user", "content": "and?"}, loop[2]]
    with pytest.raises(ConfigurationError, match=r"messages\[4\]"):
        body(messages=late)


def test_stream_options_go_only_with_a_stream() -> None:
    whole = chat_body(
        {"model": "m", "messages": ASK, "stream_options": {"include_usage": True}},
        None,
        streaming=False,
        include_usage=True,
    )
    assert "stream_options" not in whole
