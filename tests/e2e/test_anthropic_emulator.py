"""The core's Anthropic decoder and clients against the emulator's ``anthropic`` dialect.

The emulator's own tests read its wire with a reader of their own; here the core decodes
the same streams: each behaviour gives the expected Completion, each fault the typed error
a client should raise (with the partial answer), and the core clients finish at
``message_stop`` even when the socket stays open.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import sse_core
from sse_core import (
    ChatClient,
    GatewayEvent,
    GatewayHTTPError,
    GatewayStreamError,
    IncompleteStreamError,
    StreamDecoder,
    StreamProtocolError,
)
from sse_emulator import Emulator
from tests.emulator.test_anthropic_dialect import HEADERS, PATH, WEATHER, body_of

pytestmark = pytest.mark.timeout(60)

FAULT = "X-Emulator-Fault"
THINK: dict[str, Any] = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


@pytest.fixture
def http(emulator: Emulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emulator.url, timeout=5.0) as client:
        yield client


def served(http: httpx.Client, content: str, fault: str = "", **fields: Any) -> bytes:
    headers = HEADERS | ({FAULT: fault} if fault else {})
    response = http.post(PATH, json=body_of(content, **fields), headers=headers)
    assert response.status_code == 200, response.text
    return response.content


def decode(body: bytes) -> sse_core.Completion:
    return sse_core.decode(body, protocol="anthropic")


def test_text_ids_and_usage(http: httpx.Client) -> None:
    body = served(http, "count to 4")
    start = json.loads(body.split(b"\n")[1].removeprefix(b"data: "))["message"]
    completion = decode(body)
    assert (completion.content, completion.stop_reason, completion.finish_reason) == (
        "1 2 3 4",
        "end_turn",
        "stop",
    )
    assert (completion.id, completion.model, completion.done) == (
        start["id"],
        "claude-emulated",
        True,
    )
    usage = completion.usage
    assert usage is not None
    prompt = start["usage"]["input_tokens"]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (
        prompt,
        4,
        prompt + 4,
    )
    assert (usage.cached_tokens, usage.cache_write_tokens) == (0, 0)


def test_cache_reads_and_writes(http: httpx.Client) -> None:
    turns = [
        {"role": "user", "content": "hello there, how are you today?"},
        {"role": "assistant", "content": "Fine, thanks for asking."},
        {"role": "user", "content": "echo: again"},
    ]
    system = [{"type": "text", "text": "Be terse.", "cache_control": {"type": "ephemeral"}}]
    cached = decode(served(http, "", messages=turns, system=system)).usage
    plain = decode(served(http, "", messages=turns, system="Be terse.")).usage
    assert cached is not None and plain is not None
    assert cached.cached_tokens and cached.cache_write_tokens
    assert cached.prompt_tokens == plain.prompt_tokens  # input + reads + writes


def test_thinking_with_its_signature_then_text(http: httpx.Client) -> None:
    completion = decode(served(http, "echo: done", **THINK))
    (block,) = completion.reasoning_blocks
    assert block.text == completion.reasoning and block.text
    assert block.signature and block.redacted is None
    assert completion.content == "done"


def test_redacted_thinking_is_kept_opaque(http: httpx.Client) -> None:
    completion = decode(served(http, "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING", **THINK))
    (block,) = completion.reasoning_blocks
    assert block.redacted and block.text == ""
    assert completion.reasoning == ""


def test_tool_use_in_pieces_gives_whole_arguments(http: httpx.Client) -> None:
    completion = decode(served(http, "weather in Paris and Tokyo", tools=[WEATHER]))
    calls = completion.tool_calls
    assert [(c.index, c.name, json.loads(c.arguments)) for c in calls] == [
        (0, "get_weather", {"city": "Paris"}),
        (1, "get_weather", {"city": "Tokyo"}),
    ]
    assert all(c.id and c.id.startswith("toolu_01") and c.arguments_error is None for c in calls)
    assert (completion.stop_reason, completion.finish_reason) == ("tool_use", "tool_calls")


def test_stop_sequence_max_tokens_and_refusal(http: httpx.Client) -> None:
    cut = decode(served(http, "count to 9", stop_sequences=["5"]))
    assert (cut.content, cut.stop_reason, cut.stop_sequence) == ("1 2 3 4 ", "stop_sequence", "5")
    short = decode(served(http, "count to 50", max_tokens=3))
    assert (short.content, short.stop_reason, short.finish_reason) == (
        "1 2 3",
        "max_tokens",
        "length",
    )
    refused = decode(served(http, "something forbidden"))
    assert refused.stop_reason == "refusal" and refused.content


@pytest.mark.parametrize("fault", ["error-frame; after=6", "event-error; after=6"])
def test_an_error_event_after_a_200_is_a_gateway_stream_error(
    http: httpx.Client, fault: str
) -> None:
    with pytest.raises(GatewayStreamError) as caught:
        decode(served(http, "count to 5", fault, **THINK))
    assert caught.value.type == "overloaded_error"
    assert caught.value.partial.reasoning


@pytest.mark.parametrize("after", [3, 999])
def test_a_truncated_stream_is_incomplete_with_its_partial_answer(
    http: httpx.Client, after: int
) -> None:
    with pytest.raises(IncompleteStreamError) as caught:
        decode(served(http, "count to 5", f"truncate; after={after}"))
    assert caught.value.partial.content == ("1 2 3 4 5" if after == 999 else "")


def test_invalid_json_and_an_oversized_event_are_protocol_errors(http: httpx.Client) -> None:
    with pytest.raises(StreamProtocolError):
        decode(served(http, "echo: hi", "invalid-json; after=3"))
    big = served(http, "echo: hi", "oversized; after=3; size=100000")
    with pytest.raises(StreamProtocolError):
        sse_core.decode(big, protocol="anthropic", max_event_bytes=1 << 16)


@pytest.mark.parametrize(
    "fault",
    [
        "crlf",
        "cr",
        "bom",
        "keepalive; every=2",
        "data-only",
        "burst; frames=3",
        "split-utf8",
        "crlf, data-only, keepalive",
        "prefilled",
        "usage-late",
        "usage-output-only",
        "usage-twice",
    ],
)
def test_framing_faults_and_gateway_variants_decode_to_the_clean_answer(
    http: httpx.Client, fault: str
) -> None:
    content = "echo: grüße über alles"
    clean = decode(served(http, content, **THINK))
    assert decode(served(http, content, fault, **THINK)) == clean


def test_an_unknown_event_is_a_gateway_event(http: httpx.Client) -> None:
    clean = decode(served(http, "echo: hi"))
    got = decode(served(http, "echo: hi", "named-event; name=vendor.notice; after=3"))
    assert dataclasses.replace(got, events=()) == clean
    assert [type(e) for e in got.events] == [GatewayEvent]


def test_the_decoder_is_done_at_message_stop_on_a_socket_held_open(http: httpx.Client) -> None:
    decoder = StreamDecoder(protocol="anthropic")
    headers = HEADERS | {FAULT: "hold-open; seconds=30"}
    started = time.monotonic()
    with http.stream("POST", PATH, json=body_of("count to 5"), headers=headers) as response:
        for piece in response.iter_raw():
            decoder.feed(piece)
            if decoder.done:
                break
    assert decoder.done and time.monotonic() - started < 3.0


def test_the_core_client_finishes_at_message_stop_on_a_socket_held_open(
    emulator: Emulator,
) -> None:
    started = time.monotonic()
    with ChatClient(
        base_url=emulator.base_url("anthropic"), api_key="k", protocol="anthropic"
    ) as client:
        body = body_of("count to 5") | {"stream": True}
        completion = client.complete(body, headers={FAULT: "hold-open; seconds=30"})
    assert completion.content == "1 2 3 4 5" and completion.stop_reason == "end_turn"
    assert time.monotonic() - started < 3.0
    record = emulator.wait_for_disconnect(2.0)
    assert record.header("x-api-key") == "***" and record.header("anthropic-version")


def test_the_core_client_gets_a_typed_529_with_the_request_id(emulator: Emulator) -> None:
    with (
        ChatClient(
            base_url=emulator.url, api_key="k", protocol="anthropic", max_retries=0
        ) as client,
        pytest.raises(GatewayHTTPError) as caught,
    ):
        client.complete(body_of("hi"), headers={FAULT: "overloaded"})
    error = caught.value
    assert (error.status_code, error.type) == (529, "overloaded_error")
    assert error.headers["request-id"] in str(error)
