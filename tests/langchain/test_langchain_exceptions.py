"""ChatSSE's errors as LangChain's exception types: status codes refined to langchain-core's
classes, the conversion keeping attributes, cause and traceback, retryable flags; wire quirks
that leave the answer whole (its ``response_metadata``), and a truncated tool call's pieces.

(Every emulator fault as a typed error with its partial answer, for both adapters:
tests/adapters/test_faults.py.)
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langchain_core import exceptions as lc
from langchain_core.messages import AIMessageChunk

import langchain_sse
import sse_core
from langchain_sse import ChatSSE
from langchain_sse._errors import convert_error
from tests.langchain.lc_support import ALL_DIALECTS, ModelFactory

MODES = ("sync", "async")

#: Faults that bend the wire without breaking the answer.
BENIGN_FAULTS = (
    "slow; delay=0.002",
    "split-utf8; pause=0.001",
    "crlf",
    "cr",
    "single-newline",
    "keepalive",
    "bom",
    "named-event",
    "think-tags",
)


def _model(make_model: ModelFactory, dialect: str, fault: str) -> ChatSSE:
    return make_model(
        dialect,
        timeout=sse_core.Timeouts(connect=5, first_byte=5, idle=0.2),
        max_event_bytes=2000,
        default_headers={"SPASS-User-Id": "u", "X-Emulator-Fault": fault},
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("dialect", "fault"), [(d, f) for d in ALL_DIALECTS for f in BENIGN_FAULTS]
)
async def test_benign_faults_give_the_whole_answer(
    make_model: ModelFactory, dialect: str, fault: str, mode: str
) -> None:
    model = _model(make_model, dialect, fault)
    prompt = "echo: café ☕ 1 2 3"
    if mode == "sync":
        chunks = list(model.stream(prompt))
    else:
        chunks = [c async for c in model.astream(prompt)]
    whole = chunks[0] + chunks[1:]
    assert isinstance(whole, AIMessageChunk)
    assert whole.content == "café ☕ 1 2 3"
    assert whole.response_metadata["finish_reason"] == "stop"
    if fault == "named-event":
        names = [e["name"] for e in whole.response_metadata["gateway_events"]]
        assert ("spass.tool-cap" if dialect == "spass" else "emulator.notice") in names


@pytest.mark.parametrize("mode", MODES)
async def test_truncated_tool_call_keeps_its_pieces(make_model: ModelFactory, mode: str) -> None:
    def get_weather(city: str) -> str:
        """Get the weather."""
        return city

    model = _model(make_model, "openai", "truncate; after=3").bind_tools([get_weather])
    with pytest.raises(langchain_sse.IncompleteStreamError) as caught:
        if mode == "sync":
            model.invoke("weather in Paris")
        else:
            await model.ainvoke("weather in Paris")
    (call,) = caught.value.partial.tool_calls
    assert call.name == "get_weather"
    assert call.arguments and not call.arguments.endswith("}")


def _status(status: int, body: dict[str, Any]) -> ChatSSE:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body)

    client = httpx.Client(transport=httpx.MockTransport(reply))
    return ChatSSE(model="m", base_url="http://gw.test/v1", http_client=client, max_retries=0)


@pytest.mark.parametrize(
    ("status", "body", "ours", "langchain"),
    [
        (403, {"error": {"message": "no"}}, langchain_sse.PermissionDeniedError,
         lc.ModelPermissionDeniedError),
        (404, {"error": {"message": "no such model"}}, langchain_sse.NotFoundError,
         lc.ModelNotFoundError),
        (400, {"error": {"message": "too long", "code": "context_length_exceeded"}},
         langchain_sse.ContextOverflowError, lc.ContextOverflowError),
        (400, {"error": {"message": "This model's maximum context length is 8192 tokens"}},
         langchain_sse.ContextOverflowError, lc.ContextOverflowError),
        (422, {"error": {"message": "bad field"}}, langchain_sse.BadRequestError,
         lc.ModelInvalidRequestError),
        (409, {"error": {"message": "conflict"}}, langchain_sse.RetryableRequestError,
         lc.ModelAPIError),
        (501, {"error": {"message": "unsupported"}}, langchain_sse.NotImplementedByServerError,
         lc.ModelAPIError),
    ],
)  # fmt: skip
def test_status_codes_refine_to_langchain_types(
    status: int, body: dict[str, Any], ours: type[Exception], langchain: type[Exception]
) -> None:
    with pytest.raises(ours) as caught:
        _status(status, body).invoke("hi")
    assert isinstance(caught.value, langchain)
    assert isinstance(caught.value, sse_core.GatewayHTTPError)
    assert caught.value.status_code == status


def test_a_501_is_a_server_error_of_both_trees_that_is_not_retried() -> None:
    sent: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(501, json={"error": {"message": "unsupported"}})

    client = httpx.Client(transport=httpx.MockTransport(reply))
    model = ChatSSE(model="m", base_url="http://gw.test/v1", http_client=client, max_retries=2)
    with pytest.raises(langchain_sse.ServerError) as caught:
        model.invoke("hi")
    assert isinstance(caught.value, sse_core.NotImplementedByServerError)
    assert not caught.value.is_retryable and len(sent) == 1


def test_403_is_still_an_authentication_error() -> None:
    with pytest.raises(sse_core.AuthenticationError) as caught:
        _status(403, {"error": {"message": "no"}}).invoke("hi")
    assert isinstance(caught.value, lc.ModelAuthenticationError)


def test_conversion_keeps_attributes_cause_and_traceback() -> None:
    cause = ValueError("inner")
    try:
        try:
            raise cause
        except ValueError as exc:
            raise sse_core.RateLimitError(
                "slow down", status_code=429, retry_after=3.0, headers={"retry-after": "3"}
            ) from exc
    except sse_core.RateLimitError as original:
        mapped = convert_error(original)
        traceback = original.__traceback__
    assert type(mapped) is langchain_sse.RateLimitError
    assert (mapped.status_code, mapped.retry_after, mapped.message) == (429, 3.0, "slow down")
    assert mapped.headers == {"retry-after": "3"}
    assert mapped.__cause__ is cause
    assert mapped.__traceback__ is traceback
    assert mapped.is_retryable


def test_errors_without_a_langchain_counterpart_pass_unchanged() -> None:
    error = sse_core.ConfigurationError("bad")
    assert convert_error(error) is error
    mapped = langchain_sse.ServerError("x", status_code=500)
    assert convert_error(mapped) is mapped


def test_stream_errors_are_not_retryable_and_status_errors_keep_their_flag() -> None:
    assert not langchain_sse.StreamTimeoutError.is_retryable
    assert not langchain_sse.IncompleteStreamError.is_retryable
    assert langchain_sse.RateLimitError.is_retryable
    assert langchain_sse.GatewayConnectionError.is_retryable
    assert not langchain_sse.AuthenticationError.is_retryable


@pytest.mark.parametrize(
    ("core", "langchain"),
    [
        (sse_core.RedirectError, lc.ModelInvalidRequestError),
        (sse_core.UnexpectedResponseError, lc.ModelInvalidRequestError),
    ],
)
def test_redirects_and_web_pages_are_langchain_request_errors(
    core: type[sse_core.GatewayHTTPError], langchain: type[Exception]
) -> None:
    error = core("the gateway answered something else", status_code=307, headers={"location": "x"})
    mapped = convert_error(error)
    assert isinstance(mapped, core) and isinstance(mapped, langchain)
    assert mapped.status_code == 307 and str(mapped) == str(error)
