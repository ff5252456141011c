"""The strict emulator: every request checked against the providers' published request types
(openai-python's and anthropic-python's), answered as each API answers a violation, and the
documented rules no type can say.

The twelve requests of issue 35 first (ten refusals, two controls), each against the real
HTTP server; then what the published types refuse on each API (an unknown item or block type,
a missing required field, a value outside its enum, an unknown field where the API refuses
one), named by its path in the API's own words; then the interrupted turns the APIs refuse;
then the switch itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from sse_emulator.schemas import published
from sse_emulator.schemas.published import resolve_strict, validator

ANTHROPIC = {"anthropic-version": "2023-06-01"}
QUESTION = {"role": "user", "content": "What is the weather in Paris?"}
WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def messages(client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    full = {"model": "claude-emulated", "max_tokens": 2048, "messages": [QUESTION]} | body
    return client.post("/v1/messages", json=full, headers=ANTHROPIC)


def responses(client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    return client.post("/v1/responses", json={"model": "gpt-5", "input": "Hi"} | body)


def chat(client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    full = {"model": "emulator", "messages": [QUESTION]} | body
    return client.post("/v1/chat/completions", json=full)


def anthropic_refusal(response: httpx.Response) -> str:
    """The message of Anthropic's 400, after checking its body shape."""
    assert response.status_code == 400, response.text
    found = response.json()
    assert found["type"] == "error" and found["error"]["type"] == "invalid_request_error"
    assert found["request_id"] == response.headers["request-id"]
    return str(found["error"]["message"])


def openai_refusal(response: httpx.Response, status: int = 400) -> dict[str, Any]:
    """OpenAI's error object, after checking its shape."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    return dict(error)


def first_message(client: httpx.Client, **body: Any) -> dict[str, Any]:
    """The emulator's whole answer to a weather question with a tool (and thinking)."""
    response = messages(client, {"tools": [WEATHER], **body})
    assert response.status_code == 200, response.text
    return {"role": "assistant", "content": response.json()["content"]}


def results_for(turn: dict[str, Any]) -> dict[str, Any]:
    calls = [b for b in turn["content"] if b["type"] == "tool_use"]
    content = [{"type": "tool_result", "tool_use_id": c["id"], "content": "Sunny"} for c in calls]
    return {"role": "user", "content": content}


# 1. The twelve requests of the issue.


def test_previous_response_id_with_conversation_is_refused(client: httpx.Client) -> None:
    stored = responses(client, {"store": True})
    assert stored.status_code == 200
    body = {"previous_response_id": stored.json()["id"], "conversation": "conv_1"}
    error = openai_refusal(responses(client, body))
    assert error["code"] == "mutually_exclusive_parameters"
    assert "'previous_response_id' or 'conversation'" in error["message"]


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4.1", "gpt-5-chat-latest", "openai/gpt-4o-mini"])
def test_reasoning_effort_to_a_model_that_does_not_reason_is_refused(
    client: httpx.Client, model: str
) -> None:
    error = openai_refusal(responses(client, {"model": model, "reasoning": {"effort": "low"}}))
    assert error == {
        "message": "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        "type": "invalid_request_error",
        "param": "reasoning.effort",
        "code": "unsupported_parameter",
    }


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest"])
def test_chat_reasoning_effort_to_a_model_that_does_not_reason_is_refused(
    client: httpx.Client, model: str
) -> None:
    """C9: chat completions' answer to it (coroot/coroot#698, davidmigloz/langchain_dart#712)."""
    error = openai_refusal(chat(client, {"model": model, "reasoning_effort": "low"}))
    assert error == {
        "message": "Unrecognized request argument supplied: reasoning_effort",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    assert chat(client, {"model": "gpt-5", "reasoning_effort": "low"}).status_code == 200


@pytest.mark.parametrize("model", ["gpt-5", "o4-mini", "emulator", "deepseek-r1"])
def test_reasoning_effort_to_a_model_that_reasons_or_a_gateways_own_is_taken(
    client: httpx.Client, model: str
) -> None:
    assert responses(client, {"model": model, "reasoning": {"effort": "low"}}).status_code == 200


def test_a_thinking_block_without_its_signature_is_refused_with_thinking_off(
    client: httpx.Client,
) -> None:
    turn = first_message(client, thinking={"type": "enabled", "budget_tokens": 1024})
    del turn["content"][0]["signature"]
    found = anthropic_refusal(messages(client, {"messages": [QUESTION, turn, results_for(turn)]}))
    assert found == "messages.1.content.0.thinking.signature: Field required"


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("temperature", 1.5, "temperature: Input should be less than or equal to 1"),
        ("temperature", -0.1, "temperature: Input should be greater than or equal to 0"),
        ("top_p", 1.01, "top_p: Input should be less than or equal to 1"),
    ],
)
def test_sampling_outside_zero_to_one_is_refused(
    client: httpx.Client, field: str, value: float, said: str
) -> None:
    assert anthropic_refusal(messages(client, {field: value})) == said
    assert messages(client, {field: 1}).status_code == 200


