"""``ClientConfig`` (``transport/config.py``): every setting checked once, at
construction, with a ConfigurationError that names the field and never shows a secret."""

from __future__ import annotations

import dataclasses
import pickle
import re
from typing import Any

import pytest
from pydantic import SecretStr

from sse_core import ClientConfig, ConfigurationError, RetryPolicy, Timeouts
from sse_core.transport.config import ConfigCache, public_url

URL = "http://gw.test/v1"
CANARY = "sk-canary-0123456789abcdef"


def build(**settings: Any) -> ClientConfig:
    settings.setdefault("base_url", URL)
    settings.setdefault("environ", {})
    return ClientConfig.build(**settings)


def shows(error: BaseException, secret: str) -> bool:
    """Whether ``secret`` appears anywhere a user or a log could see it."""
    texts = [str(error), repr(error), *map(repr, error.args)]
    return any(secret in text for text in texts)


# --- ClientConfig.build: the URL --------------------------------------------------------------


def test_url_missing_everywhere_says_how_to_give_it() -> None:
    with pytest.raises(ConfigurationError, match=r"no gateway URL.*SSE_BASE_URL"):
        ClientConfig.build(environ={})


def test_url_and_key_fall_back_to_the_environment() -> None:
    env = {"SSE_BASE_URL": "http://env.test/v1/", "SSE_API_KEY": " sk-env \n"}
    config = ClientConfig.build(environ=env)
    assert config.base_url == "http://env.test/v1"  # the trailing slash dropped
    assert config.api_key is not None and config.api_key.get_secret_value() == "sk-env"


def test_arguments_win_over_the_environment_and_empty_variables_are_unset() -> None:
    env = {"SSE_BASE_URL": "http://env.test/v1", "SSE_API_KEY": "sk-env"}
    config = ClientConfig.build(base_url=URL, api_key="sk-arg", environ=env)
    assert config.base_url == URL and config.api_key == SecretStr("sk-arg")
    assert ClientConfig.build(base_url=URL, environ={"SSE_API_KEY": ""}).api_key is None
    with pytest.raises(ConfigurationError, match="no gateway URL"):
        ClientConfig.build(environ={"SSE_BASE_URL": ""})


def test_the_process_environment_is_read_when_environ_is_not_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SSE_BASE_URL", "http://proc.test/v1")
    monkeypatch.setenv("SSE_API_KEY", "sk-proc")
    config = ClientConfig.build()
    assert config.base_url == "http://proc.test/v1" and config.api_key == SecretStr("sk-proc")


