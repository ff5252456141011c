"""The Gemini API's request rules (G1-G14 in docs/emulator.md), each tested both ways.

A request that breaks a rule gets Google's 400 ``INVALID_ARGUMENT`` with the API's message;
one next to it (the same request made right) gets a 200.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from tests.emulator.gemini_wire import (
    GEMINI3,
    MODEL,
    WEATHER,
    assert_google_error,
    model_turn,
    post,
    sse_payloads,
    url,
    user,
)

pytestmark = pytest.mark.timeout(60)
TOOLS = [{"functionDeclarations": [WEATHER]}]
CALL = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
RESPONSE = {"functionResponse": {"name": "get_weather", "response": {"sky": "sunny"}}}
MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required for "
    "tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:get_weather` , position {}. "
    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)


def send(client: httpx.Client, body: Any, model: str = MODEL) -> httpx.Response:
    return client.post(url(model), json=body)


def refused(response: httpx.Response, message: str) -> dict[str, Any]:
    return assert_google_error(response, 400, "INVALID_ARGUMENT", message)


def taken(response: httpx.Response) -> None:
    assert response.status_code == 200, response.text


def loop(*turns: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A tool loop: the question, then the given turns."""
    return {"contents": [user("weather in Paris"), *turns], "tools": TOOLS} | fields


def model(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


def answers(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


@pytest.fixture
def signed_turn(client: httpx.Client) -> dict[str, Any]:
    """A Gemini 3 function-call turn as the emulator answered it, signature included."""
    response = post(client, "weather in Paris", model=GEMINI3, tools=TOOLS)
    return model_turn(sse_payloads(response.content))


# --- G1: the body is a JSON object --------------------------------------------------------


def test_g1_the_body_is_a_json_object(client: httpx.Client) -> None:
    bad = client.post(url(), content=b"{not json", headers={"content-type": "application/json"})
    error = refused(bad, "Invalid JSON payload received. Unexpected token.")
    assert error["details"][0]["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    listed = client.post(url(), json=[1])
    refused(
        listed, 'Invalid JSON payload received. Unknown name "": Root element must be a message.'
    )
    taken(send(client, {"contents": [user("hi")]}))


# --- G2, G3: the parser's refusals ----------------------------------------------------------


def test_g2_unknown_fields_are_named_at_every_depth(client: httpx.Client) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi", "id": 1}]}],
        "generationConfig": {"notAField": 1},
        "bogus": True,
    }
    error = refused(
        send(client, body),
        "Invalid JSON payload received. Unknown name \"id\" at 'contents[0].parts[0]': Cannot "
        'find field.\nInvalid JSON payload received. Unknown name "notAField" at '
        "'generation_config': Cannot find field.\nInvalid JSON payload received. Unknown name "
        '"bogus": Cannot find field.',
    )
    violations = error["details"][0]["fieldViolations"]
    assert [v.get("field") for v in violations] == [
        "contents[0].parts[0]",
        "generation_config",
        None,
    ]


def test_g2_a_json_schema_word_in_a_schema_is_unknown_but_taken_as_a_json_schema(
    client: httpx.Client,
) -> None:
    schema = {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}
    wrong = {**WEATHER, "parameters": {**schema, "additionalProperties": False}}
    body = {"contents": [user("weather in Paris")], "tools": [{"functionDeclarations": [wrong]}]}
    refused(
        send(client, body),
        'Invalid JSON payload received. Unknown name "additionalProperties" at '
        "'tools[0].function_declarations[0].parameters': Cannot find field.",
    )
    nested = {**WEATHER, "parameters": {"type": "OBJECT", "properties": {"city": {"const": "x"}}}}
    body["tools"] = [{"functionDeclarations": [nested]}]
    refused(
        send(client, body),
        'Invalid JSON payload received. Unknown name "const" at '
        "'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.",
    )
    as_json = {
        "name": "get_weather",
        "parametersJsonSchema": {**schema, "additionalProperties": False},
    }
    body["tools"] = [{"functionDeclarations": [as_json]}]
    taken(send(client, body))


def test_g2_a_signature_inside_the_function_call_is_misplaced(client: httpx.Client) -> None:
    inside = {"functionCall": {**CALL["functionCall"], "thoughtSignature": "AAAA"}}
    refused(
        send(client, loop(model(inside), answers(RESPONSE))),
        'Invalid JSON payload received. Unknown name "thoughtSignature" at '
        "'contents[1].parts[0].function_call': Cannot find field.",
    )
    taken(send(client, loop(model(CALL | {"thoughtSignature": "AAAA"}), answers(RESPONSE))))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"generationConfig": {"temperature": "hot"}},
            "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \"hot\"",
        ),
        (
            {"systemInstruction": "Be brief."},
            "Invalid value at 'system_instruction' "
            '(type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "Be brief."',
        ),
        (
            {"toolConfig": {"functionCallingConfig": {"mode": "SOMETIMES"}}},
            "Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/"
            'google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "SOMETIMES"',
        ),
        (
            {"generationConfig": {"stopSequences": "END"}},
            "Invalid value at 'generation_config.stop_sequences' (TYPE_STRING), \"END\"",
        ),
    ],
)
def test_g3_a_value_of_the_wrong_kind(
    client: httpx.Client, fields: dict[str, Any], message: str
) -> None:
    refused(send(client, {"contents": [user("hi")]} | fields), message)


