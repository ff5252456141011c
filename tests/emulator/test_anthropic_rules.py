"""The Messages API's request rules, over real loopback HTTP: the emulator refuses what the
API refuses, with its 400 and error body, and answers the request next to it.

Each rule has a request that breaks it (the API's status, error body and wording) and a
nearby request that keeps it (a 200, so the check is not broader than the API's).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

PATH = "/anthropic/v1/messages"
HEADERS = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"}
WEATHER = {
    "name": "get_weather",
    "description": "Get the weather for a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
THINKING = {"type": "enabled", "budget_tokens": 2048}
CONSIDERATIONS = (
    "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/"
    "extended-thinking#important-considerations-when-using-extended-thinking"
)
QUESTION = {"role": "user", "content": "What is the weather in Paris?"}


def body_of(messages: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    body = {"model": "claude-emulated", "max_tokens": 4096, "messages": messages or [QUESTION]}
    return body | fields


def send(client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    return client.post(PATH, json=body, headers=HEADERS)


def refused(client: httpx.Client, body: dict[str, Any]) -> str:
    """The message of the API's 400, after checking its status, body shape and header."""
    response = send(client, body)
    assert response.status_code == 400, response.text
    found = response.json()
    assert set(found) == {"type", "error", "request_id"} and found["type"] == "error"
    assert set(found["error"]) == {"type", "message"}
    assert found["error"]["type"] == "invalid_request_error"
    assert response.headers["request-id"] == found["request_id"]
    assert found["request_id"].startswith("req_011")
    return str(found["error"]["message"])


def answered(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = send(client, body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def first_turn(client: httpx.Client) -> dict[str, Any]:
    """The emulator's own answer to the question, with thinking on: thinking, then a call."""
    message = answered(client, body_of(tools=[WEATHER], thinking=THINKING))
    assert [b["type"] for b in message["content"]] == ["thinking", "tool_use"]
    return {"role": "assistant", "content": message["content"]}


def loop(turn: dict[str, Any], tool_use_id: str | None = None) -> list[dict[str, Any]]:
    """The question, the assistant's turn and the user's tool result for its call."""
    call = next(b for b in turn["content"] if b["type"] == "tool_use")
    result = {"type": "tool_result", "tool_use_id": tool_use_id or call["id"], "content": "Sunny"}
    return [QUESTION, turn, {"role": "user", "content": [result]}]


# 1. A forced tool with thinking on.


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "get_weather"}])
@pytest.mark.parametrize("thinking", [THINKING, {"type": "adaptive"}])
def test_a_forced_tool_with_thinking_is_refused(
    client: httpx.Client, choice: dict[str, Any], thinking: dict[str, Any]
) -> None:
    body = body_of(tools=[WEATHER], tool_choice=choice, thinking=thinking)
    assert refused(client, body) == "Thinking may not be enabled when tool_choice forces tool use."


@pytest.mark.parametrize(
    "fields",
    [
        {"tool_choice": {"type": "auto"}, "thinking": THINKING},
        {"tool_choice": {"type": "none"}, "thinking": {"type": "adaptive"}},
        {"tool_choice": {"type": "any"}},
        {"tool_choice": {"type": "tool", "name": "get_weather"}, "thinking": {"type": "disabled"}},
    ],
)
def test_an_unforced_tool_or_no_thinking_is_answered(
    client: httpx.Client, fields: dict[str, Any]
) -> None:
    answered(client, body_of(tools=[WEATHER], **fields))


# 2. Sampling changed with thinking on.


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"temperature": 0.2}, "`temperature` may only be set to 1 when thinking is enabled. "),
        ({"temperature": 0}, "`temperature` may only be set to 1 when thinking is enabled. "),
        ({"top_k": 5}, "`top_k` may not be set when thinking is enabled. "),
        ({"top_p": 0.9}, "`top_p` must be greater than or equal to 0.95 or unset when "),
    ],
)
@pytest.mark.parametrize("thinking", [THINKING, {"type": "adaptive"}])
def test_changed_sampling_with_thinking_is_refused(
    client: httpx.Client, fields: dict[str, Any], message: str, thinking: dict[str, Any]
) -> None:
    found = refused(client, body_of(thinking=thinking, **fields))
    assert found.startswith(message) and found.endswith(CONSIDERATIONS)


