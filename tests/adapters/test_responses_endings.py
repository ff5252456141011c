"""How a Responses stream ends, through both adapters read the four ways, against the emulator
over loopback: the answer ends at the terminal event on a socket held open; a stream cut
before any terminal event (``[DONE]`` or not) is an IncompleteStreamError with the answer so
far; ``response.failed`` and the ``error`` event are a GatewayStreamError with the code, the
message and the answer so far; ``response.incomplete`` (and a ``response.completed`` whose
status is ``incomplete``) is finish reason ``length`` with the raw reason kept; a broken JSON
frame is a StreamProtocolError with the answer before it, never the rest spliced on; HTTP
errors typed; a sync ``break`` closes the connection at once. (The answers themselves:
test_responses_answers.py.)"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from sse_core import GatewayHTTPError, GatewayStreamError
from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from tests.adapters.conftest import HOWS, Driver
from tests.adapters.test_responses_answers import text_of, wire

pytestmark = pytest.mark.timeout(60)

#: The first eight events of "count to 5": created, in_progress, the message's item and
#: part, then the deltas "1", " 2", " 3", " 4".
AFTER = 8
SO_FAR = "1 2 3 4"


@pytest.fixture
def protocol() -> str:
    """Every test here speaks the Responses API (``on_protocol`` reads this)."""
    return "responses"


@pytest.mark.parametrize("how", HOWS)
def test_the_answer_ends_at_the_terminal_event_on_a_socket_held_open(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    model = on_protocol("hold-open; seconds=30", timeout=30.0)
    started = time.monotonic()
    answer = driver.answer(model, how, "count to 5")
    assert time.monotonic() - started < 5  # the hold is 30 s, and so is the read timeout
    assert (answer.text, answer.finish_reason) == ("1 2 3 4 5", "stop")
    # The client left the held socket rather than keeping it.
    record = emulator.wait_for_disconnect(3.0)
    assert record.disconnected and not record.completed


@pytest.mark.parametrize("how", HOWS)
def test_a_stream_cut_before_any_terminal_event_is_incomplete(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    model = on_protocol(f"truncate; after={AFTER}")
    with pytest.raises(driver.error("IncompleteStreamError")) as caught:
        driver.answer(model, how, "count to 5")
    assert isinstance(caught.value, driver.framework_error("IncompleteStreamError"))
    events = wire(emulator)
    assert not [e for e in events if e["type"] in ("response.completed", "response.failed")]
    assert driver.partial_answer(model, caught.value).text == text_of(events) == SO_FAR


@pytest.mark.parametrize("how", HOWS)
def test_a_bare_done_is_not_a_terminal_event(
    driver: Driver, emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path, how: str
) -> None:
    # A capture: the emulator's own stream cut after AFTER events, then a chat-completions
    # style [DONE], replayed over loopback.
    body = {"model": "emulator", "input": "count to 5", "stream": True, "store": False}
    whole = httpx.post(emulator.url + "/v1/responses", json=body, timeout=10).text
    frames = whole.split("\n\n")[:AFTER]
    capture = tmp_path / "cut.sse"
    capture.write_text("\n\n".join([*frames, "data: [DONE]", ""]))
    replay = emulator_replay(capture)
    model = driver.make(model="emulator", base_url=replay.base_url("responses"), api_key="k",
                        protocol="responses", timeout=10.0, max_retries=0)  # fmt: skip
    with pytest.raises(driver.error("IncompleteStreamError")) as caught:
        driver.answer(model, how, "count to 5")
    assert driver.partial_answer(model, caught.value).text == SO_FAR


FAILURES = [f"response-failed; after={AFTER}", f"error-frame; after={AFTER}", "response-failed"]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("fault", FAILURES)
def test_a_failed_response_or_an_error_event_raises_with_its_code_and_the_answer_so_far(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str, fault: str
) -> None:
    model = on_protocol(fault)
    with pytest.raises(driver.error("GatewayStreamError")) as caught:
        driver.answer(model, how, "count to 5")
    error = caught.value
    assert isinstance(error, GatewayStreamError)
    assert isinstance(error, driver.framework_error("GatewayStreamError"))
    events = wire(emulator)
    last = events[-1]
    if fault.startswith("response-failed"):
        assert last["type"] == "response.failed"
        sent = last["response"]["error"]
    else:
        assert last["type"] == "error"
        sent = last
    assert sent["code"] == "server_error" and sent["message"]
    assert error.code == sent["code"]
    assert sent["message"] in str(error)
    partial = driver.partial_answer(model, error)
    assert partial.text == text_of(events) == ("1 2 3 4 5" if "after" not in fault else SO_FAR)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("fault", [None, "incomplete-as-completed"])
def test_an_answer_cut_at_max_output_tokens_is_length_with_the_reason_kept(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str, fault: str | None
) -> None:
    answer = driver.answer(on_protocol(fault, max_tokens=16), how, "count to 50")
    record = emulator.last_request
    assert record is not None and record.json()["max_output_tokens"] == 16
    events = wire(emulator)
    terminal = events[-1]
    expected = "response.completed" if fault else "response.incomplete"
    assert terminal["type"] == expected  # only the status says incomplete under the fault
    response = terminal["response"]
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert answer.text == text_of(events) and answer.text.startswith("1 2 3")
    assert (answer.finish_reason, answer.stop_reason) == ("length", "max_output_tokens")
    assert answer.usage is not None
    assert answer.usage.completion == response["usage"]["output_tokens"]


@pytest.mark.parametrize("how", HOWS)
def test_a_broken_json_frame_is_a_protocol_error_never_a_spliced_answer(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    model = on_protocol(f"invalid-json; after={AFTER}")
    with pytest.raises(driver.error("StreamProtocolError")) as caught:
        driver.answer(model, how, "count to 5")
    assert not isinstance(caught.value, GatewayStreamError)
    clean = wire(emulator, faulted=False)
    # The stream went on after the broken frame: the rest of it is not the answer.
    assert text_of(clean) == "1 2 3 4 5"
    assert driver.partial_answer(model, caught.value).text == text_of(clean[:AFTER]) == SO_FAR


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize(
    ("fault", "name", "status"),
    [("rate-limit; count=2", "RateLimitError", 429), ("unavailable; count=2", "ServerError", 503)],
)
def test_http_errors_are_typed(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str, fault: str, name: str,
    status: int,
) -> None:  # fmt: skip
    with pytest.raises(driver.error(name)) as caught:
        driver.answer(on_protocol(fault), how, "count to 5")
    error = caught.value
    assert isinstance(error, GatewayHTTPError)
    assert isinstance(error, driver.framework_error(name))
    record = emulator.last_request
    assert record is not None and record.status == status == error.status_code
    # The error in OpenAI's shape, as the emulator sends it again for the same request.
    sent = httpx.post(emulator.url + record.path, content=record.body, timeout=10,
                      headers={"X-Emulator-Fault": fault}).json()["error"]  # fmt: skip
    assert (error.type, error.code, error.error_message) == (
        sent["type"],
        sent["code"],
        sent["message"],
    )


SLOW = "slow; delay=0.05"
#: Seconds from our close to the emulator seeing the client leave.
PROMPTLY = 0.5


def _left_at_once(emulator: Emulator, since: float) -> None:
    record = emulator.wait_for_disconnect(3.0)
    assert record.disconnected and not record.completed
    assert record.disconnected_at is not None and record.disconnected_at - since < PROMPTLY
    assert len(emulator.requests) == 1


def test_breaking_out_of_a_sync_stream_closes_the_connection(
    driver: Driver, on_protocol: Any, emulator: Emulator
) -> None:
    for text in driver.stream(on_protocol(SLOW), "count to 500"):
        assert text == "1"
        break  # the generator is dropped here; CPython closes it at once
    _left_at_once(emulator, time.monotonic() - PROMPTLY / 2)


def test_closing_a_sync_stream_closes_the_connection(
    driver: Driver, on_protocol: Any, emulator: Emulator
) -> None:
    stream = driver.open_stream(on_protocol(SLOW), "count to 500")
    next(stream)
    since = time.monotonic()
    stream.close()
    _left_at_once(emulator, since)