def test_g3_neighbours_numbers_in_strings_and_enums_in_any_case(client: httpx.Client) -> None:
    body = {
        "contents": [user("weather in Paris")],
        "tools": TOOLS,
        "toolConfig": {"functionCallingConfig": {"mode": "any"}},
        "generationConfig": {"temperature": "0.5", "maxOutputTokens": "64"},
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
    }
    taken(send(client, body))


def test_g3_a_signature_that_is_not_base64(client: httpx.Client) -> None:
    refused(
        send(client, loop(model(CALL | {"thoughtSignature": "not base64!"}), answers(RESPONSE))),
        "Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), Base64 "
        'decoding failed for "not base64!"',
    )


# --- G4-G7: contents, parts, roles ----------------------------------------------------------


@pytest.mark.parametrize("body", [{}, {"contents": []}, {"generationConfig": {}}])
def test_g4_contents_are_required(client: httpx.Client, body: dict[str, Any]) -> None:
    refused(send(client, body), "* GenerateContentRequest.contents: contents is not specified\n")


def test_g4_an_empty_body_has_no_contents(client: httpx.Client) -> None:
    empty = client.post(url(), content=b"")
    refused(empty, "* GenerateContentRequest.contents: contents is not specified\n")


def test_g5_every_content_has_parts(client: httpx.Client) -> None:
    body = {"contents": [user("hi"), {"role": "model", "parts": []}, user("again")]}
    refused(
        send(client, body),
        "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n",
    )
    body["contents"][1]["parts"] = [{"text": "hello"}]
    taken(send(client, body))


def test_g6_every_part_holds_one_datum(client: httpx.Client) -> None:
    empty = {"contents": [{"role": "user", "parts": [{"text": "hi"}, {"thought": True}]}]}
    refused(
        send(client, empty),
        "* GenerateContentRequest.contents[0].parts[1].data: required oneof field 'data' must "
        "have one initialized field\n",
    )
    both = {"contents": [{"role": "user", "parts": [{"text": "hi", "fileData": {"fileUri": "x"}}]}]}
    refused(
        send(client, both),
        "Invalid JSON payload received. Oneof field 'data' is already set. Cannot set 'fileData'",
    )
    taken(send(client, {"contents": [{"role": "user", "parts": [{"text": "", "thought": True}]}]}))


