"""Recorders sharing a directory: every call kept, each pair consistent, and replay serving
the whole calls and skipping, by name, what is not one.

Several real processes record into one directory against the emulator at once; numbers are
claimed atomically, a sidecar is never in place without its body (also when a recorder is
SIGKILLed at random points), a sidecar holds its body's digest, leftovers of dead recorders
are cleaned, and a stream the consumer left is marked.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest

from sse_core import ChatClient, decode
from sse_core.transport import recording_store
from sse_core.transport.recording import recording_client
from sse_emulator import Emulator
from sse_emulator.pytest_plugin import ReplayFactory
from sse_emulator.replay.recording import RecordingError, TornCallWarning, load_recording

pytestmark = pytest.mark.timeout(120)

PROCESSES, CALLS = 3, 5
SLOW = {"X-Emulator-Fault": "slow; delay=0.01"}
RECORDER = textwrap.dedent(
    """
    import pathlib, sys, time
    from sse_core import ChatClient
    from sse_core.transport.recording import recording_client

    base_url, directory, who, go, calls = sys.argv[1:6]
    while not pathlib.Path(go).exists():  # all start together
        time.sleep(0.002)
    with recording_client(directory) as http:
        client = ChatClient(base_url=base_url, api_key="sk-k", http_client=http, timeout=30,
                            default_headers={"X-Emulator-Fault": "slow; delay=0.01"})
        for n in range(int(calls)):
            ask = {"model": "m", "messages": [{"role": "user", "content": f"echo: p{who} c{n}"}]}
            client.complete(ask)
    """
)


def ask(text: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}]}


def record(directory: Path, url: str, *texts: str, **settings: Any) -> None:
    with recording_client(directory) as http:
        client = ChatClient(base_url=url, api_key="sk-k", http_client=http, timeout=20, **settings)
        for text in texts:
            client.complete(ask(text))


def sidecar(directory: Path, number: int) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((directory / f"{number:03d}.json").read_text())
    return loaded


def test_processes_recording_into_one_directory_keep_every_call(
    emulator: Emulator, tmp_path: Path
) -> None:
    directory, go = tmp_path / "calls", tmp_path / "go"
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    args = [emulator.base_url(), str(directory), "", str(go), str(CALLS)]
    workers = [
        subprocess.Popen([sys.executable, str(script), *args[:2], str(who), *args[3:]])
        for who in range(PROCESSES)
    ]
    time.sleep(1.0)  # imports done: then all start at once
    go.touch()
    assert [worker.wait(timeout=90) for worker in workers] == [0] * PROCESSES
    total = PROCESSES * CALLS
    assert sorted(p.name for p in directory.iterdir()) == sorted(
        f"{n:03d}.{kind}" for n in range(1, total + 1) for kind in ("json", "sse")
    )
    asked = set()
    for number in range(1, total + 1):  # each sidecar is its own body's
        meta = sidecar(directory, number)
        text = meta["request"]["body"]["messages"][0]["content"]
        body = (directory / f"{number:03d}.sse").read_bytes()
        assert decode(body).content == text.removeprefix("echo: ")
        assert meta["body_sha256"] == hashlib.sha256(body).hexdigest()
        asked.add(text)
    assert len(asked) == total
    assert len(load_recording(directory).responses) == total


def test_replay_skips_and_names_a_lone_body_among_recorded_pairs(
    emulator: Emulator, tmp_path: Path
) -> None:
    record(tmp_path, emulator.base_url(), "echo: one", "echo: two")
    load_recording(tmp_path)
    (tmp_path / "002.json").unlink()
    with pytest.warns(TornCallWarning, match=r"002\.sse has no 002\.json beside it") as caught:
        served = load_recording(tmp_path)
    assert "not served as a plain 200" in str(caught[0].message)
    assert [Path(response.source).name for response in served.responses] == ["001.sse"]


def test_replay_refuses_a_body_paired_with_another_calls_sidecar(
    emulator: Emulator, tmp_path: Path
) -> None:
    record(tmp_path, emulator.base_url(), "echo: aaaa", "echo: bbbb")  # bodies of one size
    one, two = tmp_path / "001.sse", tmp_path / "002.sse"
    first, second = one.read_bytes(), two.read_bytes()
    one.write_bytes(second)
    two.write_bytes(first)
    with pytest.raises(RecordingError, match=r"001\.json does not describe 001\.sse.*SHA-256"):
        load_recording(tmp_path)


def test_a_claimed_number_is_a_call_being_recorded_and_replay_says_so(
    emulator: Emulator, tmp_path: Path
) -> None:
    record(tmp_path, emulator.base_url(), "echo: one")
    assert recording_store.claim_number(tmp_path) == 2  # as a recorder does at a head
    with pytest.warns(TornCallWarning, match=r"002\.json has no 002\.sse.*recorder's claim"):
        assert len(load_recording(tmp_path).responses) == 1
    record(tmp_path, emulator.base_url(), "echo: two")  # takes the next number, not the claim
    assert (tmp_path / "003.sse").is_file() and not (tmp_path / "002.sse").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_the_body_is_in_place_before_its_sidecar(
    emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So a sidecar is the mark of a whole call: a recorder stopped between the two leaves a
    body beside a claim, which replay skips by name."""
    renamed: list[str] = []
    replace = os.replace

    def spy(source: Any, target: Any) -> None:
        renamed.append(Path(target).name)
        replace(source, target)

    monkeypatch.setattr(recording_store.os, "replace", spy)
    record(tmp_path, emulator.base_url(), "echo: one")
    assert renamed == ["001.sse", "001.json"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True, timeout=30)  # fmt: skip
    return int(done.stdout)


