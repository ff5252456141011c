"""Callbacks (:mod:`langchain_sse._custom_events`): one ``on_llm_new_token`` per delta, and gateway
events as custom events filed under the chat model's own run (not the parent chain's, and
not lost), whichever path ran; the run link that gets them there. (The events' names, order
and run for every call way, for both adapters: tests/adapters/test_gateway_events.py.)"""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableConfig, RunnableLambda

import sse_core
from langchain_sse import ChatSSE
from langchain_sse._custom_events import (
    LINK_KEY,
    RunLink,
    link_config,
    make_emitter,
    run_ls_params,
)
from sse_core import GatewayEvent
from tests.core.anthropic.test_captures import CAPTURES
from tests.langchain.lc_support import ModelFactory
from tests.raw_server import response, serving

NAMED = {"X-Emulator-Fault": "named-event; name=spass.tool-cap; after=2"}
SPASS_NAMED = {"SPASS-User-Id": "u", **NAMED}


class Recording(BaseCallbackHandler):
    """Keeps the run ids of chat-model starts, the tokens and the custom events."""

    def __init__(self) -> None:
        self.starts: list[UUID] = []
        self.tokens: list[tuple[str, UUID, Any]] = []
        self.custom: list[tuple[str, Any, UUID]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                            **kwargs: Any) -> None:  # fmt: skip
        self.starts.append(run_id)

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: UUID,
                         **kwargs: Any) -> None:  # fmt: skip
        self.tokens.append((token, run_id, chunk))

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.custom.append((name, data, run_id))


class AsyncRecording(AsyncCallbackHandler):
    """Async twin of :class:`Recording`."""

    def __init__(self) -> None:
        self.starts: list[UUID] = []
        self.custom: list[tuple[str, Any, UUID]] = []

    async def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                                  **kwargs: Any) -> None:  # fmt: skip
        self.starts.append(run_id)

    async def on_custom_event(self, name: str, data: Any, *, run_id: UUID,
                              **kwargs: Any) -> None:  # fmt: skip
        self.custom.append((name, data, run_id))


def test_streaming_invoke_fires_one_token_per_delta_with_its_chunk(
    make_model: ModelFactory,
) -> None:
    handler = Recording()
    model = make_model(streaming=True)
    message = model.invoke("count to 4", config={"callbacks": [handler]})
    tokens = [token for token, _, _ in handler.tokens]
    assert tokens == ["1", " 2", " 3", " 4", ""]  # four deltas, then the final chunk
    assert all(isinstance(chunk, ChatGenerationChunk) for _, _, chunk in handler.tokens)
    assert {run for _, run, _ in handler.tokens} == set(handler.starts)
    assert message.content == "1 2 3 4"


def test_stream_fires_each_token_once(make_model: ModelFactory) -> None:
    handler = Recording()
    chunks = list(make_model().stream("count to 4", config={"callbacks": [handler]}))
    assert len(handler.tokens) == len(chunks) == 5


@pytest.mark.parametrize("streaming", [False, True])
def test_invoke_dispatches_gateway_events_under_the_model_run(
    make_model: ModelFactory, streaming: bool
) -> None:
    handler = Recording()
    model = make_model("spass", default_headers=SPASS_NAMED, streaming=streaming)
    message = model.invoke("hi", config={"callbacks": [handler]})
    names = [name for name, _, _ in handler.custom]
    assert names == ["spass.tool-cap", "spass.cost"]
    assert {run for _, _, run in handler.custom} == set(handler.starts)
    assert handler.custom[0][1]["code"] == "tool_loop_max_iterations"
    assert [e["name"] for e in message.response_metadata["gateway_events"]] == names


async def test_an_async_handler_gets_the_gateway_events_of_astream_under_the_model_run(
    make_model: ModelFactory,
) -> None:
    handler = AsyncRecording()
    model = make_model(default_headers=NAMED)
    async for _ in model.astream("hi", config={"callbacks": [handler]}):
        pass
    assert [(name, run) for name, _, run in handler.custom] == [
        ("spass.tool-cap", handler.starts[0])
    ]


async def test_astream_events_on_the_model_shows_gateway_events_under_its_run(
    make_model: ModelFactory,
) -> None:
    model = make_model(default_headers=NAMED)
    events = [e async for e in model.astream_events("hi", version="v2")]
    (start,) = [e for e in events if e["event"] == "on_chat_model_start"]
    (custom,) = [e for e in events if e["event"] == "on_custom_event"]
    assert custom["name"] == "spass.tool-cap"
    assert custom["run_id"] == start["run_id"]
    kinds = [e["event"] for e in events]
    assert kinds.index("on_custom_event") < kinds.index("on_chat_model_end")


async def test_astream_events_in_a_chain_files_the_event_under_the_model_not_the_chain(
    make_model: ModelFactory,
) -> None:
    prompt = ChatPromptTemplate.from_messages([("user", "{question}")])
    chain = prompt | make_model(default_headers=NAMED) | RunnableLambda(lambda m: m.content)
    events = [e async for e in chain.astream_events({"question": "hi"}, version="v2")]
    (start,) = [e for e in events if e["event"] == "on_chat_model_start"]
    (custom,) = [e for e in events if e["event"] == "on_custom_event"]
    assert custom["run_id"] == start["run_id"]
    assert custom["parent_ids"] == start["parent_ids"]  # filed beside the start, not above


