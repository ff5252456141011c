"""ChatSSE's connection settings (:mod:`langchain_sse._connection`): checked by the core at
construction, the env fallbacks, the client pool, copies, and no secret in dumps or pickles."""

from __future__ import annotations

import asyncio
import copy
import pickle
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

import sse_core
from langchain_sse import ChatSSE, ConfigurationError
from tests.langchain.lc_support import ModelFactory, Recorder, chunk, sse_body

KEY = "sk-very-secret-key-1234"
HEADER = "hdr-very-secret-5678"


def _recorded(**fields: Any) -> tuple[ChatSSE, Recorder]:
    """A ChatSSE on a MockTransport that answers "hi" and keeps the requests."""
    recorder = Recorder([sse_body(chunk({"content": "hi"}, finish_reason="stop"))])
    transport = httpx.MockTransport(recorder)
    params: dict[str, Any] = {"model": "m", "base_url": "http://gw.test/v1", **fields}
    model = ChatSSE(**params, http_client=httpx.Client(transport=transport),
                    http_async_client=httpx.AsyncClient(transport=transport))  # fmt: skip
    return model, recorder


def test_environment_fallbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSE_API_KEY", KEY)
    monkeypatch.setenv("SSE_BASE_URL", "http://env.test/v1")
    model = ChatSSE(model="m")
    assert model.base_url == "http://env.test/v1"
    assert isinstance(model.api_key, SecretStr)
    assert model.api_key.get_secret_value() == KEY
    explicit = ChatSSE(model="m", base_url="http://arg.test/v1", api_key="other")
    assert explicit.base_url == "http://arg.test/v1"
    assert explicit.api_key is not None and explicit.api_key.get_secret_value() == "other"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "SSE_BASE_URL"),
        ({"base_url": "ftp://h"}, "http"),
        ({"base_url": "http://h/v1", "path": "chat"}, "path must start"),
    ],
)
def test_bad_endpoints_fail_at_construction(
    monkeypatch: pytest.MonkeyPatch, fields: dict[str, Any], message: str
) -> None:
    monkeypatch.delenv("SSE_BASE_URL", raising=False)
    with pytest.raises(ConfigurationError, match=message):  # the core's own error, unwrapped
        ChatSSE(model="m", **fields)


@pytest.mark.parametrize(
    ("timeout", "expected"),
    [
        (None, sse_core.Timeouts()),
        (7, sse_core.Timeouts(connect=7, first_byte=7, idle=7, data_idle=7)),
        (sse_core.Timeouts(idle=1.5), sse_core.Timeouts(idle=1.5)),
    ],
)
def test_timeouts(timeout: Any, expected: sse_core.Timeouts) -> None:
    model = ChatSSE(model="m", base_url="http://h/v1", timeout=timeout)
    assert model._resolve_config().timeouts == expected


def test_injected_clients_are_used_sync_and_async(mock_model: Any) -> None:
    model, recorder = mock_model()
    assert model.invoke("x").content == "hi"
    assert asyncio.run(model.ainvoke("y")).content == "hi"
    assert [r.url.path for r in recorder.requests] == ["/v1/chat/completions"] * 2
    assert recorder.payload(0)["messages"] == [{"role": "user", "content": "x"}]
    assert recorder.payload(1)["messages"] == [{"role": "user", "content": "y"}]


