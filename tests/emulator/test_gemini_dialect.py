"""The ``gemini`` dialect over real loopback HTTP: Google's Gemini API wire, exactly.

Each stream is read with the tests' own reader (``gemini_wire``): the CRLF-framed
``data:`` events, the JSON array of a stream without ``alt=sse``, the whole response of
``:generateContent``, and what the answer says (thoughts, text, whole function calls, their
thought signatures, cumulative usage, how it finished).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from sse_emulator import Emulator
from sse_emulator.assistant.thought_signatures import is_ours
from tests.emulator.gemini_wire import (
    GEMINI3,
    MODEL,
    WEATHER,
    assert_google_error,
    body_of,
    model_turn,
    post,
    read,
    sse_payloads,
    url,
    user,
)

pytestmark = pytest.mark.timeout(60)
THOUGHTS = {"generationConfig": {"thinkingConfig": {"includeThoughts": True}}}
TOOLS = {"tools": [{"functionDeclarations": [WEATHER]}]}


def test_the_base_url_is_the_root_clients_append_v1beta_to(
    client: httpx.Client, emulator: Emulator
) -> None:
    assert emulator.base_url("gemini") == emulator.url + "/gemini"
    assert client.get("/_emulator/health").json()["dialects"]["gemini"] == "/gemini"
    with httpx.Client(base_url=emulator.base_url("gemini"), timeout=5.0) as http:
        prefixed = http.post(f"/v1beta/models/{MODEL}:generateContent", json=body_of())
    bare = client.post(f"/v1beta/models/{MODEL}:generateContent", json=body_of())
    assert prefixed.status_code == bare.status_code == 200
    assert prefixed.content == bare.content  # the root itself serves /v1beta too


def test_an_sse_stream_is_crlf_framed_data_events_with_no_end_marker(
    client: httpx.Client,
) -> None:
    response = post(client, "count to 5")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["content-disposition"] == "attachment"
    assert b"[DONE]" not in response.content and b"event:" not in response.content
    assert b"\n" not in response.content.replace(b"\r\n", b"")  # every line ends with CRLF
    chunks = sse_payloads(response.content)
    found = read(chunks)
    assert found.text == "1 2 3 4 5" and found.finish == ["STOP"]
    assert found.models == {MODEL} and len(found.ids) == 1
    assert all("finishReason" not in chunk["candidates"][0] for chunk in chunks[:-1])
    first = response.content.split(b"\r\n")[0].decode()
    assert first.startswith('data: {"candidates": [{"content": {"parts": [{"text": "1"}],"role"')


def test_usage_is_on_every_chunk_and_cumulative(client: httpx.Client) -> None:
    chunks = sse_payloads(post(client, "count to 5").content)
    usages = [chunk["usageMetadata"] for chunk in chunks]
    produced = [usage.get("candidatesTokenCount", 0) for usage in usages]
    assert produced == sorted(produced) and produced[-1] == 5
    for usage in usages:
        prompt, thoughts = usage["promptTokenCount"], usage.get("thoughtsTokenCount", 0)
        assert usage["totalTokenCount"] == prompt + usage.get("candidatesTokenCount", 0) + thoughts
        assert usage["promptTokensDetails"] == [{"modality": "TEXT", "tokenCount": prompt}]
    # gemini-2.5-flash thinks by default (dynamically): counted, not shown
    assert usages[-1]["thoughtsTokenCount"] > 0 and read(chunks).thoughts == ""


def test_generate_content_is_the_whole_response_indented(client: httpx.Client) -> None:
    stream = sse_payloads(post(client, "count to 5").content)
    whole = post(client, "count to 5", method="generateContent")
    assert whole.status_code == 200
    assert whole.headers["content-type"] == "application/json; charset=UTF-8"
    assert whole.text.startswith('{\n  "candidates": [\n    {\n') and whole.text.endswith("}\n")
    response = whole.json()
    assert response["responseId"] == stream[-1]["responseId"]  # the same ids either way
    assert response["usageMetadata"] == stream[-1]["usageMetadata"]
    assert read([response]).text == "1 2 3 4 5"
    assert response["candidates"][0]["finishReason"] == "STOP"


def test_without_alt_sse_the_stream_is_a_json_array_written_element_by_element(
    client: httpx.Client,
) -> None:
    events = sse_payloads(post(client, "count to 3").content)
    with client.stream("POST", url(sse=False), json=body_of("count to 3")) as response:
        assert response.headers["content-type"] == "application/json; charset=UTF-8"
        pieces = list(response.iter_raw())
    body = b"".join(pieces).decode()
    assert body.startswith('[{\n  "candidates": [') and body.endswith("}\r\n]")
    assert body.count("\r\n,\r\n") == len(events) - 1
    assert json.loads(body) == events


def test_thought_summaries_come_first_as_thought_parts(client: httpx.Client) -> None:
    chunks = sse_payloads(post(client, "count to 3", **THOUGHTS).content)
    thought = [c for c in chunks if c["candidates"][0]["content"]["parts"][0].get("thought")]
    assert thought and chunks[: len(thought)] == thought
    found = read(chunks)
    assert found.thoughts.startswith("The user wrote:") and found.text == "1 2 3"
    assert all("candidatesTokenCount" not in c["usageMetadata"] for c in thought)
    whole = post(client, "count to 3", method="generateContent", **THOUGHTS).json()
    parts = whole["candidates"][0]["content"]["parts"]
    assert parts[0] == {"text": found.thoughts, "thought": True}


@pytest.mark.parametrize(
    ("model", "config", "thinks"),
    [
        ("gemini-2.5-flash", {"thinkingBudget": 0}, False),
        ("gemini-2.5-flash-lite", {}, False),
        ("gemini-2.0-flash", {}, False),
        ("gemini-2.5-flash-lite", {"thinkingBudget": 1024}, True),
        ("gemini-3-flash-preview", {"thinkingLevel": "low"}, True),
        ("gemini-3-flash-preview", {"thinkingLevel": "MINIMAL"}, False),
    ],
)
def test_what_thinks_and_what_does_not(
    client: httpx.Client, model: str, config: dict[str, Any], thinks: bool
) -> None:
    generation = {"thinkingConfig": config}
    chunks = sse_payloads(post(client, model=model, generationConfig=generation).content)
    assert ("thoughtsTokenCount" in chunks[-1]["usageMetadata"]) is thinks


def test_function_calls_are_whole_parts_and_gemini_3_signs_the_first(
    client: httpx.Client,
) -> None:
    chunks = sse_payloads(
        post(client, "weather in Paris and Tokyo", model=GEMINI3, **TOOLS).content
    )
    assert len(chunks) == 1  # the calls come whole, in one chunk with the finish
    candidate = chunks[0]["candidates"][0]
    first, second = candidate["content"]["parts"]
    assert first["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}
    assert second == {"functionCall": {"name": "get_weather", "args": {"city": "Tokyo"}}}
    assert is_ours(first["thoughtSignature"])
    assert candidate["finishReason"] == "STOP"
    assert candidate["finishMessage"] == "Model generated function call(s)."


def test_a_model_that_does_not_think_signs_nothing(client: httpx.Client) -> None:
    fields = TOOLS | {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}
    found = read(sse_payloads(post(client, "weather in Paris", **fields).content))
    assert found.calls == [{"name": "get_weather", "args": {"city": "Paris"}}]
    assert found.signatures == []


def test_gemini_3_ends_a_text_answer_with_a_signed_empty_part(client: httpx.Client) -> None:
    chunks = sse_payloads(post(client, "count to 4", model=GEMINI3).content)
    last = chunks[-1]["candidates"][0]
    (part,) = last["content"]["parts"]
    assert part["text"] == "" and is_ours(part["thoughtSignature"])
    assert last["finishReason"] == "STOP"
    assert chunks[-1]["usageMetadata"] == chunks[-2]["usageMetadata"]
    found = read(chunks)
    assert found.text == "1 2 3 4" and [kind for kind, _ in found.signatures] == ["text"]
    whole = post(client, "count to 4", model=GEMINI3, method="generateContent").json()
    (text,) = whole["candidates"][0]["content"]["parts"]
    assert text["text"] == "1 2 3 4" and is_ours(text["thoughtSignature"])
    other = read(sse_payloads(post(client, "count to 3", model=GEMINI3).content))
    assert other.signatures[0][1] != found.signatures[0][1]  # one per answer


def test_a_tool_loop_sent_back_with_its_signatures_is_answered(client: httpx.Client) -> None:
    question = user("weather in Paris")
    first = sse_payloads(post(client, "weather in Paris", model=GEMINI3, **TOOLS).content)
    answer = {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_weather", "response": {"sky": "sunny"}}}],
    }
    body = {"contents": [question, model_turn(first), answer]} | TOOLS
    second = client.post(url(GEMINI3), json=body)
    assert second.status_code == 200, second.text
    assert read(sse_payloads(second.content)).text == (
        'Based on the tool results: get_weather returned {"sky": "sunny"}.'
    )


def test_snake_case_names_are_taken_as_the_proto_json_mapping_takes_them(
    client: httpx.Client,
) -> None:
    body = {
        "contents": [user("what do you say?")],
        "system_instruction": {"parts": [{"text": "Be brief."}]},
        "generation_config": {"max_output_tokens": 2, "thinking_config": {"thinking_budget": 0}},
    }
    response = client.post(url(), json=body)
    assert response.status_code == 200, response.text
    found = read(sse_payloads(response.content))
    assert found.finish == ["MAX_TOKENS"] and found.usage["candidatesTokenCount"] == 2


def test_max_output_tokens_and_stop_sequences(client: httpx.Client) -> None:
    config = {"maxOutputTokens": 3, "thinkingConfig": {"thinkingBudget": 0}}
    cut = read(sse_payloads(post(client, "count to 10", generationConfig=config).content))
    assert (cut.text, cut.finish) == ("1 2 3", ["MAX_TOKENS"])
    stop = {"stopSequences": [" 4"], "thinkingConfig": {"thinkingBudget": 0}}
    stopped = read(sse_payloads(post(client, "count to 10", generationConfig=stop).content))
    assert (stopped.text, stopped.finish) == ("1 2 3", ["STOP"])


def test_a_response_schema_is_filled(client: httpx.Client) -> None:
    schema = {
        "type": "OBJECT",
        "properties": {"city": {"type": "STRING"}, "days": {"type": "INTEGER"}},
    }
    config = {"responseMimeType": "application/json", "responseSchema": schema}
    text = "Forecast for 'Lyon' over 3 days"
    response = post(client, text, method="generateContent", generationConfig=config)
    assert json.loads(read([response.json()]).text) == {"city": "Lyon", "days": 3}


def test_function_calling_modes(client: httpx.Client) -> None:
    none = {"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}}
    said = read(sse_payloads(post(client, "weather in Paris", **TOOLS, **none).content))
    assert said.calls == [] and said.text.startswith("You said:")
    forced = {"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}
    called = read(sse_payloads(post(client, "hello", **TOOLS, **forced).content))
    assert [call["name"] for call in called.calls] == ["get_weather"]


def test_the_same_request_gives_the_same_bytes(client: httpx.Client) -> None:
    assert post(client, model=GEMINI3).content == post(client, model=GEMINI3).content


def test_other_methods_and_verbs(client: httpx.Client) -> None:
    wrong_verb = client.get(url(method="generateContent"))
    assert_google_error(wrong_verb, 405, "UNKNOWN")
    assert client.post(f"/gemini/v1beta/models/{MODEL}:countTokens", json={}).status_code == 404


@pytest.fixture(scope="module")
def keyed() -> Any:
    with (
        Emulator(api_key="AIzaSy-emulator-0123456789") as emu,
        httpx.Client(base_url=emu.url, timeout=5.0) as http,
    ):
        yield http


def test_with_api_key_the_key_goes_in_x_goog_api_key_or_the_query(keyed: httpx.Client) -> None:
    body = body_of()
    good = {"x-goog-api-key": "AIzaSy-emulator-0123456789"}
    assert keyed.post(url(), json=body, headers=good).status_code == 200
    query = url(sse=False) + "?alt=sse&key=AIzaSy-emulator-0123456789"
    assert keyed.post(query, json=body).status_code == 200


def test_with_api_key_a_missing_or_wrong_key_is_refused_as_google_refuses_it(
    keyed: httpx.Client,
) -> None:
    missing = keyed.post(url(), json=body_of())
    assert_google_error(
        missing,
        403,
        "PERMISSION_DENIED",
        "Method doesn't allow unregistered callers (callers without established identity). "
        "Please use API Key or other form of API consumer identity to call this API.",
    )
    wrong = keyed.post(url(), json=body_of(), headers={"x-goog-api-key": "AIza-wrong"})
    error = assert_google_error(
        wrong, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."
    )
    assert error["details"][0]["reason"] == "API_KEY_INVALID"
    assert error["details"][1]["@type"] == "type.googleapis.com/google.rpc.LocalizedMessage"
    bearer = {"authorization": "Bearer AIzaSy-emulator-0123456789"}
    assert_google_error(keyed.post(url(), json=body_of(), headers=bearer), 401, "UNAUTHENTICATED")


def test_the_models_list_is_google_s(client: httpx.Client) -> None:
    for path in ("/gemini/v1beta/models", "/v1beta/models"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json; charset=UTF-8"
        names = [model["name"] for model in response.json()["models"]]
        assert f"models/{MODEL}" in names and f"models/{GEMINI3}" in names
    assert client.get("/v1/models").json()["object"] == "list"  # OpenAI's stays OpenAI's


def test_json_is_written_as_google_writes_it(client: httpx.Client) -> None:
    response = post(client, "echo: <b>café</b> & more")
    assert "\\u003cb\\u003ecafé\\u003c/b\\u003e".encode() in response.content  # UTF-8 raw
    assert read(sse_payloads(response.content)).text == "<b>café</b> & more"
    whole = post(client, "echo: <b>", method="generateContent")
    assert '"text": "\\u003cb\\u003e"' in whole.text
