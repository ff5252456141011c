"""Moving from ChatAnthropic: ``model`` reads the model's name, and ``max_tokens`` shows what
is sent (the protocol's default filled in at construction), while a call's own thinking still
gets the default its budget needs."""

from __future__ import annotations

import json

import httpx

from langchain_sse import ChatSSE

REPLY = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c",'
    b'"usage":{"input_tokens":1}}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)


def _model(**fields: object) -> tuple[ChatSSE, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=REPLY)

    client = httpx.Client(transport=httpx.MockTransport(reply))
    model = ChatSSE(model="claude-x", base_url="http://gw.test", api_key="k", http_client=client,
                    max_retries=0, **fields)  # type: ignore[arg-type]  # fmt: skip
    return model, seen


def test_model_reads_the_models_name() -> None:
    model, _ = _model()
    assert model.model == model.model_name == "claude-x"


def test_max_tokens_shows_what_the_anthropic_protocol_sends() -> None:
    model, seen = _model(protocol="anthropic", thinking={"type": "enabled", "budget_tokens": 2048})
    assert model.max_tokens == 1024 + 2048
    model.invoke("hi")
    assert json.loads(seen[-1].content)["max_tokens"] == model.max_tokens
    plain, _ = _model(protocol="anthropic")
    assert plain.max_tokens == 1024


def test_a_calls_own_thinking_gets_the_default_its_budget_needs() -> None:
    model, seen = _model(protocol="anthropic")
    model.invoke("hi", thinking={"type": "enabled", "budget_tokens": 4096})
    assert json.loads(seen[-1].content)["max_tokens"] == 1024 + 4096


def test_max_tokens_given_or_changed_is_sent_as_given() -> None:
    model, seen = _model(protocol="anthropic", max_tokens=300)
    assert model.max_tokens == 300
    model.invoke("hi")
    assert json.loads(seen[-1].content)["max_tokens"] == 300
    model.max_tokens = 500
    model.invoke("hi")
    assert json.loads(seen[-1].content)["max_tokens"] == 500


def test_chat_completions_shows_no_max_tokens() -> None:
    model, _ = _model()
    assert model.max_tokens is None
