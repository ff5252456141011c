"""LangChain's cache keys a ChatSSE answer by everything that shapes its request, no secret.

The issue's case first: a plain model, one with thinking switched on in ``extra_body`` and
one with ``reasoning_effort="high"`` in ``model_kwargs`` share one cache; each must get its
own answer (the thinking ones with reasoning), through ``invoke``, ``ainvoke``, a streamed
invoke and a ``stream`` that falls back to invoke. ChatOpenAI, the anchor, keys the three
apart too. Then the key is checked field by field: it changes with each setting or call
kwarg that changes the request, stays equal for equal configurations (hits still happen),
and holds no key, header value, user info or query value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from langchain_sse import ChatSSE
from langchain_sse._custom_events import link_config
from sse_emulator import Emulator
from tests.langchain.lc_support import ModelFactory

THINKING = {"chat_template_kwargs": {"enable_thinking": True}}
HOWS = ("invoke", "ainvoke", "streaming invoke", "stream without streaming")


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


async def ask(model: ChatSSE, how: str, prompt: str) -> AIMessage:
    if how == "ainvoke":
        return await model.ainvoke(prompt)
    if how == "stream without streaming":
        (chunk,) = list(model.stream(prompt))
        return AIMessage(**chunk.model_dump(exclude={"type", "tool_call_chunks", "chunk_position"}))
    return model.invoke(prompt)


@pytest.mark.parametrize("how", HOWS)
async def test_the_issue_three_models_each_get_their_own_answer(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    cache = InMemoryCache()
    fields: dict[str, Any] = {"cache": cache}
    if how == "streaming invoke":
        fields["streaming"] = True
    if how == "stream without streaming":
        fields["disable_streaming"] = True
    models = {
        "plain": make_model(**fields),
        "extra_body": make_model(extra_body=THINKING, **fields),
        "model_kwargs": make_model(model_kwargs={"reasoning_effort": "high"}, **fields),
    }
    first = {name: await ask(model, how, "echo: cached") for name, model in models.items()}
    assert len(emulator.requests) == 3  # no model got another's cached answer
    assert "reasoning_content" not in first["plain"].additional_kwargs
    for name in ("extra_body", "model_kwargs"):
        assert first[name].additional_kwargs["reasoning_content"]
    again = {name: await ask(model, how, "echo: cached") for name, model in models.items()}
    assert len(emulator.requests) == 3  # each answer is a cache hit now
    for name, message in again.items():
        assert message.content == first[name].content == "cached"
        assert message.additional_kwargs == first[name].additional_kwargs


def test_chatopenai_keys_the_three_models_apart_too() -> None:
    def key(**fields: Any) -> str:
        model = ChatOpenAI(model="m", base_url="http://gw.test/v1", api_key="k", **fields)  # type: ignore[arg-type]
        return model._get_llm_string()

    with pytest.warns(UserWarning, match="reasoning_effort"):  # ChatOpenAI has it as a field
        effort = key(model_kwargs={"reasoning_effort": "high"})
    keys = {key(), key(extra_body=THINKING), effort}
    assert len(keys) == 3


BASE: dict[str, Any] = {"model": "m", "base_url": "http://gw.test/v1", "api_key": "sk-1"}

#: One setting changed at a time: each changes the request, so each must change the key.
FIELD_CHANGES: dict[str, dict[str, Any]] = {
    "base_url host": {"base_url": "http://other.test/v1"},
    "base_url prefix": {"base_url": "http://gw.test/v2"},
    "base_url query": {"base_url": "http://gw.test/v1?deployment=b"},
    "path": {"path": "/c1/chat"},
    "model": {"model": "m2"},
    "temperature": {"temperature": 0.5},
    "max_tokens": {"max_tokens": 9},
    "stop": {"stop": ["END"]},
    "reasoning_effort": {"reasoning_effort": "low"},
    "model_kwargs": {"model_kwargs": {"top_p": 0.5}},
    "model_kwargs value": {"model_kwargs": {"top_p": 0.9}},
    "extra_body": {"extra_body": THINKING},
    "extra_body value": {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}},
    "a header": {"default_headers": {"X-Route": "fast"}},
    "default_query": {"default_query": {"api-version": "1"}},
    "default_query value": {"default_query": {"api-version": "2"}},
    "stream_usage": {"stream_usage": False},
    "output_version": {"output_version": "v1"},
    "reasoning_passback": {"reasoning_passback": True},
}

TOOL = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {}}}
#: One call kwarg at a time (as bound tools and structured output pass them).
CALL_CHANGES: dict[str, dict[str, Any]] = {
    "tools": {"tools": [TOOL]},
    "tool_choice": {"tools": [TOOL], "tool_choice": "required"},
    "parallel_tool_calls": {"tools": [TOOL], "parallel_tool_calls": False},
    "response_format": {"response_format": {"type": "json_object"}},
    "strict": {"tools": [TOOL], "strict": True},
    "a body field": {"seed": 7},
    "extra_body": {"extra_body": {"chat_template_kwargs": {"enable_thinking": True}}},
    "extra_headers": {"extra_headers": {"X-Route": "fast"}},
    "extra_query": {"extra_query": {"api-version": "3"}},
    "stream_usage": {"stream_usage": False},
    "stream_options": {"stream_options": {"include_usage": False}},
    "model": {"model": "m2"},
}


def key_of(chat: ChatSSE, stop: list[str] | None = None, **kwargs: Any) -> str:
    return chat._get_llm_string(stop=stop, **kwargs)


@pytest.mark.parametrize("change", sorted(FIELD_CHANGES))
def test_each_setting_that_shapes_the_request_changes_the_key(change: str) -> None:
    assert key_of(ChatSSE(**BASE)) != key_of(ChatSSE(**{**BASE, **FIELD_CHANGES[change]}))


@pytest.mark.parametrize("change", sorted(CALL_CHANGES))
def test_each_call_kwarg_that_shapes_the_request_changes_the_key(change: str) -> None:
    model = ChatSSE(**BASE)
    base_kwargs: dict[str, Any] = {"tools": [TOOL]} if "tools" in CALL_CHANGES[change] else {}
    if change == "tools":
        base_kwargs = {}
    assert key_of(model, **base_kwargs) != key_of(model, **CALL_CHANGES[change])


def test_disabled_params_key_the_request_actually_sent() -> None:
    disabled = ChatSSE(**BASE, temperature=0.5, disabled_params={"temperature": None})
    assert key_of(disabled) == key_of(ChatSSE(**BASE))  # the same request
    assert key_of(disabled) != key_of(ChatSSE(**BASE, temperature=0.5))


def test_a_stop_call_option_changes_the_key() -> None:
    model = ChatSSE(**BASE)
    assert key_of(model) != key_of(model, stop=["END"])


def test_bound_tools_change_the_key_and_the_same_tools_share_it(make_model: ModelFactory) -> None:
    model = make_model()
    first = model.bind_tools([get_weather], tool_choice="any").kwargs  # type: ignore[attr-defined]
    again = model.bind_tools([get_weather], tool_choice="any").kwargs  # type: ignore[attr-defined]
    other = model.bind_tools([get_weather]).kwargs  # type: ignore[attr-defined]
    assert key_of(model, **first) == key_of(model, **again)
    assert len({key_of(model), key_of(model, **first), key_of(model, **other)}) == 3


def test_equal_configurations_share_a_key() -> None:
    fields = {**BASE, "temperature": 0.2, "model_kwargs": {"top_p": 0.5, "seed": 1},
              "extra_body": THINKING, "default_headers": {"X-Route": "fast"}}  # fmt: skip
    one, two = ChatSSE(**fields), ChatSSE(**{**fields, "model_kwargs": {"seed": 1, "top_p": 0.5}})
    kwargs: dict[str, Any] = {"tools": [TOOL], "tool_choice": "auto"}
    assert key_of(one, **kwargs) == key_of(two, **dict(reversed(kwargs.items())))
    _, linked = link_config(None, kwargs)  # the run link differs per call: never in the key
    assert key_of(one, **linked) == key_of(one, **kwargs)
    assert key_of(one) == key_of(ChatSSE(**{**fields, "api_key": "sk-other"}))


def test_tenants_differing_by_a_header_value_never_share_a_key() -> None:
    def of(headers: dict[str, str]) -> str:
        return key_of(ChatSSE(**{**BASE, "default_headers": headers}))

    assert of({"X-Tenant": "a"}) != of({"X-Tenant": "b"})
    assert of({"X-Tenant": "a"}) == of({"x-tenant": "a"})  # header names are case-blind
    # One deployment under two keys gives the same answers: credentials are keyed by name.
    assert of({"api-key": "k-one-1234"}) == of({"api-key": "k-two-5678"})
    assert of({"Authorization": "Bearer a1"}) == of({"Authorization": "Bearer b2"})


def test_run_options_and_the_stream_flag_are_not_in_the_key() -> None:
    model = ChatSSE(**BASE)
    assert key_of(model) == key_of(model, tags=["t"], metadata={"m": 1}, run_name="r")
    assert key_of(model) == key_of(model, stream=True)


KEY = "sk-canary-5e1f0a7c3b9d2468"
HEADER_VALUE = "hv-canary-8d7c6b5a4f3e2d1c"
ROUTE_VALUE = "route-canary-1357924680"
CALL_HEADER_VALUE = "ch-canary-2468013579"
PASSWORD = "pw-canary-0f9e8d7c"
QUERY_VALUE = "qv-canary-a1b2c3d4"
BODY_SECRET = "body-canary-99aa88bb"
CANARIES = (KEY, HEADER_VALUE, ROUTE_VALUE, CALL_HEADER_VALUE, PASSWORD, QUERY_VALUE,
            BODY_SECRET)  # fmt: skip


def test_no_secret_is_in_the_key() -> None:
    model = ChatSSE(
        model="m",
        base_url=f"https://gw.test/v1?key={QUERY_VALUE}",
        api_key=SecretStr(KEY),
        default_headers={"api-key": HEADER_VALUE, "X-Route": ROUTE_VALUE},
        default_query={"sig": QUERY_VALUE},
        extra_body={"token": BODY_SECRET},
        model_kwargs={"user_token": BODY_SECRET},
    )
    key = key_of(model, extra_headers={"X-Tenant-Secret": CALL_HEADER_VALUE}, tools=[TOOL],
                 extra_query={"code": QUERY_VALUE})  # fmt: skip
    basic = ChatSSE(model="m", base_url=f"https://user:{PASSWORD}@gw.test/v1")  # Basic auth
    for canary in CANARIES:
        assert canary not in key, canary
        assert canary not in key_of(basic), canary
    found = json.loads(key)
    headers = found["headers"]
    assert sorted(headers) == ["api-key", "x-route", "x-tenant-secret"]
    assert headers["api-key"] == headers["x-tenant-secret"] == ""  # credentials by name only
    assert headers["x-route"].startswith("sha256:")  # a route by its value's digest
    assert found["url"] == "https://gw.test/v1/chat/completions"
    assert set(found["query"]) == {"key", "sig", "code"}
    assert {"token", "user_token", "tools"} <= set(found["body"])