@pytest.mark.parametrize(
    ("base_url", "words"),
    [
        ("gw.test/v1", "must be an http(s) URL"),
        ("ftp://gw.test/v1", "must be an http(s) URL"),
        (5, "must be an http(s) URL"),
        ("http://[::1/v1", "not a valid URL"),
        ("http://h:99999/v1", "not a valid URL"),
        ("http://h:port/v1", "not a valid URL"),
        ("http:///v1", "has no host"),
        ("http://gw test/v1", "spaces or control characters"),
        ("http://gw.test/v1\n", "spaces or control characters"),
        ("http://gw.test/\x7fv1", "spaces or control characters"),
    ],
)
def test_bad_urls_are_refused_naming_base_url(base_url: object, words: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        build(base_url=base_url)
    assert "base_url" in str(info.value) and words in str(info.value)


def test_a_url_with_a_password_is_not_shown_when_refused() -> None:
    with pytest.raises(ConfigurationError) as info:
        build(base_url=f"ftp://user:{CANARY}@gw.test/v1")
    assert "base_url" in str(info.value)
    assert not shows(info.value, CANARY[:20])


def test_url_and_public_url() -> None:
    config = build(base_url=f"https://user:{CANARY}@gw.test:8443/v1/", path="/c1/chat")
    assert config.public_url == "https://gw.test:8443/v1/c1/chat"
    assert config.url == f"https://user:{CANARY}@gw.test:8443/v1/c1/chat"
    assert CANARY not in config.public_url and "user" not in config.public_url
    assert public_url("http://u:p@[::1]:8080/v1?k=s#x") == "http://[::1]:8080/v1"
    assert public_url("http://h/v1") == "http://h/v1"


@pytest.mark.parametrize(
    ("path", "words"),
    [("chat", "path must start with '/'"), (5, "path must start"), ("/a b", "path must not")],
)
def test_bad_paths_are_refused(path: object, words: str) -> None:
    with pytest.raises(ConfigurationError, match=words):
        build(path=path)


# --- the key and the headers ------------------------------------------------------------------


@pytest.mark.parametrize("key", [f"{CANARY}\n", f"  {CANARY}\t", SecretStr(f"{CANARY}\r\n")])
def test_surrounding_whitespace_is_stripped_from_the_key(key: str | SecretStr) -> None:
    config = build(api_key=key)
    assert config.api_key is not None and config.api_key.get_secret_value() == CANARY


@pytest.mark.parametrize("key", ["", "   ", "\n"])
def test_an_empty_key_is_no_key(key: str) -> None:
    assert build(api_key=key).api_key is None


@pytest.mark.parametrize(
    "key", [f"{CANARY}\x00", f"{CANARY[:8]}\x00{CANARY[8:]}", f"{CANARY}é", f"ключ-{CANARY}"]
)
def test_an_unsendable_key_is_refused_without_showing_it(key: str) -> None:
    with pytest.raises(ConfigurationError, match="api_key holds a character") as info:
        build(api_key=key)
    assert not shows(info.value, CANARY[:12]) and not shows(info.value, CANARY[-12:])


@pytest.mark.parametrize("key", [123, b"sk-bytes", ["sk"]])
def test_a_key_of_the_wrong_type_is_refused(key: object) -> None:
    with pytest.raises(ConfigurationError, match="api_key must be a string or SecretStr"):
        build(api_key=key)


def test_headers_are_checked_and_stripped() -> None:
    config = build(default_headers={"SPASS-User-Id": " u1 "})
    assert dict(config.default_headers) == {"SPASS-User-Id": "u1"}
    assert build(default_headers=None).default_headers == {}


@pytest.mark.parametrize(
    ("headers", "words"),
    [
        ([("a", "b")], "default_headers must be a mapping"),
        ({"bad name": "v"}, "is not a valid header name"),
        ({"": "v"}, "is not a valid header name"),
        ({"x-é": "v"}, "is not a valid header name"),
        ({"x-n": 1}, "must be a string, got int"),
        ({"x-n": "a\nb"}, "cannot be sent in an HTTP header"),
    ],
)
def test_bad_headers_are_refused_naming_the_field(headers: object, words: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        build(default_headers=headers)
    assert "default_headers" in str(info.value) and words in str(info.value)


@pytest.mark.parametrize("name", ["Authorization", "api-key", "X-Api-Key", "Cookie"])
def test_an_unsendable_credential_header_is_not_shown(name: str) -> None:
    with pytest.raises(ConfigurationError, match="not shown") as info:
        build(default_headers={name: f"{CANARY}\x01"})
    assert not shows(info.value, CANARY)


def test_an_unsendable_header_marked_secret_is_not_shown() -> None:
    with pytest.raises(ConfigurationError) as info:
        build(
            default_headers={"X-Tenant-Token": f"{CANARY}\x01"}, secret_headers={"x-tenant-token"}
        )
    assert not shows(info.value, CANARY)


# --- other settings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"max_retries": "2"}, "max_retries must be an integer"),
        ({"max_retries": 2.0}, "max_retries must be an integer"),
        ({"max_retries": -1}, "max_retries must be >= 0"),
        ({"extra_body": [1]}, "extra_body must be a mapping"),
        ({"max_event_bytes": 0}, "max_event_bytes must be a positive integer"),
        ({"max_event_bytes": -5}, "max_event_bytes must be a positive integer"),
        ({"max_event_bytes": 1.5}, "max_event_bytes must be a positive integer"),
        ({"max_event_bytes": True}, "max_event_bytes must be a positive integer"),
        ({"timeout": -3}, "timeout must be a positive number"),
        ({"timeout": 0}, "timeout must be a positive number"),
        ({"timeout": "10"}, "timeout must be a number of seconds"),
        ({"timeout": Timeouts(total=1), "max_event_bytes": 0}, "max_event_bytes"),
    ],
)
def test_other_bad_settings_are_refused_naming_the_field(
    settings: dict[str, Any], words: str
) -> None:
    with pytest.raises(ConfigurationError, match=words):
        build(**settings)


def test_a_configuration_error_is_also_a_value_error() -> None:
    with pytest.raises(ValueError, match="max_event_bytes"):
        build(max_event_bytes=0)


def test_timeout_none_is_the_defaults_and_a_number_every_phase_but_total() -> None:
    assert build().timeouts == Timeouts()
    assert build(timeout=7).timeouts == Timeouts(
        connect=7, first_byte=7, idle=7, data_idle=7, total=None
    )
    given = Timeouts(total=3)
    assert build(timeout=given).timeouts is given


def test_retry_policy_given_or_from_max_retries() -> None:
    assert build(max_retries=5).retry == RetryPolicy(max_retries=5)
    policy = RetryPolicy(max_retries=0, initial_delay=0)
    assert build(retry=policy, max_retries=5).retry is policy


