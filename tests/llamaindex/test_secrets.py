"""A canary key and a canary header value, through every SSELLM path that can fail, appear
nowhere a user, a log or an instrumentation handler can see.

The gateway here is hostile on purpose: its 401 body and its in-stream error frame echo the
key and the header it received. Every LlamaIndex observer is attached (a root event handler
and a span handler that keep everything, LlamaDebugHandler), DEBUG logs of httpx, httpcore
and sse_core are captured, and every object the user can get hold of is searched: reprs,
strings, dumps, pickles, exceptions with their cause/context chains and partial answers.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
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
from pydantic import Field, ValidationError

from llamaindex_sse import SSELLM, AuthenticationError, GatewayStreamError, SSEConnectorError
from sse_emulator import Emulator
from tests.llamaindex.li_support import Pieces, chunk, collect_events, frame

KEY = "sk-canary-" + secrets.token_hex(12)
HEADER_VALUE = "hdr-canary-" + secrets.token_hex(12)
HEADER = "X-Gateway-Token"  # not a well-known credential header: SSELLM must treat it as one
CANARIES = (KEY, HEADER_VALUE)
ASK = [ChatMessage(role="user", content="hi")]


class EchoGateway:
    """A gateway that echoes the credentials it received: in a 401 body's message
    (``401``), in a 401's error type, code and a response header (``401-fields``), or in an
    in-stream error frame's message, type and code (``frame``)."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        echoed = f"{request.headers.get('authorization')} with {request.headers.get(HEADER)}"
        if self.mode == "401":
            body = {"error": {"message": f"Incorrect API key: {echoed}", "code": "bad_key"}}
            return httpx.Response(401, json=body)
        if self.mode == "401-fields":
            body = {"error": {"message": "Incorrect API key", "type": echoed, "code": echoed}}
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
        repr(llm),
        str(llm),
        repr(llm.model_dump()),
        llm.model_dump_json(),
        repr(llm.to_dict()),
        llm.to_json(),
        # what llm_chat_callback serializes from llama-index-core 0.14.23 (to_dict before)
        repr(llm.to_payload() if hasattr(llm, "to_payload") else llm.to_dict()),
        repr(pickle.dumps(llm)),
    ]


def _log_texts(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{record.name} {record.getMessage()} {record.args!r} {record.exc_text or ''}"
        for record in caplog.records
        if not record.name.startswith(("sse_emulator", "uvicorn"))  # the server's own
    ]


def _assert_no_canary(texts: list[str]) -> None:
    for text in texts:
        for canary in CANARIES:
            assert canary not in text, f"the canary leaked: ...{text[:2000]}..."


@pytest.fixture
def everything_captured(caplog: pytest.LogCaptureFixture) -> Iterator[LlamaDebugHandler]:
    for name in ("httpx", "httpcore", "sse_core"):
        caplog.set_level(logging.DEBUG, logger=name)
    yield LlamaDebugHandler(print_trace_on_end=False)


@pytest.mark.parametrize("key", [KEY, KEY + "\n"], ids=["key", "key-with-newline"])
def test_the_canary_appears_nowhere(
    key: str, everything_captured: LlamaDebugHandler, caplog: pytest.LogCaptureFixture
) -> None:
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
    texts = _llm_texts(llm)
    texts += [repr(result) for result in results]
    for error in errors:
        texts += _error_texts(error)
    texts += [repr(event) for event in events.events]
    texts += [json.dumps(event.model_dump(), default=repr) for event in events.events]
    texts += spans.seen
    texts += [repr(vars(everything_captured)), repr(everything_captured.get_events())]
    texts += _log_texts(caplog)
    _assert_no_canary(texts)


def test_a_validation_error_does_not_quote_the_settings() -> None:
    short = "c4n4ry" + secrets.token_hex(3)  # pydantic cuts long inputs in the middle
    for fields in ({}, {"model": "m", "temperature": "hot"}):
        with pytest.raises(ValidationError) as caught:
            SSELLM(
                base_url="http://gateway.test/v1",
                api_key=KEY,
                default_headers={HEADER: short},
                **fields,
            )
        for text in (str(caught.value), repr(caught.value)):
            assert short not in text and KEY not in text, text


def test_a_401_echoing_the_credentials_in_its_fields_keeps_none_of_them() -> None:
    """The core builds GatewayHTTPError's ``type``, ``code`` and ``headers`` from the answer:
    a gateway that echoes the credentials there must not get them into the error."""
    gateway = EchoGateway()
    gateway.mode = "401-fields"
    llm = SSELLM(
        model="m",
        base_url="http://gateway.test/v1",
        api_key=KEY,
        default_headers={HEADER: HEADER_VALUE},
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(gateway)),
    )
    error = _failure(lambda: llm.chat(ASK))
    assert isinstance(error, AuthenticationError)
    _assert_no_canary(_error_texts(error))


def test_the_canary_appears_nowhere_over_real_http(
    emulator: Emulator, everything_captured: LlamaDebugHandler, caplog: pytest.LogCaptureFixture
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
    assert any(record.name.startswith("httpcore") for record in caplog.records)
    texts = _llm_texts(make(None))
    for error in errors:
        texts += _error_texts(error)
    texts += [json.dumps(event.model_dump(), default=repr) for event in events.events]
    texts += spans.seen
    texts += [repr(vars(everything_captured))]
    texts += _log_texts(caplog)
    _assert_no_canary(texts)
