"""A Responses request from the core's turns (``sse_core.protocols.responses``): instructions,
input items, what of an earlier answer goes back, tools and their choice, and the settings in
the API's names; and the body as the transport sends it."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core import ConfigurationError, decode
from sse_core.protocols import responses
from sse_core.protocols.registry import request_shape, wire_protocol
from sse_core.protocols.turns import (
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)
from tests.core.responses.responses_wire import added, body, completed, created, item_done

ASK = Turn(role="user", parts=(TextPart(text="hi"),))
SEALED = "gAAAAABoSEALED=="
ITEM = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "t"}]}
SEALED_ITEM = {**ITEM, "encrypted_content": SEALED}
CHAT_TOOL = {
    "type": "function",
    "function": {"name": "add", "description": "Adds.", "parameters": {"type": "object"}},
}


def build(*turns: Turn, model: str = "gpt-4o", **params: Any) -> dict[str, Any]:
    return responses.responses_body(model, turns or (ASK,), params)


def test_the_protocol_is_registered_with_its_path_and_bearer_auth() -> None:
    found = wire_protocol("responses")
    shape = request_shape("responses")
    assert found.name == "responses" and shape.auth == "bearer" and dict(shape.headers) == {}
    assert shape.path("https://api.openai.com/v1") == "/responses"
    assert "response.completed" in found.ends


def test_a_leading_system_turn_is_the_instructions_a_later_one_a_developer_message() -> None:
    sent = build(
        Turn(role="system", parts=(TextPart(text="Be brief."),)),
        ASK,
        Turn(role="system", parts=(TextPart(text="Now in French."),)),
    )
    assert sent["instructions"] == "Be brief."
    assert sent["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "Now in French."}],
        },
    ]


def test_given_instructions_keep_the_conversations_system_turn_as_a_developer_message() -> None:
    sent = build(Turn(role="system", parts=(TextPart(text="Be brief."),)), ASK,
                 instructions="You are a pirate.")  # fmt: skip
    assert sent["instructions"] == "You are a pirate."
    assert sent["input"][0] == {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "Be brief."}],
    }
    assert sent["input"][1]["role"] == "user"


def test_user_media_and_an_assistants_answer_with_its_calls_and_their_results() -> None:
    user = Turn(
        role="user",
        parts=(
            TextPart(text="look"),
            ImagePart(url="https://x/cat.png"),
            ImagePart(data="AAAA", media_type="image/jpeg"),
            DocumentPart(data="JVBE"),
            DocumentPart(url="https://x/doc.pdf"),
        ),
    )
    assistant = Turn(
        role="assistant",
        parts=(
            ReasoningPart(text="t", signature=SEALED, item=SEALED_ITEM),
            TextPart(text="Let me add."),
            ToolUsePart(id="call_1", name="add", input={"a": 1, "b": "é"}),
        ),
    )
    result = Turn(role="tool", parts=(ToolResultPart(call_id="call_1", content="2"),))
    sent = build(user, assistant, result, tools=[CHAT_TOOL])
    assert sent["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "look"},
                {"type": "input_image", "image_url": "https://x/cat.png", "detail": "auto"},
                {
                    "type": "input_image",
                    "image_url": "data:image/jpeg;base64,AAAA",
                    "detail": "auto",
                },
                {
                    "type": "input_file",
                    "filename": "document.pdf",
                    "file_data": "data:application/pdf;base64,JVBE",
                },
                {"type": "input_file", "file_url": "https://x/doc.pdf"},
            ],
        },
        SEALED_ITEM,
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Let me add.", "annotations": []}],
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "add",
            "arguments": '{"a":1,"b":"é"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "2"},
    ]


def test_a_reasoning_item_decoded_from_a_stream_goes_back_byte_exact() -> None:
    stream = body(created(), added(0, ITEM), item_done(0, SEALED_ITEM), completed())
    (block,) = decode(stream, protocol="responses").reasoning_blocks
    part = ReasoningPart(text=block.text, signature=block.signature or "", item=block.item)
    answer = Turn(role="assistant", parts=(part, TextPart(text="Four.")))
    sent = build(ASK, answer, ASK, model="gpt-5")
    assert sent["input"][1] == {**SEALED_ITEM, "status": "completed"}
    assert sent["input"][1]["encrypted_content"] == SEALED


def test_a_reasoning_item_without_the_answer_that_followed_it_is_left_out() -> None:
    """A stream cut after its reasoning item: the API refuses the item alone ("... was
    provided without its required following item"), so it is left out, and said."""
    cut = Turn(
        role="assistant", parts=(ReasoningPart(text="t", signature=SEALED, item=SEALED_ITEM),)
    )
    with pytest.warns(UserWarning, match=r"the reasoning item 'rs_.*', without the answer"):
        sent = build(ASK, cut, ASK, model="gpt-5")
    assert [item.get("type") for item in sent["input"]] == ["message", "message"]


@pytest.mark.parametrize(
    ("item", "params", "sent"),
    [
        (SEALED_ITEM, {}, True),  # stateless: the encrypted content carries it
        (ITEM, {}, False),  # by id alone, with nothing stored: the API answers 404
        (ITEM, {"store": True}, True),  # stored: found by id
        (SEALED_ITEM, {"previous_response_id": "resp_1"}, False),  # the conversation holds it
        (None, {}, False),  # reasoning text alone (another protocol's): never
    ],
)
def test_which_reasoning_goes_back(item: Any, params: dict[str, Any], sent: bool) -> None:
    turn = Turn(role="assistant", parts=(ReasoningPart(text="t", item=item), TextPart(text="a")))
    items = build(ASK, turn, ASK, **params)["input"]
    assert any(entry.get("type") == "reasoning" for entry in items) is sent


def test_tools_in_the_flat_shape_and_the_choice() -> None:
    flat = {"type": "function", "name": "mul", "parameters": {"type": "object"}, "strict": True}
    search = {"type": "web_search"}
    strict = {"type": "function", "function": {**CHAT_TOOL["function"], "strict": True}}
    sent = build(tools=[CHAT_TOOL, strict, flat, search], tool_choice="add")
    assert sent["tools"] == [
        {
            "type": "function",
            "name": "add",
            "description": "Adds.",
            "parameters": {"type": "object"},
            "strict": False,  # chat's default: the Responses API would make it strict
        },
        {
            "type": "function",
            "name": "add",
            "description": "Adds.",
            "parameters": {"type": "object"},
            "strict": True,
        },
        flat,
        search,
    ]
    assert sent["tool_choice"] == {"type": "function", "name": "add"}


@pytest.mark.parametrize(
    ("choice", "made"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("any", "required"),
        (True, "required"),
        ({"type": "function", "function": {"name": "add"}}, {"type": "function", "name": "add"}),
        ({"type": "function", "name": "add"}, {"type": "function", "name": "add"}),
        ({"type": "web_search"}, {"type": "web_search"}),
    ],
)
def test_tool_choices(choice: object, made: object) -> None:
    assert build(tools=[CHAT_TOOL], tool_choice=choice)["tool_choice"] == made


def test_without_tools_no_choice_is_sent() -> None:
    sent = build(tool_choice="required", parallel_tool_calls=False)
    assert "tool_choice" not in sent and "tools" not in sent and "parallel_tool_calls" not in sent
    assert build(tools=[CHAT_TOOL], parallel_tool_calls=False)["parallel_tool_calls"] is False


def test_settings_in_the_apis_names() -> None:
    sent = build(
        model="o4-mini",
        max_tokens=500,
        reasoning_effort="low",
        reasoning={"summary": "auto"},
        metadata={"k": "v"},
        user="u1",
        service_tier="flex",
        temperature=None,
    )
    assert sent["max_output_tokens"] == 500 and "max_tokens" not in sent
    assert sent["reasoning"] == {"summary": "auto", "effort": "low"}
    assert (sent["metadata"], sent["user"], sent["service_tier"]) == ({"k": "v"}, "u1", "flex")
    assert "temperature" not in sent and "reasoning_effort" not in sent
    assert build(max_completion_tokens=64)["max_output_tokens"] == 64


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest"])
def test_an_effort_for_a_model_that_does_not_reason_is_not_sent(model: str) -> None:
    """The API refuses it ("Unsupported parameter: 'reasoning.effort' is not supported with
    this model."): not sent, with a warning, as stop is not; a wrong value is still refused."""
    with pytest.warns(UserWarning, match=f"reasoning_effort 'low' is not sent: {model} does not"):
        sent = build(model=model, reasoning_effort="low")
    assert "reasoning" not in sent and "include" not in sent
    with pytest.warns(UserWarning, match="reasoning_effort 'high' is not sent"):
        sent = build(model=model, reasoning={"effort": "high", "summary": "auto"})
    assert sent["reasoning"] == {"summary": "auto"}
    with pytest.raises(ConfigurationError, match=r"reasoning_effort|reasoning\.effort"):
        build(model=model, reasoning_effort="extreme")


def test_store_is_false_and_a_reasoning_request_asks_for_its_encrypted_content() -> None:
    assert build(model="gpt-5")["store"] is False
    assert build(model="gpt-5")["include"] == ["reasoning.encrypted_content"]
    assert build(model="emulator", reasoning={"effort": "low"})["include"] == [
        "reasoning.encrypted_content"
    ]
    given = build(model="gpt-5", include=["web_search_call.action.sources"])["include"]
    assert given == ["web_search_call.action.sources", "reasoning.encrypted_content"]
    # Not to a model that refuses it ("Encrypted content is not supported with this model").
    assert "include" not in build(model="gpt-4o")
    assert "include" not in build(model="gpt-5-chat-latest")
    # Stored: the reasoning is kept by OpenAI, nothing to ask for.
    stored = build(model="gpt-5", store=True, previous_response_id="resp_1")
    assert stored["store"] is True and "include" not in stored
    assert stored["previous_response_id"] == "resp_1"


def test_structured_output_is_text_format() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    given = {"type": "json_schema", "json_schema": {"name": "A", "schema": schema, "strict": True}}
    sent = build(response_format=given, text={"verbosity": "low"})
    assert sent["text"] == {
        "verbosity": "low",
        "format": {"type": "json_schema", "name": "A", "schema": schema, "strict": True},
    }
    assert build(response_format={"type": "json_object"})["text"] == {
        "format": {"type": "json_object"}
    }


@pytest.mark.parametrize("name", ["seed", "presence_penalty", "logprobs"])
def test_a_chat_setting_the_api_does_not_take_is_refused_by_name(name: str) -> None:
    with pytest.raises(ConfigurationError, match=f"{name} is not a parameter of the Responses API"):
        build(**{name: 1})


@pytest.mark.parametrize("name", ["stop", "stop_sequences"])
def test_stop_sequences_are_not_sent_with_a_warning(name: str) -> None:
    """Agents pass them (langchain-openai drops them unsaid); the API refuses the field."""
    with pytest.warns(UserWarning, match=f"{name} is not sent: the Responses API has no stop"):
        sent = build(**{name: ["\n"]})
    assert name not in sent
    with pytest.raises(ConfigurationError, match=f"{name} is not a parameter"):  # a raw body
        responses.check_request({"model": "m", "input": "hi", name: ["\n"]})


def test_n_of_one_is_what_the_api_does_more_is_refused() -> None:
    assert "n" not in build(n=1)
    with pytest.raises(ConfigurationError, match="one answer per request"):
        build(n=2)


def test_raw_parts_join_their_message_or_stand_as_items() -> None:
    reference = {"type": "item_reference", "id": "msg_9"}
    audio = {"type": "input_text", "text": "raw"}
    sent = build(Turn(role="user", parts=(RawPart(block=audio), RawPart(block=reference))))
    assert sent["input"] == [
        {"type": "message", "role": "user", "content": [audio]},
        reference,
    ]


def test_an_image_in_an_assistant_turn_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="assistant message cannot carry a ImagePart"):
        build(Turn(role="assistant", parts=(ImagePart(url="https://x"),)))


def test_the_body_as_sent_keeps_only_the_stream_options_the_api_takes() -> None:
    shape = request_shape("responses")
    payload = {"model": "m", "input": "hi", "stream_options": {"include_usage": True}}
    assert shape.body(payload, None, streaming=True, include_usage=True) == {
        "model": "m",
        "input": "hi",
        "stream": True,
    }
    extra = {"stream_options": {"include_obfuscation": False}, "top_k": 3}
    sent = shape.body(payload, extra, streaming=True, include_usage=True)
    assert sent["stream_options"] == {"include_obfuscation": False} and sent["top_k"] == 3
    assert "stream_options" not in shape.body(payload, extra, streaming=False, include_usage=True)
