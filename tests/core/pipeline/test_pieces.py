"""``Pieces`` (``pipeline/pieces.py``): append-only text read at any prefix, the previous join
reused so reading prefixes in order stays linear."""

from __future__ import annotations

import pytest

from sse_core.pipeline.pieces import Pieces


def filled(*texts: str) -> Pieces:
    pieces = Pieces()
    for text in texts:
        pieces.append(text)
    return pieces


def test_empty() -> None:
    assert Pieces().upto() == "" and Pieces().upto(0) == ""


def test_upto_reads_every_prefix() -> None:
    pieces = filled("a", "bc", "", "d")
    assert [pieces.upto(n) for n in range(5)] == ["", "a", "abc", "abc", "abcd"]
    assert pieces.upto() == "abcd"


def test_an_older_prefix_after_a_newer_one_is_joined_afresh() -> None:
    pieces = filled("a", "b", "c")
    assert pieces.upto(3) == "abc"
    assert pieces.upto(1) == "a"
    assert pieces.upto(2) == "ab"  # grows again from the older join
    assert pieces.upto() == "abc"


def test_appending_after_a_read_extends_the_text() -> None:
    pieces = filled("a")
    assert pieces.upto() == "a"
    pieces.append("b")
    assert pieces.upto() == "ab" and pieces.upto(1) == "a"


def test_it_is_a_list_of_its_pieces() -> None:
    pieces = filled("x", "y")
    assert list(pieces) == ["x", "y"] and len(pieces) == 2


@pytest.mark.timeout(30)
def test_reading_every_prefix_in_order_is_linear() -> None:
    # 200,000 reads of a growing text: joining afresh each time would copy 2e10 characters.
    pieces = Pieces()
    for _ in range(200_000):
        pieces.append("xy")
        text = pieces.upto()
    assert len(text) == 400_000