def test_leftovers_of_recorders_that_are_gone_are_removed(tmp_path: Path) -> None:
    dead, host = _dead_pid(), socket.gethostname()
    leftovers = {
        f".004.sse.{dead}.1.tmp": b"data: half",
        f".004.json.{dead}.1.tmp": b"{",
        "005.json": json.dumps({"claimed_by": {"pid": dead, "host": host}}).encode(),
        "009.sse": b"data: a body whose sidecar was not written",
        "009.json": json.dumps({"claimed_by": {"pid": dead, "host": host}}).encode(),
        f".claim.json.{dead}.1.tmp": b"{",
    }
    kept = {
        f".006.sse.{os.getpid()}.1.tmp": b"data: mine, being written",
        "007.json": json.dumps({"claimed_by": {"pid": os.getpid(), "host": host}}).encode(),
        "008.json": json.dumps({"claimed_by": {"pid": dead, "host": "another-host"}}).encode(),
        "notes.tmp": b"not ours",
    }
    for name, data in {**leftovers, **kept}.items():
        (tmp_path / name).write_bytes(data)
    recording_client(tmp_path).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)


def test_a_stream_left_early_is_marked_partial(emulator: Emulator, tmp_path: Path) -> None:
    with recording_client(tmp_path) as http:
        client = ChatClient(base_url=emulator.base_url(), http_client=http, default_headers=SLOW)
        with client.stream(ask("count to 30")) as stream:
            next(iter(stream))
        client.complete(ask("count to 3"))
    left, whole = sidecar(tmp_path, 1), sidecar(tmp_path, 2)
    assert left["partial"] is True and left["ended"] == "consumer left early"
    assert whole["partial"] is False
    assert whole["ended"] in ("whole", "closed after its last event")
    assert len(load_recording(tmp_path).responses) == 2  # a partial call still replays


