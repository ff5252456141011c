"""Every emulator fault through SSELLM, sync and async: answers survive wire quirks, and
failures arrive as the sse_core typed errors (the stream errors as llamaindex_sse's
subclasses), with the partial answer as a Completion and as a ChatResponse."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.base.llms.types import ChatResponse, TextBlock
from llama_index.core.llms import ChatMessage

import sse_core
from llamaindex_sse import (
    SSELLM,
    GatewayStreamError,
    IncompleteStreamError,
    StreamProtocolError,
    StreamTimeoutError,
)
from sse_core import (
    AuthenticationError,
    ChatClient,
    RateLimitError,
    ServerError,
    SSEConnectorError,
    StreamError,
    Timeouts,
)
from sse_emulator import Emulator
from tests.llamaindex.li_support import ALL_DIALECTS, SPASS_HEADERS, TIMEOUT, LLMFactory

TEXT = "café ☕ and more words to stream"
ASK = [ChatMessage(role="user", content=f"echo: {TEXT}")]
WIRE_ASK = {"role": "user", "content": f"echo: {TEXT}"}
MODES = ("sync", "async")


def stream(llm: SSELLM, mode: str) -> list[ChatResponse]:
    """Every response of one streamed answer; raises what the stream raised."""
    if mode == "sync":
        return list(llm.stream_chat(ASK))

    async def consume() -> list[ChatResponse]:
        return [r async for r in await llm.astream_chat(ASK)]

    return asyncio.run(asyncio.wait_for(consume(), 30))


def failure(llm: SSELLM, mode: str) -> tuple[SSEConnectorError, list[ChatResponse]]:
    """The error a stream raised, and the responses that came before it."""
    seen: list[ChatResponse] = []

    async def consume() -> None:
        async for response in await llm.astream_chat(ASK):
            seen.append(response)

    try:
        if mode == "sync":
            seen.extend(llm.stream_chat(ASK))
        else:
            asyncio.run(asyncio.wait_for(consume(), 30))
    except SSEConnectorError as exc:
        return exc, seen
    raise AssertionError(f"the stream ended without an error after {len(seen)} responses")


def core_completion(emulator: Emulator, dialect: str, fault: str) -> ChatClient:
    return ChatClient(
        base_url=emulator.base_url(dialect),
        default_headers={**SPASS_HEADERS, "X-Emulator-Fault": fault},
        timeout=TIMEOUT,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "fault",
    [
        "slow; delay=0.002",
        "split-utf8; pause=0.002",
        "crlf",
        "cr",
        "single-newline",
        "keepalive; every=1",
        "keepalive; text=OPENROUTER PROCESSING",
        "bom",
        "json-body",
        "oversized; size=4096",
    ],
)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
def test_the_answer_survives_wire_quirks(
    emulator: Emulator, make_llm: LLMFactory, dialect: str, fault: str, mode: str
) -> None:
    responses = stream(make_llm(dialect, fault=fault), mode)
    extra = "x" * 4096 if fault.startswith("oversized") else ""
    last = responses[-1]
    assert last.message.content is not None
    assert last.message.content.replace(extra, "") == TEXT
    assert "".join(r.delta or "" for r in responses) == last.message.content
    # The adapter shows exactly what the core decoded (finish reason and usage included).
    with core_completion(emulator, dialect, fault) as client:
        completion = client.complete({"model": "emulator", "messages": [WIRE_ASK]})
    assert last.additional_kwargs.get("finish_reason") == completion.finish_reason
    assert last.additional_kwargs.get("total_tokens") == (
        completion.usage.total_tokens if completion.usage else None
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ("rate-limit; count=0; retry-after=0", RateLimitError),
        ("unavailable", ServerError),
        ("bad-gateway", ServerError),
        ("bad-gateway-html", ServerError),
        ("unauthorized", AuthenticationError),
    ],
)
def test_status_faults_raise_typed_errors(
    make_llm: LLMFactory, fault: str, error: type[SSEConnectorError], mode: str
) -> None:
    exc, seen = failure(make_llm(fault=fault), mode)
    assert type(exc) is error and seen == []
    assert "sk-llamaindex-test-secret" not in str(exc)


@pytest.mark.parametrize("mode", MODES)
def test_a_rate_limit_is_retried_before_the_stream(
    emulator: Emulator, make_llm: LLMFactory, mode: str
) -> None:
    responses = stream(make_llm(fault="rate-limit; count=1; retry-after=0", max_retries=1), mode)
    assert responses[-1].message.content == TEXT
    assert [r.status for r in emulator.requests] == [429, 200]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ("event-error; after=3", GatewayStreamError),
        ("truncate; after=3", IncompleteStreamError),
        ("reset; after=3", IncompleteStreamError),
        ("stall; after=3; seconds=20", StreamTimeoutError),
        ("invalid-json; after=3", StreamProtocolError),
        ("oversized; after=3; size=100000", StreamProtocolError),
    ],
)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
def test_stream_faults_raise_typed_errors_with_the_partial_answer(
    make_llm: LLMFactory, dialect: str, fault: str, error: type[StreamError], mode: str
) -> None:
    timeout = Timeouts(connect=2, first_byte=5, idle=0.5, total=30)
    llm = make_llm(dialect, fault=fault, timeout=timeout, max_event_bytes=50_000)
    exc, seen = failure(llm, mode)
    assert type(exc) is error
    assert isinstance(exc, getattr(sse_core, error.__name__))  # sse_core's class catches it
    assert isinstance(exc, StreamError) and exc.has_partial
    assert exc.partial.content == "".join(r.delta or "" for r in seen)
    partial = exc.partial_response  # type: ignore[attr-defined]
    assert isinstance(partial, ChatResponse)
    assert partial.message.content == exc.partial.content


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
def test_a_mid_stream_error_frame(make_llm: LLMFactory, dialect: str, mode: str) -> None:
    exc, seen = failure(make_llm(dialect, fault="error-frame; after=3"), mode)
    if dialect == "spass":  # the SPASS seed answers a failing stream with an HTTP 502
        assert type(exc) is ServerError and seen == []
    else:
        assert type(exc) is GatewayStreamError
        assert exc.partial.content == "".join(r.delta or "" for r in seen)


@pytest.mark.parametrize("mode", MODES)
def test_chat_raises_the_same_typed_errors(make_llm: LLMFactory, mode: str) -> None:
    llm = make_llm(fault="truncate; after=3")
    with pytest.raises(sse_core.IncompleteStreamError) as caught:
        if mode == "sync":
            llm.chat(ASK)
        else:
            asyncio.run(llm.achat(ASK))
    assert type(caught.value) is IncompleteStreamError
    assert TEXT.startswith(caught.value.partial.content)
    (text,) = caught.value.partial_response.message.blocks
    assert isinstance(text, TextBlock) and text.text == caught.value.partial.content