def test_values_are_copied_and_frozen() -> None:
    headers, extra = {"x-a": "1"}, {"seed": 1}
    config = build(default_headers=headers, extra_body=extra, secret_headers=("X-Sec",))
    headers["x-a"], extra["seed"] = "2", 2
    assert config.default_headers == {"x-a": "1"} and config.extra_body == {"seed": 1}
    assert config.secret_headers == frozenset({"x-sec"})
    with pytest.raises(AttributeError):
        config.base_url = "http://other/v1"  # type: ignore[misc]


# --- secrets, repr, pool key ------------------------------------------------------------------


def test_secrets_lists_the_key_secret_headers_and_url_credentials() -> None:
    config = build(
        base_url=f"http://user:{CANARY}pw@gw.test/v1",
        default_headers={"api-key": "AK-1", "X-Sec": "SV-1", "x-plain": "p"},
        secret_headers={"X-Sec"},
    )
    assert sorted(config.secrets()) == sorted(["AK-1", "SV-1", f"{CANARY}pw", "user"])
    assert build(api_key=CANARY).secrets() == [CANARY]


@pytest.mark.parametrize("url", [URL, f"http://user:{CANARY}pw@gw.test/v1"])
def test_repr_shows_no_secret(url: str) -> None:
    config = build(
        base_url=url,
        api_key=CANARY if "@" not in url else None,
        default_headers={"api-key": f"{CANARY}ak", "X-Sec": f"{CANARY}sv"},
        secret_headers={"x-sec"},
        extra_body={"user": f"{CANARY}body"},
        default_query={"key": f"{CANARY}q"},
    )
    assert CANARY not in repr(config) and CANARY not in str(config)


def test_pool_key_is_equal_for_equal_settings_and_holds_no_secret() -> None:
    one = build(api_key=CANARY, default_headers={"api-key": CANARY}, extra_body={"a": [1]})
    two = build(api_key=CANARY, default_headers={"api-key": CANARY}, extra_body={"a": [1]})
    assert one.pool_key() == two.pool_key() and len(one.pool_key()) == 32
    key = one.pool_key()
    for secret in (CANARY.encode(), CANARY[:8].encode(), CANARY[-8:].encode()):
        assert secret not in key and secret not in pickle.dumps(key)


@pytest.mark.parametrize(
    "change",
    [
        {"api_key": "sk-other"},
        {"base_url": "http://gw2.test/v1"},
        {"path": "/c1/chat"},
        {"default_headers": {"x-a": "2"}},
        {"secret_headers": {"x-b"}},
        {"timeout": 3},
        {"max_retries": 0},
        {"include_usage": False},
        {"extra_body": {"seed": 2}},
        {"max_event_bytes": 1024},
    ],
)
def test_pool_key_differs_for_any_different_setting(change: dict[str, Any]) -> None:
    base: dict[str, Any] = {
        "api_key": CANARY,
        "default_headers": {"x-a": "1"},
        "extra_body": {"seed": 1},
    }
    assert build(**base).pool_key() != build(**{**base, **change}).pool_key()


def test_pool_limits_are_a_setting() -> None:
    config = ClientConfig.build(base_url="http://h/v1", max_connections=2500, max_keepalive=10)
    limits = config.limits()
    assert (limits.max_connections, limits.max_keepalive_connections) == (2500, 10)
    default = ClientConfig.build(base_url="http://h/v1").limits()
    assert default.max_connections == 1000  # httpx's own default (100) caps concurrency
    for bad in (0, -1, "10", 1.5):
        with pytest.raises(ConfigurationError, match="max_connections"):
            ClientConfig.build(base_url="http://h/v1", max_connections=bad)  # type: ignore[arg-type]


def test_a_client_opens_as_many_connections_as_configured() -> None:
    from sse_core import ChatClient

    with ChatClient(base_url="http://h/v1", max_connections=3) as client:
        pool = client._http._transport._pool  # type: ignore[attr-defined]
        assert pool._max_connections == 3


def test_the_accelerator_is_a_setting_and_an_environment_variable() -> None:
    assert ClientConfig.build(base_url="http://h/v1").accelerator is None
    chosen = ClientConfig.build(base_url="http://h/v1", accelerator="msgspec")
    assert chosen.accelerator == "msgspec"
    env = {"SSE_CORE_ACCELERATOR": "msgspec"}
    assert ClientConfig.build(base_url="http://h/v1", environ=env).accelerator == "msgspec"
    assert chosen.pool_key() != ClientConfig.build(base_url="http://h/v1").pool_key()
    with pytest.raises(ConfigurationError, match="accelerator must be one of"):
        ClientConfig.build(base_url="http://h/v1", accelerator="rust")


