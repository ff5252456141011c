"""SSELLM(protocol="anthropic")'s answers against the emulator's anthropic dialect, read four
ways: thinking with its signature (and redacted thinking) as ThinkingBlocks passed back
byte-exact, usage where llama-index's Anthropic LLM puts it (cache reads and writes too),
stop reasons, tool calls, and faults as the typed errors with the answer so far."""

from __future__ import annotations

import json
import time
from typing import Any

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
def test_thinking_keeps_its_signature(emulator: Emulator, mode: str, fast: bool) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK)
    with fast_paths.forced("llamaindex.lazy_responses", fast):
        responses = read(llm, ask("echo: the answer"), mode)
    expected = core_answer(emulator, wire("echo: the answer", thinking=THINK))
    (reference,) = expected.reasoning_blocks
    assert reference.signature
    last = responses[-1]
    assert thinking_of(last) == [
        ThinkingBlock(
            content=reference.text,
            additional_information={"type": "thinking", "signature": reference.signature},
        )
    ]
    assert last.message.content == "the answer"
    assert last.message.additional_kwargs["stop_reason"] == "end_turn"
    assert raw_of(last)["stop_reason"] == "end_turn" and raw_of(last)["stop_sequence"] is None
    assert last.additional_kwargs["stop_reason"] == "end_turn"
    assert last.additional_kwargs["finish_reason"] == "stop"
    if mode.endswith("stream_chat"):
        assert "".join(r.additional_kwargs.get("thinking_delta", "") for r in responses) == (
            reference.text
        )
        assert "".join(r.delta or "" for r in responses) == "the answer"
        # Mid-stream the open thinking block shows its text so far, unsigned.
        early = next(r for r in responses if r.additional_kwargs.get("thinking_delta"))
        (block,) = thinking_of(early)
        assert block.additional_information == {}
        assert block.content and reference.text.startswith(block.content)


@pytest.mark.parametrize("mode", MODES)
def test_the_signature_goes_back_byte_exact_on_the_next_turn(emulator: Emulator, mode: str) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK)
    first = read(llm, ask("echo: one"), mode)[-1]
    history = [*ask("echo: one"), first.message, *ask("echo: two")]
    read(llm, history, mode)
    record = emulator.last_request
    assert record is not None and record.status == 200
    (block,) = thinking_of(first)
    assert record.json()["messages"][1] == {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": block.content,
                "signature": block.additional_information["signature"],
            },
            {"type": "text", "text": "one"},
        ],
    }


@pytest.mark.parametrize("mode", MODES)
def test_redacted_thinking_is_kept_opaque_and_passed_back(emulator: Emulator, mode: str) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK)
    last = read(llm, ask(REDACT), mode)[-1]
    (reference,) = core_answer(emulator, wire(REDACT, thinking=THINK)).reasoning_blocks
    assert reference.redacted
    (block,) = thinking_of(last)
    assert block.content == ""
    assert block.additional_information == {"type": "redacted_thinking", "data": reference.redacted}
    read(llm, [*ask(REDACT), last.message, *ask("echo: go on")], mode)
    record = emulator.last_request
    assert record is not None
    assert record.json()["messages"][1]["content"][0] == {
        "type": "redacted_thinking",
        "data": reference.redacted,
    }


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
    assert raw_of(last)["usage"]["prompt_tokens"] == prompt  # as chat completions count it
    tokens = last.additional_kwargs
    assert (tokens["prompt_tokens"], tokens["completion_tokens"]) == (prompt, kept["output_tokens"])
    assert (tokens["cached_tokens"], tokens["cache_write_tokens"]) == (
        kept["cache_read_input_tokens"],
        kept["cache_creation_input_tokens"],
    )
    assert (counter.prompt_llm_token_count, counter.completion_llm_token_count) == (
        prompt,
        kept["output_tokens"],
    )


