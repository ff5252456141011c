"""A canary key and a canary header value, through every SSELLM path that can fail, appear
nowhere a LlamaIndex observer can see.

The gateway here is hostile on purpose: its 401 body and its in-stream error frame echo the
key and the header it received. Every LlamaIndex observer is attached (a root event handler
and a span handler that keep everything, LlamaDebugHandler), and everything they were given
is searched, with the LLM's LlamaIndex serializations (``to_dict``, ``to_json``, the payload
the callbacks send) and the ChatResponses. (What both adapters share, the model's reprs,
dumps and pickles, errors with their chains and partial answers, the logs and validation
errors: tests/adapters/test_secrets.py.)
"""

from __future__ import annotations

import asyncio
import inspect
import json
import pickle
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from llama_index.core.callbacks import CallbackManager, LlamaDebugHandler
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.span import SimpleSpan
from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
from llama_index.core.llms import ChatMessage
from pydantic import Field

from llamaindex_sse import SSELLM, AuthenticationError, GatewayStreamError, SSEConnectorError
from sse_emulator import Emulator
from tests.llamaindex.li_support import Pieces, chunk, collect_events, frame

KEY = "sk-canary-" + secrets.token_hex(12)
HEADER_VALUE = "hdr-canary-" + secrets.token_hex(12)
HEADER = "X-Gateway-Token"  # not a well-known credential header: SSELLM must treat it as one
CANARIES = (KEY, HEADER_VALUE)
ASK = [ChatMessage(role="user", content="hi")]


