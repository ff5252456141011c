"""SSELLM's connection settings (pure): checked by the core, credentials kept out of pickles,
LlamaIndex's names and serialisation. (What both adapters share:
tests/adapters/test_connection.py.)"""

from __future__ import annotations

import copy
import inspect
import pickle

import pytest
from pydantic import SecretStr, ValidationError

from llamaindex_sse import SSELLM
from llamaindex_sse._connection import (
    CONNECTION_FIELDS,
    ConfigCache,
    build_config,
    check_settings,
    drop_secrets,
)
from sse_core import ClientConfig, ConfigurationError, Timeouts


def test_build_config_takes_the_fields_and_masks_every_default_header() -> None:
    config = build_config(
        {
            "base_url": "http://gateway.test/v1/",
            "api_key": "sk-1",
            "default_headers": {"X-Token": "token-value", "SPASS-User-Id": "u1"},
            "timeout": 5,
            "max_retries": None,  # None: the core's default
            "model": "m",  # not a connection setting: ignored
        }
    )
    assert config.url == "http://gateway.test/v1/chat/completions"
    assert config.secret_headers == frozenset({"x-token", "spass-user-id"})
    assert set(config.secrets()) >= {"sk-1", "token-value", "u1"}
    assert config.timeouts == Timeouts.of(5)
    assert config.retry.max_retries == 2


def test_build_config_falls_back_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSE_BASE_URL", "http://env.test/v1")
    monkeypatch.setenv("SSE_API_KEY", "sk-env")
    config = build_config({})
    assert config.base_url == "http://env.test/v1"
    assert config.api_key is not None and config.api_key.get_secret_value() == "sk-env"


def test_check_settings_resolves_what_pydantic_then_stores() -> None:
    data = {"model": "m", "base_url": "http://g.test/v1/", "api_key": " sk-1\n"}
    checked = check_settings({**data, "default_headers": None})
    assert checked["model"] == "m" and checked["base_url"] == "http://g.test/v1"
    assert checked["api_key"] == SecretStr("sk-1")
    assert checked["default_headers"] == {}
    with pytest.raises(ConfigurationError, match="timeout"):
        check_settings({**data, "timeout": 0})


def test_drop_secrets_leaves_the_instance_state_alone() -> None:
    fields = {
        "model": "m",
        "api_key": SecretStr("sk-1"),
        "default_headers": {"X-Token": "t"},
        "base_url": "http://user:pw@g.test/v1?key=k",
    }
    fields["default_query"] = {"sig": "s"}
    state = {"__dict__": fields, "__pydantic_private__": None}
    dropped = drop_secrets(state)
    assert dropped["__dict__"] == {"model": "m", "base_url": "http://g.test/v1"}
    assert dropped["__pydantic_private__"] is None
    assert "api_key" in fields and fields["base_url"].startswith("http://user:pw@")


def test_the_connection_fields_are_ssellm_fields_and_core_settings() -> None:
    keywords = inspect.signature(ClientConfig.build).parameters
    assert [name for name in CONNECTION_FIELDS if name not in keywords] == []
    assert [name for name in CONNECTION_FIELDS if name not in SSELLM.model_fields] == []


def test_copies_and_pickles_of_the_cache_start_empty() -> None:
    cache = ConfigCache()
    fields = {"base_url": "http://gateway.test/v1", "api_key": "sk-cached-secret"}
    config = cache.get(fields)
    assert cache.get(dict(fields)) is config
    assert b"sk-cached-secret" not in pickle.dumps(cache)
    assert pickle.loads(pickle.dumps(cache)).get(fields) is not config
    assert copy.deepcopy(cache).get(fields) is not config


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"api_base": "http://gw.test/v1"}, "'api_base': use base_url"),
        ({"is_chat_model": True}, "'is_chat_model': leave it out"),
        ({"top_p": 0.9}, "'top_p': request parameters (top_p, seed, ...) go in additional_kwargs"),
        ({"temprature": 0.1}, "'temprature': did you mean 'temperature'?"),
        ({"http_async_client": None}, "'http_async_client': use async_http_client"),
        ({"api_version": "2024-10-21"}, "pass default_query={'api-version': ...}"),
    ],
)
def test_an_unknown_argument_is_refused_by_name(given: dict[str, object], said: str) -> None:
    """Pydantic would drop it without a word (and the request go without it)."""
    with pytest.raises(ConfigurationError) as caught:
        SSELLM(model="m", base_url="http://gw.test/v1", **given)
    assert said in str(caught.value)
    # model_validate runs no __init__: pydantic wraps the same message in a ValidationError.
    with pytest.raises((ConfigurationError, ValidationError), match="no such setting"):
        SSELLM.model_validate({"model": "m", "base_url": "http://gw.test/v1", **given})


def test_a_dumped_model_loads_again() -> None:
    """``to_dict``/``from_dict`` and ``to_json``/``from_json`` (LlamaIndex's own serialisation)
    give the same settings; Timeouts are dumped as a dict and taken back as one."""
    llm = SSELLM(
        model="m",
        base_url="http://gw.test/v1",
        timeout=Timeouts(connect=3, total=30),
        max_tokens=64,
        additional_kwargs={"top_p": 0.5},
    )
    again = (SSELLM.from_dict(llm.to_dict()), SSELLM.from_json(llm.to_json()))
    for loaded in (*again, SSELLM(**llm.to_dict())):  # to_dict adds class_name
        assert loaded.timeout == llm.timeout
        assert (loaded.model, loaded.base_url, loaded.max_tokens) == ("m", llm.base_url, 64)
        assert loaded.additional_kwargs == {"top_p": 0.5}


def test_default_query_is_left_out_of_llamaindexs_own_serialisation() -> None:
    """(Sent, joined and hidden from dumps alike: tests/adapters/test_connection.py.)"""
    llm = SSELLM(model="m", base_url="http://gw.test/d", default_query={"sig": "sig-canary-31"})
    assert "sig-canary-31" not in llm.to_json() and "sig" not in llm.to_dict()
    assert pickle.loads(pickle.dumps(llm)).default_query == {}