def test_each_event_loop_gets_its_own_pool(make_model: ModelFactory) -> None:
    model = make_model()
    assert asyncio.run(model.ainvoke("echo: one")).content == "one"
    assert asyncio.run(model.ainvoke("echo: two")).content == "two"  # a fresh loop still works


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"api_key": "sk-bad\x01" + KEY}, "api_key"),
        ({"timeout": -1}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_event_bytes": 0}, "max_event_bytes"),
        ({"default_headers": {"X-Token": "a\nb"}}, "default_headers"),
        ({"base_url": "http://h/v1 x"}, "base_url"),
        ({"base_url": "ftp://h/v1"}, "base_url"),
        ({"api_key": 123}, "api_key"),
        ({"max_retries": "x"}, "max_retries"),
    ],
)
def test_bad_settings_name_the_field_and_show_no_secret(fields: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        ChatSSE(model="m", **{"base_url": "http://h/v1", **fields})
    assert named in str(caught.value)
    assert KEY not in str(caught.value) and KEY not in repr(caught.value.args)


def test_a_key_read_with_its_newline_is_sent_stripped() -> None:
    model, recorder = _recorded(api_key=KEY + "\n")
    assert model.invoke("x").content == "hi"
    assert recorder.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_copy_with_another_url_sends_there_and_the_original_keeps_its_own() -> None:
    model, recorder = _recorded()
    other = model.model_copy(update={"base_url": "http://other.test/v2"})
    other.invoke("x")
    model.invoke("y")
    assert [str(r.url) for r in recorder.requests] == [
        "http://other.test/v2/chat/completions",
        "http://gw.test/v1/chat/completions",
    ]
    model.path = "/c1/chat"  # a changed field takes effect (and is checked) on the next call
    model.invoke("z")
    assert str(recorder.requests[-1].url) == "http://gw.test/v1/c1/chat"
    model.path = "no-slash"
    with pytest.raises(ConfigurationError, match="path must start"):
        model.invoke("z")


def test_a_deep_copy_gets_its_own_pool_and_still_answers() -> None:
    model, recorder = _recorded()
    twin = copy.deepcopy(model)
    assert twin._pool is not model._pool
    assert twin.invoke("x").content == "hi"
    assert len(recorder.requests) == 1  # the injected client was shared, not copied


@pytest.mark.parametrize(
    ("base_url", "key"),
    [("https://user:pw-9731@gw.test/v1?key=q", None), ("https://gw.test/v1?key=q", KEY)],
)
def test_dumps_and_reprs_leave_out_headers_query_and_url_credentials(
    base_url: str, key: str | None
) -> None:
    model = ChatSSE(model="m", base_url=base_url, api_key=key,
                    default_headers={"api-key": HEADER, "X-Team": "team-name"},
                    default_query={"sig": "sig-5150", "api-version": "v-2024"})  # fmt: skip
    dumped = model.model_dump()
    assert "default_headers" not in dumped and "default_query" not in dumped
    assert dumped["base_url"] == "https://gw.test/v1"
    for text in (str(dumped), model.model_dump_json(), repr(model), str(model)):
        for secret in (KEY, HEADER, "team-name", "pw-9731", "key=q", "sig-5150", "v-2024"):
            assert secret not in text, (secret, text)


def test_a_pickled_model_holds_no_secret_and_takes_the_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = ChatSSE(model="m", base_url="https://gw.test/v1?key=q-9731", api_key=KEY,
                    default_headers={"api-key": HEADER, "SPASS-User-Id": "user-42"},
                    default_query={"sig": "sig-5150"}, http_client=httpx.Client())  # fmt: skip
    data = pickle.dumps(model)
    for secret in (KEY, HEADER, "user-42", "q-9731", "sig-5150"):
        assert secret.encode() not in data, secret
    monkeypatch.setenv("SSE_API_KEY", "sk-from-the-environment")
    restored = pickle.loads(data)
    assert restored.model_name == "m"
    assert restored.base_url == "https://gw.test/v1"
    assert restored.default_headers is None and restored.http_client is None
    assert restored.default_query is None
    assert restored.api_key == SecretStr("sk-from-the-environment")
    assert restored._resolve_config().api_key == SecretStr("sk-from-the-environment")
    assert restored._pool is not model._pool


def test_a_pickled_model_answers_once_the_headers_are_given_again(
    make_model: ModelFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSE_API_KEY", raising=False)
    restored = pickle.loads(pickle.dumps(make_model("spass")))
    assert restored.api_key is None
    restored.default_headers = {"SPASS-User-Id": "user-1"}
    assert restored.invoke("echo: back").content == "back"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"openai_api_base": "http://gw.test/v1"}, "'openai_api_base': use base_url"),
        ({"openai_api_key": "sk-canary-0042"}, "'openai_api_key': use api_key"),
        ({"top_p": 0.9}, "'top_p': request parameters (top_p, seed, ...) go in model_kwargs"),
        ({"temprature": 0.1}, "'temprature': did you mean 'temperature'?"),
        ({"openai_api_version": "2024-10-21"}, "pass default_query={'api-version': ...}"),
        ({"openai_proxy": "http://proxy.test:3128"}, "set HTTPS_PROXY"),
    ],
)
def test_an_unknown_argument_is_refused_by_name(given: dict[str, Any], said: str) -> None:
    """Pydantic would drop it without a word (and the request go without it); the value,
    a key perhaps, is never shown."""
    with pytest.raises(ConfigurationError) as caught:
        ChatSSE(model="m", base_url="http://gw.test/v1", **given)
    assert said in str(caught.value)
    assert all(str(value) not in str(caught.value) for value in given.values())


def test_aliases_and_field_names_are_both_taken() -> None:
    by_alias = ChatSSE(model="m", base_url="http://gw.test/v1", stop_sequences=["x"])
    by_name = ChatSSE(model_name="m", base_url="http://gw.test/v1", stop=["x"])
    assert by_alias.model_name == by_name.model_name == "m"
    assert by_alias.stop == by_name.stop == ["x"]


def test_a_dumped_model_validates_again() -> None:
    model = ChatSSE(model="m", base_url="http://gw.test/v1", timeout=sse_core.Timeouts(total=30))
    loaded = ChatSSE.model_validate(model.model_dump())
    assert loaded.timeout == model.timeout
    assert loaded._resolve_config().timeouts == sse_core.Timeouts(total=30)
