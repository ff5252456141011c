"""SSELLM(protocol="anthropic")'s answers against the emulator's anthropic dialect, as
LlamaIndex shows them, read four ways: ThinkingBlocks with their signatures (the open one
unsigned mid-stream), the stop reason and usage where llama-index's Anthropic LLM puts them
(cache reads and writes too, counted by a TokenCountingHandler), tool calls growing as they
stream, a 529 with no key in what an observer sees, and complete/stream_complete. (What both
adapters do alike on this protocol: tests/adapters/test_anthropic_answers.py.)"""

from __future__ import annotations

import json

import pytest
from llama_index.core.base.llms.types import ChatMessage, TextBlock, ThinkingBlock
from llama_index.core.callbacks import CallbackManager, TokenCountingHandler
from llama_index.core.tools import FunctionTool

import llamaindex_sse
from sse_core import GatewayHTTPError, fast_paths
from sse_emulator import Emulator
from tests.llamaindex.anthropic_support import (
    FAULT,
    MODEL,
    MODES,
    THINK,
    anthropic_llm,
    core_answer,
    raw_of,
    read,
    thinking_of,
)
from tests.llamaindex.li_support import API_KEY, collect_events

pytestmark = pytest.mark.timeout(60)

REDACT = "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING"


def ask(text: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=text)]


def wire(text: str, **fields: object) -> dict[str, object]:
    """The request SSELLM sends for ``ask(text)`` (max_tokens 4096)."""
    content = [{"type": "text", "text": text}]
    return {
        "model": MODEL,
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": content}],
    } | fields


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "faithful"])
@pytest.mark.parametrize("mode", MODES)
def test_thinking_blocks_and_the_stop_reason_where_llama_index_keeps_them(
    emulator: Emulator, mode: str, fast: bool
) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK)
    with fast_paths.forced("llamaindex.lazy_responses", fast):
        responses = read(llm, ask("echo: the answer"), mode)
    expected = core_answer(emulator, wire("echo: the answer", thinking=THINK))
    (reference,) = expected.reasoning_blocks
    last = responses[-1]
    assert thinking_of(last) == [
        ThinkingBlock(
            content=reference.text,
            additional_information={"type": "thinking", "signature": reference.signature},
        )
    ]
    assert last.message.additional_kwargs["stop_reason"] == "end_turn"
    assert raw_of(last)["stop_reason"] == "end_turn" and raw_of(last)["stop_sequence"] is None
    if mode.endswith("stream_chat"):
        # Mid-stream the open thinking block shows its text so far, unsigned.
        early = next(r for r in responses if r.additional_kwargs.get("thinking_delta"))
        (block,) = thinking_of(early)
        assert block.additional_information == {}
        assert block.content and reference.text.startswith(block.content)


