"""Bad input at the API surface: refused at once, with a message that names the field or
says what arrived, and never retried when retrying cannot help."""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Any

import httpx
import pytest

import sse_core
from sse_core import (
    AsyncChatClient,
    ChatClient,
    ConfigurationError,
    RedirectError,
    RetryPolicy,
    StreamDecoder,
    StreamProtocolError,
    TextDelta,
    Timeouts,
    UnexpectedResponseError,
)

README = Path(__file__).resolve().parents[2] / "README.md"
PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
FRAME = b'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'
PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body>...</body></html>"
)


@pytest.mark.parametrize("cls", [ChatClient, AsyncChatClient])
@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"base_url": "http://[::1/v1"}, "base_url"),
        ({"base_url": "http://h:99999/v1"}, "base_url"),
        ({"api_key": 123}, "api_key"),
        ({"timeout": -1}, "timeout"),
        ({"timeout": -0.5}, "timeout"),
        ({"max_event_bytes": 0}, "max_event_bytes"),
        ({"max_event_bytes": -1}, "max_event_bytes"),
        ({"path": "chat/completions"}, "path"),
        ({"max_retries": -1}, "max_retries"),
    ],
)
def test_bad_settings_are_refused_at_construction(
    cls: type, settings: dict[str, Any], field: str
) -> None:
    settings = {"base_url": "http://gw.test/v1", **settings}
    with pytest.raises(ConfigurationError) as info:
        cls(**settings)
    assert field in str(info.value)


def test_a_zero_timeout_is_refused_where_it_is_written() -> None:
    with pytest.raises(ConfigurationError, match=r"Timeouts\.first_byte must be a positive"):
        Timeouts(first_byte=0)


@pytest.mark.parametrize("phase", ["connect", "first_byte", "idle", "data_idle", "total"])
def test_negative_timeouts_are_refused(phase: str) -> None:
    with pytest.raises(ConfigurationError, match=phase):
        Timeouts(**{phase: -1})


def _one_answer(response: httpx.Response) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return response

    return httpx.MockTransport(handler), sent


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_refused_saying_where_to(status: int) -> None:
    location = "https://new.gw.test/v1/chat/completions"
    transport, sent = _one_answer(httpx.Response(status, headers={"location": location}))
    http = httpx.Client(transport=transport)
    with (
        ChatClient(base_url="http://gw.test/v1", http_client=http) as client,
        pytest.raises(RedirectError) as info,
    ):
        client.complete(PAYLOAD)
    error = info.value
    assert "redirect" in str(error) and location in str(error)
    assert error.location == location and error.status_code == status
    assert len(sent) == 1 and not error.is_retryable  # not followed, not retried
    http.close()


def test_a_redirect_is_refused_by_the_async_client_too() -> None:
    transport, sent = _one_answer(httpx.Response(307, headers={"location": "https://x/v1"}))

    async def main() -> RedirectError:
        http = httpx.AsyncClient(transport=transport)
        async with AsyncChatClient(base_url="http://gw.test/v1", http_client=http) as client:
            try:
                await client.complete(PAYLOAD)
            except RedirectError as exc:
                return exc
            finally:
                await http.aclose()
        raise AssertionError("no RedirectError")

    error = asyncio.run(main())
    assert "redirect" in str(error) and "https://x/v1" in str(error) and len(sent) == 1


def test_a_redirect_without_location_says_so() -> None:
    transport, _ = _one_answer(httpx.Response(302))
    with (
        ChatClient(
            base_url="http://gw.test/v1", http_client=httpx.Client(transport=transport)
        ) as c,
        pytest.raises(RedirectError, match="redirects without saying where"),
    ):
        c.complete(PAYLOAD)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_like_input_decodes_like_bytes(kind: type) -> None:
    assert StreamDecoder().feed(kind(FRAME)) == [TextDelta(text="hi")]
    body = FRAME + b"data: [DONE]\n\n"
    assert sse_core.decode(kind(body)) == sse_core.decode(body)
    assert sse_core.decode([kind(body[:9]), kind(body[9:])]).content == "hi"