def test_a_forced_tool_without_its_name_is_refused(client: httpx.Client) -> None:
    body = {"tools": [WEATHER], "tool_choice": {"type": "tool"}}
    assert anthropic_refusal(messages(client, body)) == "tool_choice.tool.name: Field required"


def test_max_tokens_0_fills_the_cache_and_generates_nothing(client: httpx.Client) -> None:
    """The control: the Messages API takes ``max_tokens: 0`` ("Prompt caching", pre-warming)."""
    system = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    whole = messages(client, {"max_tokens": 0, "system": system})
    assert whole.status_code == 200, whole.text
    message = whole.json()
    assert message["content"] == [] and message["stop_reason"] == "max_tokens"
    assert message["usage"]["output_tokens"] == 0
    streamed = messages(client, {"max_tokens": 0, "system": system, "stream": True})
    assert streamed.status_code == 200
    assert "content_block_start" not in streamed.text
    assert '"stop_reason":"max_tokens"' in streamed.text and '"output_tokens":0' in streamed.text
    found = anthropic_refusal(messages(client, {"max_tokens": -1}))
    assert found == "max_tokens: Input should be greater than or equal to 0"


def test_tool_choice_none_is_taken(client: httpx.Client) -> None:
    """The control: ``{"type": "none"}`` is one of the published choices."""
    answer = messages(client, {"tools": [WEATHER], "tool_choice": {"type": "none"}})
    assert answer.status_code == 200, answer.text
    assert [b["type"] for b in answer.json()["content"]] == ["text"]


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"include": ["reasoning.secret"]}, "include[0]", "invalid_value"),
        ({"max_output_tokens": 15}, "max_output_tokens", "integer_below_min_value"),
        ({"text": {"format": {"type": "json_schema", "schema": {}}}}, "text.format.name", None),
        (
            {"input": [{"type": "function_call_output", "call_id": "c1", "output": "x"}]},
            "input",
            None,
        ),
    ],
)
def test_the_refusals_the_emulator_already_made_still_stand(
    client: httpx.Client, body: dict[str, Any], param: str, code: str | None
) -> None:
    error = openai_refusal(responses(client, body))
    assert error["param"] == param
    if code is not None:
        assert error["code"] == code


def test_a_thinking_budget_below_1024_is_still_refused(client: httpx.Client) -> None:
    body = {"thinking": {"type": "enabled", "budget_tokens": 512}}
    found = anthropic_refusal(messages(client, body))
    assert found == "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"


# 2. What the published types refuse, named by its path.


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            [{"type": "text", "text": "Hi", "id": "msg_1", "annotations": []}],
            "messages.0.content.0.text.id: Extra inputs are not permitted",
        ),
        ([{"type": "text"}], "messages.0.content.0.text.text: Field required"),
        (
            [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/bmp", "data": "x"},
                }
            ],
            "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', "
            "'image/png', 'image/gif' or 'image/webp'",
        ),
        (
            [{"type": "text", "text": 5}],
            "messages.0.content.0.text.text: Input should be a valid string",
        ),
    ],
)
def test_messages_blocks_the_published_type_refuses(
    client: httpx.Client, content: list[dict[str, Any]], said: str
) -> None:
    body = {"messages": [{"role": "user", "content": content}]}
    assert anthropic_refusal(messages(client, body)) == said


