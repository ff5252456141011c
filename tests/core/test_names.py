"""Unknown constructor arguments are refused by name (``sse_core._names.refuse_unknown``):
the hint for a name other clients use, else the nearest known name, else where such
arguments go; every unknown name in one message, never a value."""

from __future__ import annotations

import pytest

from sse_core import ConfigurationError
from sse_core._names import refuse_unknown

KNOWN = ("base_url", "api_key", "temperature", "max_tokens")
HINTS = {"api_base": "use base_url"}
OTHERWISE = "request parameters go in model_kwargs"


def _message(*given: str) -> str:
    with pytest.raises(ConfigurationError) as caught:
        refuse_unknown("Model", given, KNOWN, HINTS, OTHERWISE)
    return str(caught.value)


def test_known_names_pass() -> None:
    refuse_unknown("Model", KNOWN, KNOWN, HINTS, OTHERWISE)
    refuse_unknown("Model", (), KNOWN, HINTS, OTHERWISE)


def test_a_hinted_name_gets_its_hint() -> None:
    assert _message("api_base") == "Model has no such setting: 'api_base': use base_url"


def test_a_misspelt_name_gets_the_nearest_known_one() -> None:
    assert "'temprature': did you mean 'temperature'?" in _message("temprature")


def test_a_name_like_none_says_where_such_arguments_go() -> None:
    assert "'top_p': request parameters go in model_kwargs" in _message("top_p")


def test_every_unknown_name_in_one_message() -> None:
    message = _message("top_p", "api_key", "api_base")
    assert "'top_p'" in message and "'api_base'" in message
    assert "'api_key'" not in message  # known


def test_only_names_are_shown() -> None:
    """A dict's keys are what is checked: its values (a key, perhaps) are never read."""
    with pytest.raises(ConfigurationError) as caught:
        refuse_unknown("Model", {"apikey": "sk-canary-123"}, KNOWN, HINTS, OTHERWISE)
    assert "sk-canary" not in str(caught.value)
    assert "did you mean 'api_key'?" in str(caught.value)
