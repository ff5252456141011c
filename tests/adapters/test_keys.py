"""Where the key comes from, for both adapters: ``api_key``, then ``SSE_API_KEY``, then the
protocol's own variable (``ANTHROPIC_API_KEY`` on ``protocol="anthropic"``, as ChatAnthropic
and llama-index's Anthropic read it; never on chat completions); and a request refused for
want of a key says that no key was sent, naming where one can come from."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core import AuthenticationError, ConfigurationError
from sse_emulator import Emulator
from tests.adapters.conftest import Driver

ENV_KEY = "sk-ant-from-the-environment-7c1d"
REFUSE = {"X-Emulator-Fault": "unauthorized"}


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("SSE_API_KEY", "ANTHROPIC_API_KEY", "SSE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _model(driver: Driver, emulator: Emulator, protocol: str, **fields: Any) -> Any:
    dialect = "anthropic" if protocol == "anthropic" else "openai"
    base = emulator.base_url(dialect)
    return driver.make(base_url=base, protocol=protocol, max_retries=0, **fields)


def test_anthropic_api_key_is_read_on_the_anthropic_protocol(
    driver: Driver, emulator: Emulator, no_keys: pytest.MonkeyPatch
) -> None:
    no_keys.setenv("ANTHROPIC_API_KEY", ENV_KEY)
    driver.ask(_model(driver, emulator, "anthropic"), "echo: hi")
    record = emulator.last_request
    assert record is not None and record.header("x-api-key") == "***" + ENV_KEY[-4:]
    no_keys.setenv("SSE_API_KEY", "sk-sse-first-0000")  # SSE_API_KEY first
    driver.ask(_model(driver, emulator, "anthropic"), "echo: hi")
    record = emulator.last_request
    assert record is not None and record.header("x-api-key") == "***0000"


def test_anthropic_api_key_is_not_read_on_chat_completions(
    driver: Driver, emulator: Emulator, no_keys: pytest.MonkeyPatch
) -> None:
    no_keys.setenv("ANTHROPIC_API_KEY", ENV_KEY)
    with pytest.warns(UserWarning, match="no API key will be sent: ANTHROPIC_API_KEY is set"):
        driver.ask(_model(driver, emulator, "chat_completions"), "echo: hi")
    record = emulator.last_request
    assert record is not None and record.header("authorization") is None


@pytest.mark.parametrize(
    ("protocol", "names"),
    [("anthropic", "SSE_API_KEY or ANTHROPIC_API_KEY"), ("chat_completions", "SSE_API_KEY")],
)
def test_a_refusal_without_a_key_says_no_key_was_sent(
    driver: Driver, emulator: Emulator, no_keys: pytest.MonkeyPatch, protocol: str, names: str
) -> None:
    model = _model(driver, emulator, protocol, default_headers=REFUSE)
    with pytest.raises(AuthenticationError, match=f"No API key was sent.*set {names}"):
        driver.ask(model, "hi")
    with_key = _model(driver, emulator, protocol, api_key="sk-1", default_headers=REFUSE)
    with pytest.raises(AuthenticationError) as raised:
        driver.ask(with_key, "hi")
    assert "no API key" not in str(raised.value)
    assert "Check the API key and its permissions" in str(raised.value)


@pytest.mark.parametrize(
    ("name", "hint"),
    [("anthropic_api_key", "use api_key"), ("anthropic_api_url", "use base_url")],
)
def test_chatanthropic_names_point_at_ours(driver: Driver, name: str, hint: str) -> None:
    if driver.name == "SSELLM" and name == "anthropic_api_url":
        hint = "request parameters .* go in additional_kwargs"  # not a llama-index name
    with pytest.raises(ConfigurationError, match=f"'{name}': {hint}"):
        driver.make(base_url="http://127.0.0.1:9", protocol="anthropic", **{name: "x"})


SPACED_KEY = "sk-spaced-key-5e2a"


@pytest.mark.parametrize("given", [f"{SPACED_KEY}\n", f"  {SPACED_KEY}\r\n", f"\t{SPACED_KEY} "])
def test_the_model_holds_the_key_it_sends_stripped(
    driver: Driver, emulator: Emulator, no_keys: pytest.MonkeyPatch, given: str
) -> None:
    model = _model(driver, emulator, "anthropic", api_key=given)
    assert model.api_key.get_secret_value() == SPACED_KEY
    driver.ask(model, "echo: hi")
    record = emulator.last_request
    assert record is not None and record.header("x-api-key") == "***" + SPACED_KEY[-4:]
    assert SPACED_KEY not in repr(model) and SPACED_KEY not in str(model)


def test_a_key_read_from_the_environment_is_held_stripped(
    driver: Driver, emulator: Emulator, no_keys: pytest.MonkeyPatch
) -> None:
    no_keys.setenv("SSE_API_KEY", f"{SPACED_KEY}\n")
    model = _model(driver, emulator, "chat_completions")
    if model.api_key is not None:  # a field that reads the environment holds it stripped
        assert model.api_key.get_secret_value() == SPACED_KEY
    driver.ask(model, "echo: hi")
    record = emulator.last_request
    assert record is not None and record.header("authorization") == "Bearer ***" + SPACED_KEY[-4:]


def test_a_key_of_blanks_is_no_key(
    driver: Driver, emulator: Emulator, no_keys: pytest.MonkeyPatch
) -> None:
    assert _model(driver, emulator, "chat_completions", api_key=" \n").api_key is None
