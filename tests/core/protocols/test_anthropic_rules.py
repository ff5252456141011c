"""The Messages API's request rules, in the protocol's module and so for both adapters: what
the API refuses is mended as its own clients mend it (with a warning) or refused before it is
sent, never sent (``sse_core.protocols.anthropic``)."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core import ChatClient, ConfigurationError
from sse_core.protocols import anthropic
from sse_core.protocols.turns import (
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)
from tests.raw_server import response, serving

THINK = {"type": "enabled", "budget_tokens": 1024}
ASK = [Turn(role="user", parts=(TextPart(text="hi"),))]
TOOLS = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]


def body(**params: Any) -> dict[str, Any]:
    return anthropic.messages_body("claude", ASK, params)


@pytest.mark.parametrize("thinking", [THINK, {"type": "adaptive"}])
@pytest.mark.parametrize(
    ("choice", "parallel"),
    [("any", None), ("required", None), ("add", None), ("add", False), (True, None)],
)
def test_a_forced_tool_choice_with_thinking_on_is_sent_as_auto_with_a_warning(
    thinking: dict[str, Any], choice: object, parallel: bool | None
) -> None:
    with pytest.warns(UserWarning, match="is sent as 'auto'"):
        sent = body(
            thinking=thinking, tools=TOOLS, tool_choice=choice, parallel_tool_calls=parallel
        )
    expected = {"type": "auto"} | ({"disable_parallel_tool_use": True} if parallel is False else {})
    assert sent["tool_choice"] == expected


@pytest.mark.parametrize("thinking", [None, {"type": "disabled"}])
def test_a_forced_tool_choice_without_thinking_is_sent_as_given(thinking: object) -> None:
    sent = body(thinking=thinking, tools=TOOLS, tool_choice="add")
    assert sent["tool_choice"] == {"type": "tool", "name": "add"}


@pytest.mark.parametrize(
    ("field", "value"), [("temperature", 0.2), ("temperature", 0), ("top_k", 40), ("top_p", 0.9)]
)
def test_sampling_the_api_refuses_with_thinking_is_not_sent(field: str, value: float) -> None:
    with pytest.warns(UserWarning, match=f"{field} {value!r} is not sent"):
        sent = body(thinking=THINK, **{field: value})
    assert field not in sent
    assert field in body(**{field: value})  # without thinking: as given


@pytest.mark.parametrize(("field", "value"), [("temperature", 1), ("top_p", 0.95), ("top_p", 1)])
def test_sampling_the_api_takes_with_thinking_is_sent(field: str, value: float) -> None:
    assert body(thinking=THINK, **{field: value})[field] == value


@pytest.mark.parametrize("budget", [0, 512, 1023, "2048", 2048.0])
def test_a_thinking_budget_below_the_floor_is_refused(budget: object) -> None:
    with pytest.raises(ConfigurationError, match="budget_tokens must be an integer of at least"):
        body(thinking={"type": "enabled", "budget_tokens": budget})


def test_max_tokens_must_be_above_the_budget_and_defaults_above_it() -> None:
    with pytest.raises(ConfigurationError, match=r"max_tokens \(2048\) must be above"):
        body(thinking={"type": "enabled", "budget_tokens": 2048}, max_tokens=2048)
    assert body(thinking={"type": "enabled", "budget_tokens": 2048})["max_tokens"] == 2048 + 1024
    assert body(thinking=THINK, max_tokens=1025)["max_tokens"] == 1025


def _loop(result_id: str) -> list[Turn]:
    call = ToolUsePart(id="toolu_1", name="add", input={"a": 1})
    return [
        *ASK,
        Turn(role="assistant", parts=(call,)),
        Turn(role="tool", parts=(ToolResultPart(call_id=result_id, content="2"),)),
    ]


def test_a_tool_result_must_answer_a_call_of_the_message_before_it() -> None:
    sent = anthropic.messages_body("claude", _loop("toolu_1"), {})
    assert sent["messages"][2]["content"][0]["tool_use_id"] == "toolu_1"
    with pytest.raises(ConfigurationError, match="tool result answers tool call 'toolu_9'"):
        anthropic.messages_body("claude", _loop("toolu_9"), {})
    orphan = [*ASK, Turn(role="tool", parts=(ToolResultPart(call_id="toolu_1", content="2"),))]
    with pytest.raises(ConfigurationError, match="'toolu_1'"):
        anthropic.messages_body("claude", orphan, {})


def test_at_most_four_cache_breakpoints() -> None:
    cache = {"type": "ephemeral"}
    texts = tuple(TextPart(text=f"part {n}", cache_control=cache) for n in range(5))
    four = [Turn(role="system", parts=texts[:2]), Turn(role="user", parts=texts[2:4])]
    assert len(anthropic.messages_body("claude", four, {})["system"]) == 2
    tool = {**TOOLS[0], "cache_control": cache}
    with pytest.raises(ConfigurationError, match="at most 4 blocks may carry cache_control"):
        anthropic.messages_body("claude", four, {"tools": [tool]})
    nested = ToolResultPart(call_id="toolu_1", content=texts[:2], cache_control=cache)
    turns = [*_loop("toolu_1")[:2], Turn(role="tool", parts=(nested,))]
    assert anthropic.messages_body("claude", turns, {})  # three: two inside, one outside
    with pytest.raises(ConfigurationError, match="got 5"):
        anthropic.messages_body("claude", [Turn(role="system", parts=texts[:2]), *turns], {})


def test_a_request_without_a_message_is_refused_before_it_is_sent() -> None:
    assert anthropic.messages_body("claude", [], {})["messages"] == []  # e.g. for a cache key
    with serving(lambda number, request: response(b"")) as served:
        client = ChatClient(base_url=served.url, api_key="sk-x", protocol="anthropic")
        for payload in ({"model": "m", "max_tokens": 5, "messages": []}, {"model": "m"}):
            with pytest.raises(ConfigurationError, match="needs at least one message"):
                client.complete(payload)
        client.close()
    assert served.connections == 0


# The ranges and the forced tool the API refuses (issue 35), and a tool loop without thinking.


@pytest.mark.parametrize(
    ("field", "value"), [("temperature", 1.5), ("temperature", -1), ("top_p", 2)]
)
def test_sampling_outside_zero_to_one_is_refused_by_name(field: str, value: float) -> None:
    """The API: "temperature: Input should be less than or equal to 1" (OpenAI's goes to 2)."""
    with pytest.raises(ConfigurationError, match=f"{field} must be between 0 and 1"):
        body(**{field: value})
    assert body(**{field: 1})[field] == 1


@pytest.mark.parametrize("choice", [{"type": "tool"}, {"type": "function", "function": {}}])
def test_a_forced_tool_without_its_name_is_refused(choice: dict[str, Any]) -> None:
    """The API: "tool_choice.tool.name: Field required"."""
    with pytest.raises(ConfigurationError, match="forces a tool but names none"):
        body(tools=TOOLS, tool_choice=choice)
    assert body(tools=TOOLS, tool_choice={"type": "none"})["tool_choice"] == {"type": "none"}


def test_a_tool_loop_without_thinking_in_its_turn_is_sent_without_thinking() -> None:
    """Another protocol's answer (no signed thinking) continued in a tool loop with thinking
    on: the API refuses it and advises to disable thinking, so thinking is not sent, said."""
    with pytest.warns(UserWarning, match="thinking is not sent: the assistant turn before"):
        sent = anthropic.messages_body("claude", _loop("toolu_1"), {"thinking": THINK})
    assert "thinking" not in sent
    answered = Turn(role="assistant", parts=(TextPart(text="Two."),))
    asked_again = [*_loop("toolu_1"), answered, *ASK]  # the loop is over: nothing refused
    assert anthropic.messages_body("claude", asked_again, {"thinking": THINK})["thinking"]


def test_what_no_api_takes_back_is_left_out_and_said() -> None:
    """sse_core.protocols.history: an interrupted call, whitespace text, another protocol's
    reasoning item and output items."""
    item = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"}
    cut = Turn(
        role="assistant",
        parts=(
            ReasoningPart(text="t", signature="gAAAA", item=item),
            TextPart(text="  \n"),
            RawPart(block={"type": "web_search_call", "id": "ws_1", "status": "completed"}),
            ToolUsePart(id="toolu_1", name="add", input={"a": 1}),
        ),
    )
    with pytest.warns(UserWarning) as said:
        sent = anthropic.messages_body("claude", [*ASK, cut, *ASK], {})
    (warning,) = [str(w.message) for w in said]
    assert "the Responses API's encrypted reasoning item 'rs_1'" in warning
    assert "'web_search_call' block" in warning and "the tool call 'toolu_1' (add)" in warning
    assert [m["role"] for m in sent["messages"]] == ["user"]  # the turn left empty goes
    assert sent["messages"][0]["content"] == [
        {"type": "text", "text": "hi"},
        {"type": "text", "text": "hi"},
    ]
