"""The fast-path registry: a shortcut is on only inside its tested range, with its probe
passing, and unless ``SSE_CONNECTORS_FAST=0``; each decision says why, made once."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from sse_core import fast_paths
from sse_core.fast_paths import ENV, FastPath, decide, in_range, is_on, register


@pytest.fixture
def sample() -> Iterator[FastPath]:
    """A registered fast path on httpx (installed), its probe passing; removed afterwards."""
    path = register(
        FastPath(
            name="test.sample",
            shortcut="a test",
            tested={"httpx": ">=0.1,<99"},
            probe=lambda: None,
            faithful="the public way",
        )
    )
    fast_paths.reset()
    yield path
    fast_paths._REGISTRY.pop(path.name)
    fast_paths.reset()


@pytest.mark.parametrize(
    ("version", "spec", "failed"),
    [
        ("1.8.3", ">=1.8,<1.9", None),
        ("1.8", ">=1.8,<1.9", None),
        ("1.9.0", ">=1.8,<1.9", "<1.9"),
        ("1.7.9", ">=1.8,<1.9", ">=1.8"),
        ("0.14.10", ">=0.14.5,<0.15", None),
        ("0.14.4", ">=0.14.5,<0.15", ">=0.14.5"),
        ("1.9.0rc1", ">=1.8,<1.9", "<1.9"),
        ("2.14.4", ">=2.11,<2.15", None),
        ("1.0.9", "==1.0.9", None),
        ("1.0.10", "<=1.0.9", "<=1.0.9"),
        ("garbage", ">=1", ">=1"),
    ],
)
def test_versions_are_compared_numerically(version: str, spec: str, failed: str | None) -> None:
    assert in_range(version, spec) == failed


def test_an_unsupported_clause_is_refused() -> None:
    with pytest.raises(ValueError, match=r"~=1\.8"):
        in_range("1.8", "~=1.8")


def test_inside_its_range_with_its_probe_passing_a_path_is_on(
    sample: FastPath, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    decision = decide(sample.name)
    assert decision.on and decision.why.endswith("probe passed")
    assert fast_paths.fast_paths()[sample.name] == {"on": True, "why": decision.why}


def test_the_switch_turns_it_off(sample: FastPath, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "0")
    assert fast_paths.fast_paths()[sample.name] == {"on": False, "why": "SSE_CONNECTORS_FAST=0"}


def test_a_newer_version_turns_it_off(sample: FastPath, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(fast_paths.metadata, "version", lambda name: "99.1.0")
    decision = decide(sample.name)
    assert not decision.on
    assert decision.why == "httpx 99.1.0 is newer than the tested <99"


def test_an_older_or_missing_version_turns_it_off(
    sample: FastPath, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(fast_paths.metadata, "version", lambda name: "0.0.9")
    assert decide(sample.name).why == "httpx 0.0.9 is older than the tested >=0.1"
    fast_paths.reset()

    def missing(name: str) -> str:
        raise fast_paths.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(fast_paths.metadata, "version", missing)
    assert decide(sample.name) == fast_paths.Decision(False, "httpx is not installed")


@pytest.mark.parametrize(
    ("probe", "why"),
    [
        (lambda: "ChatResponse has a new field 'x'", "probe: ChatResponse has a new field 'x'"),
        (lambda: 1 / 0, "probe: ZeroDivisionError: division by zero"),
    ],
)
def test_a_failed_probe_turns_it_off(
    sample: FastPath, monkeypatch: pytest.MonkeyPatch, probe: object, why: str
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    register(FastPath("test.sample", "a test", {"httpx": ">=0.1"}, probe, "public"))  # type: ignore[arg-type]
    assert decide(sample.name) == fast_paths.Decision(False, why)


def test_the_decision_is_made_once_not_per_use(
    sample: FastPath, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    calls: list[int] = []

    def probe() -> None:
        calls.append(1)

    register(FastPath("test.sample", "a test", {"httpx": ">=0.1"}, probe, "public"))
    assert is_on(sample.name)
    monkeypatch.setenv(ENV, "0")  # read at the decision only
    assert all(is_on(sample.name) for _ in range(100))
    assert calls == [1]
    fast_paths.reset()
    assert not is_on(sample.name)


def test_forced_switches_a_path_for_a_block(sample: FastPath) -> None:
    before = decide(sample.name)
    with fast_paths.forced(sample.name, not before.on):
        assert is_on(sample.name) is not before.on
    assert decide(sample.name) == before


def test_the_report_names_versions_ranges_and_paths(sample: FastPath) -> None:
    report = fast_paths.report()
    assert report["versions"]["httpx"] and report["versions"]["sse-connectors"]
    assert report["tested"][sample.name] == {"httpx": ">=0.1,<99"}
    assert set(report["fast_paths"]) >= {sample.name}
    assert report["python"] == ".".join(map(str, sys.version_info[:3]))