@pytest.mark.parametrize(
    "fields",
    [
        {"temperature": 1, "thinking": THINKING},
        {"temperature": 1.0, "top_p": 0.95, "thinking": THINKING},
        {"top_p": 1, "thinking": {"type": "adaptive"}},
        {"temperature": 0.2, "top_k": 5, "top_p": 0.5},
        {"temperature": 0.2, "top_k": 5, "thinking": {"type": "disabled"}},
    ],
)
def test_sampling_the_api_takes_is_answered(client: httpx.Client, fields: dict[str, Any]) -> None:
    answered(client, body_of(**fields))


# 3. The thinking budget.


@pytest.mark.parametrize(
    ("budget", "max_tokens", "message"),
    [
        (
            1023,
            4096,
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (4096, 4096, "`max_tokens` must be greater than `thinking.budget_tokens`"),
        (5000, 4096, "`max_tokens` must be greater than `thinking.budget_tokens`"),
    ],
)
def test_a_budget_out_of_range_is_refused(
    client: httpx.Client, budget: int, max_tokens: int, message: str
) -> None:
    thinking = {"type": "enabled", "budget_tokens": budget}
    assert refused(client, body_of(thinking=thinking, max_tokens=max_tokens)) == message


@pytest.mark.parametrize(("budget", "max_tokens"), [(1024, 1025), (4095, 4096)])
def test_a_budget_in_range_is_answered(client: httpx.Client, budget: int, max_tokens: int) -> None:
    thinking = {"type": "enabled", "budget_tokens": budget}
    answered(client, body_of(thinking=thinking, max_tokens=max_tokens))


# 4. A tool loop with thinking on: the assistant turn starts with its thinking.


@pytest.mark.parametrize("thinking", [THINKING, {"type": "adaptive"}])
def test_a_tool_loop_without_the_thinking_block_is_refused(
    client: httpx.Client, thinking: dict[str, Any]
) -> None:
    turn = first_turn(client)
    without = {"role": "assistant", "content": turn["content"][1:]}
    found = refused(client, body_of(loop(without), tools=[WEATHER], thinking=thinking))
    assert found.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with a "
        "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks)."
    )
    text_first = {"role": "assistant", "content": [{"type": "text", "text": "Let me see."}]}
    text_first["content"] += without["content"]
    found = refused(client, body_of(loop(text_first), tools=[WEATHER], thinking=thinking))
    assert "but found `text`." in found


def test_a_tool_loop_with_the_thinking_block_or_without_thinking_is_answered(
    client: httpx.Client,
) -> None:
    turn = first_turn(client)
    message = answered(client, body_of(loop(turn), tools=[WEATHER], thinking=THINKING))
    assert message["stop_reason"] == "end_turn"
    without = {"role": "assistant", "content": turn["content"][1:]}
    answered(client, body_of(loop(without), tools=[WEATHER]))
    # Thinking blocks are needed only before the last tool results, not on a new question.
    ask_again = [*loop(turn), {"role": "assistant", "content": "Sunny."}, QUESTION]
    answered(client, body_of(ask_again, tools=[WEATHER], thinking=THINKING))


# 5. The signature of a thinking block sent back.


def _changed(turn: dict[str, Any], **fields: Any) -> dict[str, Any]:
    changed = copy.deepcopy(turn)
    changed["content"][0].update(fields)
    return changed


def _unsigned(turn: dict[str, Any]) -> list[dict[str, Any]]:
    signature = turn["content"][0]["signature"]
    return [
        _changed(turn, thinking=turn["content"][0]["thinking"] + " "),
        _changed(turn, signature=signature[:-4] + "AAA="),
        _changed(turn, signature=""),
        _changed(turn, signature="EqQBCkgIARABGAIiQL2ZZ3rFzLr0DYD2ZQ5t6HjJwC1TnO6aYEcp"),
    ]


