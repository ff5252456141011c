"""SSELLM(protocol="anthropic"): the key goes out in ``x-api-key`` (or as a Bearer token when
``auth="bearer"``) and appears nowhere a LlamaIndex observer can see, even from a hostile
gateway that echoes it in a 401 body and in an ``event: error`` after a 200."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from llama_index.core.callbacks import CallbackManager, LlamaDebugHandler

from llamaindex_sse import SSELLM, AuthenticationError, GatewayStreamError
from tests.llamaindex.li_support import Pieces, collect_events, frame
from tests.llamaindex.test_secrets_in_instrumentation import (
    ASK,
    HEADER,
    HEADER_VALUE,
    KEY,
    _assert_no_canary,
    _error_texts,
    _exercise,
    _llm_texts,
    record_spans,
)


def event(kind: str, **payload: Any) -> bytes:
    return frame({"type": kind, **payload}, kind)


class EchoMessagesGateway:
    """An Anthropic Messages gateway that echoes the credentials it received: in a 401 error
    body and header (``401``), or in an ``event: error`` after some text (``frame``)."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        given = request.headers.get("x-api-key") or request.headers.get("authorization")
        echoed = f"{given} with {request.headers.get(HEADER)}"
        if self.mode == "401":
            body = {"type": "error", "error": {"type": echoed, "message": f"bad key {echoed}"}}
            return httpx.Response(401, json=body, headers={"x-echo": echoed})
        pieces = [
            event("message_start", message={"id": "msg_1", "usage": {"input_tokens": 3}}),
            event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hello"}),
        ]
        if self.mode == "frame":
            error = {"type": "overloaded_error", "message": f"upstream rejected {echoed}"}
            pieces.append(event("error", error=error))
        else:
            stop = {"stop_reason": "end_turn", "stop_sequence": None}
            pieces += [
                event("content_block_stop", index=0),
                event("message_delta", delta=stop, usage={"output_tokens": 1}),
                event("message_stop"),
            ]
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Pieces(pieces)
        )


@pytest.mark.parametrize("auth", [None, "bearer"])
def test_the_key_is_sent_and_appears_nowhere(auth: str | None) -> None:
    gateway = EchoMessagesGateway()
    debug = LlamaDebugHandler(print_trace_on_end=False)
    llm = SSELLM(
        protocol="anthropic",
        auth=auth,
        model="claude-x",
        base_url="http://gateway.test",
        api_key=KEY,
        default_headers={HEADER: HEADER_VALUE},
        max_retries=0,
        callback_manager=CallbackManager([debug]),
        http_client=httpx.Client(transport=httpx.MockTransport(gateway)),
        async_http_client=httpx.AsyncClient(transport=httpx.MockTransport(gateway)),
    )
    with collect_events() as events, record_spans() as spans:
        results, errors = _exercise(llm, gateway)  # type: ignore[arg-type]
    if auth is None:
        assert {r.headers["x-api-key"] for r in gateway.seen} == {KEY}
        assert not [r for r in gateway.seen if "authorization" in r.headers]
    else:
        assert {r.headers["authorization"] for r in gateway.seen} == {f"Bearer {KEY}"}
        assert not [r for r in gateway.seen if "x-api-key" in r.headers]
    assert {r.url.path for r in gateway.seen} == {"/v1/messages"}
    assert results[0].message.content == "Hello"
    assert [type(e) for e in errors] == [AuthenticationError] * 4 + [GatewayStreamError] * 4
    assert all(e.partial_response.message.content == "Hello" for e in errors[4:])  # type: ignore[attr-defined]
    texts = _llm_texts(llm)
    texts += [repr(result) for result in results]
    texts += [text for error in errors for text in _error_texts(error)]
    texts += [repr(event) for event in events.events]
    texts += [json.dumps(event.model_dump(), default=repr) for event in events.events]
    texts += spans.seen
    texts += [repr(vars(debug)), repr(debug.get_events()), repr(llm)]
    _assert_no_canary(texts)
    assert ASK  # the same question as the chat-completions test asks
