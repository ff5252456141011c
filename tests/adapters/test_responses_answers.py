"""Both adapters' answers on ``protocol="responses"`` against the emulator's Responses dialect,
read the four ways, each checked against the events the emulator sent (read again off the
wire: the same request gives the same bytes): the text with usage from the terminal event
(input, cached, output and reasoning tokens), reasoning summaries and raw ``reasoning_text``
streamed as reasoning, the reasoning item kept byte-exact and sent back unchanged on the next
turn of a stateless tool loop, function calls (parallel, arguments only in ``.done``,
interleaved argument deltas, item ids changing per event, the final output empty or
reordered), a web search kept as gateway events with its citations, deltas that lost a token
(a stream shows the deltas, a whole answer is the final text, and ``response.output_mismatch``
keeps both),
structured output, and the request (``store``, ``include``, ``max_output_tokens``,
``instructions``, a stored conversation continued by ``previous_response_id``). How the
stream ends (cut, failed, incomplete, held open, broken): test_responses_endings.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from llama_index.core.prompts import PromptTemplate
from pydantic import BaseModel

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core.pipeline.responses_items import MISMATCH
from sse_emulator import Emulator
from tests.adapters.answers import Answer, Usage
from tests.adapters.conftest import HOWS, Driver

pytestmark = pytest.mark.timeout(60)

#: Reasoning with its summary shown, as the API takes it.
SUMMARY = {"reasoning": {"effort": "high", "summary": "auto"}}
TWO_TOOLS = "What is the weather in Paris and the time in UTC?"


@pytest.fixture
def protocol() -> str:
    """Every test here speaks the Responses API (``on_protocol`` reads this)."""
    return "responses"


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


def get_time(zone: str) -> str:
    """Get the time in a time zone."""
    return f"noon in {zone}"


def wire(emulator: Emulator, *, faulted: bool = True) -> list[dict[str, Any]]:
    """The events (data payloads, in order) the emulator sends for the last request, read
    again off the wire with the same fault header (``faulted``) or none."""
    record = emulator.last_request
    assert record is not None and record.status == 200, record
    headers = {"content-type": "application/json"}
    fault = record.header("x-emulator-fault")
    if fault and faulted:
        headers["X-Emulator-Fault"] = fault
    body = httpx.post(emulator.url + record.path, content=record.body, headers=headers,
                      timeout=10).text  # fmt: skip
    events = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
        if data and data != "[DONE]":
            events.append(json.loads(data))
    return events


def text_of(events: list[dict[str, Any]]) -> str:
    """The text the ``output_text.delta`` events carry."""
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


def done_items(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The items of type ``kind`` as their ``output_item.done`` events gave them."""
    items = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    return [item for item in items if item["type"] == kind]


def asyncio_run(coroutine: Any) -> Any:
    """The coroutine's result, run to its end (bounded)."""
    return asyncio.run(asyncio.wait_for(coroutine, 30))


def mismatches(answer: Answer) -> list[Any]:
    """The data of the ``response.output_mismatch`` events the answer carries."""
    return [data for name, data in answer.gateway_events if name == MISMATCH]


HISTORY = [
    {"role": "system", "text": "Be terse."},
    "hello there, how are you today?",
    {"role": "assistant", "text": "Fine, thanks for asking."},
    "count to 9",
]