@pytest.mark.parametrize("bad", ["data: x\n\n", 1, None])
def test_a_str_or_other_input_is_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match=f"got {type(bad).__name__}"):
        StreamDecoder().feed(bad)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=f"expected bytes or an iterable of bytes, got {type(bad).__name__}"
    ):
        sse_core.decode(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=f"got {type(bad).__name__}"):
        sse_core.decode([b"data: ", bad])  # type: ignore[list-item]


@pytest.mark.parametrize("sync", [True, False])
def test_a_200_web_page_is_an_unexpected_response_sent_once(sync: bool) -> None:
    response = httpx.Response(
        200, headers={"content-type": "text/html; charset=utf-8"}, content=PAGE
    )
    transport, sent = _one_answer(response)
    settings: dict[str, Any] = {
        "base_url": "http://gw.test/v1",
        "retry": RetryPolicy(max_retries=3),
    }
    if sync:
        with (
            ChatClient(http_client=httpx.Client(transport=transport), **settings) as client,
            pytest.raises(UnexpectedResponseError) as info,
        ):
            client.complete(PAYLOAD)
        error = info.value
    else:

        async def main() -> UnexpectedResponseError:
            http = httpx.AsyncClient(transport=transport)
            async with AsyncChatClient(http_client=http, **settings) as client:
                try:
                    await client.complete(PAYLOAD)
                except UnexpectedResponseError as exc:
                    return exc
            raise AssertionError("no UnexpectedResponseError")

        error = asyncio.run(main())
    assert len(sent) == 1 and not error.is_retryable
    assert "text/html" in str(error) and "<!DOCTYPE html>" in str(error)
    assert error.status_code == 200 and "base_url" in str(error)


def test_a_readme_is_not_an_event_stream() -> None:
    with pytest.raises(StreamProtocolError) as info:
        sse_core.decode(README.read_bytes())
    message = str(info.value)
    assert "expected an event stream" in message and "no SSE event" in message
    assert "retry the request" not in message
    assert repr(README.read_bytes()[:20].decode())[1:-1] in message  # it shows the start


def test_the_package_exports_what_a_user_needs_and_the_extension_api_lives_apart() -> None:
    """``sse_core`` is the user's surface (clients, decode, events, the Completion, errors,
    config, recording); the pipeline's parts and a protocol's API are their own packages."""
    import sse_core.pipeline
    import sse_core.protocols

    assert len(sse_core.__all__) <= 49  # 18 of them the errors, to catch by kind
    for name, home in (("ClientPool", "pool"), ("RecordingTransport", "recording")):
        assert name not in sse_core.__all__
        with pytest.warns(DeprecationWarning, match=f"sse_core.transport.{home}.{name}"):
            assert getattr(sse_core, name) is getattr(
                importlib.import_module(f"sse_core.transport.{home}"), name
            )
    for name in ("Accumulator", "SSEParser", "StreamSession", "MessagesDecoder"):
        assert name not in sse_core.__all__ and name in sse_core.pipeline.__all__
    for name in ("WireProtocol", "RequestShape", "register_protocol", "PayloadDecoder"):
        assert name not in sse_core.__all__ and name in sse_core.protocols.__all__


@pytest.mark.parametrize(
    ("name", "home"),
    [("Accumulator", "sse_core.pipeline"), ("WireProtocol", "sse_core.protocols")],
)
def test_a_name_that_moved_still_reads_with_a_warning_naming_its_home(name: str, home: str) -> None:
    import importlib

    with pytest.warns(DeprecationWarning, match=f"moved to {home}.{name}"):
        moved = getattr(sse_core, name)
    assert moved is getattr(importlib.import_module(home), name)
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        sse_core.Nope  # noqa: B018