@pytest.mark.parametrize("role", ["assistant", "system", "function", "tool"])
def test_g7_roles_are_user_or_model(client: httpx.Client, role: str) -> None:
    body = {"contents": [user("hi"), {"role": role, "parts": [{"text": "hello"}]}]}
    refused(send(client, body), "Please use a valid role: user, model.")


def test_g7_a_missing_role_is_the_user(client: httpx.Client) -> None:
    taken(send(client, {"contents": [{"parts": [{"text": "hi"}]}]}))


# --- G8: function names ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["get weather", "1st", "x" * 65, "get/weather"])
def test_g8_function_names(client: httpx.Client, name: str) -> None:
    body = {
        "contents": [user("hi")],
        "tools": [{"functionDeclarations": [{**WEATHER, "name": name}]}],
    }
    refused(
        send(client, body),
        "The GenerateContentRequest proto is invalid:\n  * tools[0].function_declarations[0]."
        "name: [FIELD_INVALID] Invalid function name. Must start with a letter or an "
        "underscore. Must be a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), "
        "or dashes (-), with a maximum length of 64.",
    )


def test_g8_a_name_of_every_allowed_character(client: httpx.Client) -> None:
    tool = {**WEATHER, "name": "_ns.get-weather:v2" + "x" * 46}
    taken(send(client, {"contents": [user("hi")], "tools": [{"functionDeclarations": [tool]}]}))


# --- G9: generationConfig -------------------------------------------------------------------

G = "* GenerateContentRequest.generation_config."


@pytest.mark.parametrize(
    ("config", "message", "neighbour"),
    [
        (
            {"temperature": 2.5},
            G + "temperature: temperature must be in the range [0.0, 2.0].\n",
            {"temperature": 2},
        ),
        (
            {"temperature": -0.1},
            G + "temperature: temperature must be in the range [0.0, 2.0].\n",
            {"temperature": 0},
        ),
        ({"topP": 1.5}, G + "top_p: top_p must be in the range [0.0, 1.0].\n", {"topP": 1}),
        (
            {"maxOutputTokens": 0},
            G + "max_output_tokens: max_output_tokens must be positive.\n",
            {"maxOutputTokens": 1},
        ),
        (
            {"candidateCount": 0},
            G + "candidate_count: candidate_count must be positive.\n",
            {"candidateCount": 1},
        ),
        (
            {"candidateCount": 2},
            "Multiple candidates is not enabled for this model",
            {"candidateCount": 1},
        ),
        (
            {"stopSequences": list("abcdef")},
            G + "stop_sequences: the number of stop_sequences must be at most 5.\n",
            {"stopSequences": list("abcde")},
        ),
    ],
)
def test_g9_generation_config(
    client: httpx.Client, config: dict[str, Any], message: str, neighbour: dict[str, Any]
) -> None:
    refused(send(client, {"contents": [user("hi")], "generationConfig": config}), message)
    taken(send(client, {"contents": [user("hi")], "generationConfig": neighbour}))


# --- G10: thinkingConfig --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model_name", "thinking", "message"),
    [
        (
            GEMINI3,
            {"thinkingLevel": "HIGH", "thinkingBudget": 1024},
            "You can only set only one of thinking budget and thinking level.",
        ),
        (
            "gemini-2.5-flash",
            {"thinkingLevel": "LOW"},
            "Thinking level is not supported for this model.",
        ),
        (
            "gemini-3-pro-preview",
            {"thinkingLevel": "minimal"},
            "Thinking level MINIMAL is not supported for this model. Please retry with other "
            "thinking level.",
        ),
        (
            "gemini-2.5-pro",
            {"thinkingBudget": 0},
            "Budget 0 is invalid. This model only works in thinking mode.",
        ),
        ("gemini-2.5-pro", {"thinkingBudget": 64}, "The thinking budget (64) is invalid."),
        ("gemini-2.5-flash", {"thinkingBudget": 52428}, "The thinking budget (52428) is invalid."),
        ("gemini-2.5-flash-lite", {"thinkingBudget": 100}, "The thinking budget (100) is invalid."),
        (GEMINI3, {"thinkingBudget": 0}, "Request contains an invalid argument."),
    ],
)
def test_g10_thinking_config(
    client: httpx.Client, model_name: str, thinking: dict[str, Any], message: str
) -> None:
    body = {"contents": [user("hi")], "generationConfig": {"thinkingConfig": thinking}}
    refused(send(client, body, model_name), message)


