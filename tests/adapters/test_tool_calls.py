"""A tool offered the framework's way reaches the wire as an OpenAI function tool, and the
tool calls of the answer come back with their names and parsed arguments, parallel calls
kept apart, sync and async, on every dialect. (How each framework's tools, tool choices and
tool messages map: tests/langchain/test_bind_tools.py and
tests/llamaindex/test_tools_and_selections.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from sse_emulator import Emulator
from tests.adapters.conftest import Driver

ALL_DIALECTS = ("openai", "shroud", "streamchat", "spass", "gateway", "aivene")


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
async def test_tool_calls_come_back_named_with_their_arguments(
    driver: Driver, on_emulator: Any, emulator: Emulator, dialect: str, sync: bool
) -> None:
    model = on_emulator(dialect, default_headers={"SPASS-User-Id": "u"})
    calls = await driver.tool_calls(model, get_weather, "weather in Paris and Tokyo", sync)
    assert calls == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})]
    record = emulator.last_request
    assert record is not None
    (tool,) = record.json()["tools"]
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "get_weather"
    assert "city" in tool["function"]["parameters"]["properties"]