def _without_signature(turn: dict[str, Any]) -> dict[str, Any]:
    missing = copy.deepcopy(turn)
    del missing["content"][0]["signature"]
    return missing


MODIFIED = (
    "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant "
    "message cannot be modified. These blocks must remain as they were in the original response."
)


@pytest.mark.parametrize("thinking", [THINKING, {"type": "adaptive"}])
def test_a_thinking_block_the_emulator_did_not_sign_is_refused(
    client: httpx.Client, thinking: dict[str, Any]
) -> None:
    for case in _unsigned(first_turn(client)):
        # The latest assistant message's thinking: "cannot be modified", as the API says it.
        found = refused(client, body_of(loop(case), tools=[WEATHER], thinking=thinking))
        assert found == MODIFIED
        # Not only in a tool loop: every thinking block passed back is checked.
        later = [*loop(first_turn(client)), {"role": "assistant", "content": "Sunny."}]
        later[1] = case
        later += [QUESTION]
        found = refused(client, body_of(later, tools=[WEATHER], thinking=thinking))
        assert found == "messages.1.content.0: Invalid `signature` in `thinking` block"


@pytest.mark.parametrize("thinking", [THINKING, None])
def test_a_thinking_block_without_its_signature_is_refused(
    client: httpx.Client, thinking: dict[str, Any] | None
) -> None:
    """The published ``ThinkingBlockParam`` requires ``signature``, thinking on or off."""
    case = _without_signature(first_turn(client))
    found = refused(client, body_of(loop(case), tools=[WEATHER], thinking=thinking))
    assert found == "messages.1.content.0.thinking.signature: Field required"


def test_with_thinking_off_thinking_passed_back_is_not_checked(client: httpx.Client) -> None:
    """The API leaves earlier thinking out of the context when thinking is off (LangChain's
    standard tests send a real Anthropic signature there and pass against the API)."""
    for case in _unsigned(first_turn(client)):
        answered(client, body_of(loop(case), tools=[WEATHER]))


def test_a_thinking_block_the_emulator_signed_is_answered_streamed_or_whole(
    client: httpx.Client,
) -> None:
    from tests.emulator.emu_wire import events

    body = body_of(tools=[WEATHER], thinking=THINKING, stream=True)
    response = send(client, body)
    assert response.status_code == 200
    frames = [e.json() for e in events(response.content) if e.event == "content_block_delta"]
    text = "".join(f["delta"]["thinking"] for f in frames if f["delta"]["type"] == "thinking_delta")
    signature = next(
        f["delta"]["signature"] for f in frames if f["delta"]["type"] == "signature_delta"
    )
    turn = first_turn(client)
    assert (text, signature) == (turn["content"][0]["thinking"], turn["content"][0]["signature"])
    answered(client, body_of(loop(turn), tools=[WEATHER], thinking=THINKING))


# 6. Each tool result answers a call of the message before it.


def test_a_tool_result_for_no_call_is_refused(client: httpx.Client) -> None:
    turn = first_turn(client)
    found = refused(client, body_of(loop(turn, "toolu_01unknown"), tools=[WEATHER]))
    assert found == (
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
        "toolu_01unknown. Each `tool_result` block must have a corresponding `tool_use` block "
        "in the previous message."
    )
    result = {"type": "tool_result", "tool_use_id": "toolu_01x", "content": "Sunny"}
    alone = [{"role": "user", "content": [{"type": "text", "text": "Hi"}, result]}]
    assert refused(client, body_of(alone)).startswith(
        "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01x."
    )


def test_a_tool_result_for_the_previous_call_is_answered(client: httpx.Client) -> None:
    turn = first_turn(client)
    message = answered(client, body_of(loop(turn), tools=[WEATHER]))
    assert "get_weather returned Sunny" in message["content"][-1]["text"]


