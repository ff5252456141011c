"""SSELLM as a LlamaIndex component: construction, metadata, secrets, requests (MockTransport).

(Settings both adapters check alike, the environment fallbacks, bad settings refused by name
as the core's ConfigurationError, a key's trailing newline: tests/adapters/test_connection.py;
the request's headers and usage: tests/adapters/test_request.py.)
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import httpx
import pytest
from llama_index.core.callbacks import CallbackManager, LlamaDebugHandler
from llama_index.core.llms import ChatMessage
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.tools import FunctionTool
from pydantic import ValidationError

from llamaindex_sse import SSELLM
from sse_core import Timeouts
from tests.llamaindex.li_support import API_KEY, chunk, collect_events, frame, sse_transport

BODY = [frame(chunk({"content": "Hi"})), frame(chunk({}, "stop")), b"data: [DONE]\n\n"]


def make(seen: list[httpx.Request] | None = None, **fields: object) -> SSELLM:
    params: dict[str, object] = {
        "model": "m",
        "base_url": "http://gateway.test/v1",
        "api_key": API_KEY,
        "http_client": httpx.Client(transport=sse_transport(BODY, seen)),
    }
    params.update(fields)
    return SSELLM(**params)  # type: ignore[arg-type]


def sent(request: httpx.Request) -> dict[str, object]:
    body: dict[str, object] = json.loads(request.content)
    return body


def test_it_is_a_function_calling_llm_with_metadata() -> None:
    llm = make(max_tokens=256, context_window=32_000)
    assert isinstance(llm, FunctionCallingLLM)
    assert SSELLM.class_name() == "SSELLM"
    meta = llm.metadata
    assert (meta.context_window, meta.num_output, meta.model_name) == (32_000, 256, "m")
    assert meta.is_chat_model and meta.is_function_calling_model
    assert make().metadata.num_output == -1


def test_credentials_are_never_serialized_or_shown() -> None:
    llm = make(default_headers={"X-Api-Token": "header-secret"})
    assert llm.api_key is not None and llm.api_key.get_secret_value() == API_KEY
    for text in (repr(llm), str(llm), json.dumps(llm.to_dict(), default=str), llm.to_json()):
        assert API_KEY not in text and "header-secret" not in text
    assert "api_key" not in llm.to_dict() and "default_headers" not in llm.to_dict()
    # What llm_chat_callback serializes: to_payload from llama-index-core 0.14.23, to_dict before.
    payload = llm.to_payload() if hasattr(llm, "to_payload") else llm.to_dict()
    assert API_KEY not in json.dumps(payload, default=str)


def test_credentials_stay_out_of_instrumentation_and_callbacks() -> None:
    debug = LlamaDebugHandler()
    llm = make(callback_manager=CallbackManager([debug]))
    with collect_events() as seen:
        llm.chat([ChatMessage(role="user", content="hi")])
    dumped = json.dumps([event.model_dump() for event in seen.events], default=str)
    assert API_KEY not in dumped
    assert API_KEY not in repr(debug.get_llm_inputs_outputs())


def test_model_validate_checks_the_settings_too() -> None:
    with pytest.raises(ValidationError, match="base_url"):
        SSELLM.model_validate({"model": "m", "base_url": "gateway.test/v1"})


def test_default_headers_may_be_none() -> None:
    seen: list[httpx.Request] = []
    llm = make(seen, default_headers=None)
    assert llm.default_headers == {}
    llm.chat([ChatMessage(role="user", content="hi")])
    assert seen[0].headers["authorization"] == f"Bearer {API_KEY}"


def test_a_key_with_a_trailing_newline_is_stored_stripped() -> None:
    llm = make(api_key=API_KEY + "\n")
    assert llm.api_key is not None and llm.api_key.get_secret_value() == API_KEY


def test_a_pickle_holds_no_credentials_and_the_copy_works(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    llm = make(default_headers={"X-Gateway-Token": "header-secret-value"}, temperature=0.3)
    data = pickle.dumps(llm)
    assert API_KEY.encode() not in data and b"header-secret-value" not in data
    assert llm.api_key is not None and llm.default_headers  # the original keeps them
    monkeypatch.setenv("SSE_API_KEY", "sk-from-env-after-unpickling")
    copy = pickle.loads(data)
    assert (copy.model, copy.base_url, copy.temperature) == ("m", llm.base_url, 0.3)
    assert copy.default_headers == {}
    assert copy.api_key is not None
    assert copy.api_key.get_secret_value() == "sk-from-env-after-unpickling"


def test_the_url_is_shown_without_user_info_or_query() -> None:
    seen: list[httpx.Request] = []
    url = "http://user:pw-canary@gateway.test/v1?key=q-canary"
    llm = make(seen, base_url=url, api_key=None)  # user info and api_key: refused together
    shown = [repr(llm), str(llm), llm.model_dump_json(), llm.to_json(), repr(pickle.dumps(llm))]
    assert all("pw-canary" not in text and "q-canary" not in text for text in shown)
    assert llm.model_dump()["base_url"] == "http://gateway.test/v1"
    llm.chat([ChatMessage(role="user", content="hi")])
    assert seen[0].url.host == "gateway.test" and "q-canary" in str(seen[0].url)  # still sent


def test_reasoning_effort_is_sent_only_when_set() -> None:
    seen: list[httpx.Request] = []
    make(seen, reasoning_effort="high").chat([ChatMessage(role="user", content="hi")])
    make(seen).chat([ChatMessage(role="user", content="hi")])
    assert sent(seen[0])["reasoning_effort"] == "high"
    assert "reasoning_effort" not in sent(seen[1])


def test_the_default_context_window_fits_modern_gateways() -> None:
    assert make().metadata.context_window == 128_000
    assert "128000" in (SSELLM.model_fields["context_window"].description or "")


def test_timeout_accepts_a_number_or_timeouts() -> None:
    assert make(timeout=5).timeout == 5
    custom = Timeouts(connect=1.0, first_byte=2.0, idle=3.0, total=4.0)
    assert make(timeout=custom).timeout == custom


def test_the_request_carries_every_knob() -> None:
    seen: list[httpx.Request] = []
    llm = make(
        seen,
        temperature=0.2,
        max_tokens=50,
        stop=["END"],
        additional_kwargs={"top_p": 0.9},
        extra_body={"chat_template_kwargs": {"enable_thinking": True}},
        default_headers={"SPASS-User-Id": "u1"},
        path="/c1/chat",
    )
    llm.chat([ChatMessage(role="user", content="hi")], seed=7, extra_headers={"X-Trace": "t1"})
    (request,) = seen
    assert str(request.url) == "http://gateway.test/v1/c1/chat"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert (request.headers["spass-user-id"], request.headers["x-trace"]) == ("u1", "t1")
    assert sent(request) == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.2,
        "max_tokens": 50,
        "stop": ["END"],
        "top_p": 0.9,
        "seed": 7,
        "chat_template_kwargs": {"enable_thinking": True},
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_prepare_chat_with_tools() -> None:
    llm = make()
    tool = FunctionTool.from_defaults(add)
    history = [ChatMessage(role="system", content="s")]
    kwargs = llm._prepare_chat_with_tools(
        [tool], user_msg="add 1 and 2", chat_history=history, tool_required=True
    )
    assert [m.content for m in kwargs["messages"]] == ["s", "add 1 and 2"]
    assert len(history) == 1  # the caller's history is not changed
    assert kwargs["tool_choice"] == "required"
    assert kwargs["parallel_tool_calls"] is False
    assert kwargs["tools"][0]["function"]["name"] == "add"
    named = llm._prepare_chat_with_tools([tool], tool_choice="add", allow_parallel_tool_calls=True)
    assert named["tool_choice"] == {"type": "function", "function": {"name": "add"}}
    assert named["parallel_tool_calls"] is True
    assert "tools" not in llm._prepare_chat_with_tools([], user_msg="hi")


def test_tool_request_reaches_the_wire() -> None:
    seen: list[httpx.Request] = []
    llm = make(seen)
    llm.chat_with_tools([FunctionTool.from_defaults(add)], user_msg="add", tool_required=True)
    body = sent(seen[0])
    assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    assert body["tools"][0]["function"]["name"] == "add"  # type: ignore[index]


def test_get_tool_calls_raises_only_when_asked_to() -> None:
    response = make().chat([ChatMessage(role="user", content="hi")])
    assert make().get_tool_calls_from_response(response, error_on_no_tool_call=False) == []
    with pytest.raises(ValueError, match="tool call"):
        make().get_tool_calls_from_response(response)


def test_importing_the_packages_does_not_import_llama_index() -> None:
    code = (
        "import sys, sse_core, llamaindex_sse\n"
        "assert not any(m.startswith('llama_index') for m in sys.modules), 'eager import'\n"
        "from llamaindex_sse import SSELLM, SSEGatewayEvent\n"
        "assert 'llama_index.core' in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_messages_given_as_dicts_reach_the_wire() -> None:
    seen: list[httpx.Request] = []
    llm = make(seen)
    llm.chat([{"role": "user", "content": "hi"}])  # type: ignore[list-item]
    assert sent(seen[0])["messages"] == [{"role": "user", "content": "hi"}]
