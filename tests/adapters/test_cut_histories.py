"""An interrupted answer kept in a thread is a request the API accepts (issue 35): the partial
answer of a cut, failed or cancelled stream, at every cut point, appended to the history with a
new question, is accepted by the strict emulator, on each protocol, through both adapters.

Each kind of cut of the emulator's fault catalogue (core/sse_emulator/wire/faults.py) is made
at every event of an answer that reasons and calls a tool (so a cut falls in the reasoning,
before its signature or its encrypted item, in the text, and inside the call's arguments), and
a cancelled stream is stopped after every chunk. What no API takes of such an answer (a tool
call without its result, reasoning without its signature or its following item, whitespace
text) is left out by the core's rules (sse_core.protocols.history) and said.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage
from llama_index.core.tools import FunctionTool

from sse_core import StreamError
from sse_emulator import Emulator
from tests.adapters.conftest import Driver
from tests.adapters.histories import assert_sent_once, get_weather, last_body, left_out

pytestmark = pytest.mark.timeout(300)

QUESTION = "What is the weather in Paris?"
AGAIN = "And in Tokyo?"
#: Settings that make the answer reason, on each protocol (with the tool call it makes).
REASONS: dict[str, dict[str, Any]] = {
    "chat_completions": {"model": "emulator-think"},
    "anthropic": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
    "responses": {"reasoning_effort": "high"},
    "gemini": {"model": "gemini-3-pro-preview", "reasoning_effort": "high"},
}
#: The protocols whose call every kind of cut can leave without its result: Gemini sends a call
#: whole, in the chunk that carries the finish, so only a fault after that chunk (an invalid
#: or oversized event) cuts an answer that holds it.
CALLS_CUT = frozenset({"chat_completions", "anthropic", "responses"})
#: The faults that cut a stream on every protocol, each as the X-Emulator-Fault it is asked
#: with at cut ``{at}`` (``oversized``: an event over the model's bound, ``max_event_bytes``).
CUTS: dict[str, str] = {
    "error-frame": "error-frame; after={at}",
    "event-error": "event-error; after={at}",
    "truncate": "truncate; after={at}",
    "reset": "reset; after={at}",
    "stall": "stall; after={at}; seconds=0",
    "invalid-json": "invalid-json; after={at}",
    "oversized": "oversized; after={at}; size=8192",
}


def _partial(driver: Driver, model: Any) -> Any:
    """The partial answer of a failed stream, as the adapter gives it (None: not cut)."""
    try:
        driver.answer(model, "stream", QUESTION, [get_weather])
    except StreamError as error:  # each adapter's stream errors are the core's too
        if driver.name == "ChatSSE":
            return error.partial_message  # type: ignore[attr-defined]
        return error.partial_response.message  # type: ignore[attr-defined]
    return None


def _cancelled(driver: Driver, model: Any, after: int) -> Any:
    """The answer so far of a stream stopped after ``after`` chunks, as its user keeps it
    (LangChain: the chunks added up; LlamaIndex: the last response's message)."""
    if driver.name == "ChatSSE":
        stream = model.bind_tools([get_weather]).stream(QUESTION)
        kept = None
        try:
            for at, chunk in enumerate(stream):
                kept = chunk if kept is None else kept + chunk
                if at + 1 >= after:
                    break
        finally:
            stream.close()
        return None if kept is None else AIMessage(**kept.model_dump(exclude={"type"}))
    prepared = model._prepare_chat_with_tools(
        [FunctionTool.from_defaults(get_weather)], user_msg=QUESTION
    )
    responses = model.stream_chat(**prepared)
    message = None
    try:
        for at, response in enumerate(responses):
            message = response.message
            if at + 1 >= after:
                break
    finally:
        responses.close()
    return message


def _events(emulator: Emulator, body: dict[str, Any], protocol: str) -> int:
    """How many events the uncut answer to ``body`` has (each a cut point)."""
    paths = {"chat_completions": "/v1/chat/completions", "anthropic": "/v1/messages"}
    gemini = f"/v1beta/models/{REASONS['gemini']['model']}:streamGenerateContent?alt=sse"
    paths["gemini"] = gemini  # the URL says it streams: no "stream" in the body
    sent = {k: v for k, v in body.items() if k != "stream"} if protocol == "gemini" else body
    headers = {"anthropic-version": "2023-06-01"}
    response = httpx.post(
        emulator.url + paths.get(protocol, "/v1/responses"), json=sent, headers=headers
    )
    assert response.status_code == 200
    return response.content.replace(b"\r\n", b"\n").count(b"\n\n")


def _continue(
    driver: Driver, model: Any, partial: Any, emulator: Emulator, protocol: str
) -> list[str]:
    """The partial answer and a new question: accepted, each call and item sent once; what
    was said to be left out."""
    with left_out() as said:
        driver.answer(model, "ask", [QUESTION, partial, AGAIN], [get_weather])
    assert_sent_once(protocol, last_body(emulator))
    return said


def _every_cut(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator, fault: str
) -> None:
    """Cut the answer by ``fault`` at each of its events; continue each partial answer."""
    settings = REASONS[protocol] | {"max_event_bytes": 4096}
    whole = on_protocol(**settings)
    driver.answer(whole, "ask", QUESTION, [get_weather])  # the uncut answer: its events
    body = last_body(emulator) | {"stream": True}
    cuts: list[list[str]] = []
    for at in range(_events(emulator, body, protocol) + 1):
        partial = _partial(driver, on_protocol(fault=fault.format(at=at), **settings))
        if partial is not None:  # None: past the end, a fault that leaves the answer whole
            cuts.append(_continue(driver, whole, partial, emulator, protocol))
    assert len(cuts) > 3
    # Some cut fell inside the tool call, which went without its result: left out, and said.
    cut_call = any("the tool call" in warning for said in cuts for warning in said)
    assert cut_call or protocol not in CALLS_CUT, cuts


@pytest.mark.parametrize("cut", sorted(CUTS))
def test_every_cut_point_of_a_fault_continued_is_accepted(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator, cut: str
) -> None:
    _every_cut(driver, on_protocol, protocol, emulator, CUTS[cut])


@pytest.mark.parametrize("protocol", ["responses"])  # the Responses API's own fault
def test_every_cut_point_of_a_failed_response_continued_is_accepted(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator
) -> None:
    _every_cut(driver, on_protocol, protocol, emulator, "response-failed; after={at}")


def test_every_point_of_a_cancelled_stream_continued_is_accepted(
    driver: Driver, on_protocol: Any, protocol: str, emulator: Emulator
) -> None:
    model = on_protocol(**REASONS[protocol])
    stopped: list[list[str]] = []
    for after in range(1, 60):
        kept = _cancelled(driver, model, after)
        if kept is not None:
            stopped.append(_continue(driver, model, kept, emulator, protocol))
    assert len(stopped) > 3
    assert any("the tool call" in warning for said in stopped for warning in said), stopped
