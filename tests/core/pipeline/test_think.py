"""``ThinkSplitter`` (``pipeline/think.py``): a leading ``<think>`` block split off streamed
text, tags split across pieces, and the edge-whitespace rules (``trim=True`` for content,
``trim=False`` for reasoning fields)."""

from __future__ import annotations

import pytest

from sse_core.pipeline.think import ThinkSplitter


def split(pieces: list[str], *, trim: bool = True) -> tuple[str, str]:
    """Feed ``pieces`` then flush; the reasoning and the text, each joined."""
    splitter = ThinkSplitter(trim=trim)
    reasoning, text = [], []
    for piece in pieces:
        r, t = splitter.feed(piece)
        reasoning.append(r)
        text.append(t)
    r, t = splitter.flush()
    return "".join(reasoning) + r, "".join(text) + t


def every_cut(text: str) -> list[list[str]]:
    """``text`` whole, one character per piece, and cut in two at every point."""
    return [[text], list(text), *([text[:i], text[i:]] for i in range(1, len(text)))]


# --- states ---------------------------------------------------------------------------------


def test_plain_text_passes_through_at_once() -> None:
    splitter = ThinkSplitter()
    assert not splitter.passthrough
    assert splitter.feed("Hello") == ("", "Hello")
    assert splitter.passthrough
    assert splitter.feed("<think>x</think>") == ("", "<think>x</think>")  # only at the start
    assert splitter.flush() == ("", "")


def test_a_block_then_the_answer() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("<think>") == ("", "")
    assert splitter.feed("plan") == ("plan", "")
    assert not splitter.passthrough
    assert splitter.feed("</think>") == ("", "")
    assert splitter.feed("Answer") == ("", "Answer")
    assert splitter.passthrough
    assert splitter.feed(" more") == ("", " more")  # the answer's own whitespace is kept


@pytest.mark.parametrize("pieces", every_cut("  <think>\n plan A </think>\n\n Answer  "))
def test_any_cut_of_a_block_gives_the_same_split(pieces: list[str]) -> None:
    assert split(pieces) == ("plan A", "Answer  ")


@pytest.mark.parametrize("pieces", every_cut("<think>a </think"))
def test_an_unclosed_block_at_the_end_is_reasoning(pieces: list[str]) -> None:
    assert split(pieces) == ("a </think", "")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<thinking>x", ("", "<thinking>x")),
        ("<b>bold</b>", ("", "<b>bold</b>")),
        ("<", ("", "<")),
        ("<th", ("", "<th")),
        ("  <think", ("", "  <think")),
        ("<think>", ("", "")),
        ("x<think>y</think>z", ("", "x<think>y</think>z")),
        ("<think>a <think> b</think>c", ("a <think> b", "c")),
        ("<think>a </b> c</think>", ("a </b> c", "")),
        ("<think></think>Answer", ("", "Answer")),
        ("<think>  </think>  ", ("", "")),
    ],
)
def test_what_counts_as_a_tag(text: str, expected: tuple[str, str]) -> None:
    for pieces in every_cut(text):
        assert split(pieces) == expected, pieces


# --- edge whitespace, trim=True (content) ---------------------------------------------------


def test_whitespace_before_plain_text_is_released_with_it() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("  ") == ("", "")
    assert splitter.feed("\n") == ("", "")
    assert splitter.feed("hi") == ("", "  \nhi")


def test_a_whitespace_only_stream_is_text_at_the_end() -> None:
    splitter = ThinkSplitter()
    for piece in ["\n", " ", "\t", "\n\n"]:
        assert splitter.feed(piece) == ("", "")
    assert splitter.flush() == ("", "\n \t\n\n")
    assert splitter.flush() == ("", "")  # released once


def test_whitespace_inside_the_block_is_held_until_text_follows() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("<think>") == ("", "")
    assert splitter.feed("\n  ") == ("", "")  # right after the tag: dropped
    assert splitter.feed("a  ") == ("a", "")  # its trailing whitespace is held ...
    assert splitter.feed("\n") == ("", "")
    assert splitter.feed("b") == ("  \nb", "")  # ... and released before more reasoning
    assert splitter.feed(" \n</think>") == ("", "")  # ... or dropped before the tag
    assert splitter.feed(" \n") == ("", "")  # between the block and the answer: dropped
    assert splitter.feed(" answer ") == ("", "answer ")


def test_flush_inside_the_block_drops_trailing_whitespace_only() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("<think>abc \n") == ("abc", "")
    assert splitter.flush() == ("", "")
    other = ThinkSplitter()
    assert other.feed("<think>abc </th") == ("abc", "")
    assert other.flush() == (" </th", "")


def test_flush_after_the_block_gives_nothing() -> None:
    splitter = ThinkSplitter()
    splitter.feed("<think>a</think>\n\n")
    assert splitter.flush() == ("", "")


def test_many_whitespace_pieces_are_joined_once() -> None:
    splitter = ThinkSplitter()
    for _ in range(50_000):
        assert splitter.feed(" ") == ("", "")
    assert splitter.feed("x") == ("", " " * 50_000 + "x")


# --- trim=False (reasoning fields) -----------------------------------------------------------


def test_reasoning_field_without_tags_passes_through() -> None:
    splitter = ThinkSplitter(trim=False)
    assert splitter.feed(" step ") == ("", " step ")
    assert splitter.passthrough


def test_reasoning_field_keeps_whitespace_inside_and_before_the_closing_tag() -> None:
    splitter = ThinkSplitter(trim=False)
    assert splitter.feed("<think>") == ("", "")
    assert splitter.feed("\n a ") == ("a ", "")  # right after the opening tag: dropped
    assert splitter.feed("  ") == ("  ", "")  # whitespace pieces go out at once
    assert splitter.feed("b \n</think>") == ("b \n", "")
    assert splitter.feed("  after") == ("", "after")  # right after the closing tag: dropped
    assert splitter.feed(" more ") == ("", " more ")


@pytest.mark.parametrize("pieces", every_cut("  <think>\n a  b \n</think>\n c "))
def test_reasoning_field_any_cut_gives_the_same_text(pieces: list[str]) -> None:
    reasoning, after = split(pieces, trim=False)
    assert reasoning + after == "a  b \nc "


def test_reasoning_field_flush_inside_the_block() -> None:
    splitter = ThinkSplitter(trim=False)
    assert splitter.feed("<think>x </thi") == ("x ", "")
    assert splitter.flush() == ("</thi", "")