@pytest.mark.parametrize("mode", MODES)
def test_usage_with_cache_reads_and_writes(emulator: Emulator, mode: str) -> None:
    counter = TokenCountingHandler()
    llm = anthropic_llm(emulator, callback_manager=CallbackManager([counter]))
    history = [
        ChatMessage(
            role="system",
            content="Be terse.",
            additional_kwargs={"cache_control": {"type": "ephemeral"}},
        ),
        *ask("hello there, how are you today?"),
        ChatMessage(role="assistant", content="Fine, thanks for asking."),
        *ask("echo: again"),
    ]
    last = read(llm, history, mode)[-1]
    kept = last.message.additional_kwargs["usage"]
    assert kept["cache_read_input_tokens"] > 0 and kept["cache_creation_input_tokens"] > 0
    prompt = (
        kept["input_tokens"] + kept["cache_read_input_tokens"] + kept["cache_creation_input_tokens"]
    )
    assert raw_of(last)["usage"]["input_tokens"] == kept["input_tokens"]
    assert "prompt_tokens" not in raw_of(last)["usage"]  # the Messages API's names only
    tokens = last.additional_kwargs
    assert (tokens["prompt_tokens"], tokens["completion_tokens"]) == (prompt, kept["output_tokens"])
    assert (tokens["cached_tokens"], tokens["cache_write_tokens"]) == (
        kept["cache_read_input_tokens"],
        kept["cache_creation_input_tokens"],
    )
    # LlamaIndex's counter reads raw["usage"], the Messages API's counts as llama-index's
    # Anthropic LLM gives them: input_tokens leaves the cached tokens out.
    assert (counter.prompt_llm_token_count, counter.completion_llm_token_count) == (
        kept["input_tokens"],
        kept["output_tokens"],
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_stop_sequence_of_the_call_in_raw(emulator: Emulator, mode: str) -> None:
    llm = anthropic_llm(emulator)
    cut = read(llm, ask("count to 9"), mode, stop=["5"])[-1]  # a call's own stop
    assert cut.message.content == "1 2 3 4 "
    assert (raw_of(cut)["stop_reason"], raw_of(cut)["stop_sequence"]) == ("stop_sequence", "5")
    short = read(anthropic_llm(emulator, max_tokens=3), ask("count to 50"), mode)[-1]
    assert short.message.additional_kwargs["stop_reason"] == "max_tokens"


def test_tool_calls_streamed_and_whole(emulator: Emulator) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK)
    tool = FunctionTool.from_defaults(get_weather)
    seen = []
    for response in llm.stream_chat_with_tools(
        [tool], "weather in Paris and Tokyo", allow_parallel_tool_calls=True
    ):
        seen.append(
            [
                (c.tool_name, c.tool_kwargs)
                for c in llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
            ]
        )
    assert seen[-1] == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})]
    partial = [calls for calls in seen if calls and calls != seen[-1]]
    assert partial  # the calls grew as their input streamed, and reading them never raised
    whole = llm.chat_with_tools(
        [tool], "weather in Paris and Tokyo", allow_parallel_tool_calls=True
    )
    selections = llm.get_tool_calls_from_response(whole)
    assert [(s.tool_name, s.tool_kwargs) for s in selections] == seen[-1]
    body = emulator.last_request.json() if emulator.last_request else {}
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": tool.metadata.to_openai_tool()["function"]["description"],
            "input_schema": tool.metadata.to_openai_tool()["function"]["parameters"],
        }
    ]
    single = llm.chat_with_tools([tool], "weather in Paris and Tokyo")  # parallel off
    assert emulator.last_request is not None
    assert emulator.last_request.json()["tool_choice"] == {
        "type": "auto",
        "disable_parallel_tool_use": True,
    }
    assert len(llm.get_tool_calls_from_response(single)) == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_truncated_streams_partial_response_is_text_blocks(emulator: Emulator, mode: str) -> None:
    llm = anthropic_llm(emulator, "truncate; after=999")
    with pytest.raises(llamaindex_sse.IncompleteStreamError) as caught:
        read(llm, ask("count to 5"), mode)
    assert isinstance(caught.value.partial_response.message.blocks[0], TextBlock)


def test_a_529_is_a_typed_error_with_its_request_id_and_no_key(emulator: Emulator) -> None:
    llm = anthropic_llm(emulator)
    # Per call: every default header value is masked in errors, as a possible credential.
    with collect_events() as events, pytest.raises(GatewayHTTPError) as caught:
        llm.chat(ask("hi"), extra_headers={FAULT: "overloaded"})
    error = caught.value
    assert error.status_code == 529 and error.type == "overloaded_error"
    assert error.headers["request-id"].startswith("req_") and error.headers["request-id"] in str(
        error
    )
    shown = [str(error), repr(error), repr(llm), llm.to_json(), *map(repr, events.events)]
    assert not [text for text in shown if API_KEY in text]
    assert json.dumps(llm.to_dict()).count(API_KEY) == 0


def test_complete_and_stream_complete(emulator: Emulator) -> None:
    llm = anthropic_llm(emulator)
    assert llm.complete("echo: done").text == "done"
    pieces = list(llm.stream_complete("count to 3"))
    assert "".join(p.delta or "" for p in pieces) == pieces[-1].text == "1 2 3"