def test_an_unknown_messages_field_is_refused(client: httpx.Client) -> None:
    found = anthropic_refusal(messages(client, {"reasoning_effort": "low"}))
    assert found == "reasoning_effort: Extra inputs are not permitted"


@pytest.mark.parametrize(
    ("item", "param", "code"),
    [
        ({"type": "text", "text": "Hello there"}, "input[0].type", "invalid_value"),
        (
            {"type": "message", "role": "user", "content": "Hi", "x": 1},
            "input[0].x",
            "unknown_parameter",
        ),
        ({"type": "function_call", "name": "f", "arguments": "{}"}, "input[0].call_id", None),
        ({"role": "robot", "content": "Hi"}, "input[0].role", "invalid_value"),
        (
            {"role": "user", "content": [{"type": "output_image", "image_url": "x"}]},
            "input[0].content[0].type",
            "invalid_value",
        ),
    ],
)
def test_responses_items_the_published_type_refuses(
    client: httpx.Client, item: dict[str, Any], param: str, code: str | None
) -> None:
    error = openai_refusal(responses(client, {"input": [item]}))
    assert error["param"] == param
    assert error["code"] == (code or "missing_required_parameter")


def test_an_earlier_answer_as_output_text_parts_is_taken(client: httpx.Client) -> None:
    """The one shape the published item union leaves out (docs/emulator.md): langchain-openai
    sends an earlier answer so, and the API answers it."""
    answer = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi", "annotations": []}],
    }
    again = {"role": "user", "content": "And now?"}
    assert responses(client, {"input": [again, answer, again]}).status_code == 200


@pytest.mark.parametrize(
    ("message", "param", "code"),
    [
        (
            {"role": "user", "content": [{"type": "reasoning", "text": "x"}]},
            "messages[1].content[0].type",
            "invalid_value",
        ),
        ({"role": "robot", "content": "x"}, "messages[1].role", "invalid_value"),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}],
            },
            "messages[1].tool_calls[0].function.arguments",
            "missing_required_parameter",
        ),
        ({"role": "user", "content": 5}, "messages[1].content", "invalid_type"),
    ],
)
def test_chat_messages_the_published_type_refuses(
    client: httpx.Client, message: dict[str, Any], param: str, code: str
) -> None:
    error = openai_refusal(chat(client, {"messages": [QUESTION, message]}))
    assert (error["param"], error["code"]) == (param, code)


def test_chat_takes_the_gateways_own_fields(client: httpx.Client) -> None:
    """The chat dialects stand for gateways, which take fields of their own."""
    body = {
        "chat_template_kwargs": {"enable_thinking": True},
        "messages": [QUESTION, {"role": "assistant", "content": "Hm.", "reasoning_content": "x"}],
    }
    assert chat(client, body | {"messages": [*body["messages"], QUESTION]}).status_code == 200


# 3. Interrupted turns, as the APIs refuse them.


def test_a_reasoning_item_without_its_following_item_is_refused(client: httpx.Client) -> None:
    first = responses(client, {"reasoning": {"effort": "low"}, "store": True})
    reasoning = next(i for i in first.json()["output"] if i["type"] == "reasoning")
    asked, again = {"role": "user", "content": "Hi"}, {"role": "user", "content": "Go on"}
    body = {"input": [asked, reasoning, again], "store": True}
    error = openai_refusal(responses(client, body))
    assert error == {
        "message": f"Item '{reasoning['id']}' of type 'reasoning' was provided without its "
        "required following item.",
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }
    answer = next(i for i in first.json()["output"] if i["type"] == "message")
    body["input"] = [asked, reasoning, answer, again]
    assert responses(client, body).status_code == 200


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("  \n", "messages: text content blocks must contain non-whitespace text"),
        (
            [{"type": "text", "text": " "}],
            "messages: text content blocks must contain non-whitespace text",
        ),
        ([{"type": "text", "text": ""}], "messages: text content blocks must be non-empty"),
        (
            [],
            "messages.1: all messages must have non-empty content except for the optional final "
            "assistant message",
        ),
    ],
)
def test_an_assistant_turn_without_text_is_refused(
    client: httpx.Client, content: Any, said: str
) -> None:
    body = {"messages": [QUESTION, {"role": "assistant", "content": content}, QUESTION]}
    assert anthropic_refusal(messages(client, body)) == said
    ok = [{"type": "text", "text": " "}, {"type": "text", "text": "Sunny."}]  # one has text
    body = {"messages": [QUESTION, {"role": "assistant", "content": ok}, QUESTION]}
    assert messages(client, body).status_code == 200


