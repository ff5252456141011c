"""LangChain's call options are honoured, and none of them reaches the request body.

``stream(..., stream_usage=False)`` used to send ``"stream_usage": false`` to the gateway
and still ask for usage. Each option the base class or ChatOpenAI takes is passed to
``invoke``, ``ainvoke``, ``stream`` and ``astream`` against the emulator, which records
the request: the body must hold exactly the expected fields, and the option must do what
it says (usage asked or not, the run's tags and name, the call's headers and timeout).
"""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage

from langchain_sse import StreamTimeoutError
from sse_emulator import Emulator
from tests.langchain.lc_support import ModelFactory

HOWS = ("invoke", "ainvoke", "stream", "astream")
USAGE = {"include_usage": True}
MESSAGES = [{"role": "user", "content": "echo: options"}]


class Starts(BaseCallbackHandler):
    """What ``on_chat_model_start`` was told."""

    def __init__(self) -> None:
        self.starts: list[dict[str, Any]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.starts.append(kwargs)


async def call(model: Any, how: str, **kwargs: Any) -> AIMessage:
    """One call; a stream's chunks merged into the answer."""
    prompt = "echo: options"
    if how == "invoke":
        return model.invoke(prompt, **kwargs)  # type: ignore[no-any-return]
    if how == "ainvoke":
        return await model.ainvoke(prompt, **kwargs)  # type: ignore[no-any-return]
    if how == "stream":
        chunks = list(model.stream(prompt, **kwargs))
    else:
        chunks = [chunk async for chunk in model.astream(prompt, **kwargs)]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    return AIMessage(content=merged.content, usage_metadata=merged.usage_metadata)


def body(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None
    found: dict[str, Any] = record.json()
    return found


def expected(**fields: Any) -> dict[str, Any]:
    """The body of the call: model, messages, stream, then ``fields`` (None: left out)."""
    out: dict[str, Any] = {"model": "emulator", "messages": MESSAGES, "stream": True,
                           "stream_options": USAGE}  # fmt: skip
    out.update(fields)
    return {key: value for key, value in out.items() if value is not None}


@pytest.mark.parametrize("how", HOWS)
async def test_stream_usage_false_asks_for_no_usage_and_is_not_sent(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    answer = await call(make_model(), how, stream_usage=False)
    assert body(emulator) == expected(stream_options=None)
    assert answer.usage_metadata is None
    answer = await call(make_model(), how)  # the model's own setting is left as it was
    assert body(emulator) == expected()
    assert answer.usage_metadata is not None


@pytest.mark.parametrize("how", HOWS)
async def test_stream_usage_true_asks_for_usage_on_a_model_that_does_not(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    answer = await call(make_model(stream_usage=False), how, stream_usage=True)
    assert body(emulator) == expected()
    assert answer.usage_metadata is not None and answer.usage_metadata["total_tokens"] > 0


@pytest.mark.parametrize("where", ["call", "model_kwargs"])
@pytest.mark.parametrize("how", HOWS)
async def test_stream_options_without_usage_are_sent_as_given(
    make_model: ModelFactory, emulator: Emulator, how: str, where: str
) -> None:
    options = {"stream_options": {"include_usage": False}}
    if where == "call":
        answer = await call(make_model(), how, **options)
    else:
        answer = await call(make_model(model_kwargs=options), how)
    assert body(emulator) == expected(stream_options={"include_usage": False})
    assert answer.usage_metadata is None


@pytest.mark.parametrize("how", HOWS)
async def test_run_options_given_as_kwargs_go_to_the_run(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    handler = Starts()
    run_id = UUID("01234567-89ab-7def-8123-456789abcdef")
    options = {"callbacks": [handler], "tags": ["opt-tag"], "metadata": {"opt": 1},
               "run_name": "opt-run", "run_id": run_id, "configurable": {"x": 1},
               "recursion_limit": 5, "max_concurrency": 2}  # fmt: skip
    answer = await call(make_model(), how, **options)
    assert answer.content == "options"
    assert body(emulator) == expected()
    (start,) = handler.starts
    assert start["run_id"] == run_id and start["name"] == "opt-run"
    assert "opt-tag" in start["tags"] and start["metadata"]["opt"] == 1


@pytest.mark.parametrize("how", HOWS)
async def test_extra_body_is_merged_over_the_models(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    model = make_model(extra_body={"seed": 1, "top_k": 5})
    await call(model, how, extra_body={"seed": 2, "min_p": 0.1})
    assert body(emulator) == expected(seed=2, top_k=5, min_p=0.1)
    await call(model, how)
    assert body(emulator) == expected(seed=1, top_k=5)


@pytest.mark.parametrize("how", HOWS)
async def test_extra_headers_are_sent_as_headers(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    await call(make_model(), how, extra_headers={"X-Call-Route": "fast"})
    assert body(emulator) == expected()
    assert emulator.last_request.header("x-call-route") == "fast"  # type: ignore[union-attr]


@pytest.mark.parametrize("how", HOWS)
async def test_strict_goes_on_the_bound_tools(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    await call(make_model(), how, tools=[tool], strict=True)
    sent = body(emulator)
    assert "strict" not in sent
    function = {"strict": True, "name": "f", "parameters": {"type": "object"}}
    assert sent["tools"] == [{"type": "function", "function": function}]
    assert tool["function"] == {"name": "f", "parameters": {"type": "object"}}  # not changed


@pytest.mark.parametrize("how", HOWS)
async def test_a_call_timeout_bounds_the_call_and_is_not_sent(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    model = make_model(default_headers={"X-Emulator-Fault": "stall; after=2; seconds=20"})
    began = time.monotonic()
    with pytest.raises(StreamTimeoutError):
        await call(model, how, timeout=0.5)
    assert time.monotonic() - began < 5
    assert "timeout" not in body(emulator)


@pytest.mark.parametrize("how", HOWS)
async def test_langchains_own_keys_are_not_sent(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    fmt = {"schema": {"title": "t", "type": "object"}, "kwargs": {"method": "json_mode"}}
    await call(make_model(), how, ls_structured_output_format=fmt, stream=True)
    assert body(emulator) == expected()


@pytest.mark.parametrize("how", HOWS)
async def test_extra_query_goes_in_the_url_over_the_models_query(
    make_model: ModelFactory, emulator: Emulator, how: str
) -> None:
    model = make_model(default_query={"api-version": "1", "keep": "k"})
    await call(model, how, extra_query={"api-version": "2", "trace": "on"})
    assert body(emulator) == expected()
    record = emulator.last_request
    assert record is not None
    assert sorted(record.query.split("&")) == ["api-version=2", "keep=k", "trace=on"]
    await call(model, how)
    assert sorted(emulator.last_request.query.split("&")) == ["api-version=1", "keep=k"]  # type: ignore[union-attr]


@pytest.mark.parametrize("how", HOWS)
async def test_an_extra_query_of_other_values_is_refused_by_name(
    make_model: ModelFactory, how: str
) -> None:
    with pytest.raises(ValueError, match="extra_query"):
        await call(make_model(), how, extra_query={"q": 1})


def test_a_bound_stream_usage_is_honoured(make_model: ModelFactory, emulator: Emulator) -> None:
    model: Any = make_model().bind(stream_usage=False)
    chunks = list(model.stream("echo: options"))
    assert body(emulator) == expected(stream_options=None)
    assert all(chunk.usage_metadata is None for chunk in chunks)
