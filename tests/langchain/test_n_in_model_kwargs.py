"""ChatSSE asks for one choice per request: ``n`` other than 1, wherever it is set
(model_kwargs, extra_body, a call keyword argument), is the core's ConfigurationError naming
it, before any request (sse_core._choices, checked where every request body is built). The
call keyword on every path: tests/adapters/test_choices.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from langchain_sse import ChatSSE
from sse_core import ConfigurationError
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)


async def _astream(model: ChatSSE, **kwargs: Any) -> list[Any]:
    return [chunk async for chunk in model.astream("hi", **kwargs)]


@pytest.mark.parametrize(
    ("fields", "call", "where"),
    [
        ({"model_kwargs": {"n": 2}}, {}, "the request payload (ChatSSE: model_kwargs"),
        ({"extra_body": {"n": 2}}, {}, "extra_body"),
        ({}, {"extra_body": {"n": 2}}, "the request payload"),
    ],
)
def test_n_is_refused_before_any_request(
    fields: dict[str, Any], call: dict[str, Any], where: str, emulator: Emulator
) -> None:
    model = ChatSSE(model="m", base_url=emulator.base_url(), max_retries=0, **fields)
    for attempt in (
        lambda: model.invoke("hi", **call),
        lambda: list(model.stream("hi", **call)),
        lambda: asyncio.run(model.ainvoke("hi", **call)),
        lambda: asyncio.run(_astream(model, **call)),
    ):
        with pytest.raises(ConfigurationError) as info:
            attempt()
        assert f"n=2 in {where}" in str(info.value)
        assert "one choice per request" in str(info.value)
    assert emulator.requests == []


def test_n_of_one_goes_through(emulator: Emulator) -> None:
    model = ChatSSE(model="m", base_url=emulator.base_url(), model_kwargs={"n": 1})
    assert model.invoke("hi").content
    assert json.loads(emulator.requests[-1].body)["n"] == 1