def test_a_stream_that_broke_is_marked_partial_with_the_error(
    emulator: Emulator, tmp_path: Path
) -> None:
    with pytest.raises(Exception, match="incomplete"):
        record(tmp_path, emulator.base_url(), "count to 9", max_retries=0,
               default_headers={"X-Emulator-Fault": "reset; after=3"})  # fmt: skip
    meta = sidecar(tmp_path, 1)
    assert (
        meta["partial"] is True and meta["ended"] == f"failed: {httpx.RemoteProtocolError.__name__}"
    )


KILLS = 20
KILLED = textwrap.dedent(
    """
    import sys
    from sse_core import ChatClient
    from sse_core.transport.recording import recording_client

    base_url, directory = sys.argv[1:3]
    with recording_client(directory) as http:
        client = ChatClient(base_url=base_url, api_key="sk-k", http_client=http, timeout=30)
        print("ready", flush=True)
        for n in range(10_000):  # until killed
            slow = {"X-Emulator-Fault": "slow; delay=0.005"} if n % 2 else {}
            ask = {"model": "m", "messages": [{"role": "user", "content": f"echo: c{n}"}]}
            client.complete(ask, headers=slow)
    """
)


def whole_calls(directory: Path) -> list[int]:
    """The calls with a sidecar (not a claim), each checked to be whole: its body beside it,
    the body the sidecar's digest and the answer to the sidecar's request."""
    whole = []
    for path in sorted(directory.glob("*.json")):
        meta = json.loads(path.read_bytes() or b"{}")
        if "format" not in meta:
            continue  # a claim: no call yet
        body = path.with_suffix(".sse").read_bytes()  # a sidecar never stands without its body
        assert meta["body_sha256"] == hashlib.sha256(body).hexdigest()
        asked = meta["request"]["body"]["messages"][0]["content"]
        assert decode(body).content == asked.removeprefix("echo: ")
        whole.append(int(path.stem))
    return whole


def number_of(name: str) -> int | None:
    """The call a file of a recording directory belongs to (None: a claim being made)."""
    found = re.match(r"\.?(\d+)\.", name)
    return int(found[1]) if found else None


@pytest.mark.timeout(300)
def test_a_recorder_killed_anywhere_leaves_each_call_whole_or_absent(
    emulator: Emulator, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    """SIGKILL at random points of a recording (only the process this test started): every
    call on disk is whole or is no call (a claim, a temporary file); replay serves the whole
    ones and names the rest; the next recorder removes what the killed one left."""
    directory, script = tmp_path / "calls", tmp_path / "killed.py"
    script.write_text(KILLED)
    chance = random.Random(28)
    for _ in range(KILLS):
        process = subprocess.Popen(
            [sys.executable, str(script), emulator.base_url(), str(directory)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None and process.stdout.readline() == "ready\n"
            time.sleep(chance.uniform(0.02, 0.4))
        finally:
            process.send_signal(signal.SIGKILL)  # by the PID this test holds
            process.communicate(timeout=30)
        whole = whole_calls(directory)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                served = load_recording(directory).responses
            except RecordingError as error:  # nothing whole yet: what is there is named
                assert not whole
                served, refused = (), str(error)
            else:
                refused = ""
        assert [Path(r.source).name for r in served] == [f"{n:03d}.sse" for n in whole]
        leftovers = {p.name for p in directory.iterdir() if number_of(p.name) not in whole}
        named = " ".join([refused, *(str(w.message) for w in caught)])
        assert all(name in named for name in leftovers), (leftovers, named)
    recording_client(directory).close()  # a recorder starting here removes the leftovers
    whole = whole_calls(directory)
    assert len(whole) >= KILLS // 2
    assert sorted(p.name for p in directory.iterdir()) == sorted(
        f"{n:03d}.{kind}" for n in whole for kind in ("json", "sse")
    )
    replay = ChatClient(base_url=emulator_replay(directory).base_url(), api_key="sk-k")
    for number in whole:
        asked = sidecar(directory, number)["request"]["body"]["messages"][0]["content"]
        assert replay.complete(ask("any")).content == asked.removeprefix("echo: ")
