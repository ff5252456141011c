"""The ``responses`` dialect's faults and gateway variants, over real loopback HTTP.

Every wire fault of the catalogue that applies, in OpenAI's shapes (status faults with its
error body, the ``error`` event with its ``sequence_number``), and this protocol's own
variants: the ones gateways are seen to send (vLLM's empty final output and lost deltas,
a proxy's reordered output, per-event item ids, a ``[DONE]`` after the terminal event,
arguments only in ``.done``, interleaved parallel calls, server tool items, raw reasoning
text, ``response.failed``).
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

from sse_emulator import Emulator
from tests.emulator.emu_wire import events
from tests.emulator.test_responses_dialect import (
    HEADERS,
    PATH,
    THINK,
    WEATHER,
    body_of,
    names,
    post,
    read,
    typed,
)

TOOLS = {"tools": [WEATHER]}
TWO_CALLS = "weather in Paris and Tokyo"


def test_status_faults_are_openai_error_bodies(client: httpx.Client) -> None:
    limited = post(client, fault="rate-limit; retry-after=2")
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    error = limited.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert (error["type"], error["code"]) == ("rate_limit_error", "rate_limit_exceeded")
    assert post(client, fault="rate-limit; retry-after=2").status_code == 200  # the retry
    assert post(client, fault="server-error").status_code == 500
    html = post(client, fault="bad-gateway-html")
    assert html.status_code == 502 and html.headers["content-type"] == "text/html"


def test_error_frame_is_the_error_event_with_the_next_sequence_number(
    client: httpx.Client,
) -> None:
    response = post(client, "count to 5", fault="error-frame; after=4")
    found = typed(response.content)
    assert [name for name, _ in found][:4] == names(post(client, "count to 5").content)[:4]
    name, error = found[-1]
    assert name == "error" and len(found) == 5
    assert error == {
        "type": "error",
        "sequence_number": 4,
        "code": "server_error",
        "message": "The server had an error while processing your request. Sorry about that!",
        "param": None,
    }


def test_event_error_is_the_generic_named_error(client: httpx.Client) -> None:
    found = events(post(client, fault="event-error; after=3").content)
    assert len(found) == 4 and found[-1].event == "error"
    assert found[-1].json()["error"]["type"] == "server_error"


def test_response_failed_ends_the_stream_with_a_failed_response(client: httpx.Client) -> None:
    whole = read(post(client, fault="response-failed").content)
    assert whole.terminal == "response.failed" and whole.content == "Hello there"
    assert whole.response is not None
    assert whole.response["status"] == "failed" and whole.response["output"] == []
    assert whole.response["error"]["code"] == "server_error"
    early = typed(post(client, fault="response-failed; after=3").content)
    assert [name for name, _ in early][-1] == "response.failed" and len(early) == 4
    assert early[-1][1]["sequence_number"] == 3


@pytest.mark.parametrize("after", [3, 1000])
def test_truncate_cuts_before_any_terminal_event(client: httpx.Client, after: int) -> None:
    cut = read(post(client, "count to 5", fault=f"truncate; after={after}").content)
    assert cut.terminal is None and cut.response is None


def test_reset_breaks_the_body_in_the_middle_of_an_event(client: httpx.Client) -> None:
    received = bytearray()
    with (
        pytest.raises(httpx.RemoteProtocolError),
        client.stream(
            "POST",
            PATH,
            json=body_of("count to 5"),
            headers=HEADERS | {"X-Emulator-Fault": "reset; after=3"},
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    head, _, partial = bytes(received).rpartition(b"\n\n")
    assert len(events(head + b"\n\n")) == 3
    assert partial.startswith(b"event: response.")


def test_stall_is_silence_then_a_read_timeout(client: httpx.Client, emulator: Emulator) -> None:
    received = bytearray()
    with (
        pytest.raises(httpx.ReadTimeout),
        client.stream(
            "POST",
            PATH,
            json=body_of("count to 5"),
            headers=HEADERS | {"X-Emulator-Fault": "stall; after=4; seconds=20"},
            timeout=httpx.Timeout(5.0, read=0.3),
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    assert len(events(bytes(received))) == 4
    assert emulator.wait_for_disconnect(1.0).disconnected


def test_hold_open_keeps_the_socket_after_response_completed(
    client: httpx.Client, emulator: Emulator
) -> None:
    headers = HEADERS | {"X-Emulator-Fault": "hold-open; seconds=20"}
    received = bytearray()
    with (
        pytest.raises(httpx.ReadTimeout),
        client.stream(
            "POST", PATH, json=body_of(), headers=headers, timeout=httpx.Timeout(5.0, read=0.5)
        ) as response,
    ):
        for piece in response.iter_raw():
            received += piece
    assert names(bytes(received))[-1] == "response.completed"
    emulator.wait_for_disconnect(1.0)
    seen = bytearray()
    started = time.monotonic()
    with client.stream("POST", PATH, json=body_of(), headers=headers) as response:
        for piece in response.iter_raw():
            seen += piece
            if read(bytes(seen)).terminal is not None:
                break
    assert read(bytes(seen)).content == "Hello there" and time.monotonic() - started < 2.0
    assert not emulator.wait_for_disconnect(1.0).completed


def test_data_only_frames_carry_their_type_only_inside(client: httpx.Client) -> None:
    body = post(client, fault="data-only").content
    assert b"event:" not in body
    clean = post(client).content
    assert [e.json()["type"] for e in events(body)] == names(clean)


def test_done_marker_follows_the_terminal_event(client: httpx.Client) -> None:
    found = events(post(client, fault="done-marker").content)
    assert found[-2].event == "response.completed" and found[-1].text == "[DONE]"
    assert found[-1].event is None


def test_output_empty_and_reordered_final_outputs(client: httpx.Client) -> None:
    empty = read(post(client, "weather in Paris", fault="output-empty", **TOOLS, **THINK).content)
    assert empty.response is not None and empty.response["output"] == []
    assert len(empty.items) == 2 and empty.calls[1].arguments == '{"city":"Paris"}'
    moved = read(post(client, TWO_CALLS, fault="output-reordered", **TOOLS).content)
    assert moved.response is not None
    assert moved.response["output"] == [moved.items[1], moved.items[0]]


def test_lost_delta_drops_a_token_that_the_done_events_keep(client: httpx.Client) -> None:
    response = post(client, "echo: one two three", fault="lost-delta")
    answer = read(response.content)
    assert answer.content == "one three"
    done = [d for n, d in typed(response.content) if n == "response.output_text.done"]
    assert done[0]["text"] == "one two three"
    assert answer.items[0]["content"][0]["text"] == "one two three"


def test_item_id_per_event_changes_every_item_id(client: httpx.Client) -> None:
    found = typed(post(client, "count to 3", fault="item-id-per-event").content)
    ids = [d.get("item_id") or d["item"]["id"] for _, d in found if "output_index" in d]
    assert len(ids) == len(set(ids)) > 5
    assert read(post(client, "count to 3", fault="item-id-per-event").content).content == "1 2 3"


def test_arguments_only_in_done(client: httpx.Client) -> None:
    response = post(client, "weather in Paris", fault="no-argument-deltas", **TOOLS)
    assert "response.function_call_arguments.delta" not in names(response.content)
    assert read(response.content).calls[0].done == '{"city":"Paris"}'


def test_interleaved_arguments_of_two_parallel_calls(client: httpx.Client) -> None:
    response = post(client, TWO_CALLS, fault="interleaved-arguments", **TOOLS)
    found = typed(response.content)
    kinds = [name for name, _ in found]
    assert kinds[2:4] == ["response.output_item.added"] * 2
    indexes = [d["output_index"] for n, d in found if n == "response.function_call_arguments.delta"]
    assert indexes[:4] == [0, 1, 0, 1]
    calls = read(response.content).calls
    assert [json.loads(c.arguments) for c in calls.values()] == [
        {"city": "Paris"},
        {"city": "Tokyo"},
    ]
    assert [d["sequence_number"] for _, d in found] == list(range(len(found)))


def test_web_search_is_a_server_tool_item_not_a_function_call(client: httpx.Client) -> None:
    response = post(client, "latest news about Paris", fault="web-search")
    seen = names(response.content)
    assert seen[2:7] == [
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
    ]
    answer = read(response.content)
    search = answer.items[0]
    assert search["type"] == "web_search_call" and search["status"] == "completed"
    assert search["action"] == {"type": "search", "query": "latest news about Paris"}
    assert answer.calls == {} and answer.items[1]["type"] == "message"
    at = seen.index("response.output_text.annotation.added")
    assert seen[at + 1] == "response.output_text.done"
    note = typed(response.content)[at][1]["annotation"]
    assert note["type"] == "url_citation" and note["url"].startswith("https://")
    assert answer.items[1]["content"][0]["annotations"] == [note]


def test_reasoning_text_streams_the_raw_reasoning(client: httpx.Client) -> None:
    response = post(client, fault="reasoning-text", reasoning={"effort": "high"})
    found = typed(response.content)
    raw = "".join(d["delta"] for n, d in found if n == "response.reasoning_text.delta")
    item = read(response.content).items[0]
    assert item["content"] == [{"type": "reasoning_text", "text": raw}] and raw
    assert item["summary"] == []


def test_incomplete_as_completed_keeps_the_status_in_the_response(
    client: httpx.Client,
) -> None:
    cut = read(
        post(client, "count to 40", max_output_tokens=16, fault="incomplete-as-completed").content
    )
    assert cut.terminal == "response.completed"
    assert cut.response is not None and cut.response["status"] == "incomplete"
    assert cut.response["incomplete_details"] == {"reason": "max_output_tokens"}


def test_json_body_answers_a_stream_request_with_the_whole_response(
    client: httpx.Client,
) -> None:
    response = post(client, fault="json-body")
    assert response.headers["content-type"] == "application/json"
    assert response.json()["status"] == "completed"


def test_framing_faults_keep_the_same_events(client: httpx.Client) -> None:
    clean = post(client, "echo: café ☕").content
    assert post(client, "echo: café ☕", fault="crlf").content.replace(b"\r\n", b"\n") == clean
    assert post(client, "echo: café ☕", fault="split-utf8; pause=0").content == clean
    assert post(client, "echo: café ☕", fault="burst; frames=3").content == clean
    pinged = events(post(client, "echo: café ☕", fault="keepalive; every=2").content)
    assert [e.json() for e in pinged if e.data] == [e.json() for e in events(clean)]


def test_extra_frames_are_outside_the_sequence(client: httpx.Client) -> None:
    response = post(client, fault="invalid-json; after=4, named-event; after=3")
    found = events(response.content)
    assert found[3].event == "emulator.notice"
    with pytest.raises(ValueError):
        found[5].json()
    oversized = [
        e.json() for e in events(post(client, fault="oversized; after=5; size=1000").content)
    ]
    extra = oversized[5]
    assert extra["type"] == "response.output_text.delta" and "sequence_number" not in extra
    assert extra["delta"] == "x" * 1000