def test_a_call_the_next_message_does_not_answer_is_refused(client: httpx.Client) -> None:
    turn = first_turn(client)
    call = turn["content"][1]["id"]
    message = (
        f"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{call}. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )
    assert refused(client, body_of([QUESTION, turn, QUESTION], tools=[WEATHER])) == message
    text_only = {"role": "user", "content": [{"type": "text", "text": "Sunny"}]}
    assert refused(client, body_of([QUESTION, turn, text_only], tools=[WEATHER])) == message
    second = turn["content"][1] | {"id": "toolu_01second"}
    both = {"role": "assistant", "content": [*turn["content"], second]}
    found = refused(client, body_of(loop(both), tools=[WEATHER]))
    assert "found without `tool_result` blocks immediately after: toolu_01second." in found


def test_calls_all_answered_or_a_call_that_ends_the_request_are_answered(
    client: httpx.Client,
) -> None:
    turn = first_turn(client)
    second = turn["content"][1] | {"id": "toolu_01second"}
    both = {"role": "assistant", "content": [*turn["content"], second]}
    messages = loop(both)
    messages[2]["content"].append(
        {"type": "tool_result", "tool_use_id": "toolu_01second", "content": "Rain"}
    )
    answered(client, body_of(messages, tools=[WEATHER]))
    answered(client, body_of([QUESTION, turn], tools=[WEATHER]))  # an assistant prefill


# 7. At most four blocks with cache_control.


def _cached(count: int) -> dict[str, Any]:
    mark = {"cache_control": {"type": "ephemeral"}}
    system = [{"type": "text", "text": f"Rule {i}."} | mark for i in range(2)]
    tools = [WEATHER | mark]
    blocks = [{"type": "text", "text": f"Part {i}."} | mark for i in range(count - 3)]
    blocks.append({"type": "text", "text": "What is the weather in Paris?"})
    return body_of([{"role": "user", "content": blocks}], system=system, tools=tools)


def test_more_than_four_cache_control_blocks_are_refused(client: httpx.Client) -> None:
    found = refused(client, _cached(5))
    assert found == "A maximum of 4 blocks with cache_control may be provided. Found 5."


def test_four_cache_control_blocks_are_answered(client: httpx.Client) -> None:
    message = answered(client, _cached(4))
    assert message["usage"]["cache_creation_input_tokens"] > 0


# 8. At least one message.


def test_no_message_is_refused(client: httpx.Client) -> None:
    assert refused(client, body_of() | {"messages": []}) == (
        "messages: at least one message is required"
    )


OPEN = {"type": "object", "properties": {"setup": {"type": "string"}}}
CLOSED = {**OPEN, "additionalProperties": False}


@pytest.mark.parametrize(
    ("output_format", "said"),
    [
        ({"type": "json_schema", "schema": OPEN}, "'additionalProperties' must be explicitly"),
        (
            {"type": "json_schema", "schema": {"type": "array", "items": OPEN}},
            "'additionalProperties' must be explicitly",
        ),
        # the published type's tagged union refuses the type first (A19 without the SDK)
        ({"type": "json", "schema": CLOSED}, "output_config.format: Input tag 'json' found"),
    ],
    ids=["open-object", "open-object-inside", "wrong-type"],
)
def test_structured_output_the_api_does_not_take_is_refused(
    client: httpx.Client, output_format: dict[str, Any], said: str
) -> None:
    body = body_of(output_config={"format": output_format})
    assert said in refused(client, body)


@pytest.mark.parametrize("thinking", [None, THINKING], ids=["plain", "thinking"])
def test_structured_output_with_closed_objects_is_answered_with_its_json(
    client: httpx.Client, thinking: dict[str, Any] | None
) -> None:
    fields: dict[str, Any] = {
        "output_config": {"format": {"type": "json_schema", "schema": CLOSED}}
    }
    if thinking is not None:
        fields["thinking"] = thinking
    found = answered(client, body_of(**fields))
    (text,) = [block["text"] for block in found["content"] if block["type"] == "text"]
    assert set(json.loads(text)) == {"setup"}
