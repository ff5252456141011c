"""``invoke_streaming=False``: invoke sends ``stream: false`` and gives what streaming gives.

For every emulator dialect and a plain answer, a reasoning answer, tool calls and a refusal
(each with usage), the JSON invoke is compared field by field with the streamed invoke of
the same prompt; the ids differ (the emulator derives them from the request body). The
callback handlers see the whole answer, streamed where LangChain would stream. (The same
typed errors, and ``stream`` still streaming, for both adapters:
tests/adapters/test_invoke_streaming.py.)
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import httpx
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import LLMResult
from langchain_core.tracers._streaming import (
    _StreamingCallbackHandler,
    _V2StreamingCallbackHandler,
)

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import ALL_DIALECTS, REASONING_DIALECTS, ModelFactory

MODES = ("sync", "async")
REFUSAL = "I'm sorry, but I can't help with that request."


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


#: case -> (prompt, model fields, bind tools)
CASES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "plain": ("echo: hello json world", {}, False),
    "reasoning": ("echo: pong", {"reasoning_effort": "medium"}, False),
    "tools": ("weather in Paris and Tokyo", {}, True),
    "refusal": ("this is forbidden", {}, False),
}


async def ask(model: ChatSSE, prompt: str, tools: bool, mode: str) -> AIMessage:
    runnable: Any = model.bind_tools([get_weather]) if tools else model
    if mode == "sync":
        message = runnable.invoke(prompt)
    else:
        message = await runnable.ainvoke(prompt)
    assert isinstance(message, AIMessage)
    return message


def sent_body(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None
    body = record.json()
    assert isinstance(body, dict)
    return body


def without_ids(meta: dict[str, Any]) -> dict[str, Any]:
    """Response metadata minus what the emulator derives from the request body."""
    kept = {k: v for k, v in meta.items() if k not in ("id", "headers", "gateway_events")}
    kept["headers"] = sorted(meta.get("headers", {}))
    return kept


def assert_same_answer(json_answer: AIMessage, streamed: AIMessage, dialect: str) -> None:
    assert json_answer.content == streamed.content
    assert json_answer.additional_kwargs == streamed.additional_kwargs
    assert json_answer.usage_metadata == streamed.usage_metadata
    assert json_answer.usage_metadata is not None
    assert [(c["name"], c["args"], c["type"]) for c in json_answer.tool_calls] == [
        (c["name"], c["args"], c["type"]) for c in streamed.tool_calls
    ]
    assert all(c["id"] for c in json_answer.tool_calls)
    assert json_answer.invalid_tool_calls == streamed.invalid_tool_calls == []
    assert without_ids(json_answer.response_metadata) == without_ids(streamed.response_metadata)
    assert json_answer.response_metadata["id"]
    assert [b["type"] for b in json_answer.content_blocks] == [
        b["type"] for b in streamed.content_blocks
    ]
    assert str(json_answer.id).startswith("lc_run--")
    if dialect == "spass":  # spass.cost is a named SSE event: a JSON answer has none
        assert [e["name"] for e in streamed.response_metadata["gateway_events"]] == ["spass.cost"]
        assert "gateway_events" not in json_answer.response_metadata
    else:
        assert "gateway_events" not in streamed.response_metadata


def assert_case_shape(message: AIMessage, case: str, dialect: str) -> None:
    """What each case must hold, so the comparison is not of two empty answers."""
    meta = message.response_metadata
    assert meta["model_name"] == "emulator"
    if case == "plain":
        assert (message.content, meta["finish_reason"]) == ("hello json world", "stop")
    elif case == "reasoning":
        assert message.content == "pong"
        has_reasoning = "reasoning_content" in message.additional_kwargs
        assert has_reasoning is (dialect in REASONING_DIALECTS)
    elif case == "tools":
        assert [c["args"] for c in message.tool_calls] == [{"city": "Paris"}, {"city": "Tokyo"}]
        assert meta["finish_reason"] == "tool_calls"
    elif dialect == "openai":
        assert message.additional_kwargs["refusal"] == REFUSAL
    elif dialect == "aivene":
        assert meta["finish_reason"] == "content_filter"
    else:
        assert message.content == REFUSAL


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_json_invoke_gives_the_streamed_answer(
    make_model: ModelFactory, emulator: Emulator, dialect: str, case: str, mode: str
) -> None:
    prompt, fields, tools = CASES[case]
    streamed = await ask(make_model(dialect, **fields), prompt, tools, mode)
    assert sent_body(emulator)["stream"] is True
    model = make_model(dialect, invoke_streaming=False, **fields)
    json_answer = await ask(model, prompt, tools, mode)
    body = sent_body(emulator)
    assert body["stream"] is False
    assert "stream_options" not in body
    assert len(emulator.requests) == 2
    assert_case_shape(streamed, case, dialect)
    assert_same_answer(json_answer, streamed, dialect)


def json_model(body: bytes, **fields: Any) -> tuple[ChatSSE, list[httpx.Request]]:
    """A ChatSSE whose gateway answers every request with a 200 JSON ``body``."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "application/json"}, content=body)

    transport = httpx.MockTransport(answer)
    model = ChatSSE(
        model="m",
        base_url="http://gateway.test/v1",
        max_retries=0,
        invoke_streaming=False,
        http_client=httpx.Client(transport=transport),
        http_async_client=httpx.AsyncClient(transport=transport),
        **fields,
    )
    return model, seen


# --- callbacks ---

WHOLE = {
    "id": "chatcmpl-9",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "one two three", "reasoning": "hm"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
}


