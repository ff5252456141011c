"""The stream errors SSELLM raises: sse_core's classes plus ``partial_response``."""

from __future__ import annotations

import asyncio
import pickle

import httpx
import pytest
from llama_index.core.base.llms.types import ChatResponse, TextBlock, ThinkingBlock, ToolCallBlock
from llama_index.core.llms import ChatMessage

import llamaindex_sse
import sse_core
from llamaindex_sse import SSELLM
from llamaindex_sse._errors import to_llamaindex_error, translate_errors
from llamaindex_sse._inbound import to_chat_response
from sse_core import Completion, ToolCall, Usage
from sse_core.completion import Choice
from tests.llamaindex.li_support import API_KEY, chunk, frame, sse_transport

PARTIAL = Completion(
    choices=(
        Choice(
            content="Hel",
            reasoning="hmm",
            tool_calls=(ToolCall(index=0, id="c1", name="f", arguments='{"x"'),),
        ),
    ),
    usage=Usage(prompt_tokens=3, completion_tokens=2, total_tokens=5),
    id="r1",
)
STREAM_ERRORS = ("GatewayStreamError", "IncompleteStreamError", "StreamTimeoutError")
STREAM_ERRORS += ("StreamProtocolError",)


@pytest.mark.parametrize("name", STREAM_ERRORS)
def test_each_stream_error_is_both_and_carries_the_partial_response(name: str) -> None:
    core_class = getattr(sse_core, name)
    ours = getattr(llamaindex_sse, name)
    assert issubclass(ours, core_class) and ours is not core_class
    original = core_class("it broke", partial=PARTIAL)
    mapped = to_llamaindex_error(original)
    assert type(mapped) is ours and str(mapped) == "it broke"
    assert mapped.partial is PARTIAL
    response = mapped.partial_response
    assert isinstance(response, ChatResponse)
    expected = to_chat_response(PARTIAL)  # built as chat() builds its own
    assert response.message.blocks == expected.message.blocks
    assert [type(b) for b in response.message.blocks] == [ThinkingBlock, TextBlock, ToolCallBlock]
    assert response.raw == expected.raw
    assert response.additional_kwargs["total_tokens"] == 5


def test_the_attributes_cause_and_traceback_are_kept() -> None:
    cause = httpx.ReadError("reset")
    try:
        try:
            raise cause
        except httpx.ReadError as exc:
            raise sse_core.GatewayStreamError(
                "frame", partial=PARTIAL, type="server_error", code="x", data={"a": 1}
            ) from exc
    except sse_core.GatewayStreamError as exc:
        original = exc
    mapped = to_llamaindex_error(original)
    assert (mapped.type, mapped.code, mapped.data) == ("server_error", "x", {"a": 1})
    assert mapped.__cause__ is cause and mapped.__traceback__ is original.__traceback__
    assert pickle.loads(pickle.dumps(mapped)).partial_response.message.content == "Hel"


def test_other_errors_pass_unchanged() -> None:
    for error in (
        sse_core.ServerError("502", status_code=502),
        sse_core.ConfigurationError("bad"),
        sse_core.StreamError("base", partial=PARTIAL),
    ):
        assert to_llamaindex_error(error) is error


def test_llamaindex_errors_reraises_with_the_same_chain() -> None:
    cause = ValueError("underneath")
    with pytest.raises(llamaindex_sse.IncompleteStreamError) as caught, translate_errors():
        raise sse_core.IncompleteStreamError("cut", partial=PARTIAL) from cause
    assert caught.value.__cause__ is cause
    with pytest.raises(sse_core.ServerError), translate_errors():
        raise sse_core.ServerError("502", status_code=502)


def test_llamaindex_errors_shows_an_implicit_context_as_the_chain() -> None:
    context = KeyError("first")
    with pytest.raises(llamaindex_sse.StreamProtocolError) as caught, translate_errors():
        try:
            raise context
        except KeyError:
            raise sse_core.StreamProtocolError("bad", partial=PARTIAL)  # noqa: B904
    assert caught.value.__cause__ is context


TRUNCATED = [frame(chunk({"reasoning_content": "hmm"})), frame(chunk({"content": "Hel"}))]


def truncated_llm() -> SSELLM:
    return SSELLM(
        model="m",
        base_url="http://gateway.test/v1",
        api_key=API_KEY,
        http_client=httpx.Client(transport=sse_transport(TRUNCATED)),
        async_http_client=httpx.AsyncClient(transport=sse_transport(TRUNCATED)),
    )


ASK = [ChatMessage(role="user", content="hi")]


def test_every_endpoint_raises_ours() -> None:
    llm = truncated_llm()
    for call in (lambda: llm.chat(ASK), lambda: list(llm.stream_chat(ASK))):
        with pytest.raises(llamaindex_sse.IncompleteStreamError) as caught:
            call()
        thinking, text = caught.value.partial_response.message.blocks
        assert isinstance(thinking, ThinkingBlock) and thinking.content == "hmm"
        assert isinstance(text, TextBlock) and text.text == "Hel"
    with pytest.raises(llamaindex_sse.IncompleteStreamError):
        list(llm.stream_complete("hi"))


async def test_every_async_endpoint_raises_ours() -> None:
    llm = truncated_llm()
    with pytest.raises(llamaindex_sse.IncompleteStreamError):
        await llm.achat(ASK)
    with pytest.raises(llamaindex_sse.IncompleteStreamError):
        [r async for r in await llm.astream_chat(ASK)]
    with pytest.raises(llamaindex_sse.IncompleteStreamError) as caught:
        [r async for r in await llm.astream_complete("hi")]
    assert caught.value.partial_response.message.content == "Hel"
    await asyncio.sleep(0)