def test_a_tool_use_without_its_result_is_refused(client: httpx.Client) -> None:
    turn = first_message(client)
    found = anthropic_refusal(messages(client, {"messages": [QUESTION, turn, QUESTION]}))
    assert "`tool_use` ids were found without `tool_result` blocks immediately after" in found


def test_chat_tool_calls_without_their_tool_messages_are_refused(client: httpx.Client) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    cut = {"role": "assistant", "content": None, "tool_calls": [call]}
    error = openai_refusal(chat(client, {"messages": [QUESTION, cut, QUESTION]}))
    assert error["message"] == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "call_1"
    )
    assert error["param"] == "messages.[1].role"
    answered = [QUESTION, cut, {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]
    assert chat(client, {"messages": answered}).status_code == 200


# 4. The switch.


def test_the_session_emulator_is_strict(emulator: Emulator) -> None:
    assert emulator.strict


def test_a_lenient_emulator_takes_what_the_types_refuse() -> None:
    body = {"model": "m", "input": [{"type": "text", "text": "Hi"}]}
    with Emulator(strict=False) as emu:
        assert not emu.strict
        assert httpx.post(emu.url + "/v1/responses", json=body).status_code == 200
        health = httpx.get(emu.url + "/_emulator/health").json()
    assert health["schemas"] is None


def test_health_names_the_published_types_checked(emulator: Emulator) -> None:
    health = httpx.get(emulator.url + "/_emulator/health").json()
    assert set(health["schemas"]) == {"chat", "responses", "messages"}
    assert health["schemas"]["messages"].startswith("anthropic ")
    assert "MessageCreateParams" in health["schemas"]["messages"]


def test_strict_without_the_sdks_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(published, "_installed", lambda: False)
    monkeypatch.delenv("SSE_EMULATOR_STRICT", raising=False)
    with pytest.raises(ImportError, match="pip install openai anthropic"):
        resolve_strict(True)
    with pytest.warns(UserWarning, match="does not check requests against the providers'"):
        assert resolve_strict(None) is False
    assert resolve_strict(False) is False
    monkeypatch.setenv("SSE_EMULATOR_STRICT", "1")
    with pytest.raises(ImportError):
        resolve_strict(None)
    monkeypatch.setenv("SSE_EMULATOR_STRICT", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_strict(None) is False


def test_the_emulator_imports_and_serves_without_the_sdks() -> None:
    """The SDKs are test-time dependencies: blocked, the emulator still imports, warns that
    the checks are off, and answers."""
    script = (
        "import sys, warnings\n"
        "sys.modules['openai'] = None; sys.modules['anthropic'] = None\n"
        "import httpx, sse_emulator\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    emu = sse_emulator.Emulator(strict=None).start()\n"
        "assert any('does not check requests' in str(w.message) for w in seen), seen\n"
        "body = {'model': 'm', 'input': [{'type': 'text', 'text': 'Hi'}]}\n"
        "assert httpx.post(emu.url + '/v1/responses', json=body).status_code == 200\n"
        "emu.stop()\n"
        "assert 'openai' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SSE_EMULATOR_STRICT"}
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr


def test_importing_the_emulator_imports_no_sdk() -> None:
    script = "import sys, sse_emulator; print('openai' in sys.modules, 'anthropic' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True
    )
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_the_validators_are_built_once_and_are_quick() -> None:
    assert validator("messages") is validator("messages")
    checker = validator("messages")
    assert checker is not None
    turns = [QUESTION, {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]}] * 100
    body = {"model": "m", "max_tokens": 10, "messages": [*turns, QUESTION], "tools": [WEATHER]}
    start = time.perf_counter()
    for _ in range(10):
        assert checker.check(body) is None
    assert (time.perf_counter() - start) / 10 < 0.02  # a 201-message body, well under 20 ms
