"""The Responses API's request rules, over real loopback HTTP: the emulator refuses what the
API refuses, with its status and OpenAI's error body, and answers the request next to it.

Each rule (R1-R16 in docs/emulator.md) has a request that breaks it (the API's status,
error body and wording) and a nearby request that keeps it (a 200, so the check is not
broader than the API's).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.emulator.test_responses_dialect import HEADERS, PATH, WEATHER

QUESTION = "What is the weather in Paris?"


def body_of(**fields: Any) -> dict[str, Any]:
    return {"model": "gpt-5-emulated", "input": QUESTION} | fields


def refused(
    client: httpx.Client, body: Any, status: int = 400
) -> tuple[str, str | None, str | None]:
    """The error's message, param and code, after checking the status and body shape."""
    response = client.post(PATH, json=body, headers=HEADERS)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    return error["message"], error["param"], error["code"]


def answered(client: httpx.Client, body: Any) -> dict[str, Any]:
    response = client.post(PATH, json=body, headers=HEADERS)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_r1_the_body_is_a_json_object(client: httpx.Client) -> None:
    response = client.post(PATH, content=b"{not json", headers=HEADERS)
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_json"
    assert refused(client, ["a list"])[2] == "invalid_json"
    answered(client, body_of())


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("stop", "Unknown parameter: 'stop'. Did you mean 'store'?"),
        ("messages", "Unknown parameter: 'messages'."),
        ("max_tokens", "Unknown parameter: 'max_tokens'."),
    ],
)
def test_r2_unknown_parameters_are_refused(client: httpx.Client, key: str, message: str) -> None:
    assert refused(client, body_of(**{key: "x"})) == (message, key, "unknown_parameter")


def test_r2_every_documented_parameter_is_taken(client: httpx.Client) -> None:
    documented = body_of(
        background=False,
        instructions="Be brief.",
        max_output_tokens=64,
        max_tool_calls=3,
        metadata={"k": "v"},
        parallel_tool_calls=True,
        prompt_cache_key="key",
        safety_identifier="user-1",
        service_tier="auto",
        store=False,
        stream=False,
        temperature=0.5,
        top_logprobs=0,
        top_p=0.9,
        truncation="disabled",
        user="user-1",
    )
    assert answered(client, documented)["status"] == "completed"


def test_r3_model_is_required(client: httpx.Client) -> None:
    body = body_of()
    del body["model"]
    expected = ("Missing required parameter: 'model'.", "model", "missing_required_parameter")
    assert refused(client, body) == expected
    assert refused(client, body_of(model=5))[2] == "invalid_type"


def test_r4_input_is_a_string_or_a_list_of_items(client: httpx.Client) -> None:
    message, param, code = refused(client, body_of(input={"role": "user"}))
    assert (param, code) == ("input", "invalid_type")
    assert message == (
        "Invalid type for 'input': expected one of a string or array of input items, but got "
        "an object instead."
    )
    assert refused(client, body_of(input=["hi"]))[1] == "input[0]"
    answered(client, body_of(input=[{"role": "user", "content": "hi"}]))
    answered(client, {"model": "gpt-5-emulated"})  # input is optional in the reference


def test_r5_stream_options_only_with_stream(client: httpx.Client) -> None:
    options = {"include_obfuscation": False}
    message, param, _ = refused(client, body_of(stream_options=options))
    assert param == "stream_options" and "only allowed when 'stream' is enabled" in message
    assert client.post(
        PATH, json=body_of(stream=True, stream_options=options), headers=HEADERS
    ).is_success


def test_r6_max_output_tokens_at_least_16(client: httpx.Client) -> None:
    assert refused(client, body_of(max_output_tokens=10)) == (
        "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, "
        "but got 10 instead.",
        "max_output_tokens",
        "integer_below_min_value",
    )
    assert answered(client, body_of(max_output_tokens=16))["max_output_tokens"] == 16


