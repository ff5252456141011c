"""When ChatSSE streams an ``invoke``, and what its callbacks hear, by LangChain's rules.

- ``disable_streaming=True`` (and ``"tool_calling"`` with tools bound, a ``stream=False``
  call) sends ``stream: false``, as ChatOpenAI does; a ``stream`` call then gives the
  invoked answer as one chunk.
- ``invoke`` tells handlers each token only where LangChain would stream it
  (``streaming=True``, or a streaming handler: ``astream_events``', LangGraph's); otherwise
  a handler hears the start and the end, as with ChatOpenAI, the reference model, run on the
  same emulator. Named gateway events still reach the run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any
from uuid import UUID

import httpx
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableLambda
from langchain_openai import ChatOpenAI

from sse_emulator import Emulator
from tests.langchain.lc_support import SPASS_HEADERS, TIMEOUT, ModelFactory

MODES = ("sync", "async")
PROMPT = "count to 300"


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


class Names(BaseCallbackHandler):
    """The names of a run's callbacks, in order."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.names.append("start")

    def on_llm_new_token(self, *args: Any, **kwargs: Any) -> None:
        self.names.append("token")

    def on_custom_event(self, *args: Any, **kwargs: Any) -> None:
        self.names.append("custom")

    def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        self.names.append("end")


class StreamingNames(Names):
    """A :class:`Names` that LangChain takes for a streaming handler (as LangGraph's is)."""

    def tap_output_iter(self, run_id: UUID, output: Iterator[Any]) -> Iterator[Any]:
        return output

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[Any]) -> AsyncIterator[Any]:
        return output


def reference(emulator: Emulator, **fields: Any) -> ChatOpenAI:
    """ChatOpenAI on the emulator, with its own async client (its shared default one is
    bound to the event loop of the first test that used it)."""
    key: Any = "sk-emulator-test-key"
    return ChatOpenAI(model="emulator", base_url=emulator.base_url(), api_key=key,
                      timeout=TIMEOUT, max_retries=0,
                      http_async_client=httpx.AsyncClient(timeout=TIMEOUT), **fields)  # fmt: skip


async def invoke(model: Any, mode: str, handler: Names, prompt: str = PROMPT) -> Any:
    config: Any = {"callbacks": [handler]}
    if mode == "sync":
        return model.invoke(prompt, config)
    return await model.ainvoke(prompt, config)


def sent_stream_flag(emulator: Emulator) -> Any:
    record = emulator.last_request
    assert record is not None
    return record.json()["stream"]


# --- item: callbacks during invoke ---


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("invoke_streaming", [True, False])
async def test_invoke_with_a_handler_tells_no_token_as_chatopenai(
    make_model: ModelFactory, emulator: Emulator, mode: str, invoke_streaming: bool
) -> None:
    own, theirs = Names(), Names()
    answer = await invoke(make_model(invoke_streaming=invoke_streaming), mode, own)
    assert sent_stream_flag(emulator) is invoke_streaming
    expected = await invoke(reference(emulator), mode, theirs)
    assert own.names == theirs.names == ["start", "end"]
    assert answer.content == expected.content
    assert answer.content.endswith(" 299 300")
    assert answer.usage_metadata["output_tokens"] > 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", ["streaming=True", "streaming handler"])
async def test_invoke_that_langchain_streams_tells_every_token_as_chatopenai(
    make_model: ModelFactory, emulator: Emulator, mode: str, how: str
) -> None:
    fields = {"streaming": True} if how == "streaming=True" else {}
    handler_type = Names if fields else StreamingNames
    own, theirs = handler_type(), handler_type()
    await invoke(make_model(**fields), mode, own, "count to 20")
    await invoke(reference(emulator, **fields), mode, theirs, "count to 20")
    for names in (own.names, theirs.names):
        assert names[0] == "start" and names[-1] == "end"
        assert names.count("token") >= 20  # one per number at least (ChatOpenAI adds a role chunk)


@pytest.mark.parametrize("mode", MODES)
async def test_invoke_matches_the_base_class_path_event_by_event(
    make_model: ModelFactory, mode: str
) -> None:
    """LangChain's own choice (``BaseChatModel._should_stream``) on the same model decides
    it: a plain handler hears no token in both."""
    model = make_model()
    twin = make_model()
    object.__setattr__(twin, "_should_stream", BaseChatModel._should_stream.__get__(twin))
    own, base = Names(), Names()
    await invoke(model, mode, own)
    await invoke(twin, mode, base)
    assert own.names == base.names == ["start", "end"]


async def test_astream_events_still_sees_the_tokens_of_an_invoke(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    async def count(model: Any) -> int:
        def ask(prompt: str) -> Any:  # a plain invoke inside a chain
            return model.invoke(prompt)

        chain = RunnableLambda(ask)
        events = chain.astream_events("count to 20", version="v2")
        return sum([e["event"] == "on_chat_model_stream" async for e in events])

    own, theirs = await count(make_model()), await count(reference(emulator))
    assert own >= 20 and theirs >= 20


@pytest.mark.parametrize("mode", MODES)
async def test_gateway_events_reach_a_quiet_invoke(make_model: ModelFactory, mode: str) -> None:
    headers = {**SPASS_HEADERS, "X-Emulator-Fault": "named-event; name=spass.tool-cap"}
    handler = Names()
    answer = await invoke(make_model("spass", default_headers=headers), mode, handler)
    assert handler.names[0] == "start" and handler.names[-1] == "end"
    assert "token" not in handler.names
    assert "custom" in handler.names
    assert "spass.tool-cap" in [e["name"] for e in answer.response_metadata["gateway_events"]]


# --- item: disable_streaming ---


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("switch", [True, "tool_calling"])
async def test_disable_streaming_sends_stream_false_as_chatopenai(
    make_model: ModelFactory, emulator: Emulator, mode: str, switch: bool | str
) -> None:
    tools_bound = make_model(disable_streaming=switch).bind_tools([get_weather])
    answer = await invoke(tools_bound, mode, Names(), "weather in Paris")
    assert sent_stream_flag(emulator) is False
    assert "stream_options" not in emulator.last_request.json()  # type: ignore[union-attr]
    assert [call["args"] for call in answer.tool_calls] == [{"city": "Paris"}]
    await invoke(reference(emulator, disable_streaming=switch).bind_tools([get_weather]),
                 mode, Names(), "weather in Paris")  # fmt: skip
    assert sent_stream_flag(emulator) is False
    await invoke(make_model(disable_streaming=switch), mode, Names(), "echo: no tools")
    assert sent_stream_flag(emulator) is (switch == "tool_calling")


@pytest.mark.parametrize("mode", MODES)
async def test_stream_with_streaming_disabled_gives_one_whole_chunk(
    make_model: ModelFactory, emulator: Emulator, mode: str
) -> None:
    model = make_model(disable_streaming=True)
    if mode == "sync":
        chunks = list(model.stream("count to 5"))
    else:
        chunks = [chunk async for chunk in model.astream("count to 5")]
    assert [chunk.content for chunk in chunks] == ["1 2 3 4 5"]
    assert sent_stream_flag(emulator) is False


def test_a_stream_false_call_sends_stream_false(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    answer = make_model().invoke("echo: whole", stream=False)
    assert answer.content == "whole"
    body = emulator.last_request.json()  # type: ignore[union-attr]
    assert body["stream"] is False
    assert "stream_options" not in body
    make_model().invoke("echo: streamed")  # the default streams the invoke
    assert sent_stream_flag(emulator) is True
