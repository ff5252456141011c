"""SSELLM's structured output defaults as the llama-index LLM of its protocol does, each checked
beside that LLM on the same emulator: ``OpenAIResponses.structured_predict`` (and its async
twin, and ``as_structured_llm``'s chat) asks with constrained decoding (``text.format``
json_schema, strict, ``tool_choice`` "none") and streams with a required tool call;
``OpenAILike`` forces a tool call; so does llama-index's ``Anthropic`` for a model outside its
list of models with structured outputs."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import anthropic
import pytest
from llama_index.core.base.llms.types import ChatMessage
from llama_index.llms.anthropic import Anthropic
from llama_index.llms.anthropic.utils import is_anthropic_structured_output_supported
from llama_index.llms.openai import OpenAIResponses
from llama_index.llms.openai_like import OpenAILike  # type: ignore[import-untyped]
from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel, Field

from llamaindex_sse import SSELLM
from llamaindex_sse._structured import strict_schema
from sse_emulator import Emulator
from tests.llamaindex.agent_support import PERSON, Person

pytestmark = pytest.mark.timeout(60)
#: An Anthropic model llama-index knows, not in its list of models with structured outputs.
OUTSIDE = "claude-3-7-sonnet-latest"


class Reading(BaseModel):
    """A reading of the weather."""

    city: str
    celsius: int | None = None


def sent(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None and record.status == 200, record
    body = record.json()
    assert isinstance(body, dict)
    return body


def ours(emulator: Emulator, protocol: str) -> SSELLM:
    dialect = {"chat_completions": "openai"}.get(protocol, protocol)
    return SSELLM(model="gpt-4o-mini", base_url=emulator.base_url(dialect), api_key="sk-x",
                  protocol=protocol, max_retries=0)  # fmt: skip


def openai_responses(emulator: Emulator) -> OpenAIResponses:
    return OpenAIResponses(model="gpt-4o-mini", api_base=emulator.base_url("responses"),
                           api_key="sk-x", max_retries=0)  # fmt: skip


def is_closed(schema: dict[str, Any]) -> bool:
    """What strict mode takes: every property required, no other property allowed."""
    return schema.get("additionalProperties") is False and set(schema["required"]) == set(
        schema["properties"]
    )


def asked_natively(body: dict[str, Any], name: str) -> None:
    fmt = body["text"]["format"]
    assert (fmt["type"], fmt["name"], fmt["strict"]) == ("json_schema", name, True)
    assert is_closed(fmt["schema"])
    # OpenAIResponses sends tool_choice "none" with no tools; the core leaves a choice without
    # tools out (a gateway may refuse one), which asks for the same.
    assert body.get("tool_choice", "none") == "none" and "tools" not in body


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
def test_responses_structured_predict_is_strict_text_format_as_openairesponses(
    emulator: Emulator, sync: bool
) -> None:
    def predict(llm: Any, cls: type[BaseModel]) -> Any:
        if sync:
            return llm.structured_predict(cls, PERSON)
        return asyncio.run(llm.astructured_predict(cls, PERSON))

    theirs = predict(openai_responses(emulator), Person)
    asked_natively(sent(emulator), "Person")
    found = predict(ours(emulator, "responses"), Person)
    asked_natively(sent(emulator), "Person")
    assert found == theirs == Person(name="Alice Smith", age=30)
    predict(ours(emulator, "responses"), Reading)  # an optional field: required, nullable
    asked_natively(sent(emulator), "Reading")


def test_responses_structured_predict_asks_for_no_tool_call_beside_tools(
    emulator: Emulator,
) -> None:
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    llm = ours(emulator, "responses")
    found = llm.structured_predict(Person, PERSON, llm_kwargs={"tools": [tool]})
    body = sent(emulator)
    assert found == Person(name="Alice Smith", age=30)
    assert body["tool_choice"] == "none" and body["text"]["format"]["strict"] is True


def test_responses_streamed_structured_output_is_a_tool_call_as_openairesponses(
    emulator: Emulator,
) -> None:
    """OpenAIResponses streams by function calling too: it asks for ``required``, which its
    program then drops (``auto`` is sent); SSELLM sends ``required``, as its whole answer."""
    list(openai_responses(emulator).stream_structured_predict(Person, PERSON))
    expected = sent(emulator)
    found = list(ours(emulator, "responses").stream_structured_predict(Person, PERSON))
    body = sent(emulator)
    assert found[-1] == Person(name="Alice Smith", age=30)
    names = [[tool["name"] for tool in sent["tools"]] for sent in (body, expected)]
    assert names == [["Person"], ["Person"]]
    assert (body["tool_choice"], expected["tool_choice"]) == ("required", "auto")
    assert "format" not in body.get("text", {}) and "format" not in expected.get("text", {})


def test_responses_structured_llm_chat_is_native(emulator: Emulator) -> None:
    structured = ours(emulator, "responses").as_structured_llm(Person)
    response = structured.chat([ChatMessage(role="user", content=PERSON.template)])
    assert response.raw == Person(name="Alice Smith", age=30)
    asked_natively(sent(emulator), "Person")


def test_chat_completions_structured_predict_forces_the_tool_as_openailike(
    emulator: Emulator,
) -> None:
    anchor = OpenAILike(model="gpt-4o-mini", api_base=emulator.base_url("openai"), api_key="x",
                        is_chat_model=True, is_function_calling_model=True)  # fmt: skip
    theirs = anchor.structured_predict(Person, PERSON)
    expected = sent(emulator)
    found = ours(emulator, "chat_completions").structured_predict(Person, PERSON)
    body = sent(emulator)
    assert found == theirs == Person(name="Alice Smith", age=30)
    assert body["tool_choice"] == expected["tool_choice"] == "required"
    assert "response_format" not in body and "response_format" not in expected


def test_anthropic_structured_predict_is_a_tool_call_as_llama_indexs_anthropics(
    emulator: Emulator,
) -> None:
    """For a model outside llama-index's list of models with structured outputs its
    ``Anthropic`` asks by a tool call too, with ``tool_choice`` null (its program's None
    passed over its own choice), which the API refuses; SSELLM forces the tool."""
    assert not is_anthropic_structured_output_supported(OUTSIDE)
    base = emulator.base_url("anthropic").removesuffix("/v1")
    anchor = Anthropic(model=OUTSIDE, base_url=base, api_key="sk-ant-x", max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="tool_choice"):
        anchor.structured_predict(Person, PERSON)
    record = emulator.last_request
    expected = record.json() if record is not None else {}
    llm = SSELLM(model=OUTSIDE, base_url=emulator.base_url("anthropic"), api_key="sk-ant-x",
                 protocol="anthropic", max_retries=0)  # fmt: skip
    found = llm.structured_predict(Person, PERSON)
    body = sent(emulator)
    assert found == Person(name="Alice Smith", age=30)
    assert [tool["name"] for tool in body["tools"]] == [t["name"] for t in expected["tools"]]
    assert expected["tool_choice"] is None and body["tool_choice"]["type"] in ("any", "tool")
    assert "output_config" not in body and "output_config" not in expected


def test_llama_indexs_anthropic_asks_natively_for_a_model_of_its_list(emulator: Emulator) -> None:
    """Where SSELLM still forces the tool: llama-index's list goes by model name, which says
    nothing of a gateway's model."""
    listed = "claude-sonnet-4-5"
    assert is_anthropic_structured_output_supported(listed)
    base = emulator.base_url("anthropic").removesuffix("/v1")
    anchor = Anthropic(model=listed, base_url=base, api_key="sk-ant-x", max_retries=0)
    assert anchor.structured_predict(Person, PERSON) == Person(name="Alice Smith", age=30)
    expected = sent(emulator)
    assert expected["output_config"]["format"]["type"] == "json_schema"
    assert "tools" not in expected
    llm = SSELLM(model=listed, base_url=emulator.base_url("anthropic"), api_key="sk-ant-x",
                 protocol="anthropic", max_retries=0)  # fmt: skip
    assert llm.structured_predict(Person, PERSON) == Person(name="Alice Smith", age=30)
    body = sent(emulator)
    assert body["tool_choice"]["type"] in ("any", "tool") and "output_config" not in body


class Address(BaseModel):
    """Where someone lives."""

    street: str
    city: str | None = None


class Household(BaseModel):
    """People at one address."""

    address: Address = Field(description="The address")
    people: list[Person]
    pets: dict[str, int] = Field(default_factory=dict)
    note: str | None = None
    kind: Literal["house", "flat"] = "flat"


@pytest.mark.parametrize("cls", [Person, Reading, Address, Household])
def test_the_strict_schema_is_openai_pythons(cls: type[BaseModel]) -> None:
    """The schema as openai-python's ``to_strict_json_schema`` makes it (what
    ``OpenAIResponses.structured_predict`` sends), from a Pydantic class's JSON schema."""
    schema = cls.model_json_schema()
    assert strict_schema(schema) == to_strict_json_schema(cls)
    assert schema == cls.model_json_schema()  # the class's own schema is left as it was
