"""Standard content blocks: reasoning stays visible (invoke, stream, v1 output, v3 projections)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.block_translators import get_translator

from langchain_sse import PROVIDER
from langchain_sse._blocks import translate_content, translate_content_chunk
from tests.langchain.lc_support import ModelFactory

THINK = {"reasoning_effort": "low"}


def _types(message: AIMessage) -> list[str]:
    return [block["type"] for block in message.content_blocks]


def test_the_provider_tag_has_its_own_translator() -> None:
    assert PROVIDER != "openai"
    translator = get_translator(PROVIDER)
    assert translator is not None
    assert translator["translate_content"] is translate_content
    assert translator["translate_content_chunk"] is translate_content_chunk


def test_invoke_shows_reasoning_then_text(make_model: ModelFactory) -> None:
    message = make_model(model_kwargs=THINK).invoke("hello")
    assert message.response_metadata["model_provider"] == PROVIDER
    assert _types(message) == ["reasoning", "text"]
    assert message.content_blocks[0]["reasoning"] == "I can answer this directly."  # type: ignore[typeddict-item]


def test_aggregated_stream_shows_reasoning_then_text(make_model: ModelFactory) -> None:
    chunks = list(make_model(model_kwargs=THINK).stream("hello"))
    whole = chunks[0] + chunks[1:]
    assert isinstance(whole, AIMessageChunk)
    assert _types(whole) == ["reasoning", "text"]
    reasoning_chunk = next(c for c in chunks if c.additional_kwargs.get("reasoning_content"))
    assert _types(reasoning_chunk) == ["reasoning"]


def test_v1_output_keeps_reasoning_in_content(make_model: ModelFactory) -> None:
    message = make_model(model_kwargs=THINK, output_version="v1").invoke("hello")
    assert isinstance(message.content, list)
    kinds = [block["type"] for block in message.content if isinstance(block, dict)]
    assert kinds == ["reasoning", "text"]


def test_v3_stream_projects_reasoning_and_text(make_model: ModelFactory) -> None:
    stream = make_model(model_kwargs=THINK).stream_events("echo: pong", version="v3")
    events = list(stream)
    assert events
    assert str(stream.reasoning) == "I can answer this directly."
    assert str(stream.text) == "pong"
    assert stream.output.response_metadata.get("output_version") == "v1"


async def test_async_v3_stream_projects_reasoning(make_model: ModelFactory) -> None:
    stream = await make_model(model_kwargs=THINK).astream_events("echo: pong", version="v3")
    events = [event async for event in stream]
    assert events
    assert await stream.reasoning == "I can answer this directly."
    assert (await stream.output).text == "pong"


def test_tool_calls_are_chunks_until_the_last_chunk(make_model: ModelFactory) -> None:
    def get_weather(city: str) -> str:
        """Get the weather for a city."""
        return city

    chunks = list(make_model().bind_tools([get_weather]).stream("weather in Paris"))
    pieces = [c for c in chunks if c.tool_call_chunks]
    assert pieces
    assert all(_types(c) == ["tool_call_chunk"] for c in pieces)
    whole = chunks[0] + chunks[1:]
    assert isinstance(whole, AIMessageChunk)
    assert whole.chunk_position == "last"
    assert _types(whole) == ["tool_call"]
    assert whole.content_blocks[0]["args"] == {"city": "Paris"}  # type: ignore[typeddict-item]


def test_refusal_and_content_filter_give_refusal_blocks() -> None:
    refused = AIMessage(
        content="",
        additional_kwargs={"refusal": "No."},
        response_metadata={"model_provider": "sse"},
    )
    assert refused.content_blocks == [{"type": "refusal", "refusal": "No."}]
    filtered = AIMessage(
        content="Partial",
        response_metadata={"model_provider": "sse", "finish_reason": "content_filter"},
    )
    assert filtered.content_blocks == [
        {"type": "text", "text": "Partial"},
        {"type": "refusal", "refusal": "", "extras": {"finish_reason": "content_filter"}},
    ]


def test_list_content_falls_back_to_langchain_parsing() -> None:
    message = AIMessage(
        content=[{"type": "text", "text": "hi"}], response_metadata={"model_provider": "sse"}
    )
    assert message.content_blocks == [{"type": "text", "text": "hi"}]