@pytest.mark.parametrize(
    ("param", "value", "message", "code"),
    [
        (
            "temperature",
            2.5,
            "decimal above maximum value. Expected a value <= 2, but got 2.5",
            "decimal_above_max_value",
        ),
        (
            "temperature",
            -1,
            "decimal below minimum value. Expected a value >= 0, but got -1",
            "decimal_below_min_value",
        ),
        (
            "top_p",
            1.5,
            "decimal above maximum value. Expected a value <= 1, but got 1.5",
            "decimal_above_max_value",
        ),
    ],
)
def test_r7_sampling_within_its_range(
    client: httpx.Client, param: str, value: float, message: str, code: str
) -> None:
    found = refused(client, body_of(**{param: value}))
    assert found == (f"Invalid '{param}': {message} instead.", param, code)


@pytest.mark.parametrize(("param", "value"), [("temperature", 2), ("temperature", 0), ("top_p", 1)])
def test_r7_the_range_ends_are_taken(client: httpx.Client, param: str, value: float) -> None:
    answered(client, body_of(**{param: value}))


def test_r8_reasoning_effort_and_summary_values(client: httpx.Client) -> None:
    assert refused(client, body_of(reasoning={"effort": "extreme"})) == (
        "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', "
        "'high', 'xhigh', and 'max'.",
        "reasoning.effort",
        "invalid_value",
    )
    assert refused(client, body_of(reasoning={"summary": "long"}))[1] == "reasoning.summary"
    for effort in ("none", "minimal", "xhigh"):
        answered(client, body_of(reasoning={"effort": effort, "summary": "concise"}))


def test_r9_include_values(client: httpx.Client) -> None:
    message, param, code = refused(client, body_of(include=["reasoning.encrypted_content", "x"]))
    assert (param, code) == ("include[1]", "invalid_value")
    assert message.startswith(
        "Invalid value: 'x'. Supported values are: 'file_search_call.results'"
    )
    answered(client, body_of(include=["reasoning.encrypted_content", "web_search_call.results"]))


def test_r10_a_json_schema_format_has_a_name_and_a_schema(client: httpx.Client) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    nameless = {"format": {"type": "json_schema", "schema": schema}}
    assert refused(client, body_of(text=nameless)) == (
        "Missing required parameter: 'text.format.name'.",
        "text.format.name",
        "missing_required_parameter",
    )
    schemaless = {"format": {"type": "json_schema", "name": "trip"}}
    assert refused(client, body_of(text=schemaless))[1] == "text.format.schema"
    assert refused(client, body_of(text={"format": {"type": "yaml"}}))[1] == "text.format.type"
    named = {"format": {"type": "json_schema", "name": "trip", "schema": schema}}
    answered(client, body_of(text=named))
    answered(client, body_of(text={"format": {"type": "json_object"}}))


def test_r11_tool_choice_forms(client: httpx.Client) -> None:
    assert refused(client, body_of(tool_choice="any", tools=[WEATHER])) == (
        "Invalid value: 'any'. Supported values are: 'none', 'auto', and 'required'.",
        "tool_choice",
        "invalid_value",
    )
    assert refused(client, body_of(tool_choice={"type": "tool"}, tools=[WEATHER]))[1] == (
        "tool_choice.type"
    )
    message, param, _ = refused(
        client, body_of(tool_choice={"type": "function", "name": "get_time"}, tools=[WEATHER])
    )
    assert param == "tool_choice" and "get_time" in message
    forced = {"type": "function", "name": "get_weather"}
    whole = answered(client, body_of(tool_choice=forced, tools=[WEATHER]))
    assert whole["output"][0]["name"] == "get_weather"
    answered(client, body_of(tool_choice="required", tools=[WEATHER]))
    answered(client, body_of(tool_choice={"type": "web_search_preview"}))