@pytest.mark.parametrize(
    ("model_name", "thinking"),
    [
        (GEMINI3, {"thinkingLevel": "MINIMAL"}),
        ("gemini-3-pro-preview", {"thinkingLevel": "low"}),
        ("gemini-2.5-pro", {"thinkingBudget": -1}),
        ("gemini-2.5-pro", {"thinkingBudget": 128}),
        ("gemini-2.5-flash", {"thinkingBudget": 0}),
        ("gemini-2.5-flash", {"thinkingBudget": 24576}),
        ("gemini-2.5-flash-lite", {"thinkingBudget": 512}),
        (GEMINI3, {"thinkingBudget": 1024, "includeThoughts": True}),
    ],
)
def test_g10_neighbours(client: httpx.Client, model_name: str, thinking: dict[str, Any]) -> None:
    body = {"contents": [user("hi")], "generationConfig": {"thinkingConfig": thinking}}
    taken(send(client, body, model_name))


# --- G11: toolConfig ------------------------------------------------------------------------

ALLOWED = "* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"mode": "AUTO", "allowedFunctionNames": ["get_weather"]},
            ALLOWED + ": allowed_function_names may be set only when mode is ANY or VALIDATED.\n",
        ),
        (
            {"allowedFunctionNames": ["get_weather"]},
            ALLOWED + ": allowed_function_names may be set only when mode is ANY or VALIDATED.\n",
        ),
        (
            {"mode": "ANY", "allowedFunctionNames": ["get_time"]},
            ALLOWED + "[0]: function 'get_time' is not declared in tools.\n",
        ),
    ],
)
def test_g11_allowed_function_names(
    client: httpx.Client, config: dict[str, Any], message: str
) -> None:
    body = {
        "contents": [user("hi")],
        "tools": TOOLS,
        "toolConfig": {"functionCallingConfig": config},
    }
    refused(send(client, body), message)


@pytest.mark.parametrize("mode", ["ANY", "VALIDATED"])
def test_g11_neighbours(client: httpx.Client, mode: str) -> None:
    config = {"mode": mode, "allowedFunctionNames": ["get_weather"]}
    body = {
        "contents": [user("hi")],
        "tools": TOOLS,
        "toolConfig": {"functionCallingConfig": config},
    }
    taken(send(client, body))


# --- G12: function-call turns ---------------------------------------------------------------

AFTER_CALL = (
    "Please ensure that function response turn comes immediately after a function call turn."
)
AFTER_USER = (
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn."
)
COUNT = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)


@pytest.mark.parametrize(
    ("contents", "message"),
    [
        ([user("weather in Paris"), answers(RESPONSE)], AFTER_CALL),
        ([user("weather in Paris"), model({"text": "Let me see."}), answers(RESPONSE)], AFTER_CALL),
        ([user("weather in Paris"), model(CALL, CALL), answers(RESPONSE)], COUNT),
        ([user("weather in Paris"), model(CALL), answers(RESPONSE, RESPONSE)], COUNT),
        ([user("weather in Paris"), model(CALL), user("never mind")], COUNT),
        ([model(CALL), answers(RESPONSE)], AFTER_USER),
        (
            [user("weather in Paris"), model({"text": "Sure."}), model(CALL), answers(RESPONSE)],
            AFTER_USER,
        ),
    ],
)
def test_g12_function_call_turns(
    client: httpx.Client, contents: list[dict[str, Any]], message: str
) -> None:
    refused(send(client, {"contents": contents, "tools": TOOLS}), message)


