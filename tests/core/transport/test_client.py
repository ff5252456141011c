"""The streaming clients over httpx.MockTransport (fast, no sockets), sync and async alike.

The same behaviours run over real loopback HTTP against the emulator in tests/e2e/.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from sse_core import (
    AsyncChatClient,
    AuthenticationError,
    ChatClient,
    Completion,
    ConfigurationError,
    GatewayStreamError,
    IncompleteStreamError,
    RateLimitError,
    RetryPolicy,
    ServerError,
    SSEConnectorError,
    StreamEvent,
    TextDelta,
)

Handler = Callable[[httpx.Request], httpx.Response]
KEY = "sk-very-secret-key"
PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
NO_WAIT = RetryPolicy(max_retries=2, initial_delay=0, max_delay=0)


def sse_body(*texts: str, finish: str | None = "stop", done: bool = True) -> bytes:
    frames = [{"choices": [{"index": 0, "delta": {"content": t}}]} for t in texts]
    if finish:
        frames.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    body = b"".join(b"data: " + json.dumps(f).encode() + b"\n\n" for f in frames)
    return body + (b"data: [DONE]\n\n" if done else b"")


def sse_response(body: bytes, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(
        status, headers={"content-type": "text/event-stream", **headers}, content=body
    )


class Recorder:
    """A MockTransport handler serving a list of responses in turn, recording requests."""

    def __init__(self, *responses: httpx.Response | Exception) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        item = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(item, Exception):
            raise item
        return item

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


Outcome = tuple[list[StreamEvent], Completion | SSEConnectorError]


def run_sync(handler: Handler, **config: Any) -> Outcome:
    config.setdefault("retry", NO_WAIT)
    client = ChatClient(
        base_url="http://gw.test/v1",
        api_key=KEY,
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        **config,
    )
    events: list[StreamEvent] = []
    try:
        with client.stream(PAYLOAD) as stream:
            events.extend(stream)
        assert stream.completion is not None
        return events, stream.completion
    except SSEConnectorError as exc:
        return events, exc


def run_async(handler: Handler, **config: Any) -> Outcome:
    import asyncio

    config.setdefault("retry", NO_WAIT)

    async def main() -> Outcome:
        client = AsyncChatClient(
            base_url="http://gw.test/v1",
            api_key=KEY,
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
            **config,
        )
        events: list[StreamEvent] = []
        try:
            async with client.stream(PAYLOAD) as stream:
                async for event in stream:
                    events.append(event)
            assert stream.completion is not None
            return events, stream.completion
        except SSEConnectorError as exc:
            return events, exc

    return asyncio.run(main())


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Iterator[Callable[..., Outcome]]:
    yield run_sync if request.param == "sync" else run_async


def test_happy_path_request_and_events(run: Callable[..., Outcome]) -> None:
    rec = Recorder(sse_response(sse_body("Hel", "lo"), **{"x-request-id": "req-1"}))
    events, result = run(rec, default_headers={"SPASS-User-Id": "u"}, extra_body={"seed": 1})
    assert isinstance(result, Completion)
    assert (result.content, result.finish_reason, result.headers["x-request-id"]) == (
        "Hello",
        "stop",
        "req-1",
    )
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]
    (request,) = rec.requests
    assert str(request.url) == "http://gw.test/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["spass-user-id"] == "u"
    body = rec.bodies()[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["seed"] == 1 and body["model"] == "m"


def test_custom_path(run: Callable[..., Outcome]) -> None:
    rec = Recorder(sse_response(sse_body("x")))
    run(rec, path="/c1/chat")
    assert rec.requests[0].url.path == "/v1/c1/chat"


def test_json_body_instead_of_sse_is_a_whole_completion(run: Callable[..., Outcome]) -> None:
    whole = {
        "id": "c",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "whole"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3},
    }
    _, result = run(Recorder(httpx.Response(200, json=whole)))
    assert isinstance(result, Completion)
    assert (result.content, result.usage and result.usage.total_tokens) == ("whole", 3)


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (401, b'{"error":{"message":"bad key sk-very-secret-key"}}', AuthenticationError),
        (502, b"<html><title>502 Bad Gateway</title></html>", ServerError),
    ],
)
def test_status_errors_are_typed_and_redacted(
    run: Callable[..., Outcome], status: int, body: bytes, cls: type
) -> None:
    rec = Recorder(httpx.Response(status, content=body))
    _, result = run(rec, retry=RetryPolicy(max_retries=0))
    assert type(result) is cls and KEY not in str(result) and KEY not in repr(result)


def test_retry_on_503_then_success(run: Callable[..., Outcome]) -> None:
    rec = Recorder(httpx.Response(503, json={"error": "busy"}), sse_response(sse_body("ok")))
    _, result = run(rec)
    assert isinstance(result, Completion) and result.content == "ok"
    assert len(rec.requests) == 2


def test_retries_are_bounded(run: Callable[..., Outcome]) -> None:
    rec = Recorder(httpx.Response(503, json={"error": "busy"}))
    _, result = run(rec)
    assert isinstance(result, ServerError) and len(rec.requests) == 3


def test_429_without_retries_reports_retry_after(run: Callable[..., Outcome]) -> None:
    rec = Recorder(httpx.Response(429, headers={"retry-after": "7"}, json={"error": "slow"}))
    _, result = run(rec, retry=RetryPolicy(max_retries=0))
    assert isinstance(result, RateLimitError) and result.retry_after == 7


def test_connect_errors_are_retried(run: Callable[..., Outcome]) -> None:
    rec = Recorder(httpx.ConnectError("refused"), sse_response(sse_body("ok")))
    _, result = run(rec)
    assert isinstance(result, Completion) and len(rec.requests) == 2


def test_stream_options_rejected_is_sent_again_without_it(run: Callable[..., Outcome]) -> None:
    reject = httpx.Response(
        422,
        json={"detail": [{"loc": ["body", "stream_options"], "msg": "extra fields not permitted"}]},
    )
    rec = Recorder(reject, sse_response(sse_body("ok")))
    _, result = run(rec, retry=RetryPolicy(max_retries=0))
    assert isinstance(result, Completion)
    first, second = rec.bodies()
    assert "stream_options" in first and "stream_options" not in second


def test_no_retry_once_the_body_began(run: Callable[..., Outcome]) -> None:
    rec = Recorder(sse_response(sse_body("partial", finish=None, done=False)))
    events, result = run(rec)
    assert isinstance(result, IncompleteStreamError)
    assert result.partial.content == "partial" and len(rec.requests) == 1
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["partial"]


def test_error_frame_raises_after_the_text_before_it(run: Callable[..., Outcome]) -> None:
    body = sse_body("so far", finish=None, done=False) + b'data: {"error":{"message":"boom"}}\n\n'
    events, result = run(Recorder(sse_response(body)))
    assert isinstance(result, GatewayStreamError) and result.partial.content == "so far"
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["so far"]


def test_key_never_in_repr() -> None:
    client = ChatClient(base_url="http://gw.test/v1", api_key=KEY)
    assert KEY not in repr(client) and "api_key=set" in repr(client)
    client.close()


@pytest.mark.parametrize(
    "config",
    [
        {"base_url": "gw.test/v1"},
        {"base_url": "http://gw/v1", "path": "chat"},
        {"base_url": "http://gw/v1", "timeout": -3},
    ],
)
def test_bad_configuration_is_rejected(config: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        ChatClient(**config)


def test_injected_client_is_not_closed() -> None:
    http = httpx.Client(transport=httpx.MockTransport(Recorder(sse_response(sse_body("x")))))
    with ChatClient(base_url="http://gw.test/v1", http_client=http) as client:
        assert client.complete(PAYLOAD).content == "x"
    assert not http.is_closed
    http.close()


def test_gzip_encoded_stream_is_decoded(run: Callable[..., Outcome]) -> None:
    import gzip

    body = gzip.compress(sse_body("zipped"))
    rec = Recorder(sse_response(body, **{"content-encoding": "gzip"}))
    _, result = run(rec)
    assert isinstance(result, Completion) and result.content == "zipped"


def test_received_is_what_arrived_so_far() -> None:
    """Before the response: nothing; after a cut stream: the partial; at the end: the whole."""
    body = sse_body("al", "most", finish=None, done=False)
    http = httpx.Client(transport=httpx.MockTransport(Recorder(sse_response(body))))
    client = ChatClient(base_url="http://gw.test/v1", http_client=http)
    with client.stream(PAYLOAD) as stream:
        assert stream.received() == Completion()
        with pytest.raises(IncompleteStreamError):
            stream.until_done()
        assert stream.received().content == "almost"
        assert stream.completion is None
    http = httpx.Client(transport=httpx.MockTransport(Recorder(sse_response(sse_body("done")))))
    with ChatClient(base_url="http://gw.test/v1", http_client=http).stream(PAYLOAD) as whole:
        completion = whole.until_done()
        assert whole.received() is completion and completion.content == "done"


def test_async_received_is_what_arrived_so_far() -> None:
    import asyncio

    async def main() -> None:
        body = sse_body("al", "most", finish=None, done=False)
        http = httpx.AsyncClient(transport=httpx.MockTransport(Recorder(sse_response(body))))
        client = AsyncChatClient(base_url="http://gw.test/v1", http_client=http)
        async with client.stream(PAYLOAD) as stream:
            assert stream.received() == Completion()
            with pytest.raises(IncompleteStreamError):
                await stream.until_done()
            assert stream.received().content == "almost"
        http = httpx.AsyncClient(
            transport=httpx.MockTransport(Recorder(sse_response(sse_body("done"))))
        )
        async with AsyncChatClient(base_url="http://gw.test/v1", http_client=http).stream(
            PAYLOAD
        ) as whole:
            completion = await whole.until_done()
            assert whole.received() is completion and completion.content == "done"

    asyncio.run(main())


def test_a_request_for_a_whole_answer_accepts_json() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        whole = {"choices": [{"index": 0, "message": {"content": "hi"}, "finish_reason": "stop"}]}
        return httpx.Response(200, json=whole)

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with ChatClient(base_url="http://g.test/v1", http_client=http) as client:
        assert client.complete({"model": "m", "messages": []}, streaming=False).content == "hi"
        client.stream({"model": "m", "messages": []}).close()
    assert seen[0].headers["accept"] == "application/json"
    assert json.loads(seen[0].content)["stream"] is False


def test_a_client_with_the_accelerator_decodes_the_same() -> None:
    body = (
        b'data: {"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    results = []
    for accelerator in (None, "msgspec"):
        http = httpx.Client(transport=httpx.MockTransport(answer))
        settings: dict[str, Any] = {"base_url": "http://g.test/v1", "accelerator": accelerator}
        with ChatClient(http_client=http, **settings) as c:
            assert c.config.accelerator == accelerator
            results.append(c.complete({"model": "m", "messages": []}))
    assert results[0] == results[1] and results[0].reasoning == "hm"
