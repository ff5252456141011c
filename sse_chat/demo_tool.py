"""The demo tool of ``sse-chat chat``: a fixed, offline weather forecast."""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json

__all__ = ["WEATHER_TOOL", "get_weather", "run_tool"]

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city name"}},
            "required": ["city"],
        },
    },
}


def get_weather(city: str) -> dict[str, Any]:
    """The demo tool: a fixed, offline forecast."""
    return {"city": city, "forecast": "sunny", "temperature_c": 21}


def run_tool(name: str, arguments: str) -> Any:
    """Run a demo tool call locally; bad arguments give an error value, not an exception."""
    try:
        parsed = from_json(arguments or "{}")
        if name != "get_weather" or not isinstance(parsed, dict):
            return {"error": f"no tool {name!r} taking these arguments"}
        return get_weather(**parsed)
    except (ValueError, TypeError) as exc:
        return {"error": f"bad arguments: {exc}"}
