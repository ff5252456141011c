"""The ``burst`` fault: several frames per network write, as a buffering gateway sends them."""

from __future__ import annotations

import httpx
import pytest

from tests.emulator.emu_wire import CHAT, chat, events

LONG = "count to 200"


def raw_reads(client: httpx.Client, fault: str, content: str = LONG) -> list[bytes]:
    """The body as a raw client reads it: one item per read off the connection."""
    body = {
        "model": "test-model",
        "messages": [{"role": "user", "content": content}],
        "stream": True,
    }
    headers = {"X-Emulator-Fault": fault}
    with client.stream("POST", f"/v1{CHAT}", json=body, headers=headers) as response:
        assert response.status_code == 200
        return list(response.iter_raw())


def test_a_burst_merges_many_frames_into_few_reads(client: httpx.Client) -> None:
    plain = chat(client, "openai", LONG).content
    frames = len(events(plain))
    reads = raw_reads(client, "burst; frames=50")
    assert b"".join(reads) == plain  # the same bytes, only grouped
    groups = -(-frames // 50)
    assert frames > 200
    assert len(reads) <= 2 * groups < frames


@pytest.mark.parametrize("size", [1, 7, 50])
def test_each_write_holds_the_asked_number_of_whole_frames(client: httpx.Client, size: int) -> None:
    """With a pause before every write, each read is one write: ``size`` whole frames."""
    reads = raw_reads(client, f"burst; frames={size}, slow; delay=0.01", "count to 30")
    counts = [read.count(b"\n\n") for read in reads]
    assert all(read.endswith(b"\n\n") for read in reads)
    assert counts[:-1] == [size] * (len(counts) - 1)
    assert 1 <= counts[-1] <= size


def test_burst_rejects_a_bad_size(client: httpx.Client) -> None:
    response = chat(client, "openai", headers={"X-Emulator-Fault": "burst; frames=many"})
    assert response.status_code == 400
    assert "frames must be an integer" in response.json()["error"]["message"]
