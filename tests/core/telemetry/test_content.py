"""Content capture, trace context and keep-alives on the call's span, against the emulator.

Content is recorded only when ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (or the
Telemetry's ``capture_content``) asks, in each of its spellings, on the span, its event or
both; it is the conventions' message shape whatever the protocol; it is held to the size cap
and never holds the key. The span's trace context goes to the gateway as ``traceparent``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan

from sse_core import ChatClient, IncompleteStreamError
from sse_core.protocols import protocol_names, wire_protocol
from sse_core.protocols.turns import TextPart, ToolResultPart, ToolUsePart, Turn
from sse_core.telemetry import Telemetry, names

from .conftest import Recorded

pytestmark = pytest.mark.timeout(60)

KEY = "sk-content-capture-key-0123456789"
PAYLOAD = {
    "model": "emulator-model",
    "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "echo: hello there"},
    ],
    "max_tokens": 64,
}
CONTENT = (
    names.SYSTEM_INSTRUCTIONS,
    names.INPUT_MESSAGES,
    names.OUTPUT_MESSAGES,
)


def _client(emulator: Any, otel: Recorded, **settings: Any) -> ChatClient:
    telemetry = Telemetry(
        tracer_provider=otel.telemetry.tracer_provider,
        meter_provider=otel.telemetry.meter_provider,
        **settings,
    )
    return ChatClient(base_url=emulator.base_url(), api_key=KEY, telemetry=telemetry)


def _event(span: ReadableSpan) -> dict[str, Any] | None:
    found = [e for e in span.events if e.name == names.CONTENT_EVENT]
    assert len(found) <= 1
    return dict(found[0].attributes or {}) if found else None


@pytest.mark.parametrize(
    ("value", "on_span", "on_event"),
    [
        (None, False, False),
        ("", False, False),
        ("NO_CONTENT", False, False),
        ("false", False, False),
        ("SPAN_ONLY", True, False),
        ("span_only", True, False),
        ("EVENT_ONLY", False, True),
        ("SPAN_AND_EVENT", True, True),
        ("true", True, True),
        ("True", True, True),
    ],
)
def test_content_goes_where_the_environment_variable_says(
    emulator: Any,
    otel: Recorded,
    monkeypatch: pytest.MonkeyPatch,
    value: str | None,
    on_span: bool,
    on_event: bool,
) -> None:
    if value is None:
        monkeypatch.delenv(names.CAPTURE_CONTENT_ENV, raising=False)
    else:
        monkeypatch.setenv(names.CAPTURE_CONTENT_ENV, value)
    with _client(emulator, otel) as client:
        answer = client.complete(PAYLOAD)
    span = otel.span()
    attributes = dict(span.attributes or {})
    event = _event(span)
    for where, wanted in ((attributes, on_span), (event or {}, on_event)):
        assert all((name in where) is wanted for name in CONTENT), (value, sorted(where))
    if not (on_span or on_event):
        assert "hello there" not in span.to_json()
        assert event is None
        return
    found = attributes if on_span else event
    assert found is not None
    assert json.loads(found[names.SYSTEM_INSTRUCTIONS]) == [{"type": "text", "content": "be brief"}]
    assert json.loads(found[names.INPUT_MESSAGES]) == [
        {"role": "user", "parts": [{"type": "text", "content": "echo: hello there"}]}
    ]
    output = json.loads(found[names.OUTPUT_MESSAGES])
    assert output == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": answer.content}],
            "finish_reason": answer.finish_reason,
        }
    ]


def test_the_telemetry_setting_wins_over_the_environment(
    emulator: Any, otel: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(names.CAPTURE_CONTENT_ENV, "SPAN_AND_EVENT")
    with _client(emulator, otel, capture_content=False) as client:
        client.complete(PAYLOAD)
    assert "hello there" not in otel.span().to_json()
    otel.exporter.clear()
    monkeypatch.delenv(names.CAPTURE_CONTENT_ENV)
    with _client(emulator, otel, capture_content="SPAN_ONLY") as client:
        client.complete(PAYLOAD)
    assert names.INPUT_MESSAGES in (otel.span().attributes or {})


def test_an_unknown_value_records_no_content_and_says_so(
    emulator: Any, otel: Recorded, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    monkeypatch.setenv(names.CAPTURE_CONTENT_ENV, "everything")
    with caplog.at_level(logging.WARNING, "sse_core.telemetry"), _client(emulator, otel) as c:
        c.complete(PAYLOAD)
    assert "hello there" not in otel.span().to_json()
    assert "everything" in caplog.text and names.CAPTURE_CONTENT_ENV in caplog.text


def test_wrong_settings_are_refused() -> None:
    from sse_core import ConfigurationError

    with pytest.raises(ConfigurationError, match="capture_content"):
        Telemetry(capture_content="ALL")
    with pytest.raises(ConfigurationError, match="content_limit"):
        Telemetry(content_limit=10)


def test_a_cut_answer_records_what_arrived_and_no_finish(emulator: Any, otel: Recorded) -> None:
    client = _client(emulator, otel, capture_content=True)
    with client, pytest.raises(IncompleteStreamError) as caught:
        client.complete(PAYLOAD, headers={"X-Emulator-Fault": "truncate; after=4"})
    output = json.loads((otel.span().attributes or {})[names.OUTPUT_MESSAGES])
    partial = caught.value.partial
    assert partial is not None and partial.content
    assert output[0]["parts"] == [{"type": "text", "content": partial.content}]
    assert output[0]["finish_reason"] == "error"


def test_content_is_held_to_the_limit_and_never_holds_the_key(
    emulator: Any, otel: Recorded
) -> None:
    history = [{"role": "user", "content": f"turn {n}: " + "words " * 200} for n in range(10)]
    history.append({"role": "user", "content": f"echo: my key is {KEY}"})
    payload = {**PAYLOAD, "messages": history}
    with _client(emulator, otel, capture_content=True, content_limit=600) as client:
        client.complete(payload)
    span = otel.span()
    attributes = dict(span.attributes or {})
    assert KEY not in span.to_json()
    assert attributes[names.SSE_CONTENT_TRUNCATED] is True
    kept = attributes[names.INPUT_MESSAGES]
    assert len(kept) <= 600
    messages = json.loads(kept)  # still JSON: whole messages dropped, the newest kept
    assert messages[-1]["parts"][0]["content"] == "echo: my key is ***"
    assert len(messages) < len(history)


def test_one_huge_message_is_cut_inside_and_stays_json(emulator: Any, otel: Recorded) -> None:
    payload = {**PAYLOAD, "messages": [{"role": "user", "content": "echo: " + "x" * 5000}]}
    with _client(emulator, otel, capture_content=True, content_limit=300) as client:
        client.complete(payload)
    attributes = dict(otel.span().attributes or {})
    for name in (names.INPUT_MESSAGES, names.OUTPUT_MESSAGES):
        assert len(attributes[name]) <= 300
        text = json.loads(attributes[name])[0]["parts"][0]["content"]
        assert text.endswith("…[truncated]")


#: One tool loop, as neutral turns: what each protocol's body must read back as.
TURNS = (
    Turn(role="system", parts=(TextPart(text="use the tools"),)),
    Turn(role="user", parts=(TextPart(text="weather in Paris?"),)),
    Turn(
        role="assistant", parts=(ToolUsePart(id="call_1", name="weather", input={"city": "Paris"}),)
    ),
    Turn(role="tool", parts=(ToolResultPart(call_id="call_1", content="sunny"),)),
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "weather",
            "description": "the weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@pytest.mark.parametrize(
    "protocol", [name for name in protocol_names() if wire_protocol(name).turns_body is not None]
)
def test_every_protocol_reads_its_body_into_the_same_messages(protocol: str) -> None:
    wire = wire_protocol(protocol)
    assert wire.turns_body is not None and wire.prompt is not None
    body = wire.turns_body("m", TURNS, {"tools": TOOLS, "max_tokens": 100})
    prompt = wire.prompt(body)
    assert prompt.system == [{"type": "text", "content": "use the tools"}]
    said = [(m["role"], [p["type"] for p in m["parts"]]) for m in prompt.messages]
    assert said == [
        ("user", ["text"]),
        ("assistant", ["tool_call"]),
        ("tool", ["tool_call_response"]),
    ]
    call = prompt.messages[1]["parts"][0]
    assert (call["name"], call["arguments"]) == ("weather", {"city": "Paris"})
    assert [t["name"] for t in prompt.tools] == ["weather"]
    assert prompt.tools[0]["parameters"]["properties"] == {"city": {"type": "string"}}


def test_chat_completions_reads_its_own_history() -> None:
    body = {
        "messages": [
            {"role": "developer", "content": [{"type": "text", "text": "be kind"}]},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "think",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '{"a":1}'}}],
            },
            {"role": "tool", "tool_call_id": "c", "content": "done"},
        ],
        "tools": TOOLS,
    }
    prompt = wire_protocol("chat_completions").prompt
    assert prompt is not None
    read = prompt(body)
    assert read.system == [{"type": "text", "content": "be kind"}]
    assert [m["parts"] for m in read.messages] == [
        [{"type": "image_url"}],
        [
            {"type": "reasoning", "content": "think"},
            {"type": "tool_call", "name": "f", "id": "c", "arguments": {"a": 1}},
        ],
        [{"type": "tool_call_response", "id": "c", "response": "done"}],
    ]


def test_the_gateway_gets_the_spans_trace_context(emulator: Any, otel: Recorded) -> None:
    with _client(emulator, otel) as client:
        client.complete(PAYLOAD)
        sent = dict(emulator.last_request.headers)
        span = otel.span().get_span_context()
        version, trace_id, parent_id, _ = sent["traceparent"].split("-")
        assert version == "00"
        assert (int(trace_id, 16), int(parent_id, 16)) == (span.trace_id, span.span_id)
        own = "00-" + "1" * 32 + "-" + "2" * 16 + "-01"
        client.complete(PAYLOAD, headers={"Traceparent": own})  # the caller's own stays
        assert dict(emulator.last_request.headers)["traceparent"] == own
    with ChatClient(base_url=emulator.base_url(), api_key=KEY, telemetry=False) as client:
        client.complete(PAYLOAD)
        assert "traceparent" not in dict(emulator.last_request.headers)


def test_keepalives_are_counted(emulator: Any, otel: Recorded) -> None:
    fault = {"X-Emulator-Fault": "keepalive; every=1"}
    with _client(emulator, otel) as client:
        client.complete(PAYLOAD)
        assert names.SSE_KEEPALIVES not in (otel.span().attributes or {})
        otel.exporter.clear()
        client.complete(PAYLOAD, headers=fault)
        sent_body = emulator.last_request.body  # asked again below as the client asked
    counted = (otel.span().attributes or {})[names.SSE_KEEPALIVES]
    body = httpx.post(
        emulator.base_url() + "/chat/completions",
        content=sent_body,
        headers={**fault, "Authorization": "Bearer k", "Content-Type": "application/json"},
        timeout=10,
    ).content
    sent = sum(line.startswith(b":") for line in body.splitlines())
    assert sent >= 2 and counted == sent


def test_geminis_sampling_settings_are_request_attributes(emulator: Any, otel: Recorded) -> None:
    body = {
        "model": "gemini-2.5-flash",
        "contents": [{"role": "user", "parts": [{"text": "echo: hi"}]}],
        "generationConfig": {
            "maxOutputTokens": 50,
            "temperature": 0.2,
            "topP": 0.9,
            "stopSequences": ["END"],
        },
    }
    with ChatClient(
        base_url=emulator.base_url("gemini"),
        api_key="k",
        protocol="gemini",
        telemetry=otel.telemetry,
    ) as client:
        client.complete(body)
    attributes = dict(otel.span().attributes or {})
    assert attributes[names.REQUEST_MODEL] == "gemini-2.5-flash"
    assert attributes[names.REQUEST_MAX_TOKENS] == 50
    assert attributes[names.REQUEST_TEMPERATURE] == 0.2
    assert attributes[names.REQUEST_TOP_P] == 0.9
    assert attributes[names.REQUEST_STOP_SEQUENCES] == ("END",)


@pytest.mark.parametrize(
    ("dialect", "shown"),
    [
        ("openai", ["done", "reasoning"]),  # delta.reasoning, then [DONE]
        ("shroud", ["done", "reasoning_content"]),
        ("aivene", ["done", "reasoning_content"]),
        ("streamchat", []),  # reasoning hidden, no [DONE]: the server closes
        ("spass", ["done"]),  # reasoning hidden
    ],
)
def test_the_dialect_is_what_the_stream_showed(
    emulator: Any, otel: Recorded, dialect: str, shown: list[str]
) -> None:
    think = {**PAYLOAD, "model": "emulator-think"}
    with ChatClient(
        base_url=emulator.base_url(dialect),
        api_key=KEY,
        telemetry=otel.telemetry,
        default_headers={"SPASS-User-Id": "u1"},
    ) as client:
        client.complete(think)
    attributes = dict(otel.span().attributes or {})
    assert list(attributes.get(names.SSE_DIALECT, ())) == shown


def test_think_tags_are_a_dialect_trait(emulator: Any, otel: Recorded) -> None:
    with ChatClient(base_url=emulator.base_url(), api_key=KEY, telemetry=otel.telemetry) as client:
        think = {**PAYLOAD, "model": "emulator-think"}  # its reasoning inline, in <think> tags
        client.complete(think, headers={"X-Emulator-Fault": "think-tags"})
    assert "think_tags" in (otel.span().attributes or {})[names.SSE_DIALECT]


@pytest.mark.parametrize("accelerator", [None, "msgspec"])
@pytest.mark.parametrize("spelling", ["reasoning_content", "reasoning"])
def test_both_decoding_paths_note_the_reasoning_spelling(
    accelerator: str | None, spelling: str
) -> None:
    from sse_core import StreamDecoder

    chunk = {"choices": [{"index": 0, "delta": {spelling: "hm"}, "finish_reason": None}]}
    body = b"data: " + json.dumps(chunk).encode() + b"\n\ndata: \n\n: ping\n\ndata: [DONE]\n\n"
    decoder = StreamDecoder(accelerator=accelerator)
    decoder.feed(body)
    assert decoder.dialect == tuple(sorted(("done", spelling)))
    assert decoder.keepalives == 2  # the empty data line and the comment
