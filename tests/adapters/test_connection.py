"""Connection settings both adapters share: max_connections reaches the client, the core's
configuration is built once until a setting changes (in place too), default_query joins the
URL after the path and is never shown, and user info in base_url with an api_key is refused
naming both and neither value; the environment fallbacks, bad endpoints and settings refused
by name without their values, timeouts, injected clients, a fresh pool per event loop, copies,
and no header, query or URL credential in dumps or reprs. (Each framework's own naming,
dumping and pickling rules: tests/langchain/test_chatsse_settings.py and
tests/llamaindex/test_ssellm_settings.py.)"""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
import warnings
from typing import Any

import httpx
import pytest
from pydantic import SecretStr, ValidationError

from langchain_sse import ChatSSE
from sse_core import ConfigurationError, Timeouts
from tests.adapters.conftest import PROTOCOLS


def test_max_connections_reaches_the_client(driver: Any) -> None:
    model = driver.make(base_url="http://h/v1", max_connections=2500)
    assert driver.config(model).limits().max_connections == 2500
    with pytest.raises(ConfigurationError, match="max_connections"):
        driver.make(base_url="http://h/v1", max_connections=0)


def test_the_config_is_built_once_until_a_setting_changes(driver: Any) -> None:
    model = driver.make(
        base_url="http://gateway.test/v1",
        api_key="sk-1",
        default_headers={"X-Team": "a"},
        extra_body={"top_k": 5},
    )
    first = driver.config(model)
    assert driver.config(model) is first
    assert driver.sync_client(model) is driver.sync_client(model)
    model.default_headers["X-Team"] = "b"  # changed in place
    second = driver.config(model)
    assert second is not first and second.default_headers == {"X-Team": "b"}
    model.extra_body["seed"] = 1
    third = driver.config(model)
    assert third is not second and dict(third.extra_body) == {"top_k": 5, "seed": 1}
    model.max_retries = 0
    assert driver.config(model).retry.max_retries == 0
    model.base_url = "http://other.test/v1"
    assert driver.config(model).url == "http://other.test/v1/chat/completions"
    model.api_key = SecretStr("sk-2")
    assert "sk-2" in driver.config(model).secrets()


def test_default_query_joins_after_the_path_and_is_never_shown(driver: Any) -> None:
    model = driver.make(
        base_url="http://gw.test/d?api-version=1",
        default_query={"api-version": "2", "sig": "sig-canary-31"},
    )
    url = "http://gw.test/d/chat/completions?api-version=2&sig=sig-canary-31"
    assert driver.config(model).url == url
    shown = [repr(model), str(model), model.model_dump_json(), repr(pickle.dumps(model))]
    assert all("sig-canary-31" not in text for text in shown)
    model.default_query = {"api-version": "3"}  # a change reaches the next request
    assert driver.config(model).url == "http://gw.test/d/chat/completions?api-version=3"


def test_user_info_and_an_api_key_are_refused_together_naming_both(driver: Any) -> None:
    """httpx would send the user info as Basic auth in place of the Bearer key, silently."""
    with pytest.raises(ConfigurationError) as caught:
        driver.make(base_url="http://u:pw-canary-77@gw.test/v1", api_key="sk-canary-78")
    message = str(caught.value)
    assert "base_url" in message and "api_key" in message
    assert "pw-canary-77" not in message and "sk-canary-78" not in message


# --- moved from the adapters' own connection tests: what both promise alike -----------------

KEY = "sk-very-secret-key-1234"
HEADER = "hdr-very-secret-5678"