def test_r12_previous_response_id_must_be_stored(client: httpx.Client) -> None:
    kept = answered(client, body_of())
    answered(client, body_of(input="And tomorrow?", previous_response_id=kept["id"]))
    unstored = answered(client, body_of(input="echo: private", store=False))
    assert unstored["store"] is False
    assert refused(client, body_of(previous_response_id=unstored["id"])) == (
        f"Previous response with id '{unstored['id']}' not found.",
        "previous_response_id",
        "previous_response_not_found",
    )


def _first_turn(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    return answered(client, body_of(tools=[WEATHER], **fields))


def test_r13_a_function_call_output_answers_a_call(client: httpx.Client) -> None:
    stray = {"type": "function_call_output", "call_id": "call_nowhere", "output": "Sunny"}
    assert refused(client, body_of(input=[stray], tools=[WEATHER])) == (
        "No tool call found for function call output with call_id call_nowhere.",
        "input",
        None,
    )
    first = _first_turn(client)
    call = first["output"][0]
    output = stray | {"call_id": call["call_id"]}
    answered(client, body_of(input=[QUESTION_ITEM, call, output], tools=[WEATHER]))
    answered(client, body_of(input=[output], previous_response_id=first["id"], tools=[WEATHER]))


QUESTION_ITEM = {"role": "user", "content": QUESTION}


def test_r14_a_function_call_has_its_output(client: httpx.Client) -> None:
    call = _first_turn(client)["output"][0]
    assert refused(client, body_of(input=[QUESTION_ITEM, call], tools=[WEATHER])) == (
        f"No tool output found for function call {call['call_id']}.",
        "input",
        None,
    )


def test_r15_a_reasoning_item_sent_back_verifies(client: httpx.Client) -> None:
    include = ["reasoning.encrypted_content"]
    think = {"effort": "low", "summary": "auto"}
    first = _first_turn(client, store=False, include=include, reasoning=think)
    reasoning, call = first["output"]
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny"}
    turn = [QUESTION_ITEM, reasoning, call, output]
    again = answered(client, body_of(input=turn, tools=[WEATHER], store=False, reasoning=think))
    assert again["output"][-1]["content"][0]["text"].startswith("Based on the tool results")
    content = reasoning["encrypted_content"]
    changed = reasoning | {"encrypted_content": content[:-8] + "AAAAAAA="}
    message, param, code = refused(
        client, body_of(input=[QUESTION_ITEM, changed, call, output], tools=[WEATHER])
    )
    shown = f"{content[:4]}...{changed['encrypted_content'][-4:]}"
    assert message == f"The encrypted content {shown} could not be verified."
    assert (param, code) == (None, "invalid_encrypted_content")
    foreign = reasoning | {"encrypted_content": "gAAAAABforeign=="}
    assert (
        refused(client, body_of(input=[QUESTION_ITEM, foreign, call, output], tools=[WEATHER]))[2]
        == "invalid_encrypted_content"
    )


def test_r16_a_reasoning_item_by_id_only_must_be_stored(client: httpx.Client) -> None:
    think = {"effort": "low"}
    unstored = _first_turn(client, store=False, reasoning=think)
    reasoning, call = unstored["output"]
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny"}
    message, param, code = refused(
        client, body_of(input=[QUESTION_ITEM, reasoning, call, output], tools=[WEATHER]), 404
    )
    assert message == (
        f"Item with id '{reasoning['id']}' not found. Items are not persisted when `store` is "
        "set to false. Try again with `store` set to true, or remove this item from your input."
    )
    assert (param, code) == ("input", None)
    kept = _first_turn(client, reasoning=think)
    reasoning, call = kept["output"]
    output = output | {"call_id": call["call_id"]}
    answered(client, body_of(input=[QUESTION_ITEM, reasoning, call, output], tools=[WEATHER]))


def test_a_streamed_request_is_refused_before_any_event(client: httpx.Client) -> None:
    response = client.post(PATH, json=body_of(stream=True, stop="x"), headers=HEADERS)
    assert response.status_code == 400 and response.headers["content-type"] == "application/json"
    assert b"event:" not in response.content
