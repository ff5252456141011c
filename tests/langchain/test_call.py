"""One model call (:mod:`langchain_sse._call`): the chunks told to the run in arrival order,
the final chunk last, the whole answer built from the core, and the stream closed on exit.

The calls are planned and opened as ChatSSE does it, over a MockTransport.
"""

from __future__ import annotations

from contextlib import aclosing, closing
from typing import Any
from uuid import UUID

import httpx
import pytest
from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    BaseCallbackHandler,
    CallbackManagerForLLMRun,
)
from langchain_core.messages import HumanMessage
from langchain_core.outputs import ChatGenerationChunk, LLMResult

import langchain_sse
from langchain_sse import ChatSSE, _loop
from langchain_sse._call import AsyncModelCall, ModelCall
from langchain_sse._loop import UNSTAMPED
from langchain_sse._run import Stamp
from sse_core import GatewayEvent
from tests.langchain.lc_support import Recorder, chunk, sse_body

RUN_ID = UUID("01234567-89ab-7def-8123-456789abcdef")
MODES = ("sync", "async")
NAMED = 'event: spass.tool-cap\ndata: {"iterations": 10}\n\n'
BODY = sse_body(
    chunk({"content": "Hel"}),
    NAMED,
    chunk({"content": "lo"}),
    chunk(finish_reason="stop"),
    {"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 2}},
)


class Tokens(BaseCallbackHandler):
    """Keeps the tokens and the end and error results of a run."""

    def __init__(self) -> None:
        self.tokens: list[Any] = []
        self.ends: list[LLMResult] = []
        self.errors: list[tuple[BaseException, Any]] = []

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        self.tokens.append(token)

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        self.ends.append(response)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.errors.append((error, kwargs.get("response")))


def _model(*bodies: bytes, status: int = 200, **fields: Any) -> ChatSSE:
    recorder = Recorder(bodies or [BODY])

    def reply(request: httpx.Request) -> httpx.Response:
        answer = recorder(request)
        return httpx.Response(status, headers=answer.headers, content=answer.content)

    transport = httpx.MockTransport(reply)
    return ChatSSE(model="m", base_url="http://gw.test/v1", max_retries=0, **fields,
                   http_client=httpx.Client(transport=transport),
                   http_async_client=httpx.AsyncClient(transport=transport))  # fmt: skip


def _open(model: ChatSSE, mode: str, handler: Tokens, emitted: list[GatewayEvent],
          *, quiet: bool = False, stamp: Any = UNSTAMPED) -> Any:  # fmt: skip
    """A call of ``model`` as ChatSSE plans it, telling ``handler`` and ``emitted``."""
    plan = _loop.plan_call(model, [HumanMessage("hi")], None, {}, stamp, quiet=quiet)
    outbound = plan.outbound
    if mode == "sync":
        manager = CallbackManagerForLLMRun(run_id=RUN_ID, handlers=[handler],
                                           inheritable_handlers=[])  # fmt: skip
        stream = model._pool.sync(model._resolve_config()).stream(outbound.payload)
        return ModelCall(stream, plan, manager, emitted.append)
    async_manager = AsyncCallbackManagerForLLMRun(run_id=RUN_ID, handlers=[handler],
                                                  inheritable_handlers=[])  # fmt: skip

    async def emit(event: GatewayEvent) -> None:
        emitted.append(event)

    astream = model._pool.async_(model._resolve_config()).stream(outbound.payload)
    return AsyncModelCall(astream, plan, async_manager, emit)


async def _drain(call: Any, mode: str, *, run: bool = False, limit: int | None = None) -> list[Any]:
    """The chunks of ``call.chunks()`` (or ``call.run()``), leaving after ``limit`` of them."""
    got: list[ChatGenerationChunk] = []
    if mode == "sync":
        with closing(call.run() if run else call.chunks()) as chunks:
            for item in chunks:
                got.append(item)
                if len(got) == limit:
                    break
        return got
    async with aclosing(call.run() if run else call.chunks()) as achunks:
        async for item in achunks:
            got.append(item)
            if len(got) == limit:
                break
    return got


@pytest.mark.parametrize("mode", MODES)
async def test_chunks_are_told_as_tokens_and_events_in_arrival_order(mode: str) -> None:
    handler, emitted = Tokens(), []
    call = _open(_model(), mode, handler, emitted)
    chunks = await _drain(call, mode)
    assert [c.message.content for c in chunks] == ["Hel", "lo", ""]
    assert handler.tokens == ["Hel", "lo", ""]  # the final chunk is a token too
    assert [e.name for e in emitted] == ["spass.tool-cap"]
    final = chunks[-1].message
    assert final.chunk_position == "last"
    assert final.usage_metadata["total_tokens"] == 4
    assert final.response_metadata["finish_reason"] == "stop"


@pytest.mark.parametrize("mode", MODES)
async def test_the_whole_answer_comes_from_the_core_even_when_no_chunk_is_made(mode: str) -> None:
    handler, emitted = Tokens(), []
    call = _open(_model(), mode, handler, emitted, quiet=True)
    chunks = await _drain(call, mode)
    assert [c.message.content for c in chunks] == [""]  # quiet: the final chunk alone
    assert handler.tokens == []  # and not told: nobody sees a quiet call's chunks
    assert [e.name for e in emitted] == ["spass.tool-cap"]  # the run still hears the gateway
    result = call.build_result()
    message = result.generations[0].message
    assert message.content == "Hello"
    assert message.response_metadata["gateway_events"][0]["name"] == "spass.tool-cap"
    assert result.llm_output is not None and result.llm_output["model_name"] == "m"


@pytest.mark.parametrize("mode", MODES)
async def test_run_ends_the_run_with_the_whole_stamped_answer(mode: str) -> None:
    handler = Tokens()
    call = _open(_model(), mode, handler, [], stamp=Stamp(RUN_ID, None))
    await _drain(call, mode, run=True)
    (end,) = handler.ends
    message = end.generations[0][0].message
    assert (message.content, message.id) == ("Hello", f"lc_run--{RUN_ID}")
    assert handler.errors == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_refused_request_reports_no_partial_answer(mode: str) -> None:
    handler = Tokens()
    body = b'{"error": {"message": "bad key", "type": "invalid_request_error"}}'
    call = _open(_model(body, status=401), mode, handler, [], stamp=Stamp(RUN_ID, None))
    with pytest.raises(langchain_sse.AuthenticationError):
        await _drain(call, mode, run=True)
    ((error, response),) = handler.errors
    assert isinstance(error, langchain_sse.AuthenticationError)
    assert response.generations == [[]]


@pytest.mark.parametrize("mode", MODES)
async def test_a_failed_stream_reports_what_had_arrived(mode: str) -> None:
    handler = Tokens()
    body = sse_body(chunk({"content": "par"}), chunk({"content": "tial"}), done=False)
    call = _open(_model(body), mode, handler, [], stamp=Stamp(RUN_ID, None))
    with pytest.raises(langchain_sse.IncompleteStreamError):
        await _drain(call, mode, run=True)
    ((_, response),) = handler.errors
    (partial,), rest = response.generations
    assert rest == []
    assert partial.message.content == "partial"
    assert partial.message.chunk_position is None  # cut short: not marked last


@pytest.mark.parametrize("mode", MODES)
async def test_leaving_early_closes_the_response(mode: str) -> None:
    call = _open(_model(), mode, Tokens(), [])
    assert len(await _drain(call, mode, limit=1)) == 1
    assert call.stream.response is not None
    assert call.stream.response.is_closed
    assert call.stream.completion is None