def test_g12_neighbours(client: httpx.Client) -> None:
    taken(send(client, loop(model(CALL, CALL), answers(RESPONSE, RESPONSE))))
    taken(send(client, loop(model(CALL))))  # a call not yet answered ends the conversation
    two_steps = loop(model(CALL), answers(RESPONSE), model(CALL), answers(RESPONSE))
    taken(send(client, two_steps))


# --- G13, G14: Gemini 3's thought signatures ------------------------------------------------


def test_g13_a_gemini_3_call_sent_back_without_its_signature(client: httpx.Client) -> None:
    refused(send(client, loop(model(CALL), answers(RESPONSE)), GEMINI3), MISSING.format(2))
    later = loop(
        model(CALL | {"thoughtSignature": "skip_thought_signature_validator"}),
        answers(RESPONSE),
        model(CALL),
        answers(RESPONSE),
    )
    refused(send(client, later, GEMINI3), MISSING.format(4))  # each step of the turn
    taken(send(client, loop(model(CALL), answers(RESPONSE))))  # gemini-2.5 does not check


def test_g13_only_the_first_call_of_a_step_and_only_the_current_turn(
    client: httpx.Client, signed_turn: dict[str, Any]
) -> None:
    signed = signed_turn["parts"][0]
    taken(send(client, loop(model(signed, CALL), answers(RESPONSE, RESPONSE)), GEMINI3))
    earlier_turn = loop(model(CALL), answers(RESPONSE), model({"text": "Sunny."}), user("thanks"))
    taken(send(client, earlier_turn, GEMINI3))


@pytest.mark.parametrize(
    "dummy", ["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]
)
def test_g13_the_documented_dummy_signatures_skip_the_check(
    client: httpx.Client, dummy: str
) -> None:
    taken(send(client, loop(model(CALL | {"thoughtSignature": dummy}), answers(RESPONSE)), GEMINI3))


def test_g14_a_signature_the_emulator_did_not_issue(
    client: httpx.Client, signed_turn: dict[str, Any]
) -> None:
    taken(send(client, loop(signed_turn, answers(RESPONSE)), GEMINI3))
    signature = signed_turn["parts"][0]["thoughtSignature"]
    raw = bytearray(base64.b64decode(signature))
    raw[5] ^= 1
    changed = base64.b64encode(bytes(raw)).decode()
    foreign = base64.b64encode(b"\x12" + bytes(48)).decode()
    for other in (changed, foreign, "AAAA"):
        turn = model(signed_turn["parts"][0] | {"thoughtSignature": other})
        refused(
            send(client, loop(turn, answers(RESPONSE)), GEMINI3), "Corrupted thought signature."
        )


def test_g14_the_same_bytes_in_another_base64_spelling_are_the_same_signature(
    client: httpx.Client, signed_turn: dict[str, Any]
) -> None:
    """The field is protobuf bytes: proto3's JSON mapping takes URL-safe base64, padded or
    not (google-genai sends the bytes back so)."""
    signature = signed_turn["parts"][0]["thoughtSignature"]
    raw = base64.b64decode(signature)
    urlsafe = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert urlsafe != signature  # 49 bytes: the padding goes
    turn = model(signed_turn["parts"][0] | {"thoughtSignature": urlsafe})
    taken(send(client, loop(turn, answers(RESPONSE)), GEMINI3))


def test_g14_any_model_part_of_the_history_is_checked(client: httpx.Client) -> None:
    history = {
        "contents": [
            user("hi"),
            model({"text": "Hello!", "thoughtSignature": "AAAA"}),
            user("count to 3"),
        ]
    }
    refused(send(client, history, GEMINI3), "Corrupted thought signature.")
    taken(send(client, history))  # not a Gemini 3 model: not checked
