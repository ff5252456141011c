"""The streaming clients against the emulator over real loopback HTTP, sync and async.

Every dialect's happy path, every fault's typed error with its partial, retries (counted and
timed), no retry after the first byte, and cancellation seen by the server as a disconnect.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from sse_core import (
    AsyncChatClient,
    AuthenticationError,
    ChatClient,
    Completion,
    GatewayConnectionError,
    GatewayStreamError,
    IncompleteStreamError,
    RateLimitError,
    RetryPolicy,
    ServerError,
    SSEConnectorError,
    StreamEvent,
    StreamProtocolError,
    StreamTimeoutError,
    TextDelta,
    Timeouts,
)
from sse_emulator import Emulator

MESSAGES = [{"role": "user", "content": "Say hello to Paris"}]
EXPECTED = "You said: Say hello to Paris"
FAST = RetryPolicy(max_retries=2, initial_delay=0.01, max_delay=0.05)
DIALECTS = ["openai", "shroud", "streamchat", "spass", "gateway", "aivene"]

Outcome = tuple[list[StreamEvent], Completion | SSEConnectorError]
Runner = Callable[..., Outcome]


def _config(emu: Emulator, dialect: str, config: dict[str, Any]) -> dict[str, Any]:
    config.setdefault("retry", FAST)
    config.setdefault("default_headers", {"SPASS-User-Id": "user-1"})
    config.setdefault("base_url", emu.base_url(dialect))
    config.setdefault("api_key", "sk-e2e-secret")
    return config


def run_sync(
    emu: Emulator, dialect: str = "openai", fault: str | None = None, **config: Any
) -> Outcome:
    headers = {"X-Emulator-Fault": fault} if fault else None
    events: list[StreamEvent] = []
    with ChatClient(**_config(emu, dialect, config)) as client:
        try:
            with client.stream({"model": "m", "messages": MESSAGES}, headers=headers) as stream:
                events.extend(stream)
            assert stream.completion is not None
            return events, stream.completion
        except SSEConnectorError as exc:
            return events, exc
        finally:
            assert _live_connections(client) == 0, "a connection was left open"


def run_async(
    emu: Emulator, dialect: str = "openai", fault: str | None = None, **config: Any
) -> Outcome:
    headers = {"X-Emulator-Fault": fault} if fault else None

    async def main() -> Outcome:
        events: list[StreamEvent] = []
        async with AsyncChatClient(**_config(emu, dialect, config)) as client:
            try:
                async with client.stream(
                    {"model": "m", "messages": MESSAGES}, headers=headers
                ) as stream:
                    async for event in stream:
                        events.append(event)
                assert stream.completion is not None
                return events, stream.completion
            except SSEConnectorError as exc:
                return events, exc
            finally:
                assert _live_connections(client) == 0, "a connection was left open"

    return asyncio.run(main())


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Iterator[Runner]:
    yield run_sync if request.param == "sync" else run_async


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


# --- dialects ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_happy_path(run: Runner, emulator: Emulator, dialect: str) -> None:
    events, result = run(emulator, dialect)
    assert isinstance(result, Completion), result
    assert result.content == text_of(events) == EXPECTED
    assert result.finish_reason == "stop"
    assert (
        result.usage is not None
        and result.usage.total_tokens == result.usage.prompt_tokens + result.usage.completion_tokens
    )  # type: ignore[operator]
    # One request, answered 200. (Whether the server saw its last write finish races with
    # the client closing right after [DONE], so "completed" is not asserted here.)
    (record,) = emulator.requests
    assert record.status == 200


def test_dialect_specific_shapes(emulator: Emulator) -> None:
    _, streamchat = run_sync(emulator, "streamchat")
    _, spass = run_sync(emulator, "spass")
    _, plain = run_sync(emulator, "openai")
    assert isinstance(streamchat, Completion) and streamchat.done is False  # no [DONE] there
    assert isinstance(spass, Completion) and [e.name for e in spass.events] == ["spass.cost"]
    assert isinstance(plain, Completion) and plain.done and plain.id


def test_spass_c1_chat_path_and_conversation_header(run: Runner, emulator: Emulator) -> None:
    _, result = run(emulator, base_url=emulator.url + "/spass", path="/c1/chat")
    assert isinstance(result, Completion) and result.content
    assert result.headers["x-conversation-id"].startswith("conv_")


def test_spass_without_user_header_is_a_typed_400(run: Runner, emulator: Emulator) -> None:
    _, result = run(emulator, "spass", default_headers={})
    assert isinstance(result, SSEConnectorError) and getattr(result, "status_code", None) == 400
    assert getattr(result, "code", None) == "invalid_field"


# --- faults -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "cls"),
    [
        ("error-frame; after=2", GatewayStreamError),
        ("event-error; after=2", GatewayStreamError),
        ("truncate; after=2", IncompleteStreamError),
        ("reset; after=2", IncompleteStreamError),
        ("invalid-json; after=2", StreamProtocolError),
    ],
)
def test_midstream_faults_give_typed_errors_with_partial(
    run: Runner, emulator: Emulator, fault: str, cls: type
) -> None:
    events, result = run(emulator, fault=fault)
    assert type(result) is cls, result
    assert isinstance(result, (GatewayStreamError, IncompleteStreamError, StreamProtocolError))
    assert result.partial.content and EXPECTED.startswith(result.partial.content)
    assert text_of(events) == result.partial.content
    assert len(emulator.requests) == 1  # never retried once output began


def test_stall_gives_a_timeout_with_partial(run: Runner, emulator: Emulator) -> None:
    start = time.monotonic()
    _, result = run(emulator, fault="stall; after=2; seconds=5", timeout=Timeouts(idle=0.3))
    assert isinstance(result, StreamTimeoutError) and result.partial.content
    assert 0.25 < time.monotonic() - start < 3


def test_total_deadline(run: Runner, emulator: Emulator) -> None:
    _, result = run(emulator, fault="slow; delay=0.1", timeout=Timeouts(total=0.35))
    assert isinstance(result, StreamTimeoutError)


def test_rate_limit_then_success_honours_retry_after(run: Runner, emulator: Emulator) -> None:
    start = time.monotonic()
    _, result = run(emulator, fault="rate-limit; count=1; retry-after=0.4; key=rl")
    elapsed = time.monotonic() - start
    assert isinstance(result, Completion) and result.content == EXPECTED
    assert [r.status for r in emulator.requests] == [429, 200]
    gap = emulator.requests[1].received_at - emulator.requests[0].received_at
    assert gap >= 0.38 and elapsed >= 0.38


def test_rate_limit_without_retries(run: Runner, emulator: Emulator) -> None:
    _, result = run(
        emulator, fault="rate-limit; count=5; retry-after=3", retry=RetryPolicy(max_retries=0)
    )
    assert isinstance(result, RateLimitError) and result.retry_after == 3


def test_persistent_503_is_retried_then_raised(run: Runner, emulator: Emulator) -> None:
    _, result = run(emulator, fault="unavailable")
    assert isinstance(result, ServerError) and result.status_code == 503
    assert len(emulator.requests) == 3


@pytest.mark.parametrize(
    ("fault", "words"), [("bad-gateway", "Bad Gateway"), ("bad-gateway-html", "502 Bad Gateway")]
)
def test_502_json_and_html(run: Runner, emulator: Emulator, fault: str, words: str) -> None:
    _, result = run(emulator, fault=fault, retry=RetryPolicy(max_retries=0))
    assert isinstance(result, ServerError) and result.status_code == 502
    assert words.lower() in str(result).lower() and "\n" not in str(result)


def test_401(run: Runner, emulator: Emulator) -> None:
    _, result = run(emulator, fault="unauthorized")
    assert isinstance(result, AuthenticationError) and "sk-e2e-secret" not in str(result)
    assert len(emulator.requests) == 1


@pytest.mark.parametrize(
    "fault", ["split-utf8", "crlf", "cr", "single-newline", "keepalive", "bom", "json-body"]
)
def test_wire_variations_decode_to_the_same_answer(
    run: Runner, emulator: Emulator, fault: str
) -> None:
    _, plain = run(emulator)
    _, varied = run(emulator, fault=fault)
    assert isinstance(plain, Completion) and isinstance(varied, Completion), varied
    assert varied.content == plain.content and varied.finish_reason == plain.finish_reason


def test_oversized_event_is_a_protocol_error(run: Runner, emulator: Emulator) -> None:
    _, result = run(emulator, fault="oversized; after=1; size=200000", max_event_bytes=65536)
    assert isinstance(result, StreamProtocolError) and "65536" in str(result)


def test_named_event_surfaces(run: Runner, emulator: Emulator) -> None:
    _, result = run(emulator, fault="named-event; name=gw.note")
    assert isinstance(result, Completion) and "gw.note" in [e.name for e in result.events]


# --- cancellation -----------------------------------------------------------------------------


def _live_connections(client: ChatClient | AsyncChatClient) -> int:
    pool = client._http._transport._pool  # type: ignore[union-attr]
    return sum(1 for c in pool.connections if not c.is_idle() and not c.is_closed())


def test_sync_break_closes_the_connection_at_once(emulator: Emulator) -> None:
    with ChatClient(base_url=emulator.base_url(), api_key="k") as client:
        with client.stream(
            {"model": "m", "messages": MESSAGES}, headers={"X-Emulator-Fault": "slow; delay=0.05"}
        ) as stream:
            for _ in stream:
                break
            closed_at = time.monotonic()
        record = emulator.wait_for_disconnect(timeout=2)
        assert record.disconnected_at is not None and record.disconnected_at - closed_at < 0.05
        assert _live_connections(client) == 0


def test_async_task_cancel_closes_the_connection_at_once(emulator: Emulator) -> None:
    async def main() -> float:
        async with AsyncChatClient(base_url=emulator.base_url(), api_key="k") as client:
            first = asyncio.Event()

            async def consume() -> None:
                async with client.stream(
                    {"model": "m", "messages": MESSAGES},
                    headers={"X-Emulator-Fault": "slow; delay=0.05"},
                ) as stream:
                    async for _ in stream:
                        first.set()

            task = asyncio.create_task(consume())
            await asyncio.wait_for(first.wait(), 5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            cancelled_at = time.monotonic()
            record = await emulator.wait_for_disconnect_async(timeout=2)
            assert _live_connections(client) == 0
            assert record.disconnected_at is not None
            return record.disconnected_at - cancelled_at

    assert asyncio.run(main()) < 0.05


def test_async_leaving_the_context_closes_the_connection(emulator: Emulator) -> None:
    async def main() -> None:
        async with AsyncChatClient(base_url=emulator.base_url(), api_key="k") as client:
            async with client.stream(
                {"model": "m", "messages": MESSAGES},
                headers={"X-Emulator-Fault": "slow; delay=0.05"},
            ) as stream:
                async for _ in stream:
                    break
            left_at = time.monotonic()
            record = await emulator.wait_for_disconnect_async(timeout=2)
            assert record.disconnected_at is not None and record.disconnected_at - left_at < 0.05
            assert _live_connections(client) == 0

    asyncio.run(main())


def test_full_reads_leave_only_idle_pooled_connections(emulator: Emulator) -> None:
    with ChatClient(base_url=emulator.base_url(), api_key="k") as client:
        for _ in range(3):
            assert client.complete({"model": "m", "messages": MESSAGES}).content == EXPECTED
        assert _live_connections(client) == 0


def test_connection_refused_is_a_connection_error() -> None:
    client = ChatClient(base_url="http://127.0.0.1:9/v1", retry=RetryPolicy(max_retries=0))
    with client, pytest.raises(GatewayConnectionError):
        client.complete({"model": "m", "messages": MESSAGES})


def test_injected_http_client_is_used(emulator: Emulator) -> None:
    seen: list[str] = []
    http = httpx.Client(event_hooks={"request": [lambda r: seen.append(str(r.url))]})
    with ChatClient(base_url=emulator.base_url(), http_client=http) as client:
        client.complete({"model": "m", "messages": MESSAGES})
    assert seen == [emulator.base_url() + "/chat/completions"] and not http.is_closed
    http.close()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_single_newline_framing_in_every_dialect(
    run: Runner, emulator: Emulator, dialect: str
) -> None:
    _, plain = run(emulator, dialect)
    _, varied = run(emulator, dialect, fault="single-newline")
    assert isinstance(plain, Completion) and isinstance(varied, Completion), varied
    assert (varied.content, varied.finish_reason, varied.usage) == (
        plain.content,
        plain.finish_reason,
        plain.usage,
    )
    assert [e.name for e in varied.events] == [e.name for e in plain.events]