class Seen(BaseCallbackHandler):
    """Keeps the tokens, their chunks' ids, the ends and the v2 events of the runs."""

    def __init__(self) -> None:
        self.tokens: list[Any] = []
        self.chunk_ids: list[str | None] = []
        self.ends: list[LLMResult] = []
        self.stream_events: list[dict[str, Any]] = []
        self.run_ids: list[UUID] = []

    def on_llm_new_token(self, token: Any, *, chunk: Any = None, **kwargs: Any) -> None:
        self.tokens.append(token)
        self.chunk_ids.append(chunk.message.id if chunk is not None else None)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        self.ends.append(response)
        self.run_ids.append(run_id)

    def on_stream_event(self, event: dict[str, Any], **kwargs: Any) -> None:
        self.stream_events.append(event)

    def ended_with(self) -> AIMessage:
        (result,) = self.ends
        message = result.generations[0][0].message  # type: ignore[attr-defined]
        assert isinstance(message, AIMessage)
        return message


class StreamingSeen(Seen, _StreamingCallbackHandler):
    """A v1 streaming handler (as LangGraph's messages mode and astream_events attach)."""

    def tap_output_aiter(self, run_id: UUID, output: Any) -> Any:
        return output

    def tap_output_iter(self, run_id: UUID, output: Any) -> Any:
        return output


class V2Seen(Seen, _V2StreamingCallbackHandler):
    """A v2 protocol handler (``on_stream_event``), as LangGraph's v2 messages stream."""


async def invoke_with(model: ChatSSE, handler: Seen, mode: str) -> AIMessage:
    config: Any = {"callbacks": [handler]}
    if mode == "sync":
        return model.invoke("hi", config=config)
    return await model.ainvoke("hi", config=config)


def assert_whole(message: AIMessage) -> None:
    assert message.content == "one two three"
    assert message.additional_kwargs == {"reasoning_content": "hm"}
    assert message.usage_metadata == {"input_tokens": 5, "output_tokens": 4, "total_tokens": 9}
    assert message.response_metadata["finish_reason"] == "stop"


@pytest.mark.parametrize("mode", MODES)
async def test_a_plain_handler_gets_no_token_and_the_whole_answer(mode: str) -> None:
    """LangChain does not stream an invoke for a plain handler: no token, as ChatOpenAI."""
    model, seen = json_model(json.dumps(WHOLE).encode())
    handler = Seen()
    message = await invoke_with(model, handler, mode)
    assert len(seen) == 1
    assert json.loads(seen[0].content)["stream"] is False
    assert handler.tokens == []
    assert_whole(message)
    assert_whole(handler.ended_with())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("trigger", ["streaming=True", "streaming handler"])
async def test_where_langchain_would_stream_one_json_request_is_sent(
    trigger: str, mode: str
) -> None:
    fields = {"streaming": True} if trigger == "streaming=True" else {}
    model, seen = json_model(json.dumps(WHOLE).encode(), **fields)
    handler = StreamingSeen() if trigger == "streaming handler" else Seen()
    message = await invoke_with(model, handler, mode)
    assert len(seen) == 1
    assert json.loads(seen[0].content)["stream"] is False
    assert handler.tokens == ["one two three", ""]
    (run_id,) = handler.run_ids
    assert handler.chunk_ids == [f"lc_run--{run_id}"] * 2  # stamped as streamed tokens are
    assert_whole(message)
    assert_whole(handler.ended_with())


@pytest.mark.parametrize("mode", MODES)
async def test_a_v2_protocol_handler_gets_the_json_answer_as_one_chunk(mode: str) -> None:
    model, seen = json_model(json.dumps(WHOLE).encode())
    handler = V2Seen()
    message = await invoke_with(model, handler, mode)
    assert len(seen) == 1
    assert json.loads(seen[0].content)["stream"] is False
    kinds = [e["event"] for e in handler.stream_events]
    assert kinds.count("content-block-delta") == 2  # the reasoning and the text, once each
    assert message.text == "one two three"
    assert [b["type"] for b in message.content_blocks] == ["reasoning", "text"]
    assert message.usage_metadata == {"input_tokens": 5, "output_tokens": 4, "total_tokens": 9}
    assert handler.ended_with().text == "one two three"


@pytest.mark.parametrize("mode", MODES)
async def test_a_v2_protocol_invoke_gives_the_streamed_message(
    make_model: ModelFactory, emulator: Emulator, mode: str
) -> None:
    answers = []
    for invoke_streaming in (True, False):
        model = make_model(reasoning_effort="low", invoke_streaming=invoke_streaming)
        answers.append(await invoke_with(model, V2Seen(), mode))
        assert sent_body(emulator)["stream"] is invoke_streaming
    streamed, json_answer = answers
    assert isinstance(streamed.content, list)  # the v2 path builds v1 content blocks
    assert json_answer.content == streamed.content
    assert json_answer.usage_metadata == streamed.usage_metadata
    assert without_ids(json_answer.response_metadata) == without_ids(streamed.response_metadata)


@pytest.mark.parametrize("mode", MODES)
async def test_a_bare_generate_with_a_v2_handler_sends_one_json_request(mode: str) -> None:
    model, seen = json_model(json.dumps(WHOLE).encode())
    handler = V2Seen()
    prompt = [[HumanMessage("hi")]]
    if mode == "sync":
        result = model.generate(prompt, callbacks=[handler])
    else:
        result = await model.agenerate(prompt, callbacks=[handler])
    assert len(seen) == 1
    assert json.loads(seen[0].content)["stream"] is False
    assert result.generations[0][0].text == "one two three"
    assert handler.stream_events == []  # answered by _generate: the handler gets on_llm_end
    assert_whole(handler.ended_with())
