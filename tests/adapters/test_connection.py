"""Connection settings both adapters share: max_connections reaches the client, the core's
configuration is built once until a setting changes (in place too), default_query joins the
URL after the path and is never shown, and user info in base_url with an api_key is refused
naming both and neither value. (Each framework's own naming, dumping and environment rules:
tests/langchain/test_connection.py and tests/llamaindex/test_connection.py.)"""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from pydantic import SecretStr

from sse_core import ConfigurationError


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
