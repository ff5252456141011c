"""One choice per request (``sse_core._choices``): ``n`` other than 1 is refused before any
request, naming the setting and where it was found; a body that holds several choices anyway
decodes each apart, never one mixed into another."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sse_core import (
    AsyncChatClient,
    ChatClient,
    ConfigurationError,
    StreamDecoder,
    TextDelta,
    decode,
)
from sse_core._choices import check_choices, refuse_choices
from sse_core.transport.http import build_payload
from sse_emulator import Emulator
from tests.core.core_frames import delta, sse

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("value", [None, 1])
def test_n_of_one_or_none_is_sent_as_it_is(value: object) -> None:
    body = build_payload({**PAYLOAD, "n": value}, include_usage=True, extra_body=None)
    assert body["n"] == value
    assert "n" not in build_payload(PAYLOAD, include_usage=True, extra_body={"seed": 1})


@pytest.mark.parametrize(
    ("value", "says"),
    [(2, "asks for 2 choices"), (8, "asks for 8 choices"), (0, "is not 1"), ("2", "is not 1"),
     (True, "is not 1"), (1.0, "is not 1")],
)  # fmt: skip
def test_any_other_n_is_a_configuration_error_naming_it(value: object, says: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        refuse_choices({"n": value}, "somewhere")
    message = str(info.value)
    assert f"n={value!r} in somewhere {says}" in message
    assert "one choice per request" in message and "remove n" in message
    assert isinstance(info.value, ValueError)


def test_the_body_says_where_n_came_from() -> None:
    with pytest.raises(ConfigurationError, match=r"n=2 in the request payload \(ChatSSE: "):
        build_payload({**PAYLOAD, "n": 2}, include_usage=True, extra_body=None)
    with pytest.raises(ConfigurationError, match="n=3 in extra_body asks for 3 choices"):
        build_payload(PAYLOAD, include_usage=True, extra_body={"n": 3})


def test_extra_body_wins_as_it_does_in_the_body_sent() -> None:
    # extra_body is merged over the payload: its n is the one the gateway would get
    check_choices({**PAYLOAD, "n": 2}, {"n": 1})
    with pytest.raises(ConfigurationError, match="in extra_body"):
        check_choices({**PAYLOAD, "n": 1}, {"n": 2})


def _async_complete(url: str, payload: dict[str, Any], **config: Any) -> object:
    async def main() -> object:
        async with AsyncChatClient(base_url=url, **config) as client:
            return await client.complete(payload)

    return asyncio.run(main())


@pytest.mark.timeout(30)
def test_the_clients_refuse_n_before_any_request(emulator: Emulator) -> None:
    url = emulator.base_url()
    with ChatClient(base_url=url) as client:
        with pytest.raises(ConfigurationError, match="n=2"):
            client.complete({**PAYLOAD, "n": 2})
        with pytest.raises(ConfigurationError, match="n=2"), client.stream({**PAYLOAD, "n": 2}):
            pass
    with (
        ChatClient(base_url=url, extra_body={"n": 4}) as client,
        pytest.raises(ConfigurationError, match="n=4 in extra_body"),
    ):
        client.complete(PAYLOAD)
    with pytest.raises(ConfigurationError, match="n=2"):
        _async_complete(url, {**PAYLOAD, "n": 2})
    with pytest.raises(ConfigurationError, match="n=5 in extra_body"):
        _async_complete(url, PAYLOAD, extra_body={"n": 5})
    assert emulator.requests == []
    with ChatClient(base_url=url) as client:  # n=1 goes through
        assert client.complete({**PAYLOAD, "n": 1}).content
    assert len(emulator.requests) == 1


# --- several choices arriving anyway ------------------------------------------------------------

#: A gateway that sends two choices although one was asked for, interleaved, choice 1 first.
TWO = sse(
    delta(choice=1, content="B1 "),
    delta(choice=0, content="A1 "),
    delta(choice=1, content="B2", finish="stop"),
    delta(choice=0, content="A2", finish="stop"),
)


def test_each_choice_decodes_apart_never_mixed() -> None:
    completion = decode(TWO)
    assert [(c.index, c.content) for c in completion.choices] == [(0, "A1 A2"), (1, "B1 B2")]
    assert completion.content == "A1 A2"  # the properties read the lowest index


def test_the_events_keep_their_choice() -> None:
    decoder = StreamDecoder()
    events = [*decoder.feed(TWO[:70]), *decoder.feed(TWO[70:]), *decoder.finish()]
    texts = [(e.choice, e.text) for e in events if isinstance(e, TextDelta)]
    assert texts == [(1, "B1 "), (0, "A1 "), (1, "B2"), (0, "A2")]