class EchoGateway:
    """A gateway that echoes the credentials it received: in a 401 body's message, type, code
    and a response header (``401``), or in an in-stream error frame's message, type and code
    (``frame``)."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        echoed = f"{request.headers.get('authorization')} with {request.headers.get(HEADER)}"
        if self.mode == "401":
            message = f"Incorrect API key: {echoed}"
            body = {"error": {"message": message, "type": echoed, "code": echoed}}
            return httpx.Response(401, json=body, headers={"x-echo": echoed})
        pieces = [frame(chunk({"content": "Hel"})), frame(chunk({"content": "lo"}))]
        if self.mode == "frame":
            error = {"message": f"upstream rejected {echoed}", "type": echoed, "code": echoed}
            pieces.append(frame({"error": error}))
        else:
            pieces += [frame(chunk({}, "stop")), b"data: [DONE]\n\n"]
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Pieces(pieces)
        )


class SpanRecorder(BaseSpanHandler[SimpleSpan]):
    """Keeps the repr of everything every span hook is given."""

    seen: list[str] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "SpanRecorder"

    def _keep(self, *values: Any) -> None:
        self.seen.extend(repr(value) for value in values)

    def new_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        parent_span_id: str | None = None,
        tags: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> SimpleSpan:
        self._keep(id_, bound_args, instance, tags, kwargs)
        return SimpleSpan(id_=id_, parent_id=parent_span_id, tags=tags or {})

    def prepare_to_exit_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        result: Any | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        self._keep(bound_args, instance, result, kwargs)
        return self.open_spans.get(id_)

    def prepare_to_drop_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        err: BaseException | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        self._keep(bound_args, instance, err, kwargs)
        self.seen.extend(_error_texts(err))
        return self.open_spans.get(id_)


@contextmanager
def record_spans() -> Iterator[SpanRecorder]:
    root = get_dispatcher()
    recorder = SpanRecorder()
    root.add_span_handler(recorder)
    try:
        yield recorder
    finally:
        root.span_handlers.remove(recorder)


def _error_texts(error: BaseException | None) -> list[str]:
    """Everything an error shows, down its cause/context chain, partial answers included."""
    texts: list[str] = []
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        texts += [str(error), repr(error), repr(error.args), repr(vars(error))]
        try:
            texts.append(repr(pickle.dumps(error)))
        except Exception as exc:  # an unpicklable error is not a leak, but say why
            texts.append(f"unpicklable: {exc!r}")
        if hasattr(error, "partial"):
            texts.append(repr(error.partial))
        if hasattr(error, "partial_response"):
            texts.append(error.partial_response.model_dump_json())
        error = error.__cause__ or error.__context__
    return texts


def _failure(call: Callable[[], Any]) -> SSEConnectorError:
    try:
        call()
    except SSEConnectorError as exc:
        return exc
    raise AssertionError("expected the call to fail")


def _async(call: Callable[[], Any]) -> Callable[[], Any]:
    return lambda: asyncio.run(asyncio.wait_for(call(), 30))


async def _astream(llm: SSELLM) -> list[Any]:
    return [r async for r in await llm.astream_chat(ASK)]


def _exercise(llm: SSELLM, gateway: EchoGateway) -> tuple[list[Any], list[SSEConnectorError]]:
    """Every endpoint, ending well, on a 401 and on an error frame."""
    results: list[Any] = []
    errors: list[SSEConnectorError] = []
    gateway.mode = "ok"
    results += [llm.chat(ASK), *llm.stream_chat(ASK), *_async(lambda: _astream(llm))()]
    results.append(_async(lambda: llm.achat(ASK))())
    for mode, expected in (("401", AuthenticationError), ("frame", GatewayStreamError)):
        gateway.mode = mode
        for call in (
            lambda: llm.chat(ASK),
            lambda: list(llm.stream_chat(ASK)),
            _async(lambda: _astream(llm)),
            _async(lambda: llm.achat(ASK)),
        ):
            error = _failure(call)
            assert isinstance(error, expected), repr(error)
            errors.append(error)
    return results, errors


def _llm_texts(llm: SSELLM) -> list[str]:
    return [
        repr(llm.to_dict()),
        llm.to_json(),
        # what llm_chat_callback serializes from llama-index-core 0.14.23 (to_dict before)
        repr(llm.to_payload() if hasattr(llm, "to_payload") else llm.to_dict()),
    ]


def _assert_no_canary(texts: list[str]) -> None:
    for text in texts:
        for canary in CANARIES:
            assert canary not in text, f"the canary leaked: ...{text[:2000]}..."


@pytest.fixture
def everything_captured() -> LlamaDebugHandler:
    return LlamaDebugHandler(print_trace_on_end=False)


@pytest.mark.parametrize("key", [KEY, KEY + "\n"], ids=["key", "key-with-newline"])
def test_the_canary_appears_nowhere(key: str, everything_captured: LlamaDebugHandler) -> None:
    gateway = EchoGateway()
    llm = SSELLM(
        model="m",
        base_url="http://gateway.test/v1",
        api_key=key,
        default_headers={HEADER: HEADER_VALUE},
        max_retries=0,
        callback_manager=CallbackManager([everything_captured]),
        http_client=httpx.Client(transport=httpx.MockTransport(gateway)),
        async_http_client=httpx.AsyncClient(transport=httpx.MockTransport(gateway)),
    )
    with collect_events() as events, record_spans() as spans:
        results, errors = _exercise(llm, gateway)
    # The credentials were sent (stripped of the newline), and echoed back by the gateway.
    assert {r.headers["authorization"] for r in gateway.seen} == {f"Bearer {KEY}"}
    assert {r.headers[HEADER] for r in gateway.seen} == {HEADER_VALUE}
    assert results[0].message.content == "Hello"
    kinds = {event.class_name() for event in events.events}
    assert {"ExceptionEvent", "SpanDropEvent", "LLMChatInProgressEvent"} <= kinds
    assert len(errors) == 8
    texts = _llm_texts(llm)
    texts += [repr(result) for result in results]
    texts += [repr(event) for event in events.events]
    texts += [json.dumps(event.model_dump(), default=repr) for event in events.events]
    texts += spans.seen
    texts += [repr(vars(everything_captured)), repr(everything_captured.get_events())]
    _assert_no_canary(texts)


def test_the_canary_appears_nowhere_over_real_http(
    emulator: Emulator, everything_captured: LlamaDebugHandler
) -> None:
    def make(fault: str | None) -> SSELLM:
        headers = {HEADER: HEADER_VALUE}
        if fault:
            headers["X-Emulator-Fault"] = fault
        return SSELLM(
            model="emulator",
            base_url=emulator.base_url(),
            api_key=KEY,
            default_headers=headers,
            max_retries=0,
            callback_manager=CallbackManager([everything_captured]),
        )

    with collect_events() as events, record_spans() as spans:
        assert make(None).chat(ASK).message.content
        assert list(make(None).stream_chat(ASK))[-1].message.content
        errors = [
            _failure(lambda: list(make("unauthorized").stream_chat(ASK))),
            _failure(lambda: make("error-frame; after=2").chat(ASK)),
            _failure(_async(lambda: _astream(make("error-frame; after=2")))),
        ]
    assert [type(error) for error in errors] == [
        AuthenticationError,
        GatewayStreamError,
        GatewayStreamError,
    ]
    texts = _llm_texts(make(None))
    texts += [json.dumps(event.model_dump(), default=repr) for event in events.events]
    texts += spans.seen
    texts += [repr(vars(everything_captured))]
    _assert_no_canary(texts)