def test_the_pool_key_and_secrets_are_made_once_and_stay_out_of_equality() -> None:
    config = build(api_key=CANARY, default_headers={"api-key": f"{CANARY}ak"})
    key = config.pool_key()
    assert config.pool_key() is key
    assert config.secrets() == config.secrets() == [CANARY, f"{CANARY}ak"]
    assert config.secrets({"Authorization": "Bearer x", "X-Plain": "p"})[-1] == "Bearer x"
    twin = build(api_key=CANARY, default_headers={"api-key": f"{CANARY}ak"})
    assert twin == config
    assert CANARY not in repr(config)
    other = dataclasses.replace(config, api_key=SecretStr("sk-other"))
    assert other.pool_key() != key and other.secrets()[0] == "sk-other"


# --- the request URL: path joined onto base_url's path, the query kept ---------------------


@pytest.mark.parametrize(
    ("base_url", "path", "query", "url"),
    [
        (
            "http://gw/openai/deployments/gpt4o?api-version=2024-10-21",
            "/chat/completions",
            None,
            "http://gw/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21",
        ),
        ("http://gw/v1/?a=1#frag", "/chat/completions", None, "http://gw/v1/chat/completions?a=1"),
        ("http://gw/v1", "/c1/chat?b=2", None, "http://gw/v1/c1/chat?b=2"),
        ("http://gw/v1?a=1", "/c?b=2", {"c": "3"}, "http://gw/v1/c?a=1&b=2&c=3"),
        # default_query's names replace the same names; its values are encoded.
        (
            "http://gw?api-version=1&x=y",
            "/p",
            {"api-version": "2"},
            "http://gw/p?x=y&api-version=2",
        ),
        ("http://gw/v1", "/p", {"k": "a b/c&d"}, "http://gw/v1/p?k=a%20b%2Fc%26d"),
    ],
)
def test_the_path_joins_the_url_path_and_the_query_is_kept(
    base_url: str, path: str, query: dict[str, str] | None, url: str
) -> None:
    config = build(base_url=base_url, path=path, default_query=query)
    assert config.url == url
    assert "?" not in config.public_url and "?" not in repr(config)


def test_query_credentials_are_secrets_and_other_values_are_not() -> None:
    config = build(
        base_url=f"http://gw/v1?api-version=2024&key={CANARY}",
        default_query={"sig": "s%2Fig-value", "route": "eu"},
    )
    secrets = config.secrets()
    assert CANARY in secrets and "s%2Fig-value" in secrets and "s%252Fig-value" in secrets
    assert "2024" not in secrets and "eu" not in secrets


def test_default_query_is_in_the_pool_key() -> None:
    assert build(default_query={"a": "1"}).pool_key() != build(default_query={"a": "2"}).pool_key()
    assert build(default_query={"a": "1"}).pool_key() == build(default_query={"a": "1"}).pool_key()


@pytest.mark.parametrize(
    ("query", "words"),
    [
        (["a=1"], "default_query must be a mapping"),
        ({"": "1"}, "is not a parameter name"),
        ({5: "1"}, "is not a parameter name"),
        ({"key": 5}, "the value of 'key' must be a string, got int"),
    ],
)
def test_a_bad_default_query_is_refused_naming_the_field(query: object, words: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(words)):
        build(default_query=query)


@pytest.mark.parametrize("env", [False, True])
def test_user_info_and_an_api_key_are_refused_together_without_the_values(env: bool) -> None:
    """httpx would send the user info as Basic auth in place of the Bearer key."""
    given = {"environ": {"SSE_API_KEY": CANARY}} if env else {"api_key": CANARY}
    with pytest.raises(ConfigurationError) as caught:
        build(base_url="http://alice:pw-canary-42@gw.test/v1", **given)
    message = str(caught.value)
    assert "base_url" in message and "api_key" in message and "Basic" in message
    assert ("SSE_API_KEY" in message) is env
    assert not shows(caught.value, CANARY) and not shows(caught.value, "pw-canary-42")
    assert not shows(caught.value, "alice")
    # Either alone is fine.
    assert build(base_url="http://alice:pw@gw.test/v1").api_key is None


def test_the_config_cache_reuses_equal_settings_and_sees_in_place_changes() -> None:
    headers = {"X-Tenant": "a"}
    body: dict[str, object] = {"top_k": 5}
    settings = {"base_url": "http://gw.test/v1", "api_key": "sk-x", "default_headers": headers,
                "extra_body": body}  # fmt: skip
    cache = ConfigCache()
    first = cache.get(settings)
    assert cache.get(dict(settings)) is first  # equal settings: no second check
    headers["X-Tenant"] = "b"  # changed in place: the cache holds a copy, and sees it
    second = cache.get(settings)
    assert second is not first and second.default_headers["X-Tenant"] == "b"
    body["top_k"] = 6
    third = cache.get(settings)
    assert third is not second and third.extra_body == {"top_k": 6}
    settings["base_url"] = "http://other.test/v1"
    assert cache.get(settings).base_url == "http://other.test/v1"