def _recorded(driver: Any, **fields: Any) -> tuple[Any, list[httpx.Request]]:
    """A model on a MockTransport that answers "hi" and keeps the requests."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = 'data: {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": '
        body += '"stop"}]}\n\ndata: [DONE]\n\n'
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    transport = httpx.MockTransport(answer)
    model = driver.make(**{"base_url": "http://gw.test/v1", **fields},
                        http_client=httpx.Client(transport=transport),
                        http_async_client=httpx.AsyncClient(transport=transport))  # fmt: skip
    return model, seen


def test_environment_fallbacks(driver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSE_API_KEY", KEY)
    monkeypatch.setenv("SSE_BASE_URL", "http://env.test/v1")
    model = driver.make()
    assert model.base_url == "http://env.test/v1"
    assert isinstance(model.api_key, SecretStr)
    assert model.api_key.get_secret_value() == KEY
    explicit = driver.make(base_url="http://arg.test/v1", api_key="other")
    assert explicit.base_url == "http://arg.test/v1"
    assert explicit.api_key is not None and explicit.api_key.get_secret_value() == "other"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_without_a_base_url_the_error_shows_one_of_the_protocols_shape(
    driver: Any, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    """The example URL works for the protocol: Anthropic's clients take the root (the
    protocol's path carries /v1), OpenAI's the version prefix."""
    monkeypatch.delenv("SSE_BASE_URL", raising=False)
    with pytest.raises(ConfigurationError) as refused:
        driver.make(protocol=protocol)
    example = str(refused.value).split("base_url='", 1)[1].split("'", 1)[0]
    model = driver.make(protocol=protocol, base_url=example)
    expected = {"anthropic": "http://host/v1/messages", "responses": "http://host/v1/responses",
                "chat_completions": "http://host/v1/chat/completions",
                "gemini": "http://host/v1/models"}  # fmt: skip
    assert driver.config(model).url == expected[protocol]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_key_variable_of_another_client_set_but_not_read_is_said(
    driver: Any, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    """OPENAI_API_KEY is never read (a key meant for OpenAI never goes to another gateway);
    set with no key given, the user is told none will be sent."""
    monkeypatch.delenv("SSE_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-not-read-3b9e")
    with pytest.warns(UserWarning, match="no API key will be sent: OPENAI_API_KEY is set") as said:
        model = driver.make(protocol=protocol, base_url="http://h/v1")
        assert driver.config(model).api_key is None
    assert "sk-openai-not-read-3b9e" not in str(said[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a key given, or a credential header: nothing to say
        driver.make(protocol=protocol, base_url="http://h/v1", api_key="k")
        driver.make(protocol=protocol, base_url="http://h/v1", default_headers={"api-key": "k"})


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "SSE_BASE_URL"),
        ({"base_url": "ftp://h"}, "http"),
        ({"base_url": "http://h/v1", "path": "chat"}, "path must start"),
    ],
)
def test_bad_endpoints_fail_at_construction(
    driver: Any, monkeypatch: pytest.MonkeyPatch, fields: dict[str, Any], message: str
) -> None:
    monkeypatch.delenv("SSE_BASE_URL", raising=False)
    with pytest.raises(ConfigurationError, match=message) as caught:  # the core's, unwrapped
        driver.make(**fields)
    assert "base_url" in str(caught.value) or "path" in str(caught.value)
    assert not isinstance(caught.value, ValidationError)


@pytest.mark.parametrize(
    ("timeout", "expected"),
    [
        (None, Timeouts()),
        (7, Timeouts(connect=7, first_byte=7, idle=7, data_idle=7)),
        (Timeouts(idle=1.5), Timeouts(idle=1.5)),
        ({"connect": 5, "idle": 10}, Timeouts(connect=5, idle=10)),
    ],
)
def test_timeouts(driver: Any, timeout: Any, expected: Timeouts) -> None:
    model = driver.make(base_url="http://h/v1", timeout=timeout)
    assert driver.config(model).timeouts == expected


@pytest.mark.parametrize("phase", ["read", "write", "pool", "rread"])
def test_a_mapping_with_a_phase_of_another_client_is_refused_naming_it(
    driver: Any, phase: str
) -> None:
    """httpx's phases (a migrant's ``{"connect": 5, "read": 10}``) are not dropped in silence:
    refused by name, with ours to use instead, by both adapters alike."""
    with pytest.raises(ConfigurationError) as refused:
        driver.make(base_url="http://h/v1", timeout={"connect": 5, phase: 10})
    assert f"'{phase}'" in str(refused.value)
    said = {"read": "idle", "write": "first_byte", "pool": "connect", "rread": "phases are"}
    assert said[phase] in str(refused.value)


def test_the_hint_for_langchains_stream_chunk_timeout_runs() -> None:
    """ChatAnthropic's ``stream_chunk_timeout`` points at a Timeouts that can be written."""
    with pytest.raises(ConfigurationError) as refused:
        ChatSSE(model="m", base_url="http://h/v1", stream_chunk_timeout=3)
    hint = str(refused.value).split("use timeout=", 1)[1].split(",", 1)[0]
    value = eval(hint.replace("...", "3"), {"sse_core": __import__("sse_core")})
    assert ChatSSE(model="m", base_url="http://h/v1", timeout=value).timeout == Timeouts(idle=3)


def test_injected_clients_are_used_sync_and_async(driver: Any) -> None:
    model, seen = _recorded(driver)
    assert driver.ask(model, "x") == "hi"
    assert asyncio.run(driver.aask(model, "y")) == "hi"
    assert [r.url.path for r in seen] == ["/v1/chat/completions"] * 2
    assert [json.loads(r.content)["messages"] for r in seen] == [
        [{"role": "user", "content": "x"}],
        [{"role": "user", "content": "y"}],
    ]


