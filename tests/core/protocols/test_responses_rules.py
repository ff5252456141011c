"""The Responses API's request rules, in the protocol's module and so for both adapters: what
the API refuses is mended as its own clients mend it (with a warning) or refused before it is
sent (``sse_core.protocols.responses``); and, against the emulator, which refuses what the
API refuses (docs/emulator.md, R1-R16): each request of one table is refused by the emulator
as given, and the core refuses it or mends it into a body the emulator answers."""

from __future__ import annotations

import warnings
from typing import Any

import httpx
import pytest

from sse_core import ConfigurationError
from sse_core.protocols import responses
from sse_core.protocols.registry import request_shape
from sse_core.protocols.turns import TextPart, ToolResultPart, ToolUsePart, Turn
from sse_emulator import Emulator

ASK = [Turn(role="user", parts=(TextPart(text="hi"),))]
TOOL = {"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}


def build(model: str = "gpt-4o", turns: list[Turn] | None = None, **params: Any) -> dict[str, Any]:
    return responses.responses_body(model, turns or ASK, params)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_output_tokens": 8}, "at least 16"),
        ({"max_tokens": 15}, "at least 16"),
        ({"max_output_tokens": "100"}, "at least 16"),
        ({"temperature": 2.5}, "temperature must be between 0 and 2"),
        ({"top_p": 1.5}, "top_p must be between 0 and 1"),
        ({"reasoning": {"effort": "extreme"}}, "reasoning.effort must be one of"),
        ({"reasoning_effort": "extreme"}, "reasoning.effort must be one of"),
        ({"reasoning": {"summary": "long"}}, "reasoning.summary must be one of"),
        ({"include": ["reasoning.summary"]}, "include must list values of"),
        ({"text": {"format": {"type": "yaml"}}}, "text.format.type must be one of"),
        ({"text": {"format": {"type": "json_schema", "schema": {}}}}, "needs its name"),
        ({"tools": [TOOL], "tool_choice": {"type": "function", "name": "mul"}}, "not one of"),
        ({"tools": [TOOL], "tool_choice": {"name": "add"}}, "must name a choice"),
    ],
)
def test_what_the_api_refuses_is_refused_before_it_is_sent(
    params: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        build(**params)


def test_a_tool_result_answers_a_call_of_the_input() -> None:
    result = Turn(role="tool", parts=(ToolResultPart(call_id="call_9", content="1"),))
    with pytest.raises(ConfigurationError, match="output of call 'call_9', which no function_call"):
        build(turns=[*ASK, result])
    # Continuing a stored conversation, the call is in it.
    sent = build(turns=[result], previous_response_id="resp_1", store=True)
    assert sent["input"] == [{"type": "function_call_output", "call_id": "call_9", "output": "1"}]


def test_a_call_needs_its_result_after_it() -> None:
    call = Turn(role="assistant", parts=(ToolUsePart(id="call_1", name="add", input={}),))
    with pytest.raises(ConfigurationError, match="no function_call_output answers"):
        build(turns=[*ASK, call])  # the conversation ends on it: the caller's to answer


def test_an_interrupted_call_the_conversation_goes_on_after_is_left_out() -> None:
    """A cut answer's call, then a new question: the API refuses the call without its
    output (R14), so it is left out, and said (sse_core.protocols.history)."""
    said = ToolUsePart(id="call_1", name="add", input={})
    call = Turn(role="assistant", parts=(TextPart(text="Adding."), said))
    with pytest.warns(UserWarning, match=r"the tool call 'call_1' \(add\), which no tool result"):
        sent = build(turns=[*ASK, call, *ASK])
    assert [item.get("type") for item in sent["input"]] == ["message"] * 3


@pytest.mark.parametrize("model", ["gpt-5", "o3-mini", "openai/o4-mini", "gpt-5.1-codex"])
@pytest.mark.parametrize(("field", "value"), [("temperature", 0.2), ("top_p", 0.5)])
def test_sampling_a_reasoning_model_refuses_is_not_sent(
    model: str, field: str, value: float
) -> None:
    with pytest.warns(UserWarning, match=f"{field} {value!r} is not sent: {model} is a reasoning"):
        sent = build(model=model, **{field: value})
    assert field not in sent


@pytest.mark.parametrize(
    ("model", "params"),
    [
        ("gpt-4o", {}),
        ("gpt-5-chat-latest", {}),
        ("gpt-5.1", {"reasoning": {"effort": "none"}}),
        ("gpt-5", {"temperature": 1}),
    ],
)
def test_sampling_is_sent_where_the_model_takes_it(model: str, params: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sent = build(
            model=model, **{"temperature": 1 if "temperature" in params else 0.3, **params}
        )
    assert "temperature" in sent


def test_extra_body_is_sent_as_given() -> None:
    shape = request_shape("responses")
    payload = {"model": "gpt-5", "input": "hi"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sent = shape.body(
            payload, {"temperature": 0.2, "seed": 4}, streaming=True, include_usage=True
        )
    assert (sent["temperature"], sent["seed"]) == (0.2, 4)
    with pytest.raises(ConfigurationError, match="seed is not a parameter"):
        shape.body({**payload, "seed": 4}, None, streaming=True, include_usage=True)


#: id: (the request's settings as the caller gives them, and the model)
TABLE: dict[str, tuple[dict[str, Any], str]] = {
    "stop": ({"stop": ["\n"]}, "gpt-4o"),
    "max-output-tokens-below-16": ({"max_output_tokens": 8}, "gpt-4o"),
    "temperature-above-2": ({"temperature": 2.5}, "gpt-4o"),
    "top-p-above-1": ({"top_p": 1.5}, "gpt-4o"),
    "unknown-effort": ({"reasoning": {"effort": "extreme"}}, "gpt-5"),
    "unknown-summary": ({"reasoning": {"summary": "long"}}, "gpt-5"),
    "unknown-include": ({"include": ["reasoning.summary"]}, "gpt-4o"),
    "unknown-format": ({"text": {"format": {"type": "yaml"}}}, "gpt-4o"),
    "format-without-name": ({"text": {"format": {"type": "json_schema", "schema": {}}}}, "gpt-4o"),
    "forced-function-not-offered": (
        {
            "tools": [{"type": "function", "name": "add", "parameters": {"type": "object"}}],
            "tool_choice": {"type": "function", "name": "mul"},
        },
        "gpt-4o",
    ),
}


def _post(client: httpx.Client, body: dict[str, Any]) -> int:
    return client.post(
        "/v1/responses", json=body, headers={"authorization": "Bearer k"}
    ).status_code


@pytest.mark.parametrize("case", sorted(TABLE))
def test_requests_the_api_refuses(emulator: Emulator, case: str) -> None:
    settings, model = TABLE[case]
    raw = {"model": model, "input": "hi", "store": False, **settings}
    with httpx.Client(base_url=emulator.url, timeout=10) as client:
        assert _post(client, raw) == 400
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # a mended setting is said
                built = responses.responses_body(model, ASK, settings)
        except ConfigurationError:
            return  # refused before it was sent
        assert _post(client, built) == 200


def test_a_built_conversation_with_a_tool_loop_is_answered(emulator: Emulator) -> None:
    call = Turn(role="assistant", parts=(ToolUsePart(id="call_1", name="add", input={"a": 1}),))
    result = Turn(role="tool", parts=(ToolResultPart(call_id="call_1", content="2"),))
    system = Turn(role="system", parts=(TextPart(text="Be brief."),))
    built = responses.responses_body(
        "gpt-5", [system, *ASK, call, result], {"tools": [TOOL], "max_tokens": 200}
    )
    with httpx.Client(base_url=emulator.url, timeout=10) as client:
        assert _post(client, built) == 200