@pytest.mark.parametrize("mode", MODES)
def test_stop_sequence_and_max_tokens(emulator: Emulator, mode: str) -> None:
    llm = anthropic_llm(emulator)
    cut = read(llm, ask("count to 9"), mode, stop=["5"])[-1]
    assert cut.message.content == "1 2 3 4 "
    assert (raw_of(cut)["stop_reason"], raw_of(cut)["stop_sequence"]) == ("stop_sequence", "5")
    assert cut.additional_kwargs["stop_sequence"] == "5"
    short = read(anthropic_llm(emulator, max_tokens=3), ask("count to 50"), mode)[-1]
    assert short.message.additional_kwargs["stop_reason"] == "max_tokens"
    assert short.additional_kwargs["finish_reason"] == "length"


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
    assert all(s.tool_id.startswith("toolu_01") for s in selections)
    assert whole.message.additional_kwargs["stop_reason"] == "tool_use"
    assert whole.additional_kwargs["finish_reason"] == "tool_calls"
    body = emulator.last_request.json() if emulator.last_request else {}
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": tool.metadata.to_openai_tool()["function"]["description"],
            "input_schema": tool.metadata.to_openai_tool()["function"]["parameters"],
        }
    ]
    assert body["tool_choice"] == {"type": "auto"}
    single = llm.chat_with_tools([tool], "weather in Paris and Tokyo")  # parallel off
    assert emulator.last_request is not None
    assert emulator.last_request.json()["tool_choice"] == {
        "type": "auto",
        "disable_parallel_tool_use": True,
    }
    assert len(llm.get_tool_calls_from_response(single)) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", ["error-frame; after=6", "event-error; after=6"])
def test_an_error_event_after_a_200_keeps_the_answer_so_far(
    emulator: Emulator, mode: str, fault: str
) -> None:
    llm = anthropic_llm(emulator, fault, thinking_dict=THINK)
    with pytest.raises(llamaindex_sse.GatewayStreamError) as caught:
        read(llm, ask("count to 5"), mode)
    assert caught.value.type == "overloaded_error"
    partial = caught.value.partial_response
    (block,) = thinking_of(partial)
    assert block.content and block.content == caught.value.partial.reasoning


@pytest.mark.parametrize("mode", MODES)
def test_a_truncated_stream_is_incomplete(emulator: Emulator, mode: str) -> None:
    llm = anthropic_llm(emulator, "truncate; after=999")
    with pytest.raises(llamaindex_sse.IncompleteStreamError) as caught:
        read(llm, ask("count to 5"), mode)
    assert caught.value.partial_response.message.content == "1 2 3 4 5"
    assert isinstance(caught.value.partial_response.message.blocks[0], TextBlock)


@pytest.mark.parametrize("mode", MODES)
def test_the_answer_ends_at_message_stop_on_a_socket_held_open(
    emulator: Emulator, mode: str
) -> None:
    llm = anthropic_llm(emulator, "hold-open; seconds=30")
    started = time.monotonic()
    assert read(llm, ask("count to 5"), mode)[-1].message.content == "1 2 3 4 5"
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "fault", ["data-only", "prefilled", "usage-late", "usage-twice", "crlf, keepalive"]
)
def test_gateway_variants_give_the_clean_answer(emulator: Emulator, fault: str) -> None:
    clean = read(anthropic_llm(emulator, thinking_dict=THINK), ask("echo: grüße"), "chat")[-1]
    varied = read(
        anthropic_llm(emulator, fault, thinking_dict=THINK), ask("echo: grüße"), "stream_chat"
    )
    assert varied[-1].message.blocks == clean.message.blocks
    assert counts(varied[-1].message.additional_kwargs) == counts(clean.message.additional_kwargs)


def counts(kwargs: dict[str, Any]) -> tuple[object, ...]:
    """The stop reason and the four token counts (a gateway may send other usage fields)."""
    usage = kwargs["usage"]
    names = (
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    )
    return (kwargs["stop_reason"], *(usage[name] for name in names))


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


@pytest.mark.parametrize("mode", ["chat", "achat"])
def test_a_whole_json_answer_maps_as_a_streamed_one(emulator: Emulator, mode: str) -> None:
    llm = anthropic_llm(emulator, thinking_dict=THINK, invoke_streaming=False)
    whole = read(llm, ask("echo: hi"), mode)[-1]
    record = emulator.last_request
    assert record is not None and record.json()["stream"] is False
    streamed = read(anthropic_llm(emulator, thinking_dict=THINK), ask("echo: hi"), mode)[-1]
    assert whole.message.blocks == streamed.message.blocks
    assert counts(whole.message.additional_kwargs) == counts(streamed.message.additional_kwargs)


def test_complete_and_stream_complete(emulator: Emulator) -> None:
    llm = anthropic_llm(emulator)
    assert llm.complete("echo: done").text == "done"
    pieces = list(llm.stream_complete("count to 3"))
    assert "".join(p.delta or "" for p in pieces) == pieces[-1].text == "1 2 3"
