"""No setting is dropped in silence: every field of both adapters, on every protocol, either
changes what is sent or is refused at construction by name, with the protocol it does not
apply to. A field that says how the client works (connection, retries, reading) rather than
what is asked is listed with what it does instead, so a new field fails here until it is
placed. The body is what the adapter sent, captured by a recording transport, and each body
is then checked by the strict emulator (every request against the providers' published
request types and the APIs' rules): a field that makes a request the API refuses fails here,
named."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.base.llms.types import ThinkingBlock as LIThinking
from llama_index.core.llms.function_calling import FunctionCallingLLM

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ConfigurationError
from sse_emulator import Emulator
from tests.adapters.conftest import PROTOCOLS

THINK = {"type": "enabled", "budget_tokens": 1024}
CALL = {"id": "call_1", "name": "f", "args": {}}

#: Request fields: the value that is set, and the fields set alongside it in both the
#: request and the one it is compared with (what the field acts on).
LC_REQUEST: dict[str, tuple[Any, dict[str, Any]]] = {
    "model_name": ("other-model", {}),
    "temperature": (0.5, {}),
    "max_tokens": (4321, {}),
    "stop": (["END"], {}),
    "reasoning_effort": ("low", {}),
    "thinking": (THINK, {}),
    "model_kwargs": ({"top_p": 0.97}, {}),
    "extra_body": ({"metadata": {"user_id": "u1"}}, {}),  # a field every API takes
    "disabled_params": ({"temperature": None}, {"temperature": 0.5}),
    "reasoning_passback": (True, {}),
}
LI_REQUEST: dict[str, tuple[Any, dict[str, Any]]] = {
    "model": ("other-model", {}),
    "temperature": (0.5, {}),
    "max_tokens": (4321, {}),
    "stop": (["END"], {}),
    "reasoning_effort": ("low", {}),
    "thinking_dict": (THINK, {}),
    "additional_kwargs": ({"top_p": 0.97}, {}),
    "extra_body": ({"metadata": {"user_id": "u1"}}, {}),
    "reasoning_passback": (True, {}),
}
#: Fields that say how the client works, not what is asked, with what they do instead.
LC_CLIENT = {
    "telemetry": "OpenTelemetry of each call (the client's)",
    "base_url": "where requests go",
    "api_key": "the credential (header)",
    "auth": "how the key is sent (header)",
    "path": "the URL's path",
    "default_query": "the URL's query",
    "default_headers": "headers",
    "protocol": "the wire itself",
    "timeout": "deadlines",
    "max_retries": "retries before the first byte",
    "max_event_bytes": "the reader's bound",
    "max_connections": "the pool's size",
    "http_client": "the sync transport",
    "http_async_client": "the async transport",
    "stream_usage": "asks for usage where the protocol must ask (chat completions' "
    "stream_options); Anthropic reports it unasked",
    "streaming": "invoke streams to callbacks",
    "invoke_streaming": "stream: false for invoke",
    "coalesce": "chunks per network read",
    "response_headers": "headers copied into metadata",
}
LI_CLIENT = {
    **{k: v for k, v in LC_CLIENT.items() if k not in ("http_client", "http_async_client")},
    "include_usage": LC_CLIENT["stream_usage"],
    "context_window": "LlamaIndex's metadata (memory sizing)",
    "is_function_calling_model": "LlamaIndex's metadata (program choice)",
}
for _name in ("http_client", "http_async_client", "stream_usage", "streaming", "coalesce",
              "response_headers"):  # fmt: skip
    LI_CLIENT.pop(_name, None)

#: A short answer in each protocol, for any request.
REPLIES = {
    "chat_completions": b'data: {"choices":[{"index":0,"delta":{"content":"ok"},'
    b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
    "anthropic": b'event: message_start\ndata: {"type":"message_start","message":{"id":"m",'
    b'"model":"c","usage":{"input_tokens":1}}}\n\n'
    b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
    b'"usage":{"output_tokens":1}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    "responses": b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
    b'"output_index":0,"content_index":0,"delta":"ok"}\n\n'
    b'event: response.completed\ndata: {"type":"response.completed","response":{"id":"r",'
    b'"status":"completed","output":[]}}\n\n',
    "gemini": b'data: {"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},'
    b'"finishReason":"STOP","index":0}]}\r\n\r\n',
}
#: A field each API takes, sent by ``extra_body`` (the Gemini API has no ``metadata``).
EXTRA: dict[str, dict[str, Any]] = {
    "gemini": {"safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "OFF"}]},
}


def _capture(protocol: str) -> tuple[list[httpx.Request], httpx.MockTransport]:
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        content = REPLIES[protocol]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    return seen, httpx.MockTransport(reply)


Sent = tuple[str, dict[str, Any]]


def _lc_body(protocol: str, fields: dict[str, Any]) -> Sent:
    seen, transport = _capture(protocol)
    client = httpx.Client(transport=transport)
    settings = {"model_name": "m", **fields}
    model = ChatSSE(base_url="http://gw.test/v1", api_key="k", protocol=protocol, max_retries=0,
                    http_client=client, **settings)  # fmt: skip
    reasoned = AIMessage(content="", additional_kwargs={"reasoning_content": "think"},
                         tool_calls=[CALL])  # fmt: skip
    model.invoke([HumanMessage("hi"), reasoned, ToolMessage("1", tool_call_id="call_1")])
    return str(seen[-1].url), dict(json.loads(seen[-1].content))


def _li_body(protocol: str, fields: dict[str, Any]) -> Sent:
    seen, transport = _capture(protocol)
    client = httpx.Client(transport=transport)
    settings = {"model": "m", **fields}
    llm = SSELLM(base_url="http://gw.test/v1", api_key="k", protocol=protocol, max_retries=0,
                 http_client=client, **settings)  # fmt: skip
    reasoned = ChatMessage(role="assistant", blocks=[LIThinking(content="think")])
    llm.chat([ChatMessage(role="user", content="hi"), reasoned])
    return str(seen[-1].url), dict(json.loads(seen[-1].content))


ADAPTERS: dict[str, tuple[Callable[[str, dict[str, Any]], Sent], Any, Any, Any]] = {
    "ChatSSE": (_lc_body, LC_REQUEST, LC_CLIENT, (ChatSSE, BaseChatModel)),
    "SSELLM": (_li_body, LI_REQUEST, LI_CLIENT, (SSELLM, FunctionCallingLLM)),
}


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_every_field_is_placed(adapter: str) -> None:
    _, request, client, (cls, framework) = ADAPTERS[adapter]
    own = set(cls.model_fields) - set(framework.model_fields)
    assert own == set(request) | set(client)
    assert not set(request) & set(client)


CASES = [(a, p, f) for a in sorted(ADAPTERS) for p in PROTOCOLS for f in sorted(ADAPTERS[a][1])]


#: Where each protocol's body goes on the emulator.
PATHS = {
    "chat_completions": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "responses": "/v1/responses",
    "gemini": "/v1beta/models/",  # then the model and the method, as the URL sent says
}


def _accepted(emulator: Emulator, protocol: str, sent: Sent, field: str) -> None:
    """The strict emulator answers what was sent (the API would take it)."""
    url, body = sent
    path = PATHS[protocol] + (url.split("/models/", 1)[1] if protocol == "gemini" else "")
    headers = {"anthropic-version": "2023-06-01"}
    answer = httpx.post(emulator.url + path, json=body, headers=headers, timeout=10)
    assert answer.status_code == 200, f"{field} on {protocol}: refused: {answer.text}"


@pytest.mark.parametrize(("adapter", "protocol", "field"), CASES)
def test_a_request_field_is_sent_or_refused_by_name(
    adapter: str, protocol: str, field: str, emulator: Emulator
) -> None:
    body_of, request, _, _ = ADAPTERS[adapter]
    value, alongside = request[field]
    if field == "extra_body" and protocol in EXTRA:
        value = EXTRA[protocol]
    baseline = body_of(protocol, alongside)
    _accepted(emulator, protocol, baseline, "the baseline")
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            body = body_of(protocol, {**alongside, field: value})
    except ConfigurationError as exc:
        assert field in str(exc) and repr(protocol) in str(exc), exc
        return
    _accepted(emulator, protocol, body, field)
    if body == baseline:  # not sent (in the URL nor the body): only with a warning naming it
        assert any(str(w.message).startswith(f"{field} is not sent") for w in said), (
            f"{field}={value!r} changed nothing sent on {protocol}"
        )