def test_each_event_loop_gets_its_own_pool(driver: Any, on_emulator: Any) -> None:
    model = on_emulator()
    assert asyncio.run(driver.aask(model, "echo: one")) == "one"
    assert asyncio.run(driver.aask(model, "echo: two")) == "two"  # a fresh loop still works


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"api_key": "sk-bad\x01" + KEY}, "api_key"),
        ({"api_key": "sk-\x00bad"}, "api_key"),
        ({"api_key": 123}, "api_key"),
        ({"timeout": -1}, "timeout"),
        ({"timeout": "soon"}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_retries": "x"}, "max_retries"),
        ({"max_event_bytes": 0}, "max_event_bytes"),
        ({"default_headers": {"X-Token": "a\nb"}}, "default_headers"),
        ({"default_headers": ["X-Token"]}, "default_headers"),
        ({"base_url": "http://h/v1 x"}, "base_url"),
        ({"base_url": "ftp://h/v1"}, "base_url"),
        ({"base_url": "gateway.test/v1"}, "base_url"),
        ({"base_url": "http://[::1/v1"}, "base_url"),
        ({"path": "chat"}, "path"),
    ],
)
def test_bad_settings_name_the_field_and_show_no_secret(
    driver: Any, fields: dict[str, Any], named: str
) -> None:
    """The core's own error, not pydantic's ValidationError, whatever the value's type."""
    with pytest.raises(ConfigurationError) as caught:
        driver.make(**{"base_url": "http://h/v1", **fields})
    assert not isinstance(caught.value, ValidationError)
    assert named in str(caught.value)
    assert KEY not in str(caught.value) and KEY not in repr(caught.value.args)


def test_a_key_read_with_its_newline_is_sent_stripped(driver: Any) -> None:
    """(SSELLM also stores it stripped, ChatSSE as given:
    tests/llamaindex/test_ssellm_component.py.)"""
    model, seen = _recorded(driver, api_key=KEY + "\n")
    assert driver.ask(model, "x") == "hi"
    assert seen[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_copy_with_another_url_sends_there_and_the_original_keeps_its_own(driver: Any) -> None:
    model, seen = _recorded(driver)
    other = model.model_copy(update={"base_url": "http://other.test/v2"})
    driver.ask(other, "x")
    driver.ask(model, "y")
    assert [str(r.url) for r in seen] == [
        "http://other.test/v2/chat/completions",
        "http://gw.test/v1/chat/completions",
    ]
    model.path = "/c1/chat"  # a changed field takes effect (and is checked) on the next call
    driver.ask(model, "z")
    assert str(seen[-1].url) == "http://gw.test/v1/c1/chat"
    model.path = "no-slash"
    with pytest.raises(ConfigurationError, match="path must start"):
        driver.ask(model, "z")


def test_a_deep_copy_still_answers_on_the_shared_injected_client(driver: Any) -> None:
    model, seen = _recorded(driver)
    twin = copy.deepcopy(model)
    assert driver.ask(twin, "x") == "hi"
    assert len(seen) == 1  # the injected client was shared, not copied


@pytest.mark.parametrize(
    ("base_url", "key"),
    [("https://user:pw-9731@gw.test/v1?key=q", None), ("https://gw.test/v1?key=q", KEY)],
)
def test_dumps_and_reprs_leave_out_headers_query_and_url_credentials(
    driver: Any, base_url: str, key: str | None
) -> None:
    model = driver.make(base_url=base_url, api_key=key,
                        default_headers={"api-key": HEADER, "X-Team": "team-name"},
                        default_query={"sig": "sig-5150", "api-version": "v-2024"})  # fmt: skip
    dumped = model.model_dump()
    assert "default_headers" not in dumped and "default_query" not in dumped
    assert dumped["base_url"] == "https://gw.test/v1"
    for text in (str(dumped), model.model_dump_json(), repr(model), str(model)):
        for secret in (KEY, HEADER, "team-name", "pw-9731", "key=q", "sig-5150", "v-2024"):
            assert secret not in text, (secret, text)


def test_chatopenais_include_response_headers_points_at_a_setting_that_takes_its_value() -> None:
    with pytest.raises(ConfigurationError) as refused:
        ChatSSE(model="m", base_url="http://h/v1", include_response_headers=True)
    hint = str(refused.value)
    assert "use response_headers=('x-request-id', ...)" in hint
    model = ChatSSE(model="m", base_url="http://h/v1", response_headers=("x-request-id", "via"))
    assert model.response_headers == ("x-request-id", "via")
