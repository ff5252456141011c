"""Streamed structured output against the emulator: ``stream_structured_predict``,
``astream_structured_predict`` and a structured LLM's ``stream_chat``/``astream_chat`` end
with the object ``structured_predict`` gives, for a nested schema whose fields all have
defaults (the shape that streamed as empty objects: LlamaIndex's ``stream_call`` asked for
the tool as ``auto``, and a model free to answer in text did)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from llama_index.core.llms import ChatMessage
from llama_index.core.prompts import PromptTemplate
from pydantic import BaseModel, Field

from sse_emulator import Emulator
from tests.llamaindex.li_support import LLMFactory

pytestmark = pytest.mark.timeout(60)

PROMPT = PromptTemplate("Plan a trip to {place}")
MESSAGES = [ChatMessage(role="user", content="Plan a trip to Italy")]


class Stop(BaseModel):
    city: str | None = None
    nights: int = 0


class Summary(BaseModel):
    """A trip summary."""

    title: str | None = None
    tags: list[str] = Field(default_factory=list)
    first: Stop = Field(default_factory=Stop)
    stops: list[Stop] = Field(default_factory=list)


def _whole(make_llm: LLMFactory) -> Summary:
    result = make_llm().structured_predict(Summary, PROMPT, place="Italy")
    assert isinstance(result, Summary)
    assert result != Summary()  # the emulator fills the schema
    return result


def test_stream_structured_predict_ends_with_the_whole_object(
    make_llm: LLMFactory, emulator: Emulator
) -> None:
    want = _whole(make_llm)
    parts = list(make_llm().stream_structured_predict(Summary, PROMPT, place="Italy"))
    assert parts and parts[-1] == want
    assert any(part != want for part in parts)  # it did stream, partial objects first
    sent = json.loads(emulator.requests[-1].body)
    assert sent["stream"] is True and sent["tool_choice"] == "required"


def test_astream_structured_predict_ends_with_the_whole_object(make_llm: LLMFactory) -> None:
    want = _whole(make_llm)

    async def collect() -> list[Any]:
        stream = await make_llm().astream_structured_predict(Summary, PROMPT, place="Italy")
        return [part async for part in stream]

    assert asyncio.run(collect())[-1] == want


def test_a_structured_llm_streams_the_whole_object(make_llm: LLMFactory) -> None:
    want = _whole(make_llm)
    structured = make_llm().as_structured_llm(Summary)
    last = list(structured.stream_chat(MESSAGES))[-1]
    assert last.raw == want
    assert Summary.model_validate_json(last.message.content or "") == want

    async def collect() -> Any:
        return [r async for r in await structured.astream_chat(MESSAGES)][-1]

    assert asyncio.run(collect()).raw == want
