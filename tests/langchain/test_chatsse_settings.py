"""ChatSSE's own ways with its settings: a deep copy's own pool, pickles that hold no secret
and take the key from the environment, unknown arguments refused with LangChain's names,
aliases, a dump that validates again.

(Settings both adapters share, checked by the core at construction, the environment
fallbacks, timeouts, injected clients, copies, and no secret in dumps or reprs:
tests/adapters/test_connection.py.)"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

import sse_core
from langchain_sse import ChatSSE, ConfigurationError
from tests.langchain.lc_support import ModelFactory

KEY = "sk-very-secret-key-1234"
HEADER = "hdr-very-secret-5678"


def test_a_deep_copy_gets_its_own_pool_and_still_answers(mock_model: Any) -> None:
    model, recorder = mock_model()
    twin = copy.deepcopy(model)
    assert twin._pool is not model._pool
    assert twin.invoke("x").content == "hi"
    assert len(recorder.requests) == 1  # the injected client was shared, not copied


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


@pytest.mark.parametrize("version", ["bogus", "v2", "responses/v1", ""])
def test_an_output_version_chatsse_does_not_make_is_refused_naming_it(version: str) -> None:
    """langchain-core takes any string and reads an unknown one as v0, in silence."""
    with pytest.raises(ConfigurationError) as refused:
        ChatSSE(model="m", base_url="http://h/v1", output_version=version)
    assert f"output_version must be one of 'v0', 'v1', got {version!r}" in str(refused.value)
    for kept in ("v0", "v1", None):
        assert ChatSSE(model="m", base_url="http://h/v1", output_version=kept).output_version == (
            kept
        )
