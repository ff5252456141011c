"""``Timeouts`` (``transport/timeouts.py``): every phase positive or None, from a number, None,
a Timeouts or a mapping of its phases (how dumps hold it, so a dumped model loads again)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from sse_core import ConfigurationError, Timeouts


def test_timeouts_of() -> None:
    assert Timeouts.of(5) == Timeouts(connect=5, first_byte=5, idle=5, data_idle=5, total=None)
    assert Timeouts.of(None).idle is None
    with pytest.raises(ConfigurationError):
        Timeouts.of(-1)


def test_timeouts_defaults_and_none_means_no_limit() -> None:
    default = Timeouts()
    assert (default.connect, default.first_byte, default.idle, default.total) == (
        10.0,
        600.0,
        300.0,
        None,
    )
    unlimited = Timeouts.of(None)
    assert (unlimited.connect, unlimited.first_byte, unlimited.idle, unlimited.data_idle) == (
        None,
        None,
        None,
        None,
    )
    given = Timeouts(idle=1)
    assert Timeouts.of(given) is given


@pytest.mark.parametrize("phase", ["connect", "first_byte", "idle", "data_idle", "total"])
@pytest.mark.parametrize("value", [0, -1, -0.5, math.nan, -math.inf])
def test_every_phase_must_be_positive(phase: str, value: float) -> None:
    with pytest.raises(ConfigurationError, match=f"Timeouts.{phase} must be a positive"):
        Timeouts(**{phase: value})


@pytest.mark.parametrize("value", [True, "5", [5]])
def test_a_phase_must_be_a_number(value: object) -> None:
    with pytest.raises(ConfigurationError, match=r"Timeouts\.idle must be a number of seconds"):
        Timeouts(idle=value)  # type: ignore[arg-type]


def test_ints_become_floats() -> None:
    assert Timeouts(idle=3).idle == 3.0 and isinstance(Timeouts(idle=3).idle, float)


def test_a_mapping_of_phases_is_taken() -> None:
    """A model dump holds its Timeouts as a dict: it loads again as the same Timeouts."""
    given = Timeouts(connect=3, total=30)
    assert Timeouts.of(dataclasses.asdict(given)) == given
    assert Timeouts.of({"idle": 7}) == Timeouts(idle=7)


def test_a_mapping_is_checked_like_the_fields() -> None:
    with pytest.raises(ConfigurationError, match=r"Timeouts.idle must be a positive"):
        Timeouts.of({"idle": 0})
    phases = "the phases are connect, first_byte, idle, data_idle, total"
    with pytest.raises(ConfigurationError, match=f"'reed': {phases}"):
        Timeouts.of({"reed": 5})
    # httpx's own phases, which a migrant's mapping holds, say which of ours to use
    with pytest.raises(ConfigurationError, match=r"'read': httpx's read .* first_byte .* idle"):
        Timeouts.of({"read": 5})
    with pytest.raises(ConfigurationError, match=r"'first_bite': did you mean 'first_byte'\?"):
        Timeouts.of({"first_bite": 5})
