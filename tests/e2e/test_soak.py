"""scripts/soak.py as a project tool: 200 mixed-fault streams through the core clients and
both adapters, sync and async, some abandoned, leave no socket open and raise nothing
untyped; and the tool does report a leaked socket and an untyped exception."""

from __future__ import annotations

import gc
import importlib.util
import io
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "soak.py"


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sse_soak_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(120)
def test_200_streams_leak_nothing() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--streams", "200", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    assert "streams: 200 in" in out and "leaked: 0" in out and "untyped exceptions: 0" in out
    for fault in ("error-frame", "truncate", "stall", "reset", "429-then-ok", "502-then-ok",
                  "slow", "split-utf8", "burst"):  # fmt: skip
        assert f"  {fault} " in out, f"no {fault} stream in\n{out}"
    assert "file descriptors:" in out and "max" in out


def test_the_plan_covers_every_channel_fault_and_mode(soak: ModuleType) -> None:
    plans = soak.plans(600, 0)
    assert {p.channel for p in plans} == {"client", "langchain", "llamaindex"}
    assert {p.fault for p in plans} == set(soak.FAULTS)
    assert {p.mode for p in plans} == {"consume", "whole", "abandon"}
    assert {p.is_async for p in plans} == {True, False}
    assert soak.plans(50, 1) == soak.plans(50, 1) != soak.plans(50, 2)


@pytest.mark.timeout(60)
def test_a_leaked_socket_and_an_untyped_exception_are_reported(
    soak: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept: list[socket.socket] = []

    def leaky(models: object, plan: object) -> None:
        kept.append(socket.socket())  # held on purpose: a leak
        raise KeyError("a defect")

    monkeypatch.setitem(soak.SYNC, "client", leaky)
    gateway = soak.Gateway()
    # An earlier test's unreferenced socket, closed by the collector during the soak, would
    # take one off the net count the soak reports: close such sockets before it counts.
    gc.collect()
    try:
        result = soak.soak(40, 0, gateway.base_url)
    finally:
        gateway.stop()
        leaked = len(kept)
    out = io.StringIO()
    soak.report(result, out)
    for held in kept:
        held.close()
    assert leaked > 0 and result.leaked_sockets >= leaked and result.failed
    assert len(result.tally.untyped) == leaked and "KeyError: 'a defect'" in out.getvalue()