@pytest.mark.parametrize("how", HOWS)
def test_a_text_answer_with_usage_from_the_terminal_event(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    answer = driver.answer(on_protocol(model_kwargs=SUMMARY), how, HISTORY)
    events = wire(emulator)
    terminal = events[-1]
    assert terminal["type"] == "response.completed"
    response = terminal["response"]
    usage = response["usage"]
    assert answer.text == text_of(events) == "1 2 3 4 5 6 7 8 9"
    assert answer.usage == Usage(
        prompt=usage["input_tokens"],
        completion=usage["output_tokens"],
        total=usage["total_tokens"],
        cached=usage["input_tokens_details"]["cached_tokens"],
        reasoning=usage["output_tokens_details"]["reasoning_tokens"],
    )
    assert answer.usage.cached and answer.usage.reasoning  # the history is cached; it reasoned
    assert (answer.finish_reason, answer.stop_reason) == ("stop", "completed")
    assert (answer.id, answer.model) == (response["id"], response["model"])
    assert answer.tool_calls == [] and mismatches(answer) == []
    if how.endswith("stream"):
        assert answer.deltas == answer.text


@pytest.mark.parametrize("how", HOWS)
def test_a_reasoning_summary_streams_as_reasoning_and_its_item_is_kept_whole(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    answer = driver.answer(on_protocol(model_kwargs=SUMMARY), how, "echo: the answer")
    events = wire(emulator)
    (item,) = done_items(events, "reasoning")
    (summary,) = [e["text"] for e in events if e["type"] == "response.reasoning_summary_text.done"]
    assert item["encrypted_content"].startswith("gAAAAA") and summary
    assert (answer.text, answer.reasoning) == ("the answer", summary)
    assert answer.reasoning_blocks == [item]
    if how.endswith("stream"):
        assert (answer.deltas, answer.thought) == ("the answer", summary)


@pytest.mark.parametrize("how", HOWS)
def test_raw_reasoning_text_streams_as_reasoning(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    # No summary asked: the reasoning is only the raw reasoning_text part (gpt-oss on vLLM).
    model = on_protocol("reasoning-text", model_kwargs={"reasoning": {"effort": "high"}})
    answer = driver.answer(model, how, "echo: the answer")
    events = wire(emulator)
    (raw,) = [e["text"] for e in events if e["type"] == "response.reasoning_text.done"]
    (item,) = done_items(events, "reasoning")
    assert item["summary"] == [] and item["content"] == [{"type": "reasoning_text", "text": raw}]
    assert (answer.text, answer.reasoning) == ("the answer", raw)
    assert answer.reasoning_blocks == [item]
    if how.endswith("stream"):
        assert answer.thought == raw


@pytest.mark.parametrize("how", HOWS)
def test_the_reasoning_item_goes_back_unchanged_in_a_stateless_tool_loop(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    model = on_protocol(model_kwargs=SUMMARY)
    first = driver.answer(model, how, "weather in Paris", [get_weather])
    sent_first = emulator.last_request
    assert sent_first is not None
    (item,) = done_items(wire(emulator), "reasoning")
    assert first.reasoning_blocks == [item]
    ((call_id, name, args),) = first.tool_calls
    tool_turn = {"role": "tool", "id": call_id, "text": "sunny"}
    second = driver.answer(model, how, ["weather in Paris", first.native, tool_turn],
                           [get_weather])  # fmt: skip
    record = emulator.last_request
    # The emulator checks the item's encrypted_content against its reasoning (R15): a 200 says
    # it came back as sent.
    assert record is not None and record.status == 200
    body = record.json()
    for sent in (sent_first.json(), body):
        assert (sent["store"], sent["include"]) == (False, ["reasoning.encrypted_content"])
    assert body["input"][1] == item
    assert [(i["type"], i.get("call_id")) for i in body["input"][2:]] == [
        ("function_call", call_id),
        ("function_call_output", call_id),
    ]
    assert (name, args) == ("get_weather", {"city": "Paris"})
    assert second.text == "Based on the tool results: get_weather returned sunny."


#: Gateway variants of the wire that must not change a call or a token.
VARIANTS = [None, "no-argument-deltas", "interleaved-arguments", "item-id-per-event",
            "interleaved-arguments, item-id-per-event", "output-reordered",
            "output-empty"]  # fmt: skip


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("fault", VARIANTS)
def test_parallel_calls_keep_their_ids_names_and_arguments(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str, fault: str | None
) -> None:
    model = on_protocol(fault, model_kwargs=SUMMARY)
    answer = driver.answer(model, how, TWO_TOOLS, [get_weather, get_time], parallel=True)
    events = wire(emulator)
    calls = done_items(events, "function_call")
    deltas = [e for e in events if e["type"] == "response.function_call_arguments.delta"]
    if fault == "no-argument-deltas":  # the arguments are only in .done
        assert deltas == []
    if fault and fault.startswith("interleaved-arguments"):  # the calls' deltas take turns
        order = [e["output_index"] for e in deltas]
        assert order[:2] == [order[0], order[0] + 1] and order[2] == order[0]
    assert answer.tool_calls == [
        (call["call_id"], call["name"], json.loads(call["arguments"])) for call in calls
    ]
    assert [(name, args) for _, name, args in answer.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {"zone": "UTC"}),
    ]
    assert (answer.finish_reason, answer.stop_reason) == ("tool_calls", "completed")
    assert answer.reasoning and answer.cut_calls == []
    assert mismatches(answer) == []


def _shown(answer: Answer) -> tuple[Any, ...]:
    """What an answer shows that no gateway variant may change."""
    return (answer.text, answer.reasoning, answer.tool_calls, answer.usage, answer.finish_reason,
            answer.stop_reason, answer.id)  # fmt: skip


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize(
    "fault", ["output-empty", "output-reordered", "item-id-per-event", "done-marker", "data-only"]
)
def test_gateway_variants_of_a_text_answer_give_the_clean_answer(
    driver: Driver, on_protocol: Any, how: str, fault: str
) -> None:
    prompt = "echo: grüße from the other side"
    clean = driver.answer(on_protocol(model_kwargs=SUMMARY), "ask", prompt)
    varied = driver.answer(on_protocol(fault, model_kwargs=SUMMARY), how, prompt)
    assert _shown(varied) == _shown(clean)
    assert varied.text == "grüße from the other side" and varied.reasoning
    assert mismatches(varied) == []


@pytest.mark.parametrize("how", HOWS)
def test_deltas_that_lost_a_token_stream_as_sent_and_a_whole_answer_is_the_final_text(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    answer = driver.answer(on_protocol("lost-delta"), how, "echo: one two three four")
    events = wire(emulator)
    (final,) = [e["text"] for e in events if e["type"] == "response.output_text.done"]
    assert (text_of(events), final) == ("one three four", "one two three four")
    # A stream shows the deltas (it cannot take them back); a whole answer is the final text.
    assert answer.text == ("one three four" if how.endswith("stream") else final)
    kept = mismatches(answer)
    assert kept and {(data["streamed"], data["final"]) for data in kept} == {
        ("one three four", "one two three four")
    }
    if how.endswith("stream"):
        assert answer.deltas == "one three four"


@pytest.mark.parametrize("how", HOWS)
def test_a_web_search_is_gateway_events_with_its_citations(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    answer = driver.answer(on_protocol("web-search"), how, "echo: hi there", [get_weather])
    events = wire(emulator)
    (search,) = done_items(events, "web_search_call")
    added = "response.output_text.annotation.added"
    cited = [e["annotation"] for e in events if e["type"] == added]
    assert cited and cited[0]["type"] == "url_citation"
    assert (answer.text, answer.tool_calls, answer.citations) == ("hi there", [], cited)
    assert answer.finish_reason == "stop"
    names = [name for name, _ in answer.gateway_events]
    assert {"response.web_search_call.searching", "response.web_search_call.completed"} <= set(
        names
    )
    done = [data for name, data in answer.gateway_events if name == "response.output_item.done"]
    assert [data["item"] for data in done] == [search]


@pytest.mark.parametrize("how", HOWS)
def test_a_web_search_beside_a_function_call_is_never_a_call(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    answer = driver.answer(on_protocol("web-search"), how, "weather in Paris", [get_weather])
    events = wire(emulator)
    assert done_items(events, "web_search_call")
    ((call_id, name, args),) = answer.tool_calls
    (call,) = done_items(events, "function_call")
    assert (call_id, name, args) == (call["call_id"], "get_weather", {"city": "Paris"})
    assert answer.finish_reason == "tool_calls"


class Person(BaseModel):
    """A person."""

    name: str
    age: int


@pytest.mark.parametrize("how", ["ask", "aask", "stream"])
def test_chatsse_json_schema_goes_as_text_format_and_is_parsed(
    emulator: Emulator, how: str
) -> None:
    model = ChatSSE(model="emulator", base_url=emulator.base_url("responses"), api_key="k",
                    protocol="responses", max_retries=0)  # fmt: skip
    structured = model.with_structured_output(Person, method="json_schema")
    prompt = "Alice is 30 years old."
    if how == "ask":
        person = structured.invoke(prompt)
    elif how == "aask":
        person = asyncio_run(structured.ainvoke(prompt))
    else:
        person = list(structured.stream(prompt))[-1]
    assert person == Person(name="Alice", age=30)
    record = emulator.last_request
    assert record is not None and record.status == 200
    body = record.json()
    fmt = body["text"]["format"]
    assert (fmt["type"], fmt["name"]) == ("json_schema", "Person")
    assert set(fmt["schema"]["properties"]) == {"name", "age"}
    assert "tools" not in body and "tool_choice" not in body


@pytest.mark.parametrize("sync", [True, False])
def test_ssellm_structured_predict_works(emulator: Emulator, sync: bool) -> None:
    llm = SSELLM(model="emulator", base_url=emulator.base_url("responses"), api_key="k",
                 protocol="responses", max_retries=0)  # fmt: skip
    prompt = PromptTemplate("{who} is 30 years old.")
    if sync:
        person = llm.structured_predict(Person, prompt, who="Alice")
    else:
        person = asyncio_run(llm.astructured_predict(Person, prompt, who="Alice"))
    assert person == Person(name="Alice", age=30)
    record = emulator.last_request
    assert record is not None and record.status == 200
    assert record.json()["input"][0]["content"][0]["text"] == "Alice is 30 years old."


@pytest.mark.parametrize("how", ["ask", "astream"])
def test_the_request_is_stateless_by_default(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    prompt = [{"role": "system", "text": "Be terse."}, "echo: hi"]
    driver.answer(on_protocol(max_tokens=100), how, prompt)
    record = emulator.last_request
    assert record is not None and record.status == 200
    body = record.json()
    assert (body["store"], body["max_output_tokens"], body["instructions"]) == (
        False,
        100,
        "Be terse.",
    )
    assert "include" not in body and "max_tokens" not in body and "reasoning" not in body
    driver.answer(on_protocol(reasoning_effort="high"), how, "echo: hi")
    record = emulator.last_request
    assert record is not None and record.status == 200
    body = record.json()
    assert (body["store"], body["reasoning"]["effort"], body["include"]) == (
        False,
        "high",
        ["reasoning.encrypted_content"],
    )


@pytest.mark.parametrize("how", HOWS)
def test_previous_response_id_continues_a_stored_conversation(
    driver: Driver, on_protocol: Any, emulator: Emulator, how: str
) -> None:
    first = driver.answer(on_protocol(model_kwargs={"store": True}), how, "weather in Paris",
                          [get_weather])  # fmt: skip
    ((call_id, _, _),) = first.tool_calls
    model = on_protocol(model_kwargs={"store": True, "previous_response_id": first.id})
    tool_turn = {"role": "tool", "id": call_id, "text": "Rain"}
    second = driver.answer(model, how, [tool_turn], [get_weather])
    record = emulator.last_request
    assert record is not None and record.status == 200
    body = record.json()
    assert (body["previous_response_id"], body["store"]) == (first.id, True)
    assert body["input"] == [{"type": "function_call_output", "call_id": call_id, "output": "Rain"}]
    # The call and the question came from the stored response, counted as cached input.
    assert second.text == "Based on the tool results: get_weather returned Rain."
    assert second.usage is not None and second.usage.cached


def test_an_answer_not_stored_cannot_be_continued(
    driver: Driver, on_protocol: Any, emulator: Emulator
) -> None:
    first = driver.answer(on_protocol(), "ask", "echo: private")
    assert first.id
    model = on_protocol(model_kwargs={"previous_response_id": first.id})
    with pytest.raises(driver.error("BadRequestError")) as caught:
        driver.answer(model, "ask", "and then?")
    assert f"Previous response with id '{first.id}' not found." in str(caught.value)