async def test_ainvoke_in_a_chain_files_the_event_under_the_model(make_model: ModelFactory) -> None:
    handler = AsyncRecording()
    prompt = ChatPromptTemplate.from_messages([("user", "{question}")])
    chain = prompt | make_model(default_headers=NAMED)
    await chain.ainvoke({"question": "hi"}, config={"callbacks": [handler]})
    assert [(name, run) for name, _, run in handler.custom] == [
        ("spass.tool-cap", handler.starts[0])
    ]


def test_trace_params_carry_no_plumbing(make_model: ModelFactory) -> None:
    class Params(BaseCallbackHandler):
        def __init__(self) -> None:
            self.params: list[dict[str, Any]] = []

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            self.params.append(kwargs["invocation_params"])

    handler = Params()
    list(make_model().stream("hi", config={"callbacks": [handler]}))
    (params,) = handler.params
    assert not any(key.startswith("_sse") for key in params)
    assert "api_key" not in params


def test_without_a_run_gateway_events_go_nowhere(make_model: ModelFactory) -> None:
    emit = make_emitter(make_model(), None, None)
    emit(GatewayEvent(name="spass.tool-cap", data={}))  # nothing to reach, nothing raised


def test_the_link_fixes_the_run_id_and_stays_out_of_params(make_model: ModelFactory) -> None:
    config, kwargs = link_config({"tags": ["t"]}, {"seed": 1})
    link = kwargs[LINK_KEY]
    assert isinstance(link, RunLink)
    assert config["run_id"] == link.run_id and link.config is config
    assert repr(link) == f"RunLink(run_id={link.run_id})"
    assert link_config({"run_id": link.run_id}, {})[0]["run_id"] == link.run_id
    model = make_model()
    assert LINK_KEY not in model._get_invocation_params(**kwargs)
    assert model._get_llm_string(**kwargs) == model._get_llm_string(seed=1)


@pytest.mark.parametrize("kwargs", [{}, {"temperature": 0.5, "model": "other"}])
def test_the_events_run_metadata_is_langchains_own(
    make_model: ModelFactory, kwargs: dict[str, Any]
) -> None:
    """What the base class puts in a run's metadata (its private helper), read through the
    public hook and the default it adds."""
    model = make_model(max_tokens=7)
    expected = model._get_ls_params_with_defaults(stop=["x"], **kwargs)
    assert run_ls_params(model, ["x"], dict(kwargs)) == expected


WEB_SEARCH = "vercel-ai__web-search-citations.payloads.jsonl"


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke", "astream"])
def test_a_server_tools_blocks_are_custom_events_named_after_their_type(mode: str) -> None:
    """A real web search: the server tool's call, its input pieces and its result reach the
    run under their block's type, not ``content_block_start``, with the data as sent."""
    handler = Recording()
    body = CAPTURES[WEB_SEARCH]
    with serving(lambda n, request: response(body)) as served:
        model = ChatSSE(model="claude-test", base_url=served.url, api_key="sk-ant-test",
                        protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
        config: RunnableConfig = {"callbacks": [handler]}

        async def run() -> None:
            if mode == "ainvoke":
                await model.ainvoke("hi", config=config)
            else:
                async for _ in model.astream("hi", config=config):
                    pass

        if mode == "invoke":
            model.invoke("hi", config=config)
        elif mode == "stream":
            list(model.stream("hi", config=config))
        else:
            asyncio.run(asyncio.wait_for(run(), 30))
    names = [name for name, _, _ in handler.custom]
    assert names == [
        "server_tool_use", *["server_tool_use.delta"] * 5, "server_tool_use.stop",
        "web_search_tool_result", "web_search_tool_result.stop",
    ]  # fmt: skip
    sent = sse_core.decode(body, protocol="anthropic").events
    assert [data for _, data, _ in handler.custom] == [event.data for event in sent]
    result = handler.custom[7][1]["content_block"]
    assert result["type"] == "web_search_tool_result" and len(result["content"]) > 1


def test_a_block_that_came_whole_is_named_after_its_type(make_model: ModelFactory) -> None:
    handler = Recording()
    _, kwargs = link_config({"callbacks": [handler]}, {})
    emit = make_emitter(make_model(), None, kwargs[LINK_KEY])
    whole = {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1", "content": {}}
    emit(GatewayEvent(name="content_block", data=whole))
    emit(GatewayEvent(name="content_block_delta", data={"index": 0, "delta": {}}))  # no start
    emit(GatewayEvent(name="content_block_start", data={"index": 0, "content_block": []}))
    emit(GatewayEvent(name="acme.notice", data={"index": 0}))
    assert [(name, data) for name, data, _ in handler.custom] == [
        ("web_fetch_tool_result", whole),
        ("content_block_delta", {"index": 0, "delta": {}}),
        ("content_block_start", {"index": 0, "content_block": []}),
        ("acme.notice", {"index": 0}),
    ]
